"""Application lifecycle: submission, asks, releases, the end of an app, AM restarts, moves.

Submission follows ``RMAppManager`` + ``FairScheduler.addApplication`` (docs/semantics.md §1.5,
§3.9, §3.10): placement rules pick the queue (creating dynamic queues), the queue must be a leaf
that can hold the AM, the user needs submit access, then admission decides whether the app is
runnable. Removal and moves follow ``removeApplicationAttempt`` and ``executeMove`` (§3.9).
"""

from __future__ import annotations

from collections.abc import Sequence

from fairshare.config.acl import can_submit
from fairshare.config.model import RuleName
from fairshare.config.placement.base import PlacementError
from fairshare.config.placement.names import assure_root
from fairshare.config.placement.policy import place_application
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.hub.state import QueueCounter
from fairshare.core.lifecycle.admission import (
    promote_after_removal,
    why_not_runnable,
)
from fairshare.core.lifecycle.asks import (
    AM_PRIORITY,
    ContainerRequest,
    Placement,
    key_for,
    normalize_request,
    request_places,
)
from fairshare.core.model.errors import AppNotEnded, AppStopped, DuplicateApp
from fairshare.core.model.events import (
    AppAttemptRestarted,
    AppFinished,
    AppMoved,
    AppNotRunnable,
    AppRejected,
    AppRunnable,
    AppSubmitted,
    Completion,
    ContainersRequested,
    MoveRejected,
    RequestsRejected,
)
from fairshare.core.model.reasons import (
    AttemptRestart,
    Because,
    MoveRefusal,
    NotRunnable,
    Rejection,
    RequestRefusal,
    UnreserveReason,
)
from fairshare.core.model.records import ANY, App, AppState, Container
from fairshare.core.model.tree import get_or_create_leaf
from fairshare.resources.vector import Resource, fits_in, subtract


def submit(
    s: Scheduler, app_id: str, requested_queue: str, user: str, groups: Sequence[str],
    am: Resource | None, requests: Sequence[ContainerRequest] = (), recovering: bool = False,
) -> App:
    """Submit an app; a rejected app is reported (``app-rejected``), never raised.

    ``recovering``: the app is re-added after an RM restart with its attempt already running
    (``addApplicationAttempt`` with ``isAttemptRecovering``): its AM container runs somewhere
    and is recovered with its node (:mod:`fairshare.core.lifecycle.recovery`), so nothing asks
    for it."""
    if app_id in s.state.apps:
        raise DuplicateApp(f"application {app_id} already exists")
    app = App(app_id, "", user, s.now, am, True, s.none, seq=s.state.apps_added)
    s.write.add_app(app)
    queues_before = len(s.state.queues)
    queue, reason = _choose_queue(s, requested_queue, user, groups, am, recovering)
    if queue is None:
        s.write.reject_app(app, reason)
        s.emit(AppRejected, app=app_id, user=user, requested_queue=requested_queue,
               reason=reason or Because(Rejection.REJECTED))
        return app
    # am.preemption is fixed for the attempt (YARN-9537)
    # only the placed leaf (and parents it needs) can have been made for this app
    s.write.place_app(app, queue, s.site.am_preemption_for(queue),
                      created=len(s.state.queues) > queues_before)
    s.write.count(queue, QueueCounter.APPS_SUBMITTED)
    placed = s.emit(AppSubmitted, app=app_id, queue=queue, user=user,
                    requested_queue=requested_queue, placed_by=reason or "",
                    am=None if am is None else _normalized(s, queue, am))
    _admit(s, app, placed.seq)
    if not recovering:
        _request_am(s, app, placed.seq)
    add_requests(s, app, requests, placed.seq)
    return app


