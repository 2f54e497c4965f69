"""A submission as the server takes it: YARN's ``ApplicationSubmissionContext`` (the REST
API's ``ApplicationSubmissionContextInfo``) read into plain values, plus fairshare's own
extension (``"fairshare"``: what the app runs, for the executors that do not run a real AM).

The parser (:mod:`fairshare.server.rest.submit`) checks the body and names the field it
refuses; the loop (:mod:`fairshare.server.loop`) only reads these values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fairshare.resources.vector import Resource
from fairshare.sim.sources.workload import TaskGroup


@dataclass(frozen=True, slots=True)
class DistributedShell:
    """The built-in distributed-shell AM (YARN's ``DistributedShell`` client options): run
    ``shell_command`` in ``num_containers`` containers of ``container_resource`` at
    ``priority``; the app succeeds when every container exited 0."""

    num_containers: int
    shell_command: str
    container_resource: Resource
    priority: int = 0


@dataclass(frozen=True, slots=True)
class Submission:
    application_id: str  # from POST /apps/new-application
    name: str  # application-name ("N/A" when not given, as YARN)
    queue: str  # as asked ("default" when not given); placement decides the leaf
    user: str  # the caller
    priority: int
    am_resource: Resource  # resource, normalised by the loop as YARN normalises the AM ask
    unmanaged: bool  # unmanaged-AM
    max_attempts: int
    application_type: str  # "YARN" when not given
    tags: tuple[str, ...]
    am_command: str | None  # am-container-spec.commands.command (None: none given)
    environment: tuple[tuple[str, str], ...] = ()  # am-container-spec.environment
    keep_containers: bool = False
    node_label_expression: str = ""  # app-node-label-expression (no node labels: unused)
    # am-container-spec.application-acls: (VIEW_APP or MODIFY_APP, an ACL string), as given
    acls: tuple[tuple[str, str], ...] = ()
    # fairshare's extension: exactly one of these, or neither (then: virtual executor's AM
    # runs for ever with no tasks; local/ray run am_command as the AM)
    tasks: tuple[TaskGroup, ...] = field(default=())  # virtual: the simulator's app model
    distributed_shell: DistributedShell | None = None  # local/ray: the built-in AM
