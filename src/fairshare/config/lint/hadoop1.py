"""A Hadoop 1 (MR1) allocation file, told once rather than one warning per element.

Hadoop 1's Fair Scheduler (``org.apache.hadoop.mapred.PoolManager``) shared slots, not memory and
vcores: its pools took ``minMaps``, ``minReduces``, ``maxMaps``, ``maxReduces`` and
``maxRunningJobs``, users ``maxRunningJobs``, and the file ``poolMaxJobsDefault``,
``userMaxJobsDefault`` and ``defaultPoolSchedulingMode``. YARN still reads ``<pool>`` as
``<queue>`` and the settings both schedulers share (``weight``, ``schedulingMode``, the preemption
timeouts), and skips the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from fairshare.config.dom import child_elements, dom_tag, line_of
from fairshare.config.model import ConfigWarning
from fairshare.config.xml import Element

__all__ = ["HADOOP1_CODE", "with_hadoop1_finding"]

HADOOP1_CODE = "hadoop1-allocation-file"
_IN_POOL = frozenset({"minMaps", "minReduces", "maxMaps", "maxReduces", "maxRunningJobs"})
_IN_USER = frozenset({"maxRunningJobs"})
_TOP_LEVEL = frozenset({"poolMaxJobsDefault", "userMaxJobsDefault", "defaultPoolSchedulingMode"})
_YARN_NAMES = {
    "minMaps": "<minResources>", "minReduces": "<minResources>",
    "maxMaps": "<maxResources>", "maxReduces": "<maxResources>",
    "maxRunningJobs": "<maxRunningApps>", "poolMaxJobsDefault": "<queueMaxAppsDefault>",
    "userMaxJobsDefault": "<userMaxAppsDefault>",
    "defaultPoolSchedulingMode": "<defaultQueueSchedulingPolicy>",
}  # fmt: skip
_SHOWN_LINES = 8


def with_hadoop1_finding(root: Element, source: str | None,
                         warnings: Sequence[ConfigWarning]) -> list[ConfigWarning]:
    """``warnings`` with those about Hadoop 1 elements replaced by one finding that says the file
    is a Hadoop 1 one (unchanged when it has no Hadoop 1 element)."""
    elements = _hadoop1_elements(root)
    if not elements:
        return list(warnings)
    lines = {line_of(e) for e in elements} - {None}
    kept = [w for w in warnings if not (w.code == "config" and w.file == source
                                        and w.line in lines)]
    return [*kept, _finding(elements, source)]


def _hadoop1_elements(root: Element) -> list[Element]:
    found: list[Element] = []
    for element in child_elements(root):
        tag = dom_tag(element)
        if tag in _TOP_LEVEL:
            found.append(element)
        elif tag == "user":
            found += [c for c in child_elements(element) if dom_tag(c) in _IN_USER]
        elif tag in ("pool", "queue"):
            found += _in_pools(element)
    return sorted(found, key=lambda e: line_of(e) or 0)


def _in_pools(pool: Element) -> list[Element]:
    found: list[Element] = []
    for child in child_elements(pool):
        tag = dom_tag(child)
        if tag in _IN_POOL:
            found.append(child)
        elif tag in ("pool", "queue"):
            found += _in_pools(child)
    return found


def _finding(elements: list[Element], source: str | None) -> ConfigWarning:
    tags = list(dict.fromkeys(dom_tag(e) for e in elements))
    lines = [str(n) for n in dict.fromkeys(line_of(e) for e in elements) if n is not None]
    shown = ", ".join(lines[:_SHOWN_LINES]) + (", …" if len(lines) > _SHOWN_LINES else "")
    noun = "element" if len(elements) == 1 else "elements"
    targets: dict[str, list[str]] = {}
    for t in tags:
        targets.setdefault(_YARN_NAMES[t], []).append(f"<{t}>")
    mapping = "; ".join(f"{' and '.join(old)} → {new}" for new, old in targets.items())
    return ConfigWarning(
        f"a Hadoop 1 (MR1) allocation file: YARN ignores its {_tag_list(tags)} "
        f"({len(elements)} {noun}, line{'s' if len(lines) > 1 else ''} {shown})",
        file=source, line=line_of(elements[0]), code=HADOOP1_CODE,
        consequence="YARN's Fair Scheduler reads <pool> as <queue> and keeps what it shares "
        "with Hadoop 1 (weight, schedulingMode, the preemption timeouts), but slot counts and "
        "job limits are not YARN settings: AllocationFileParser logs \"Bad element in "
        "allocations file\" for the top-level ones and skips the others without a word, so no "
        "pool gets a min or max share or a running-application limit from them, and no user a "
        "job limit",
        fix=f"rewrite them in YARN's terms: {mapping}; a share is memory and vcores, not "
            "slots (e.g. \"memory-mb=40960, vcores=20\" for what the slots were worth); <pool> "
            "may stay or become <queue>")


def _tag_list(tags: list[str]) -> str:
    quoted = [f"<{t}>" for t in tags]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
