"""How the CLI writes resources, timeouts and rules for people (and for JSON)."""

from __future__ import annotations

from fairshare.config.model import (
    TIMEOUT_NEVER_MS,
    UNSET_TIMEOUT_MS,
    PlacementRule,
)
from fairshare.report import units as report_units
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.display import duration as duration  # the same everywhere: re-exported
from fairshare.resources.display import percent as whole_percent
from fairshare.resources.display import vcores_number
from fairshare.resources.vector import LONG_MAX, Resource, ResourceTypes


def amount(value: int) -> str:
    return "∞" if value == LONG_MAX else f"{value:,}"


def short(r: Resource, types: ResourceTypes) -> str:
    """Compact form for tables: ``6,144 MB, 3 vc`` (custom types by name); ∞ when unbounded."""
    if all(v == LONG_MAX for v in r.values):
        return "∞"
    parts = [f"{amount(r.memory)} MB", f"{amount(r.vcores)} vc"]
    parts += [f"{amount(v)} {n}" for n, v in zip(types.names[2:], r.values[2:], strict=True)]
    return ", ".join(parts)


def configurable(value: ConfigurableResource | None, types: ResourceTypes) -> str:
    if value is None:
        return "∞"
    if value.percentages is not None:
        if len(set(value.percentages)) == 1:
            return f"{value.percentages[0] * 100:g}% of the cluster"
        pcts = [f"{n}={p * 100:g}%" for n, p in zip(types.names, value.percentages, strict=True)]
        return ", ".join(pcts)
    assert value.absolute is not None
    return short(value.absolute, types)


def timeout(ms: int) -> str:
    if ms == TIMEOUT_NEVER_MS:
        return "never"
    if ms == UNSET_TIMEOUT_MS:
        return "unset"
    if ms % 1000 == 0:
        return f"{ms // 1000}s"
    return f"{ms}ms"


def fair_share_starvation(timeout_ms: int, threshold: float) -> str:
    """When an app counts as fair-share starved, e.g. ``< 80% for 5s`` (docs/semantics.md §4.2)."""
    if timeout_ms == TIMEOUT_NEVER_MS or not threshold > 0:  # NaN thresholds never starve
        return "off"
    wait = "at once" if timeout_ms <= 0 else f"for {timeout(timeout_ms)}"
    return f"< {threshold * 100:.4g}% {wait}"


def min_share_starvation(timeout_ms: int, has_min_share: bool) -> str:
    """When a queue counts as min-share starved, e.g. ``after 60s`` (§4.3)."""
    if not has_min_share or timeout_ms == TIMEOUT_NEVER_MS:
        return "off"
    return "at once" if timeout_ms <= 0 else f"after {timeout(timeout_ms)}"


def percent(part: int, whole: int) -> str:
    if whole <= 0:
        return ""
    if part == LONG_MAX:
        return "∞"
    return f"{100.0 * part / whole:.1f}"


def rule(r: PlacementRule) -> str:
    """``user (create=false) under primaryGroup (create=true)``."""
    text = f"{r.name.value} (create={str(r.create).lower()}"
    if r.queue is not None:
        text += f", queue={r.queue}"
    text += ")"
    if r.parent is not None:
        text += f" under {rule(r.parent)}"
    return text




def mb_vc(memory_mb: float, vcores: float) -> str:
    """A time-averaged resource for a table: ``6,144 MB, 2.5 vc``; whole vcores from 10 on,
    GB from 100,000 MB on (``81,920 GB, 40,000 vc``). Within :func:`one_memory_unit`, every
    value in the cluster's unit, so that a column never mixes MB and GB (issue 30, item 6)."""
    return f"{report_units.memory(memory_mb)}, {vcores_number(vcores)} vc"


# the report's rule (report/units.py): GB for every value on a cluster of 100,000 MB or more
one_memory_unit = report_units.memory_unit_of


def ratio(value: float | None) -> str:
    """A fraction as a whole percentage; ``–`` when undefined (nothing to divide by)."""
    return whole_percent(value)
