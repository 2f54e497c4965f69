"""The executor protocol: the engine loop tells an executor what to run where, and the executor
tells the loop when a container's process ended.

The loop calls ``launch`` and ``stop`` from the engine thread and must not be blocked: an
executor that starts processes or remote tasks does the slow part on its own threads. It calls
back through :class:`ExecutorHost`, which is safe from any thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from fairshare.resources.vector import Resource

# ContainerExitStatus (org.apache.hadoop.yarn.api.records)
SUCCESS = 0
INVALID = -1000
ABORTED = -100
DISKS_FAILED = -101
PREEMPTED = -102
KILLED_EXCEEDED_VMEM = -103
KILLED_EXCEEDED_PMEM = -104
KILLED_BY_APPMASTER = -105
KILLED_BY_RESOURCEMANAGER = -106
KILLED_AFTER_APP_COMPLETION = -107
# yarn.nodemanager.sleep-delay-before-sigkill.ms: SIGTERM, then SIGKILL this long after
SIGKILL_DELAY_MS = 250


@dataclass(frozen=True, slots=True)
class Launch:
    """One container to start: ``command`` run by ``bash -c`` in ``work_dir`` with
    ``environment`` (YARN's container variables — CONTAINER_ID, APPLICATION_ID, NM_HOST, … —
    and the submission's own), stdout and stderr to ``log_dir``."""

    app: str  # application_…
    attempt: int
    container: str  # YARN's container id
    node: str  # the node id (host:port) the scheduler placed it on
    resource: Resource
    am: bool
    command: str
    environment: Mapping[str, str]
    work_dir: Path
    log_dir: Path


@dataclass(frozen=True, slots=True)
class NodeOffer:
    """A node an executor brings (Ray's nodes): its id, rack and capacity."""

    id: str
    rack: str
    capacity: Resource


class ExecutorHost(Protocol):
    def container_exited(self, app: str, container: str, exit_status: int,
                         diagnostics: str) -> None:
        """A container's process ended by itself (its exit code; a signal: 128 + signal, as
        bash reports it) — not one the loop stopped, which the loop has ended already."""

    def container_started(self, app: str, container: str, pid: int, started: int) -> None:
        """A container's process runs as ``pid`` (its process group's id), ``started`` at
        that many clock ticks after boot: what a restart re-attaches to."""


class Executor(Protocol):
    kind: str  # "virtual", "local", "ray"

    def start(self, host: ExecutorHost) -> None:
        """Before the first launch; ``host`` receives the exits."""

    def nodes(self) -> Sequence[NodeOffer] | None:
        """The nodes this executor brings, or None: the server's ``--nodes``."""

    def launch(self, launch: Launch) -> None:
        """Start ``launch`` (returns at once; a failure to start is reported as an exit)."""

    def stop(self, app: str, container: str, grace_ms: int) -> None:
        """End a running container the RM took back (preempted, killed with its app, released):
        SIGTERM, then SIGKILL after ``grace_ms`` (Ray: cancel, forced). Nothing is reported."""

    def close(self) -> None:
        """Stop every container still running and wait for them (by process id); idempotent."""
