"""``AppInfo`` (``/apps``, ``/apps/{id}``) and ``AppAttemptInfo`` (``…/appattempts``) from the
RM's record of an app (:class:`RMAppView`) and the scheduler's (:class:`AppSnapshot`).

An RM lists every app it keeps, and most of them have ended: an ended app's ``AppInfo`` no
longer changes (its usage is the RM's dummy report, its times are fixed), so
:func:`apps_json` keeps its JSON text from one request to the next and writes only the
running apps afresh — the same text :func:`~fairshare.server.rest.jersey.to_json` writes —
and of a running app only the fields that changed since it was last written
(:func:`~fairshare.server.rest.jersey.json_reusing`).
What is the same for every app of a snapshot (the reservations by app, the apps' order) is
made once per snapshot, and :func:`apps_answer` the whole answer once per snapshot and per
what its bytes depend on (``jersey.ANSWERS``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from fairshare.core import AppSnapshot, AskSnapshot, EngineSnapshot
from fairshare.resources.vector import MEMORY, VCORES, Resource, float32, sum_resources
from fairshare.server.rest.jersey import (
    ANSWERS,
    FieldTexts,
    JFloat,
    JMap,
    Obj,
    PerSnapshot,
    Value,
    json_reusing,
    obj,
    to_json,
    to_xml,
)
from fairshare.server.rest.resource_info import resource_info
from fairshare.server.rest.yarn_order import (
    application_id_hash,
    hash_map_order,
    scheduler_request_key_hash,
    string_hash,
)
from fairshare.server.view import AttemptView, RMAppView, ServerSnapshot, yarn_container_id

DEFAULT_RM_ADDRESS = "localhost:8088"  # yarn.resourcemanager.webapp.address
SCHEME = "http://"  # HttpConfig.getSchemePrefix() without yarn.http.policy=HTTPS_ONLY
# AppInfo's app states before the AM registers: trackingUrlIsNotReady
_NOT_TRACKED = frozenset({"NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED"})
ENDED = frozenset({"FINISHED", "FAILED", "KILLED"})
# DeSelectFields.DeSelectType, by the literal a query names it with
DESELECTS = ("resourceRequests", "timeouts", "appNodeLabelExpression", "amNodeLabelExpression",
             "resourceInfo")


Access = bool | Callable[[RMAppView], bool] | None
"""Who sees an app's full report: a fixed answer, the route's check per app
(``Authorizer.can_view``), or None for :func:`has_access`."""


def has_access(s: ServerSnapshot, app: RMAppView, caller: str | None) -> bool:
    """``RMWebServices.hasAccess`` with ``yarn.acl.enable`` false — YARN's default, and all a
    snapshot can tell (it carries no ACLs): ``ApplicationACLsManager`` lets everyone view.
    With ACLs on, the routes pass the authorizer's answer (``access``)."""
    return True


def _allowed(s: ServerSnapshot, a: RMAppView, caller: str | None, access: Access) -> bool:
    if access is None:
        return has_access(s, a, caller)
    return access if isinstance(access, bool) else access(a)


# what is made once per snapshot (of its engine snapshot, of its apps: two objects each)
_PER_SNAPSHOT: PerSnapshot[Any] = PerSnapshot(8)


def app_order(s: ServerSnapshot, apps: Iterable[RMAppView]) -> list[RMAppView]:
    """The order ``ClientRMService.getApplications`` lists them in (``yarn_order``); that of
    all the snapshot's apps made once per snapshot (every ``/apps`` asks for it)."""
    if apps is s.apps:
        return list(_PER_SNAPSHOT.get(s.apps, "order", lambda: _app_order(s.apps)))
    return _app_order(apps)


def _app_order(apps: Iterable[RMAppView]) -> list[RMAppView]:
    listed = list(apps)
    if any(a.id.count("_") != 2 for a in listed):
        return listed
    return hash_map_order(listed, lambda a: _id_hash(a.id))


# an app's hash, once (a new snapshot sorts them all): the RM's 1,000 ended apps by default
# and thousands running, not every app a long-running server has seen (0.8 MB at most)
@functools.lru_cache(maxsize=1 << 13)
def _id_hash(app_id: str) -> int:
    _, ts, n = app_id.split("_")
    return application_id_hash(int(ts), int(n))


