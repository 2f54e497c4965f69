"""What YARN accepts in a configuration without a word, but that is almost surely a mistake.

Findings (``config.model.ConfigWarning``: severity, code, what, consequence in YARN, fix) come
from three places, gathered into one list for ``fairshare lint`` and ``validate``:

* :mod:`.values` — one element's value, checked while the allocation file is read (a clamped
  threshold, a max share with 0 vcores, a negative ``maxRunningApps``…), at the element's line;
* the readers themselves — elements YARN ignores (with the likely intended name), unknown
  yarn-site keys, duplicate queues…;
* :mod:`.checks` — the configuration as a whole (preemption on with nothing ever starved, a
  utilization threshold preemption can never pass).

Findings that need a cluster size (min shares against fair shares) need the share computation of
``core`` and live one layer up, in ``workbench.lint``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from fairshare.config.lint.values import value_finding
from fairshare.config.model import ConfigWarning
from fairshare.resources.vector import LONG_MAX, Resource, ResourceTypes, componentwise_max

__all__ = ["did_you_mean", "min_above_max", "misspelt_fix", "value_finding"]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean <x>?"`` for the known element closest to ``name``, else ``""``.

    Case is ignored, and so is a namespace prefix (``p:weight`` suggests ``weight``).
    """
    by_lower = {k.lower(): k for k in known}
    local = name.rpartition(":")[2].lower()
    close = difflib.get_close_matches(local, list(by_lower), n=1, cutoff=0.75)
    return f"; did you mean <{by_lower[close[0]]}>?" if close else ""


def misspelt_fix(hint: str) -> str:
    """The fix for an ignored element, given :func:`did_you_mean`'s hint for it."""
    if not hint:
        return "remove it, or write the setting meant by its YARN name (docs/lint.md)"
    return "spell it " + hint.removeprefix("; did you mean ").removesuffix("?")


def min_above_max(queue: str, low: Resource, high: Resource, types: ResourceTypes
                  ) -> ConfigWarning:
    """The one statement of what YARN does with a max share below the min share, used by every
    command that reads the allocation file (validate, shares, lint)."""
    raised = _amounts(componentwise_max(low, high), types)
    return ConfigWarning(
        f"{queue}: minResources {_amounts(low, types)} do not fit in maxResources "
        f"{_amounts(high, types)}",
        code="min-above-max",
        consequence=f"YARN only logs this; its max share is, per resource, the larger of the "
        f"two (FSQueue.getMaxShare: componentwiseMax(max, min)), so the min wins and the max "
        f"share is {raised}",
        fix="raise maxResources to at least minResources, or lower minResources",
    )


def _amounts(r: Resource, types: ResourceTypes) -> str:
    units = ("MB", "vcores", *types.names[2:])
    return ", ".join("unbounded " + u if v == LONG_MAX else f"{v} {u}"
                     for v, u in zip(r.values, units, strict=True))