def _choose_queue(
    s: Scheduler, requested: str, user: str, groups: Sequence[str], am: Resource | None,
    recovering: bool = False,
) -> tuple[str, str] | tuple[None, Because[Rejection] | None]:
    """(leaf, placement detail) or (None, why the app is rejected). A recovering app was
    accepted before the restart: FairScheduler.addApplication skips the ACL check for it."""
    try:
        placement = place_application(s.placement_policy, requested, user, groups, s.tree)
    except PlacementError as e:
        return None, _placement_failure(e, requested, user)
    if placement.queue is None:
        return None, _placement_rejected(placement.detail)
    leaf = assure_root(placement.queue)
    tree, problem = get_or_create_leaf(s.tree, leaf)
    if problem is not None:
        return None, problem
    if tree is not s.tree:
        s.set_tree(tree)
    if am is not None:
        refusal = zero_max_violation(s, leaf, am)
        if refusal is not None:
            return None, Because(Rejection.AM_ABOVE_ZERO_MAX_SHARE, **refusal.details)
    if not recovering and not can_submit(s.acls, leaf, user, groups):
        return None, Because(Rejection.ACL_DENIED, user=user, queue=leaf)
    return leaf, placement.detail


def _placement_failure(e: PlacementError, requested: str, user: str) -> Because[Rejection]:
    """The rejection of a placement rule's error (its message, as YARN's rule words it)."""
    reason = Because(Rejection.PLACEMENT_FAILED, message=e.message)
    if e.rule is RuleName.SPECIFIED:
        reason = Because(Rejection.ILLEGAL_QUEUE_NAME, user=user, queue=requested)
    elif e.rule is RuleName.PRIMARY_GROUP:
        reason = Because(Rejection.NO_GROUPS, user=user)
    # the rule's message is what the event says; a kind whose sentence differs is not it
    return reason if reason == e.message else Because(Rejection.PLACEMENT_FAILED,
                                                      message=e.message)


def _placement_rejected(detail: str) -> Because[Rejection]:
    """No rule placed the app: the policy's detail (``application rejected by placement
    rules``), as a rejection."""
    if detail == Rejection.BY_PLACEMENT_RULES:
        return Because(Rejection.BY_PLACEMENT_RULES)
    return Because(Rejection.PLACEMENT_FAILED, message=detail)


def zero_max_violation(s: Scheduler, leaf: str, asked: Resource
                       ) -> Because[RequestRefusal] | None:
    """§3.10: a type the leaf may not use at all (max share 0) cannot be asked for."""
    max_share = s.max_share(leaf)
    for name, want, cap in zip(s.types.names, asked.values, max_share.values, strict=True):
        if cap == 0 and want > 0:
            return Because(RequestRefusal.ZERO_MAX_SHARE, queue=leaf, resource=name, asked=want)
    return None


def above_maximum_allocation(s: Scheduler, leaf: str, asked: Resource
                             ) -> Because[RequestRefusal] | None:
    """ApplicationMasterService checks every ask against ``getMaximumResourceCapability(queue)``
    (the scheduler's maximum allocation, capped per type by the queue's
    ``maxContainerAllocation``) before the scheduler sees it
    (``SchedulerUtils.normalizeAndValidateRequest``): one above it fails the whole call."""
    cap = s.settings(leaf).max_container_allocation
    for i, (name, want, most) in enumerate(zip(s.types.names, asked.values,
                                               s.site.maximum_allocation.values, strict=True)):
        if cap is not None:
            most = min(most, cap.values[i])
        if want > most:
            return Because(RequestRefusal.ABOVE_MAXIMUM_ALLOCATION, resource=name, asked=want,
                           most=most)
    return None


def _admit(s: Scheduler, app: App, cause: int | None) -> None:
    _track(s, app, cause, why_not_runnable(s, app))


def _track(s: Scheduler, app: App, cause: int | None, reason: Because[NotRunnable] | None
           ) -> None:
    """Track ``app`` as runnable (``reason`` None) or as held back by ``reason``."""
    if reason is None:
        s.write.track_runnable(app)
        s.emit(AppRunnable, cause, app=app.id, queue=app.queue, promoted=False)
    else:
        s.write.track_non_runnable(app)
        s.emit(AppNotRunnable, cause, app=app.id, queue=app.queue, reason=reason)


def _request_am(s: Scheduler, app: App, cause: int) -> None:
    """A managed app's attempt starts by asking for its AM container (priority 0)."""
    if app.am_request is not None:
        add_requests(s, app, [ContainerRequest(1, app.am_request, AM_PRIORITY)], cause,
                     from_am=False)


def _normalized(s: Scheduler, queue: str, asked: Resource) -> Resource:
    site = s.site
    return normalize_request(asked, site.minimum_allocation, site.maximum_allocation,
                             site.increment_allocation,
                             s.settings(queue).max_container_allocation)