def selected(s: ServerSnapshot, query: Hashable,
             select: Callable[[list[RMAppView]], list[RMAppView]]) -> list[RMAppView]:
    """``select(app_order(s, s.apps))``, once per snapshot and ``query`` (what ``select``
    keeps is a function of them alone)."""
    return list(_PER_SNAPSHOT.get(s.apps, ("selected", query),
                                  lambda: select(app_order(s, s.apps))))


def allowed_of(s: ServerSnapshot, listed: Sequence[RMAppView], caller: str | None,
               access: Access) -> bytes:
    """Whether the caller sees each app's full report (:func:`has_access`, or the
    authorizer's answer), one byte an app: all an answer's bytes depend on of the caller."""
    return bytes(_allowed(s, a, caller, access) for a in listed)


def apps_answer(s: ServerSnapshot, query: Hashable, listed: Sequence[RMAppView], *,
                caller: str | None = None, deselects: frozenset[str] = frozenset(),
                rm_address: str = DEFAULT_RM_ADDRESS, access: Access = None,
                xml: bool = False) -> bytes:
    """``/apps``' answer of ``listed`` (what ``query`` selected of ``s``), JSON or XML, once
    per snapshot for the same query, format, RM address and view of each app (two callers
    who see the same apps share it: the caller's view is asked of every app, as without
    the memo, and is part of the key — the authorizer may change its mind between two
    requests of one snapshot)."""
    allowed = allowed_of(s, listed, caller, access)

    def make() -> bytes:
        if xml:
            return to_xml(obj(("apps", obj(("app", [
                _app_info(s, a, caller, deselects, rm_address, bool(ok))
                for a, ok in zip(listed, allowed, strict=True)])))))
        return _apps_json(s, listed, allowed, deselects, rm_address)
    return ANSWERS.get(s, ("apps", query, xml, deselects, rm_address, allowed), make)


def apps(s: ServerSnapshot, listed: Iterable[RMAppView], *, caller: str | None = None,
         deselects: frozenset[str] = frozenset(), rm_address: str = DEFAULT_RM_ADDRESS,
         access: Access = None) -> Obj:
    """``AppsInfo``: ``{"apps":{"app":[…]}}`` in the order given (filtering and ordering
    are the route's: :func:`app_order`). ``access`` forces :func:`has_access`'s answer."""
    infos = [_app_info(s, a, caller, deselects, rm_address, access) for a in listed]
    return obj(("apps", obj(("app", infos))))


TextKey = tuple[str, bool, frozenset[str], str]  # an app, and how it is shown
V = TypeVar("V")


class KeptTexts(Generic[V]):
    """Texts kept from one request to the next, by :data:`TextKey`. Once they are twice as
    many as after the last pruning (and 64 more), those no longer wanted go: what is kept
    stays within twice what the listed apps need, however long the server runs and however
    many apps the RM has forgotten, for an amortised constant cost per text."""

    SLACK = 64  # so that a handful of apps is not pruned on every request

    def __init__(self) -> None:
        self.items: dict[TextKey, V] = {}
        self._after_pruning = 0

    def pruned(self, wanted: Callable[[str], bool]) -> dict[TextKey, V]:
        """The texts, without those of apps not ``wanted`` if they were due a pruning."""
        items = self.items
        if len(items) > 2 * self._after_pruning + self.SLACK:
            items = self.items = {k: v for k, v in items.items() if wanted(k[0])}
            self._after_pruning = len(items)
        return items


# ended apps' texts (with the record and the rest they were written from), and running
# apps' last texts, field by field
_texts: KeptTexts[tuple[RMAppView, tuple[object, ...], str]] = KeptTexts()
_running: KeptTexts[FieldTexts] = KeptTexts()


def apps_json(s: ServerSnapshot, listed: Sequence[RMAppView], *, caller: str | None = None,
              deselects: frozenset[str] = frozenset(),
              rm_address: str = DEFAULT_RM_ADDRESS, access: Access = None) -> bytes:
    """``to_json(apps(s, listed, …))``, ended apps from their kept texts (the module
    docstring)."""
    return _apps_json(s, listed, allowed_of(s, listed, caller, access), deselects,
                      rm_address)


