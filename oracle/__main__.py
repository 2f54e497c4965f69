"""``python -m oracle``: see :mod:`oracle.main`."""

from oracle.main import entry

if __name__ == "__main__":
    entry()
