"""What the engine refuses, by kind: every error a command or query raises is an
:class:`EngineError`, so a caller may catch them all or only one kind (an unknown app, a clock
going back, …).

The engine raises these for steps that make no sense for the state it is in; they are the
caller's mistakes, never YARN's decisions (a rejected app or a refused ask is an event, not an
error). Each class is also a :class:`ValueError`, as ``EngineError`` always was, and the
messages are the ones the CLI prints.
"""

from __future__ import annotations


class EngineError(ValueError):
    """A step that makes no sense for the current state (unknown app or node, duplicate id)."""


class UnknownApp(EngineError):
    """No application has that id."""


class UnknownNode(EngineError):
    """No registered node has that name."""


class UnknownContainer(EngineError):
    """The application runs no container with that id."""


class DuplicateApp(EngineError):
    """An application with that id was already submitted."""


class DuplicateNode(EngineError):
    """A node with that name is already registered."""


class DuplicateContainer(EngineError):
    """A container with that id is already running."""


class AppStopped(EngineError):
    """The application has ended (or was rejected): it can no longer ask, end or recover."""


class AppNotEnded(EngineError):
    """The application has not ended: it cannot be forgotten."""


class RecoveryRefused(EngineError):
    """A recovered container cannot be a true report (it does not fit on its node)."""


class ClockError(EngineError):
    """The clock cannot be set there: before now, below 0, or past ``MAX_TIME_MS``."""


__all__ = [
    "AppNotEnded",
    "AppStopped",
    "ClockError",
    "DuplicateApp",
    "DuplicateContainer",
    "DuplicateNode",
    "EngineError",
    "RecoveryRefused",
    "UnknownApp",
    "UnknownContainer",
    "UnknownNode",
]