def _apps_json(s: ServerSnapshot, listed: Sequence[RMAppView], allowances: bytes,
               deselects: frozenset[str], rm_address: str) -> bytes:
    return joined_apps(s, _app_texts(s, listed, allowances, deselects, rm_address))


def joined_apps(s: ServerSnapshot, parts: Sequence[str]) -> bytes:
    """The ``AppsInfo`` of the apps whose texts are ``parts`` (:func:`app_texts`)."""
    if not parts:
        return to_json(apps(s, ()))
    return f'{{"apps":{{"app":[{",".join(parts)}]}}}}'.encode()


def app_texts(s: ServerSnapshot, listed: Sequence[RMAppView], *, caller: str | None = None,
              deselects: frozenset[str] = frozenset(), rm_address: str = DEFAULT_RM_ADDRESS,
              access: Access = None) -> list[str]:
    """Each app's ``AppInfo`` as :func:`apps_json` writes it in the list."""
    return _app_texts(s, listed, allowed_of(s, listed, caller, access), deselects,
                      rm_address)


def _app_texts(s: ServerSnapshot, listed: Sequence[RMAppView], allowances: bytes,
               deselects: frozenset[str], rm_address: str) -> list[str]:
    # an app the RM forgot (max-completed-applications) needs no text; an ended one no
    # field-by-field text any more
    texts = _texts.pruned(lambda app_id: s.app(app_id) is not None)
    running = _running.pruned(
        lambda app_id: (a := s.app(app_id)) is not None and a.state not in ENDED)
    parts: list[str] = []
    caller = None  # what the caller sees is in allowances: _app_info reads nothing else of it
    for a, ok in zip(listed, allowances, strict=True):
        allowed = bool(ok)
        key = (a.id, allowed, deselects, rm_address)  # by app and how it is shown
        if a.state not in ENDED:
            written = running[key] = json_reusing(
                _app_info(s, a, caller, deselects, rm_address, allowed), running.get(key))
            parts.append(written.text)
            continue
        running.pop(key, None)  # (if it was running)
        sched = _scheduler_app(s, a.id)
        # the record it was written from (the same object while it is unchanged: the RM
        # keeps an ended app's view), and everything else _app_info reads of an ended app
        rest = (s.cluster_timestamp, s.types, sched is not None and sched.created_queue)
        kept = texts.get(key)
        if kept is not None and (kept[0] is a or kept[0] == a) and kept[1] == rest:
            text = kept[2]
        else:
            text = to_json(_app_info(s, a, caller, deselects, rm_address, allowed)
                           ).decode("utf-8")
            texts[key] = (a, rest, text)
        parts.append(text)
    return parts


def app(s: ServerSnapshot, a: RMAppView, *, caller: str | None = None,
        deselects: frozenset[str] = frozenset(), rm_address: str = DEFAULT_RM_ADDRESS,
        access: Access = None) -> Obj:
    return obj(("app", _app_info(s, a, caller, deselects, rm_address, access)))


def _scheduler_app(s: ServerSnapshot, app_id: str) -> AppSnapshot | None:
    try:
        return s.engine.app(app_id)
    except KeyError:
        return None


def _usage(s: ServerSnapshot, a: RMAppView, sched: AppSnapshot | None
           ) -> tuple[Resource, Resource, int, float, float]:
    """``ApplicationResourceUsageReport``: used and reserved resources, running containers,
    queue and cluster usage percentages. An ended app's report is the RM's
    ``DUMMY_APPLICATION_RESOURCE_USAGE_REPORT`` (−1 everywhere: the scheduler has let go of
    it, captured on FINISHED apps); an app without an attempt has no report (0)."""
    types = s.types
    if not a.attempts:
        return types.none(), types.none(), 0, 0.0, 0.0
    if a.state in ENDED or sched is None:
        minus = types.of({MEMORY: -1, VCORES: -1})
        return minus, minus, -1, 0.0, 0.0
    held = _reservations(s.engine).get(a.id, ())
    reserved = sum_resources(held, types.none())
    return (sched.usage, reserved, len(sched.containers), *_percentages(s, sched))


