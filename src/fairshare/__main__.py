"""``python -m fairshare``: the same as the ``fairshare`` command."""

from fairshare.cli.main import main

main()
