"""``python -m fuzz``: see :mod:`fuzz.main`."""

from fuzz.main import entry

if __name__ == "__main__":
    entry()