def _reservations(engine: EngineSnapshot) -> dict[str, list[Resource]]:
    """What each app has reserved, node by node in the snapshot's order: one pass over the
    nodes per snapshot, not one per running app (thousands of nodes, hundreds of apps)."""
    def make() -> dict[str, list[Resource]]:
        held: dict[str, list[Resource]] = {}
        for n in engine.nodes:
            if n.reservation is not None:
                held.setdefault(n.reservation.app, []).append(n.reservation.resource)
        return held
    found: dict[str, list[Resource]] = _PER_SNAPSHOT.get(engine, "reservations", make)
    return found


def _percentages(s: ServerSnapshot, sched: AppSnapshot) -> tuple[float, float]:
    """``SchedulerApplicationAttempt.getResourceUsageReport`` with FairScheduler's
    ``DefaultResourceCalculator`` (memory only), in Java floats: the queue's capacity is
    its instantaneous fair share over the cluster (``FSQueue.getQueueInfo``); a 0 divisor
    gives 0 (NaN and infinity are replaced)."""
    cluster = s.engine.capacity.memory
    if cluster == 0:
        return 0.0, 0.0
    try:
        share = s.engine.queue(sched.queue).fair_share.memory
    except KeyError:
        share = 0
    capacity = float32(share / cluster)
    denominator = int(cluster * capacity)  # Resources.multiply: (long) (value × by)
    used = sched.usage.memory
    queue_pct = float32(float32(used / denominator) * 100) if denominator else 0.0
    return queue_pct, float32(float32(used / cluster) * 100)


def _seconds(pairs: tuple[tuple[str, int], ...]) -> tuple[JMap, int, int]:
    values = dict(pairs)
    return (JMap(tuple((k, str(v)) for k, v in pairs)), values.get(MEMORY, 0),
            values.get(VCORES, 0))


def _tracking(a: RMAppView, rm_address: str) -> tuple[str, str | None]:
    """``trackingUI`` and ``trackingUrl``: UNASSIGNED and none until the AM registers (or
    without an attempt); the RM's proxy address while it runs and after its AM unregistered
    (captured on FINISHED apps); the app's RM page for an attempt ended without its AM
    (captured after a kill)."""
    if a.state in _NOT_TRACKED or not a.attempts or a.unmanaged:
        # RMAppAttemptImpl.getTrackingUrl: an unmanaged AM's is the URL it registered, not
        # proxied, which the server does not keep: none, as AppInfo shows an empty one
        return "UNASSIGNED", None
    proxy = f"{SCHEME}{rm_address}/proxy/{a.id}/"
    if a.finished_ms == 0:
        return "ApplicationMaster", proxy
    return "History", proxy if a.state == "FINISHED" else f"{SCHEME}{rm_address}/cluster/app/{a.id}"


