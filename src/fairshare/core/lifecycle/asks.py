"""An application's outstanding asks: container requests in, resource requests per place out.

A *container request* is what an AM makes through YARN's ``AMRMClient``: ``count`` containers of
one size at one priority, optionally at a host or a rack. The client turns it into *resource
requests* per place — the host, its rack (inferred), and ANY (``*``) — which is what the
scheduler holds (``AppSchedulingInfo``) and what every rule of docs/semantics.md §3.6 and
§5.2 reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from fairshare.core.model.records import ANY, App, Ask, SchedulerKey
from fairshare.core.rules.locality import Locality
from fairshare.resources.vector import Resource, add, multiply_long, normalize

AM_PRIORITY = 0  # the RM asks for the AM container at priority 0 (RMAppAttemptImpl)


@dataclass(frozen=True, slots=True)
class ContainerRequest:
    """What an AM asks for. ``locality``: ``*``, a host name or a rack name."""

    count: int
    resource: Resource
    priority: int = 1
    locality: str = ANY
    relax_locality: bool = True


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a request's locality points: a host (with its rack), a rack, or nowhere (ANY)."""

    host: str | None
    rack: str | None


def normalize_request(
    asked: Resource, minimum: Resource, maximum: Resource, increment: Resource,
    queue_max_container: Resource | None,
) -> Resource:
    """§1.1: ``min(roundUp(max(ask, min), increment), maxAlloc)`` per type, where
    ``maxAlloc`` is the scheduler maximum capped by the queue's ``maxContainerAllocation``."""
    cap = maximum
    if queue_max_container is not None:
        cap = Resource(tuple(min(a, b) for a, b in zip(cap.values, queue_max_container.values,
                                                       strict=True)))
    return normalize(asked, minimum, cap, increment)


def key_for(app: App, priority: int, capability: Resource) -> SchedulerKey:
    """The scheduler key of a request: its priority, and an allocation-request id per size.

    YARN keeps one resource request per (key, place); an AM asking for two sizes at one
    priority uses allocation-request ids to keep them apart. We do the same, numbering sizes
    in the order the app first asked for them, so requests never overwrite each other.
    """
    same_priority = [k for k in app.asks if k[0] == priority]
    for key in same_priority:
        if next(iter(app.asks[key].values())).capability == capability:
            return key
    # a key inactive since its ANY ask ran out (§3.6.6) is this size's key if it has this
    # size; of another size, its id stays taken, so that sizes never share a key
    inactive = [k for k in app.inactive_asks if k[0] == priority]
    for key in inactive:
        if next(iter(app.inactive_asks[key].values())).capability == capability:
            return key
    taken = ({k[1] for k in same_priority} | {k[1] for k in inactive}
             | {k[1] for k in app.locality if k[0] == priority})
    request_id = 0
    while request_id in taken:
        request_id += 1
    return (priority, request_id)


def request_places(request: ContainerRequest, where: Placement) -> list[tuple[str, bool]]:
    """``AMRMClient.addContainerRequest``: where a request asks, with each ask's
    relaxLocality — the host (relaxable), its rack and ANY.

    A host request asks at the host with relaxLocality true, at the host's rack and at ANY with
    the request's flag; a rack request at the rack (true) and ANY (the flag). Counts add up
    (:meth:`~fairshare.core.hub.state.StateWriter.add_asks`).
    """
    places: list[tuple[str, bool]] = []
    if where.host is not None:
        places.append((where.host, True))
        if where.rack is not None:
            places.append((where.rack, request.relax_locality))
    elif where.rack is not None:
        places.append((where.rack, True))
    places.append((ANY, request.relax_locality if places else True))
    return places


def pending_demand(app: App) -> Resource:
    """Σ over keys of the ANY ask's size × count: the app's outstanding demand (§2.2)."""
    total = app.none
    for table in app.asks.values():
        ask = table.get(ANY)
        if ask is not None:
            total = add(total, multiply_long(ask.capability, ask.count))
    return total


def allocated_places(node: str, rack: str, kind: Locality) -> tuple[str, ...]:
    """§3.6.2 ``allocate``: the asks one container takes from — node-local takes one from
    the host, rack and ANY asks; rack-local from rack and ANY; off-switch from ANY."""
    if kind is Locality.NODE_LOCAL:
        return node, rack, ANY
    if kind is Locality.RACK_LOCAL:
        return rack, ANY
    return (ANY,)


def first_any_ask(app: App) -> Ask | None:
    """The ANY request of the app's first scheduler key in priority order (the one the AM-share
    check tests, §3.6.1), if there is one."""
    return app.asks[min(app.asks)].get(ANY) if app.asks else None


def outstanding(app: App, key: SchedulerKey, name: str) -> Ask | None:
    ask = app.asks.get(key, {}).get(name)
    return ask if ask is not None and ask.count > 0 else None
