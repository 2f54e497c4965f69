"""What a request may ask of the server: the operations the REST routes call.

:class:`Control` is implemented by the engine loop (``loop.py``): every method is safe to
call from any thread (a request's worker thread); those that change state queue a command to
the engine thread and wait for it to be applied, so a request that returns has its effect in
the next snapshot. A refusal is a :class:`Refused` carrying what YARN's RM answers for the
same request (status, exception and message, or a plain-text body).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from fairshare.resources.vector import Resource
from fairshare.server.submission import Submission
from fairshare.server.view import ServerSnapshot


class Refused(Exception):
    """A request YARN refuses: ``status`` with a ``RemoteException`` body of ``exception``
    (simple name) / ``java_class`` and ``message`` — or, ``plain``, the message as a
    text/plain body (a denied kill or move)."""

    def __init__(self, status: int, exception: str, java_class: str, message: str | None,
                 *, plain: bool = False) -> None:
        super().__init__(message or exception)
        self.status = status
        self.exception = exception
        self.java_class = java_class
        self.message = message
        self.plain = plain


def not_found(message: str) -> Refused:
    """Jersey's ``NotFoundException`` as ``GenericExceptionHandler`` writes it."""
    return Refused(404, "NotFoundException", "org.apache.hadoop.yarn.webapp.NotFoundException",
                   f"java.lang.Exception: {message}")


def bad_request(message: str) -> Refused:
    return Refused(400, "BadRequestException",
                   "org.apache.hadoop.yarn.webapp.BadRequestException",
                   f"java.lang.Exception: {message}")


def unavailable(message: str) -> Refused:
    """The RM cannot take the request (it is stopping; its state store failed)."""
    return Refused(503, "ServiceUnavailableException",
                   "org.apache.hadoop.yarn.exceptions.YarnRuntimeException", message)


@dataclass(frozen=True, slots=True)
class KillResult:
    rm_state: str  # the RMAppState right after the kill was queued (FINAL_SAVING) or KILLED
    done: bool  # already killed before this request: YARN answers 200, else 202


@dataclass(frozen=True, slots=True)
class StreamedEvent:
    """One engine event for ``/ws/v1/fairshare/events``: its ``events.jsonl`` record, kept
    as its compact JSON text (what the stream sends; a third of the record's memory)."""

    seq: int
    type: str
    data: str

    @classmethod
    def of(cls, seq: int, record: Mapping[str, object]) -> StreamedEvent:
        return cls(seq, str(record["type"]), json.dumps(record, separators=(",", ":")))

    @property
    def record(self) -> dict[str, object]:
        parsed: dict[str, object] = json.loads(self.data)
        return parsed


class Control(Protocol):
    def snapshot(self) -> ServerSnapshot:
        """The latest frozen snapshot (never older than the last change a request made)."""

    def new_application(self) -> tuple[str, Resource]:
        """The next application id and the maximum container size (POST new-application)."""

    def submit(self, submission: Submission) -> None:
        """Accept ``submission`` (202): placement, the scheduler's ACL check and its other
        rejections happen after, and FAIL the app, as in YARN. Refused: the id was not given
        out by new_application, or is already used (400, YARN's messages)."""

    def kill(self, app_id: str, user: str, diagnostics: str | None) -> KillResult:
        """PUT …/state KILLED. Refused: unknown app (404)."""

    def move(self, app_id: str, queue: str, user: str) -> str:
        """PUT …/queue: the queue it is in afterwards. Refused: unknown app (404), a move the
        scheduler refuses (no such leaf, a limit: 503; a queue that does not exist is a plain
        403 when yarn.acl.enable is true), an app that ended (400, plain)."""

    def events_since(self, seq: int, timeout_s: float) -> Sequence[StreamedEvent]:
        """Engine events after ``seq`` (0: from the first kept), waiting up to ``timeout_s``
        for the first one; the oldest are forgotten past a bound (then from the oldest kept)."""


class EngineDriver(Protocol):
    """The engine loop as the server's own parts see it (the AM protocol, the executors'
    bookkeeping): the one way to change the engine from outside its thread."""

    def command(self, command: object) -> Sequence[object]:
        """Apply one engine command (``fairshare.core`` commands vocabulary) on the engine
        thread, journaled as every command is, and return the events it emitted (engine
        ``Event`` objects). An ``EngineError`` is raised in the caller's thread."""

    def add_listener(self, listener: EventListener) -> None:
        """``listener`` is called on the engine thread with every batch of events, in order,
        right after the command that emitted them (it must not block; it may not call
        ``command``, which would wait for itself)."""

    def now_ms(self) -> int:
        """The server's clock, epoch ms."""


class EventListener(Protocol):
    def __call__(self, events: Sequence[object]) -> None: ...
