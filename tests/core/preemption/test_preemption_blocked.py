"""Why a container found no victims: each rule of docs/semantics.md §5.4–§5.5 switched on
in turn."""

from __future__ import annotations

from fairshare.core.preemption.blocked import BLOCKED_CAUSES, node_blocked_by
from fairshare.core.preemption.victims import ContainerView, NodeView, OwnerView
from fairshare.resources.vector import Resource

GB = 1024


def r(mb: int, vcores: int = 1) -> Resource:
    return Resource((mb, vcores))


def owner(app: str, usage: int, share: int, **flags: object) -> OwnerView:
    return OwnerView(app, r(usage, usage // GB), r(share, share // GB), r(0, 0),
                     **flags)  # type: ignore[arg-type]


def node(*containers: ContainerView, free: int = 0, marked: frozenset[str] = frozenset()
         ) -> NodeView:
    return NodeView("n1", r(free, free // GB), r(0, 0), r(0, 0), containers, marked)


def cause(request_mb: int, n: NodeView, owners: dict[str, OwnerView]) -> str:
    return BLOCKED_CAUSES[node_blocked_by(r(request_mb), n, owners)]


def test_a_request_larger_than_all_the_node_holds_fits_no_node() -> None:
    n = node(ContainerView("c1", "a", r(2 * GB)), free=GB)
    assert cause(4 * GB, n, {"a": owner("a", 2 * GB, 0)}) == "no-node-fits"


def test_containers_of_a_non_preemptable_queue() -> None:
    n = node(ContainerView("c1", "a", r(2 * GB)), ContainerView("c2", "b", r(GB)))
    owners = {"a": owner("a", 2 * GB, 0, preemptable=False), "b": owner("b", GB, 0)}
    assert cause(2 * GB, n, owners) == "non-preemptable-queue"
    assert cause(GB, n, owners) == "victims-at-fair-share"  # b's 1 GB would do: the search
    # found nothing, so only the fair-share rule can have stopped it


def test_only_am_containers_while_am_preemption_is_off() -> None:
    n = node(ContainerView("am", "a", r(2 * GB), is_am=True), ContainerView("t", "a", r(GB)))
    owners = {"a": owner("a", 3 * GB, 0, am_preemption=False)}
    assert cause(2 * GB, n, owners) == "am-preemption-off"


def test_containers_already_chosen_for_another_app() -> None:
    n = node(ContainerView("c1", "a", r(2 * GB)), ContainerView("c2", "a", r(2 * GB)),
             marked=frozenset({"c1"}))
    owners = {"a": owner("a", 4 * GB, 0, containers_to_be_preempted=frozenset({"c2"}))}
    assert cause(GB, n, owners) == "already-chosen"


def test_free_space_counts_towards_the_room() -> None:
    n = node(ContainerView("c1", "a", r(GB)), free=GB)
    owners = {"a": owner("a", GB, GB, preemptable=False)}
    assert cause(2 * GB, n, owners) == "non-preemptable-queue"
    assert cause(GB, n, owners) == "victims-at-fair-share"  # fits in the free space alone
