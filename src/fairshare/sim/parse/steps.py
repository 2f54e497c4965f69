"""What a scenario file becomes (:mod:`fairshare.sim.parse.scenario` reads it): the run
settings, the scripted steps, and the whole :class:`Scenario` the runner gets. Nodes, tasks and
workload apps are in :mod:`fairshare.sim.parse.specs`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from fairshare.config.errors import LocatedWarning
from fairshare.config.overrides import Override
from fairshare.sim.parse.expect import SubjectKind
from fairshare.sim.parse.schema_values import DEFAULT_QUEUE, DEFAULT_USER
from fairshare.sim.parse.specs import NodeSpec, Resources, WorkloadApp
from fairshare.sim.parse.timed_spec import ChangeSpec


@dataclass(frozen=True)
class RequestSpec:
    """``count`` containers of ``resources`` each, as one AMRMClient container request."""

    count: int
    resources: Resources
    priority: int = 1
    locality: str = "*"
    relax_locality: bool = True
    duration_ms: int | None = None


@dataclass(frozen=True)
class RunSpec:
    until_ms: int | None = None
    snapshot_every_ms: int = 1000
    heartbeat_interval_ms: int | None = None  # None: yarn-site's heartbeat interval
    line: int = field(default=0, compare=False)  # of the ``run`` key, for messages; 0: none


@dataclass(frozen=True, kw_only=True)
class StepBase:
    line: int  # the step's line in the scenario file, for file:line reports


@dataclass(frozen=True, kw_only=True)
class AddNodeStep(StepBase):
    node: NodeSpec


@dataclass(frozen=True, kw_only=True)
class RemoveNodeStep(StepBase):
    name: str


@dataclass(frozen=True, kw_only=True)
class ResizeNodeStep(StepBase):
    name: str
    resources: Resources  # the node's new total


@dataclass(frozen=True, kw_only=True)
class SubmitStep(StepBase):
    app: str
    queue: str = DEFAULT_QUEUE
    user: str = DEFAULT_USER
    am: Resources | None = None  # None: unmanaged AM
    requests: tuple[RequestSpec, ...] = ()
    recovering: bool = False  # re-added after an RM restart: its AM is not asked for


@dataclass(frozen=True, kw_only=True)
class RecoverContainerStep(StepBase):
    """A running container taken over where it runs (YARN's work-preserving recovery)."""

    app: str
    node: str
    resources: Resources
    am: bool = False
    priority: int = 20
    container: str | None = None


@dataclass(frozen=True, kw_only=True)
class RequestStep(StepBase):
    app: str
    requests: tuple[RequestSpec, ...]


@dataclass(frozen=True, kw_only=True)
class UpdateStep(StepBase):
    pass


@dataclass(frozen=True, kw_only=True)
class HeartbeatStep(StepBase):
    node: str  # a node name, or "*" for every node once in registration order
    times: int = 1


@dataclass(frozen=True, kw_only=True)
class AdvanceStep(StepBase):
    ms: int


@dataclass(frozen=True, kw_only=True)
class ReleaseStep(StepBase):
    app: str
    count: int = 1
    which: Literal["newest", "oldest", "am"] = "newest"


@dataclass(frozen=True, kw_only=True)
class FinishStep(StepBase):
    app: str


@dataclass(frozen=True, kw_only=True)
class KillStep(StepBase):
    app: str


@dataclass(frozen=True, kw_only=True)
class ReloadStep(StepBase):
    """Exactly one of the two is set."""

    allocations_text: str | None = None
    allocations_file: Path | None = None


@dataclass(frozen=True, kw_only=True)
class MoveStep(StepBase):
    app: str
    queue: str


@dataclass(frozen=True, kw_only=True)
class CommandStep(StepBase):
    """One engine command in its JSON form (docs/architecture.md "Commands"): what a
    recorded ``fairshare serve`` session is replayed from. Read into the command when the run
    starts, when the cluster's resource types are known."""

    data: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class SnapshotStep(StepBase):
    label: str | None = None


@dataclass(frozen=True, kw_only=True)
class ExpectStep(StepBase):
    """Assert ``fields`` (validated, see :mod:`fairshare.sim.parse.expect`) of one snapshot
    entry."""

    subject_kind: SubjectKind
    subject: str | None  # None for the cluster
    fields: dict[str, Any]


Step = (
    AddNodeStep | RemoveNodeStep | ResizeNodeStep | SubmitStep | RecoverContainerStep
    | RequestStep | UpdateStep
    | HeartbeatStep | AdvanceStep | ReleaseStep | FinishStep | KillStep | ReloadStep | MoveStep
    | SnapshotStep | ExpectStep | CommandStep
)


@dataclass(frozen=True)
class Scenario:
    """A validated scenario file. Paths are absolute; ``nodes`` has templates expanded."""

    name: str
    description: str
    seed: int
    site: dict[str, str]  # property → value as Hadoop's Configuration sees it ("true", "0.8")
    site_file: Path | None
    allocations_text: str | None
    allocations_file: Path | None
    nodes: tuple[NodeSpec, ...]
    groups: dict[str, tuple[str, ...]]
    start_ms: int
    steps: tuple[Step, ...]
    workload: tuple[WorkloadApp, ...] | None  # workload.apps, then the sls, synth, csv apps
    run: RunSpec
    source: str
    site_lines: dict[str, int] = field(default_factory=dict)  # site property → its line
    # ``--set`` options of the command line, applied over site and every allocation file
    overrides: tuple[Override, ...] = ()
    # what the workload's trace files hold that SLS accepts but deserves a word (file:line)
    warnings: tuple[LocatedWarning, ...] = ()
    changes: tuple[ChangeSpec, ...] = ()  # workload.changes, in time order
