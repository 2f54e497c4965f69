"""The leaf queue's maxAMShare check (docs/semantics.md §3.6.4), as pure functions.

``maxAMShare`` is a Java ``float`` (§0.2): the limit is ``ceil(component × float32(share))``,
so a 10 GB fair share with ``maxAMShare=0.1`` allows 1025 MB of AMs, not 1024.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fairshare.resources.vector import Resource, add, fits_in, float32, multiply_and_round_up

DISABLED = -1.0  # maxAMShare = -1 turns the check off


def am_check_disabled(max_am_share: float) -> bool:
    """``Math.abs(maxAMShare - -1.0f) < 0.0001``, the subtraction done in float arithmetic."""
    return abs(float32(float32(max_am_share) - DISABLED)) < 0.0001


def _fill_zero(component: int, available: int, max_share: int) -> int:
    return component if component != 0 else min(available, max_share)


def max_am_resource(
    queue_fair_share: Resource,
    queue_max_share: Resource,
    root_available: Resource,
    max_am_share: float,
) -> Resource:
    """``computeMaxAMResource``: zero components of the fair share are replaced by
    ``min(root available, max share)`` (YARN-5077, YARN-9323; custom types too), then
    ``multiplyAndRoundUp`` by the float32 share (YARN-4866)."""
    filled = [
        _fill_zero(queue_fair_share.memory, root_available.memory, queue_max_share.memory),
        # vcores go through the int views: getAvailableVirtualCores(), getVirtualCores()
        _fill_zero(
            queue_fair_share.vcores, root_available.vcores_int, queue_max_share.vcores_int
        ),
    ]
    filled += [
        _fill_zero(share, available, maximum)
        for share, available, maximum in zip(
            queue_fair_share.values[2:], root_available.values[2:],
            queue_max_share.values[2:], strict=True,
        )
    ]
    return multiply_and_round_up(Resource(tuple(filled)), float32(max_am_share))


@dataclass(frozen=True, slots=True)
class LeafAmView:
    """What ``FSLeafQueue.canRunAppAM`` reads of the leaf."""

    fair_share: Resource  # instantaneous
    max_share: Resource  # effective max share (§2.8)
    am_resource_usage: Resource
    max_am_share: float  # float32; -1 disables the check


def am_fits(am_usage: Resource, am_resource: Resource, limit: Resource) -> bool:
    """``canRunAppAM``'s test: ``fitsIn(amResourceUsage + am, maxAMResource)``."""
    return fits_in(add(am_usage, am_resource), limit)


def refuses_every_am(am_usage: Resource, am_sizes: Iterable[Resource], limit: Resource) -> bool:
    """Would ``canRunAppAM`` under ``limit`` refuse an AM of each of ``am_sizes``?"""
    return not any(am_fits(am_usage, size, limit) for size in am_sizes)


def can_run_app_am(leaf: LeafAmView, am_resource: Resource, root_available: Resource) -> bool:
    """``canRunAppAM``: ``fitsIn(amResourceUsage + am, maxAMResource)`` in every component."""
    if am_check_disabled(leaf.max_am_share):
        return True
    limit = max_am_resource(leaf.fair_share, leaf.max_share, root_available, leaf.max_am_share)
    return am_fits(leaf.am_resource_usage, am_resource, limit)