def _app_info(s: ServerSnapshot, a: RMAppView, caller: str | None, deselects: frozenset[str],
              rm_address: str, access: Access) -> Obj:
    """``AppInfo(rm, app, hasAccess, schemePrefix)``, field by field in its order."""
    allowed = _allowed(s, a, caller, access)
    sched = _scheduler_app(s, a.id)
    tracking_ui, tracking_url = _tracking(a, rm_address)
    attempt = a.attempts[-1] if a.attempts else None
    used, reserved, running, queue_pct, cluster_pct = _usage(s, a, sched)
    seconds_map, memory_s, vcore_s = _seconds(a.resource_seconds)
    preempted_map, preempted_memory_s, preempted_vcore_s = _seconds(a.preempted_resource_seconds)
    preempted = a.preempted_resource or s.types.none()
    f: list[tuple[str, Value]] = [
        ("id", a.id), ("user", a.user), ("name", a.name), ("queue", a.queue),
        ("state", a.state), ("finalStatus", a.final_status),
        ("progress", JFloat(a.progress * 100)),
        ("trackingUI", tracking_ui), ("trackingUrl", tracking_url),
        ("diagnostics", a.diagnostics or ""),
        ("clusterId", s.cluster_timestamp),
        ("applicationType", a.application_type),
        ("applicationTags", ",".join(a.tags)),
        ("priority", a.priority),
    ]
    f += _access_fields(s, a, attempt, allowed, used, reserved, running, queue_pct,
                        cluster_pct)
    f += [
        ("memorySeconds", memory_s), ("vcoreSeconds", vcore_s),
        ("queueUsagePercentage", JFloat(queue_pct) if allowed else JFloat(0.0)),
        ("clusterUsagePercentage", JFloat(cluster_pct) if allowed else JFloat(0.0)),
        ("resourceSecondsMap", seconds_map),
        ("preemptedResourceMB", preempted.memory),
        ("preemptedResourceVCores", preempted.vcores_int),
        ("numNonAMContainerPreempted", a.preempted_non_am_containers),
        ("numAMContainerPreempted", a.preempted_am_containers),
        ("preemptedMemorySeconds", preempted_memory_s),
        ("preemptedVcoreSeconds", preempted_vcore_s),
        ("preemptedResourceSecondsMap", preempted_map),
        ("resourceRequests", _requests(s, sched) if allowed and a.state not in ENDED
         and "resourceRequests" not in deselects else None),
        ("logAggregationStatus", "DISABLED" if allowed else None),
        ("unmanagedApplication", a.unmanaged),
        # AppInfo sets it before it looks at deSelects, so deselecting it changes nothing
        ("appNodeLabelExpression", a.node_label_expression),
        # the AM request's label: NO_LABEL, "", as SchedulerUtils
        # .normalizeNodeLabelExpressionInRequest gives a request to an existing queue; none
        # for an app whose queue its submission created (RMAppManager validated the request
        # before FairScheduler made the queue, and FSQueue has no default label)
        ("amNodeLabelExpression", None if a.unmanaged or "amNodeLabelExpression" in deselects
         or (sched is not None and sched.created_queue) else ""),
        ("timeouts", None if "timeouts" in deselects else _timeouts()),
    ]
    return obj(*f)


def _access_fields(s: ServerSnapshot, a: RMAppView, attempt: AttemptView | None, allowed: bool,
                   used: Resource, reserved: Resource, running: int, queue_pct: float,
                   cluster_pct: float) -> list[tuple[str, Value]]:
    """From ``startedTime`` to ``runningContainers``: their defaults (0, "", omitted)
    unless the caller may view the app (captured: ``dr.who`` sees ``startedTime`` 0)."""
    if not allowed:
        return [("startedTime", 0), ("launchTime", 0), ("finishedTime", 0),
                ("elapsedTime", 0), ("masterNodeId", ""), ("allocatedMB", 0),
                ("allocatedVCores", 0), ("reservedMB", 0), ("reservedVCores", 0),
                ("runningContainers", 0)]
    master = attempt is not None and attempt.container is not None
    logs = (f"{SCHEME}{attempt.node_http}/node/containerlogs/"
            f"{yarn_container_id(attempt.container)}/{a.user}"
            if attempt is not None and attempt.container is not None else None)
    rpc = None
    if (attempt is not None and attempt.node and a.state not in _NOT_TRACKED
            and attempt.state not in ("KILLED", "FAILED")):
        # the AM's host and RPC port once it registered, kept after it finished; a killed or
        # failed attempt forgets them (RMAppAttemptImpl.invalidateAMHostAndPort); fairshare's
        # AMs serve no RPC: port 0
        rpc = f"{attempt.node.rsplit(':', 1)[0]}:0"
    return [
        ("startedTime", a.submitted_ms), ("launchTime", a.launched_ms),
        ("finishedTime", a.finished_ms), ("elapsedTime", _elapsed(a.submitted_ms,
                                                                  a.finished_ms, s.now_ms)),
        ("amContainerLogs", logs),
        ("amHostHttpAddress", attempt.node_http if master and attempt is not None else None),
        ("amRPCAddress", rpc),
        ("masterNodeId", (attempt.node or "") if master and attempt is not None else ""),
        ("allocatedMB", used.memory), ("allocatedVCores", used.vcores_int),
        ("reservedMB", reserved.memory), ("reservedVCores", reserved.vcores_int),
        ("runningContainers", running),
    ]


