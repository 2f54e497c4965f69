"""``GET /apps``' and ``GET /nodes``' query parameters, checked and applied as
``RMWebServices`` (``ApplicationsRequestBuilder``, ``parseQueries``) and
``ClientRMService.getApplications`` do, with their 400s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fairshare.resources.javalang import parse_int
from fairshare.resources.vector import LONG_MAX
from fairshare.server.control import Refused, bad_request
from fairshare.server.rest.dao_apps import DESELECTS
from fairshare.server.rest.ids import illegal_argument
from fairshare.server.view import RMAppView, RMNodeView

APP_STATES = ("NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED", "RUNNING", "FINISHED", "FAILED",
              "KILLED")  # YarnApplicationState, in declaration order
FINAL_STATUSES = ("UNDEFINED", "SUCCEEDED", "FAILED", "KILLED", "ENDED")
NODE_STATES = ("NEW", "RUNNING", "UNHEALTHY", "DECOMMISSIONED", "LOST", "REBOOTED",
               "DECOMMISSIONING", "SHUTDOWN")


def number_format(text: str) -> Refused:
    """A ``NumberFormatException`` (an ``IllegalArgumentException``: 400)."""
    return Refused(400, "NumberFormatException", "java.lang.NumberFormatException",
                   f'For input string: "{text}"')


def _long(text: str) -> int:
    try:
        return parse_int(text, bits=64)
    except ValueError:
        raise number_format(text) from None


def _set(values: Sequence[str], *, states: bool = False) -> set[str]:
    """``parseQueries``: comma-separated values, trimmed, lower-cased; a state that is no
    ``YarnApplicationState`` is a 400."""
    out: set[str] = set()
    for query in values:
        for piece in query.split(","):
            value = piece.strip()
            if not value:
                continue
            if states and value.upper() not in APP_STATES:
                raise bad_request(f"Invalid application-state {value} specified. It should "
                                  f"be one of [{', '.join(APP_STATES)}]")
            out.add(value.lower())
    return out


def _range(begin: str | None, end: str | None, name: str, short: str) -> tuple[int, int]:
    low = _long(begin) if begin else 0
    if low < 0:
        raise bad_request(f"{name}TimeBegin must be greater than 0")
    high = _long(end) if end else LONG_MAX
    if high < 0:
        raise bad_request(f"{name}TimeEnd must be greater than 0")
    if low > high:
        raise bad_request(f"{name}TimeEnd must be greater than {short}TimeBegin")
    return low, high


@dataclass(frozen=True, slots=True)
class AppsQuery:
    states: frozenset[str]
    final_status: str | None
    users: frozenset[str]
    queues: frozenset[str]
    limit: int
    started: tuple[int, int]
    finished: tuple[int, int]
    types: frozenset[str]
    tags: frozenset[str]
    name: str | None
    deselects: frozenset[str]

    def select(self, apps: Sequence[RMAppView]) -> list[RMAppView]:
        """The apps that pass every filter, at most ``limit``, in the order given."""
        out: list[RMAppView] = []
        for a in apps:
            if len(out) >= self.limit:
                break
            if self._keeps(a):
                out.append(a)
        return out

    def _keeps(self, a: RMAppView) -> bool:
        if self.states and a.state.lower() not in self.states:
            return False
        if self.users and a.user not in self.users:
            return False
        if self.queues and a.queue not in self.queues:
            return False
        if self.types and a.application_type.lower() not in self.types:
            return False
        if self.tags and not self.tags & set(a.tags):
            return False
        if not self.started[0] <= a.submitted_ms <= self.started[1]:
            return False
        if not self.finished[0] <= a.finished_ms <= self.finished[1]:
            return False
        if self.final_status is not None:
            # FinalApplicationStatus.valueOf(the text as given): case matters, and it is
            # only called for an app that got this far (RMWebServices.getApps)
            if self.final_status not in FINAL_STATUSES:
                raise illegal_argument("No enum constant org.apache.hadoop.yarn.api.records."
                                       f"FinalApplicationStatus.{self.final_status}")
            if a.final_status.lower() != self.final_status.lower():
                return False
        return self.name is None or a.name == self.name


def apps_query(*, state: str | None, states: Sequence[str], final_status: str | None,
               user: str | None, queue: str | None, limit: str | None,
               started_begin: str | None, started_end: str | None,
               finished_begin: str | None, finished_end: str | None,
               application_types: Sequence[str], application_tags: Sequence[str],
               name: str | None, deselects: Sequence[str]) -> AppsQuery:
    """The query, checked; :class:`Refused` with YARN's 400 for a bad value."""
    wanted = _set([*states, *([state] if state else [])], states=True)
    most = LONG_MAX
    if limit:
        most = _long(limit)
        if most <= 0:
            raise bad_request("limit value must be greater then 0")
    return AppsQuery(
        states=frozenset(wanted), final_status=final_status or None,
        users=frozenset([user] if user else []), queues=frozenset([queue] if queue else []),
        limit=most,
        started=_range(started_begin, started_end, "started", "start"),
        finished=_range(finished_begin, finished_end, "finished", "finish"),
        types=frozenset(_set(application_types)), tags=frozenset(_set(application_tags)),
        name=name or None, deselects=parse_deselects(deselects))


def parse_deselects(values: Sequence[str]) -> frozenset[str]:
    """``DeSelectFields.initFields``: names matched ignoring case; an unknown one is a 400."""
    out: set[str] = set()
    for value in values:
        for piece in value.split(","):
            name = piece.strip()
            known = next((d for d in DESELECTS if d.lower() == name.lower()), None)
            if known is None:
                raise bad_request(f"Invalid deSelects string {name} specified. It should be "
                                  f"one of {', '.join(DESELECTS)}")
            out.add(known)
    return frozenset(out)


def node_states(states: str | None) -> frozenset[str]:
    """``getNodes``: every state when none is named; ``NodeState.valueOf`` of each (upper-
    cased, not trimmed) else — an ``IllegalArgumentException``."""
    if not states:
        return frozenset(NODE_STATES)
    out = set()
    for piece in states.split(","):
        if piece.upper() not in NODE_STATES:
            raise illegal_argument("No enum constant org.apache.hadoop.yarn.api.records."
                                   f"NodeState.{piece.upper()}")
        out.add(piece.upper())
    return frozenset(out)


def select_nodes(nodes: Sequence[RMNodeView], states: frozenset[str]) -> list[RMNodeView]:
    return [n for n in nodes if n.state in states]
