"""One plan's victim searches (docs/semantics.md §5.3–§5.5): the round's
:class:`~fairshare.core.preemption.search.VictimSearch` seen through the plan's own marks, so a
plan never re-examines what it already took; see that module for why its decisions are exactly
those of the reference.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice

from fairshare.core.preemption.bounds import (
    Bound,
    Bounds,
    NodeEntry,
    Owner,
    am_regime,
    fits,
    node_bounds,
)
from fairshare.core.preemption.overlay import (
    Overlay,
    marked_owner_view,
    node_view,
)
from fairshare.core.preemption.search import VictimSearch
from fairshare.core.preemption.victims import (
    ANY,
    ContainerView,
    OwnerView,
    StarvedRequest,
    VictimSet,
    can_container_be_preempted,
    chosen_from_owner,
    containers_on_node,
    room_before_victims,
)
from fairshare.resources.vector import (
    INT_MAX,
    Resource,
    add,
    fits_in,
    none_like,
)


@dataclass(slots=True)
class _Marked:
    """An owner this plan has marked: its view, up to date with the first ``count`` marks."""

    owner: Owner
    count: int
    extra_total: Resource  # the sizes of those marks, summed in marking order


class PlanSearch:
    """One plan's searches: the round's indexes seen through the plan's own marks."""

    def __init__(self, search: VictimSearch, overlay: Overlay) -> None:
        self.search, self.overlay = search, overlay
        self._owners: dict[str, _Marked | None] = {}  # owners this plan has marked
        self._changed: set[str] = set()  # every owner this plan has marked
        self._bounds: dict[str, tuple[int, Bounds]] = {}  # node → (plan epoch, bounds)
        self._free_room: dict[str, Resource] = {}  # nodes this plan has earmarked
        self._epoch = 0

    def marked(self, node: str, victims: Iterable[ContainerView]) -> None:
        self._free_room.pop(node, None)
        self._changed.update(v.app_id for v in victims)
        self._epoch += 1

    def owner(self, app_id: str) -> Owner | None:
        extra = self.overlay.owner_marked.get(app_id)
        if extra is None:
            return self.search.owner(app_id)
        known = self._owners.get(app_id)
        if known is not None and known.count == len(extra):
            return known.owner
        app = self.search.s.state.apps.get(app_id)
        if app is None:
            self._owners[app_id] = None
            return None
        # only the marks made since the view was last built are added (marks only append)
        s = self.search.s
        if known is None:
            total, marked, start = none_like(app.usage), frozenset(app.to_be_preempted), 0
        else:
            total, marked, start = (known.extra_total,
                                    known.owner.view.containers_to_be_preempted, known.count)
        fresh = list(islice(extra.items(), start, None))
        for _, size in fresh:
            total = add(total, size)
        marked = marked | {container_id for container_id, _ in fresh}
        entry = Owner(marked_owner_view(s, app, total, marked))
        self._owners[app_id] = _Marked(entry, len(extra), total)
        return entry

    def may_fit(self, name: str, request: Bound, regime: int) -> bool:
        """The committed bound, and the plan's own where this plan marked the node or its
        owners (kept since a node gave nothing; it only shrinks during the plan)."""
        if not self.search.may_fit(name, request, regime):
            return False
        cached = self._bounds.get(name)
        return cached is None or fits(request, cached[1][regime])

    def gave_nothing(self, name: str) -> None:
        """A node let through gave no set: tighten its bounds before it is met again."""
        search = self.search
        entry = search.node(name)
        search.tighten(entry)
        if not entry.regular or (name not in self.overlay.earmarked
                                 and entry.owners.isdisjoint(self._changed)):
            return
        cached = self._bounds.get(name)
        if cached is None or cached[0] != self._epoch:
            bounds, _ = node_bounds(self._free(entry), entry.live, self.owner, search.none,
                                    search.cluster, self.overlay.marked.get(name, ()))
            self._bounds[name] = (self._epoch, bounds)

    def _free(self, entry: NodeEntry) -> Resource:
        extra = self.overlay.earmarked.get(entry.name)
        if extra is None:
            return entry.free
        free = self._free_room.get(entry.name)
        if free is None:
            node = self.search.s.state.nodes[entry.name]
            free = self._free_room[entry.name] = room_before_victims(
                node.unallocated, entry.reserved, add(node.earmarked_total, extra))
        return free

    def best(self, request: StarvedRequest) -> VictimSet | None:
        """``bestPreemptableContainers`` (§5.3, YARN-7655)."""
        key = (request.capability, request.resource_name, request.relax_locality)
        if key in self.search.hopeless:
            return None  # in a busy cluster most starved apps of a round ask what none can get
        best = self._best(request)
        if best is None and self._epoch == 0 and self.search.shortcuts:
            self.search.hopeless.add(key)
        return best

    def _best(self, request: StarvedRequest) -> VictimSet | None:
        capability = request.capability
        if request.resource_name == ANY:
            return self._search_all(capability, frozenset())
        names = self.search.nodes_for(request.resource_name)
        best = self._search_list(names, capability)
        if best is not None and best.num_am > 0 and request.relax_locality:
            alternative = self._search_all(capability, frozenset(names))
            if alternative is not None and alternative.num_am < best.num_am:
                best = alternative
        return best

    def _search_list(self, names: list[str], request: Resource) -> VictimSet | None:
        """``search_nodes`` over a rack's or a host's nodes (point 4 of the module docstring)."""
        values = request.values
        for name in names:
            if self.may_fit(name, values, 0):
                found = self._try(name, request, 1)
                if found is not None:
                    return found
        best: VictimSet | None = None
        max_am = INT_MAX
        for name in names:
            if max_am <= 1:
                break
            if self.may_fit(name, values, am_regime(max_am)):
                found = self._try(name, request, max_am)
                if found is not None:
                    best, max_am = found, found.num_am
        return best

    def _search_all(self, request: Resource, skip: frozenset[str]) -> VictimSet | None:
        """``search_nodes`` over every node but ``skip``, through the alive lists: the first
        AM-free set, else the fewest AMs (a better set found switches to the list of nodes
        that can still beat it)."""
        values, order, search = request.values, self.search.order, self.search
        for i in search.alive_from(values, 0, 0):
            name = order[i]
            if name not in skip and self.may_fit(name, values, 0):
                found = self._try(name, request, 1)
                if found is not None:
                    return found
        best: VictimSet | None = None
        max_am, start = INT_MAX, 0
        while max_am > 1:
            regime = am_regime(max_am)
            for i in search.alive_from(values, regime, start):
                name = order[i]
                if name in skip or not self.may_fit(name, values, regime):
                    continue
                found = self._try(name, request, max_am)
                if found is not None:
                    best, max_am = found, found.num_am
                    if am_regime(max_am) != regime:
                        start = i + 1
                        break
            else:
                break
        return best

    def _try(self, name: str, request: Resource, max_am: int) -> VictimSet | None:
        found = self.on_node(name, request, max_am)
        if found is None:
            self.gave_nothing(name)
        return found

    def on_node(self, name: str, request: Resource, max_am: int) -> VictimSet | None:
        """``containers_on_node`` with the plan's marks, candidates that may not go alone
        passed over (points 2 and 3 of the module docstring)."""
        search, overlay = self.search, self.overlay
        entry = search.node(name)
        free = self._free(entry)
        if not entry.regular or fits_in(request, free):
            node = node_view(search.s, search.s.state.nodes[name], overlay)
            return containers_on_node(request, node, OwnerViews(self), search.cluster, max_am)
        marked = overlay.marked.get(name, ())
        none, cluster = search.none, search.cluster
        chosen: list[ContainerView] = []
        owners_chosen: set[str] = set()
        num_am = 0
        potential = free
        for c in entry.live:  # the other candidates may not go alone
            if c.id in marked:
                continue
            owner = self.owner(c.app_id)
            if owner is None:
                continue
            ok = owner.alone.get((c.resource.values, c.is_am))
            if not (owner.may_go_alone(c, none, cluster) if ok is None else ok):
                continue
            if c.id in owner.view.containers_to_be_preempted:
                continue  # §5.5's one test may_go_alone leaves out
            victim = ContainerView(c.id, c.app_id, c.resource, c.is_am)
            if c.app_id in owners_chosen:  # §5.5 again, with what is already chosen
                already = chosen_from_owner(chosen, c.app_id, request)
                if not can_container_be_preempted(owner.view, victim, already, cluster):
                    continue
            owners_chosen.add(c.app_id)
            if c.is_am:
                num_am += 1
                if num_am >= max_am:
                    return None
            chosen.append(victim)
            potential = add(potential, c.resource)
            if fits_in(request, potential):
                return VictimSet(name, tuple(chosen), num_am)
        return None


class OwnerViews(Mapping[str, OwnerView]):
    """The plan's owners as ``containers_on_node`` reads them."""

    def __init__(self, plan: PlanSearch) -> None:
        self.plan = plan

    def __getitem__(self, app_id: str) -> OwnerView:
        owner = self.plan.owner(app_id)
        if owner is None:
            raise KeyError(app_id)
        return owner.view

    def __iter__(self) -> Iterator[str]:
        return iter(self.plan.search.s.state.apps)

    def __len__(self) -> int:
        return len(self.plan.search.s.state.apps)