def _where(s: Scheduler, locality: str) -> Placement:
    """A host (with its rack: the node's, else /default-rack), a rack (``/…``), or ANY."""
    if locality == ANY:
        return Placement(None, None)
    node = s.state.nodes.get(locality)
    if node is not None:
        return Placement(locality, node.rack)
    racks = {n.rack for n in s.state.nodes.values()}
    if locality in racks or locality.startswith("/"):
        return Placement(None, locality)
    return Placement(locality, "/default-rack")


def add_requests(
    s: Scheduler, app: App, requests: Sequence[ContainerRequest], cause: int | None = None,
    *, from_am: bool = True,
) -> None:
    """The app asks for containers: normalised (§1.1), expanded per place, counted.

    ``from_am``: an allocate call of the app's AM, validated as ApplicationMasterService
    validates it; False for the ResourceManager's own ask for the AM container."""
    if app.stopped:
        raise AppStopped(f"application {app.id} is {app.state}; it cannot ask for containers")
    for request in requests:  # §3.10: YARN's allocate call fails whole, nothing is recorded
        problem = zero_max_violation(s, app.queue, request.resource)
        if problem is None and from_am:
            problem = above_maximum_allocation(s, app.queue, request.resource)
        if problem is not None:
            s.emit(RequestsRejected, cause, app=app.id, queue=app.queue, reason=problem)
            return
    for request in requests:
        capability = _normalized(s, app.queue, request.resource)
        s.write.add_asks(app, key_for(app, request.priority, capability),
                         request_places(request, _where(s, request.locality)), capability,
                         request.count)
        s.emit(ContainersRequested, cause, app=app.id, priority=request.priority,
               locality=request.locality, count=request.count, resource=capability,
               asked=request.resource)


def release(s: Scheduler, app: App, count: int, which: str) -> int:
    """The AM gives back ``count`` containers (``newest``, ``oldest``, or ``am``)."""
    live = list(app.containers.values())
    if which == "am":
        chosen = [c for c in live if c.is_am][:1]
    else:
        tasks = [c for c in live if not c.is_am]
        chosen = (tasks[::-1] if which == "newest" else tasks)[:count]
    for container in chosen:
        event = s.complete_container(container, Completion.RELEASED)
        if container.is_am:
            restart_attempt(s, app, AttemptRestart.AM_RELEASED, event.seq)
    return len(chosen)


def _stop_attempt(s: Scheduler, app: App, status: Completion, cause: int | None) -> bool:
    """``removeApplicationAttempt``: free containers and reservations, leave the queue."""
    for container in list(app.containers.values()):
        s.complete_container(container, status, cause)
    for node_name in list(app.reservations):
        s.unreserve(app, s.state.nodes[node_name], UnreserveReason.ATTEMPT_ENDED, cause)
    return s.write.untrack(app)


def end_app(s: Scheduler, app: App, state: AppState) -> None:
    """The app finished or was killed: everything it holds is released (§3.9 promotion)."""
    if app.stopped:
        raise AppStopped(f"application {app.id} has already ended ({app.state})")
    was_runnable = _stop_attempt(s, app, Completion.APP_ENDED, None)
    s.write.end_app(app, state, s.now)
    event = s.emit(AppFinished, app=app.id, queue=app.queue, state=str(state))
    if was_runnable:
        promote_after_removal(s, app, app.queue, event.seq)


def forget(s: Scheduler, app: App) -> bool:
    """The ResourceManager forgets an ended app (``RMAppManager`` past
    ``yarn.resourcemanager.max-completed-applications``); the scheduler let go of it when it
    ended (``FairScheduler.removeApplication``), and so does the engine here, unless
    something still refers to it: a kill timer of its victims or for it, the starved-apps
    queue, a node's earmark for one of its attempts (until that node's next heartbeat drops
    it) or reservation. False then: nothing changed, and the caller may ask again later.
    Forgetting decides nothing, so no event is emitted (docs/semantics.md §3.9)."""
    if not app.stopped:
        raise AppNotEnded(f"application {app.id} is {app.state}; only an ended application "
                          f"can be forgotten")
    if _referred_to(s, app.id):
        return False
    s.write.forget_app(app)
    return True