def _elapsed(started: int, finished: int, now: int) -> int:
    """``Times.elapsed(started, finished)`` (a running app counts up to now; −1 if the clock
    went backwards)."""
    if finished > 0 and started > 0:
        return finished - started if finished >= started else -1
    if started <= 0:
        return 0
    return now - started if now >= started else -1


def _requests(s: ServerSnapshot, sched: AppSnapshot | None) -> list[Obj]:
    """``ResourceRequestInfo`` for every request of the attempt, at every place
    (``getPendingResourceRequestsForAttempt``: ``AppSchedulingInfo.getAllResourceRequests``),
    in YARN's order: the placement allocators' map by scheduler key, then each allocator's map
    by resource name (``LocalityAppPlacementAllocator``), both ``ConcurrentHashMap``s."""
    if sched is None:
        return []
    by_key: dict[tuple[int, int], list[AskSnapshot]] = {}
    for ask in sched.requests:
        by_key.setdefault((ask.priority, ask.allocation_request_id), []).append(ask)
    keys = hash_map_order(list(by_key),
                          lambda k: scheduler_request_key_hash(k[0], _client_id(k[1])))
    return [_request(s, ask) for key in keys
            for ask in hash_map_order(by_key[key], lambda a: string_hash(a.resource_name))]


def _request(s: ServerSnapshot, ask: AskSnapshot) -> Obj:
    return obj(
        ("priority", ask.priority),
        ("allocationRequestId", _client_id(ask.allocation_request_id)),
        ("resourceName", ask.resource_name),
        ("capability", resource_info(s.types, ask.resource)),
        ("numContainers", ask.count),
        ("relaxLocality", ask.relax_locality),
        ("nodeLabelExpression", ""),
        ("executionTypeRequest", obj(("executionType", "GUARANTEED"),
                                     ("enforceExecutionType", False))),
    )


def _client_id(engine_id: int) -> int:
    """The ``allocationRequestId`` a client sent for the engine's size ``engine_id``: the
    engine numbers an app's sizes at one priority from 0; YARN's clients leave the id at its
    default −1 (captured), which the engine's first size stands for."""
    return engine_id - 1


def _timeouts() -> Obj:
    """``AppTimeoutsInfo`` with the one LIFETIME timeout every app has, unlimited."""
    return obj(("timeout", [obj(("type", "LIFETIME"), ("expiryTime", "UNLIMITED"),
                                ("remainingTimeInSeconds", -1))]))


def attempt_id(app_id: str, number: int) -> str:
    """``ApplicationAttemptId.toString``: ``appattempt_<ts>_<nnnn>_<attempt:06d>``."""
    return f"appattempt_{app_id.removeprefix('application_')}_{number:06d}"


def app_attempts(s: ServerSnapshot, a: RMAppView, *, caller: str | None = None,
                 access: Access = None) -> Obj:
    """``AppAttemptsInfo``: every attempt, in order, as ``AppAttemptInfo``."""
    allowed = _allowed(s, a, caller, access)
    return obj(("appAttempts", obj(("appAttempt", [
        _attempt(a, t, allowed) for t in a.attempts]))))


def _attempt(a: RMAppView, t: AttemptView, allowed: bool) -> Obj:
    shown = allowed and t.container is not None
    container = yarn_container_id(t.container) if t.container is not None else ""
    fields: list[tuple[str, Any]] = [
        ("id", t.number), ("startTime", t.start_ms), ("finishedTime", t.finish_ms),
        ("containerId", container if shown else ""),
        ("nodeHttpAddress", (t.node_http or "") if shown else ""),
        ("nodeId", (t.node or "") if shown else ""),
        ("logsLink", f"{SCHEME}{t.node_http}/node/containerlogs/{container}/{a.user}"
         if shown else ""),
        ("blacklistedNodes", ""),
        ("nodesBlacklistedBySystem", "" if shown else None),
        ("appAttemptId", attempt_id(a.id, t.number)),
        # Gson of the master container's exposed ports: none, so "null"
        ("exportPorts", "null" if shown else ""),
        ("appAttemptState", t.state),
    ]
    return obj(*fields)
