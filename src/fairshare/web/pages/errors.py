"""What a page answers when what it was asked for is not there (a 404 with the reason)."""

from __future__ import annotations


class NotFound(LookupError):
    """An unknown queue or app: the message says what was looked for and where."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"