def _referred_to(s: Scheduler, app_id: str) -> bool:
    state = s.state
    if app_id in state.starved.heap or state.starved.being_processed == app_id:
        return True
    for _, _, timer in state.kill_timers:
        if timer.beneficiary == app_id or any(a == app_id for a, _ in timer.victims):
            return True
    for node in state.nodes.values():
        if node.reservation is not None and node.reservation.app_id == app_id:
            return True
        if node.earmarks and any(a == app_id for a, _ in node.earmarks):
            return True
    return False


def restart_attempt(s: Scheduler, app: App, reason: AttemptRestart, cause: int | None) -> None:
    """The AM container is gone, so the attempt failed and a new one starts (our app model).

    YARN ends the attempt (its containers are killed) and the RM launches a new one: a new
    ``FSAppAttempt`` with a new start time, admitted again. The new AM asks for what the old
    one still needed: its outstanding asks plus one container for every task that was killed.
    """
    killed: list[Container] = [c for c in app.containers.values() if not c.is_am]
    was_runnable = _stop_attempt(s, app, Completion.ATTEMPT_FAILED, cause)
    event = s.emit(AppAttemptRestarted, cause, app=app.id, queue=app.queue, reason=reason)
    if was_runnable:
        promote_after_removal(s, app, app.queue, event.seq)
    # am.preemption is looked up per attempt (YARN-9537)
    s.write.new_attempt(app, s.now, s.site.am_preemption_for(app.queue))
    _admit(s, app, event.seq)
    _request_am(s, app, event.seq)
    add_requests(s, app, [ContainerRequest(1, c.resource, c.key[0]) for c in killed], event.seq)


def move(s: Scheduler, app: App, queue: str) -> bool:
    """``moveApplication`` (§3.9): checks on the target side of the lowest common ancestor."""
    target = assure_root(queue)
    if app.stopped:  # rejected or ended: not among the scheduler's applications any more
        s.emit(MoveRejected, app=app.id, queue=target,
               reason=Because(MoveRefusal.APP_NOT_FOUND, app=app.id))
        return False
    if target not in s.tree or not s.tree[target].is_leaf:
        s.emit(MoveRejected, app=app.id, queue=target,
               reason=Because(MoveRefusal.TARGET_NOT_A_LEAF, queue=target))
        return False
    old = app.queue
    if target == old:
        return True
    problem = _move_problem(s, app, old, target) if app.runnable else None
    # FairScheduler.executeMove asks canAppBeRunnable while the app still counts for its user
    # and its old queues: an app running where root (or a shared ancestor) or its user is at
    # the limit cannot move, although the move would not change those counts
    why_not = why_not_runnable(s, app, target)
    if problem is None and app.runnable and why_not is not None:
        problem = Because(MoveRefusal.NOT_RUNNABLE_THERE, app=app.id, why=why_not)
    if problem is not None:
        s.emit(MoveRejected, app=app.id, queue=target, reason=problem)
        return False
    # the old leaf also drops the AM usage (FSLeafQueue.removeApp)
    was_runnable = s.write.untrack(app)
    s.write.add_usage(old, subtract(s.none, app.usage))
    s.write.move_reservations(app, old, target)
    s.write.move_app(app, target)
    s.write.add_usage(target, app.usage)
    # addApp does not add the AM to the new leaf's AM usage: a YARN quirk we keep (§3.9)
    event = s.emit(AppMoved, app=app.id, from_queue=old, to_queue=target)
    _track(s, app, event.seq, why_not)
    if was_runnable:
        promote_after_removal(s, app, old, event.seq)
    return True


def _move_problem(s: Scheduler, app: App, old: str, target: str
                  ) -> Because[MoveRefusal] | None:
    common = set(s.ancestry(old))
    for name in s.ancestry(target):
        if name in common:
            break
        if s.state.queues[name].num_runnable == s.settings(name).max_running_apps:
            return Because(MoveRefusal.MAX_RUNNING_APPS, app=app.id, target=target, queue=name)
        if not fits_in(s.state.queues[name].usage + app.usage, s.max_share(name)):
            return Because(MoveRefusal.MAX_RESOURCES, app=app.id, target=target, queue=name)
    return None
