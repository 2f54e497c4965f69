"""The AM protocol's records: an attempt as the hub keeps it, what an allocate call returns,
and what the RM's app record takes from its AM (:class:`AMReport`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from fairshare.core import Completion
from fairshare.resources.vector import Resource
from fairshare.server.view import yarn_container_id

# ContainerExitStatus and SchedulerUtils' diagnostics, as the RM writes them in the completed
# statuses of an AllocateResponse
ABORTED = -100
PREEMPTED = -102
RELEASED_CONTAINER = "Container released by application"
LOST_CONTAINER = "Container released on a *lost* node"
PREEMPTED_CONTAINER = "Container preempted by scheduler"


@dataclass(frozen=True, slots=True)
class AMReport:
    """What the RM's app record (``RMAppImpl``/``RMAppAttemptImpl``) takes from the AM."""

    registered: bool = False  # the current attempt's AM registered: the app is RUNNING
    final_status: str = "UNDEFINED"  # FinalApplicationStatus the AM unregistered with
    diagnostics: str = ""
    progress: float = 0.0
    tracking_url: str = ""
    host: str = ""  # the AM's host and RPC port, as it registered them
    rpc_port: int = -1
    attempts_failed: int = 0  # attempts failed by their AM exiting before unregistering
    failed: bool = False  # the last allowed attempt failed: the app is FAILED

    def with_(self, **changes: object) -> AMReport:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class AllocatedContainer:
    """A container newly allocated to the attempt (YARN's ``Container`` record)."""

    id: str  # YARN's form: container_<ts>_<n>_<attempt>_<seq>
    node: str  # the node id, host:port
    node_http_address: str
    resource: Resource
    priority: int


@dataclass(frozen=True, slots=True)
class CompletedStatus:
    """A ``ContainerStatus`` of a completed container."""

    id: str
    exit_status: int
    diagnostics: str


@dataclass(frozen=True, slots=True)
class AllocateResult:
    response_id: int
    allocated: tuple[AllocatedContainer, ...]
    completed: tuple[CompletedStatus, ...]
    # FairScheduler.allocate: every container still marked for preemption, in each answer
    # until it is gone (a StrictPreemptionContract)
    to_preempt: tuple[str, ...]


@dataclass(eq=False, slots=True)
class Attempt:
    """One application attempt with an AM of its own, as the hub keeps it."""

    app: str
    number: int
    am_container: str  # engine id
    token_digest: str = field(repr=False)
    registered: bool = False
    unregistered: bool = False
    ended: bool = False
    progress: float = 0.0
    response_id: int = 0
    # running containers: engine id → (node, resource, priority); the AM's among them
    live: dict[str, tuple[str, Resource, int]] = field(default_factory=dict)
    started: set[str] = field(default_factory=set)  # task containers the AM started
    # exited by themselves, their completion not yet applied: → (exit status, diagnostics)
    exit_codes: dict[str, tuple[int, str]] = field(default_factory=dict)
    allocated: list[AllocatedContainer] = field(default_factory=list)  # not yet given to the AM
    completed: list[CompletedStatus] = field(default_factory=list)
    to_preempt: set[str] = field(default_factory=set)
    # what the AM asked for and was not given yet: (priority, normalised resource) → count
    asked: dict[tuple[int, Resource], int] = field(default_factory=dict)

    @property
    def attempt_id(self) -> str:
        """``ApplicationAttemptId.toString``: appattempt_<ts>_<n>_<attempt, six digits>."""
        return f"appattempt_{self.app.removeprefix('application_')}_{self.number:06d}"

    def add_asked(self, priority: int, resource: Resource, count: int) -> None:
        key = (priority, resource)
        self.asked[key] = self.asked.get(key, 0) + count

    def take_priority(self, resource: Resource) -> int | None:
        """The priority an allocated container of ``resource`` answers: the engine carries no
        priority on ``container-allocated``, so it is the AM's highest-priority (lowest value)
        outstanding ask of that size, as ``FSAppAttempt`` serves an app's scheduler keys in
        priority order; None when this AM asked for no such container."""
        keys = sorted((k for k, n in self.asked.items() if k[1] == resource and n > 0),
                      key=lambda k: k[0])
        if not keys:
            return None
        self.asked[keys[0]] -= 1
        return keys[0][0]

    def drain(self) -> AllocateResult:
        self.response_id += 1
        result = AllocateResult(self.response_id, tuple(self.allocated), tuple(self.completed),
                                tuple(sorted(yarn_container_id(c) for c in self.to_preempt)))
        self.allocated.clear()
        self.completed.clear()
        return result


def completion_status(container: str, status: Completion, exit_code: tuple[int, str] | None
                      ) -> CompletedStatus:
    """The status the AM is given: its process's exit code when it ended by itself, else the
    RM's abnormal status (``SchedulerUtils.createAbnormalContainerStatus`` /
    ``createPreemptedContainerStatus``)."""
    if exit_code is not None:
        return CompletedStatus(container, exit_code[0], exit_code[1])
    if status is Completion.PREEMPTED:
        return CompletedStatus(container, PREEMPTED, PREEMPTED_CONTAINER)
    if status is Completion.LOST:
        return CompletedStatus(container, ABORTED, LOST_CONTAINER)
    return CompletedStatus(container, ABORTED, RELEASED_CONTAINER)
