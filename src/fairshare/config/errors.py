"""The configuration layer's one error type.

Every problem with a user's configuration — a malformed ``fair-scheduler.xml``, a bad resource
string, an invalid yarn-site value — is raised as :class:`ConfigError`, carrying the file and line
where there is one so the CLI can print ``file:line: message`` and exit 2. Several errors found in
one pass are raised together as :class:`ConfigErrors`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol


class LocatedWarning(Protocol):
    """What a warning carried along with errors looks like (``config.model.ConfigWarning``)."""

    @property
    def file(self) -> str | None: ...

    @property
    def line(self) -> int | None: ...


class ConfigError(Exception):
    """A configuration error, located where possible (``file:line: message``).

    ``warnings`` carries the warnings found in the same pass, so that a failed load can still
    show them next to the errors.
    """

    def __init__(
        self,
        message: str,
        file: str | None = None,
        line: int | None = None,
        warnings: Sequence[LocatedWarning] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.warnings = tuple(warnings)

    def __str__(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}: {self.message}"
        if self.file:
            return f"{self.file}: {self.message}"
        return self.message


class ConfigErrors(ConfigError):
    """Several configuration errors found in one pass; ``str()`` lists one per line."""

    def __init__(
        self, errors: Iterable[ConfigError], warnings: Sequence[LocatedWarning] = ()
    ) -> None:
        self.errors = list(errors)
        first = self.errors[0] if self.errors else ConfigError("unknown configuration error")
        super().__init__(first.message, first.file, first.line, warnings)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


def all_errors(error: ConfigError) -> list[ConfigError]:
    """Flatten a :class:`ConfigErrors` (or a single error) into a list."""
    if isinstance(error, ConfigErrors):
        return list(error.errors)
    return [error]
