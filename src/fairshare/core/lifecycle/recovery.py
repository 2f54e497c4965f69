"""Work-preserving recovery: a running container taken over when its node registers.

After a ResourceManager restart with work-preserving recovery on, the apps are re-added first
(their attempts already running: :func:`fairshare.core.lifecycle.apps.submit` with
``recovering``), then each NodeManager registers and reports the containers it runs.
``AbstractYarnScheduler.recoverContainersOnNode`` accounts for each one where it runs, without
scheduling anything:

* the node holds it (``SchedulerNode.recoverContainer``);
* the attempt holds it as a live container and its usage grows
  (``SchedulerApplicationAttempt.recoverContainer``), and so do its queues' usage and
  QueueMetrics (``FSAppAttempt.recoverContainer``, ``AppSchedulingInfo.recoverContainer``);
* the first container recovered for a managed attempt whose AM is not yet running is taken as
  its AM for the AM share: it sets the attempt's AM resource and adds to the leaf's AM usage
  (``FSAppAttempt.recoverContainer`` says "the first container we recover is always the AM").
  Whether the container *is* the AM (spared by preemption, its loss ends the attempt) is what
  the RM's attempt recorded as its master container (``RMAppAttemptImpl``): ``am`` here. The two
  agree when the AM container is recovered first, as the importer arranges.

Nothing is asked for or taken from the app's outstanding asks: the recovered AM re-sends them
when it resyncs (``AMRMClient`` on ``ApplicationMasterNotRegisteredException``).
"""

from __future__ import annotations

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.errors import AppStopped, DuplicateContainer, RecoveryRefused
from fairshare.core.model.events import ContainerRecovered
from fairshare.core.model.records import App, Container, Node
from fairshare.core.rules.locality import Locality
from fairshare.core.rules.yarn_order import container_hash
from fairshare.resources.vector import Resource, fits_in


def recover_container(
    s: Scheduler, app: App, node: Node, resource: Resource, is_am: bool, priority: int,
    container_id: str | None = None,
) -> Container:
    """Account for one running container of ``app`` on ``node``; returns it."""
    _check(app, node, resource, container_id)
    if container_id is None:
        container_id = s.write.new_container_id(app)
    # a recovered container was placed by the scheduler before the restart: its locality then
    # is not known, and QueueMetrics count no locality for it
    container = Container(container_id, app.id, node.name, resource, is_am, (priority, 0),
                          Locality.OFF_SWITCH, s.now,
                          container_hash(container_id, s.app_number(app.id)))
    s.write.allocate(app, node, container, None)  # FSAppAttempt: the first one is the AM
    s.write.update_root_queue_metrics()  # FairScheduler.addNode recovers, then updates it
    s.emit(ContainerRecovered, app=app.id, queue=app.queue, container=container_id,
           node=node.name, resource=resource, am=is_am, priority=priority)
    return container


def _check(app: App, node: Node, resource: Resource, container_id: str | None) -> None:
    """What YARN would skip (a stopped attempt: the container is killed) or what cannot be
    a true report (a container that does not fit, an id in use) is refused."""
    if app.stopped:
        raise AppStopped(f"application {app.id} is {app.state}; its containers cannot be "
                          "recovered")
    if container_id is not None and (container_id in app.containers
                                     or container_id in node.containers):
        raise DuplicateContainer(f"container {container_id} is already running")
    if not fits_in(resource, node.unallocated):
        raise RecoveryRefused(f"container of {resource!r} for {app.id} does not fit on node "
                          f"{node.name}: {node.unallocated!r} unallocated")
