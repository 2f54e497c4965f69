"""An allocation file rebuilt from the scheduler's queue tree, when the dump has none.

``/ws/v1/cluster/scheduler`` shows each queue's policy, min share, max share (cut at the cluster
size), maxApps and (Hadoop 3) whether it is preemptable: those are written as they are. It does
not show weights: they are guessed from the steady fair shares of sibling queues, which YARN
splits by weight. What it does not show at all (preemption timeouts and thresholds, ACLs,
placement rules, user limits) keeps YARN's defaults. Each guess is an XML comment beside the
value it concerns, saying what was guessed and why.
"""

from __future__ import annotations

from html import escape

from fairshare.sim.importer.dump import JAVA_INT_MAX, Amounts, DumpQueue

POLICIES = ("fair", "drf", "fifo")
DEFAULT_MAX_AM_SHARE = 0.5

HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<!-- Rebuilt by `fairshare import` from {source} (the RM's /ws/v1/cluster/scheduler).
     Written as reported: schedulingPolicy, minResources, maxApps (maxRunningApps),
     preemptable (allowPreemptionFrom). maxResources is reported cut at the cluster's size:
     one equal to the cluster is left out (no limit), a percentage appears as amounts.
     Not in the REST API, so YARN's defaults apply: fair-share and min-share preemption
     timeouts and thresholds, ACLs, placement rules, user limits, maxChildResources,
     queueMaxAMShareDefault. Give `fairshare import` the cluster's own file (its allocations
     option) to use the real values. -->
<allocations>
"""


def rebuild_allocations(root: DumpQueue, cluster: Amounts | None, source: str) -> str:
    """The allocation file's text (the root queue and every queue under it)."""
    lines = [HEADER.format(source=_comment(source))]
    lines += _queue(root, (), cluster, 1)
    lines.append("</allocations>\n")
    return "".join(lines)


def _queue(q: DumpQueue, siblings: tuple[DumpQueue, ...], cluster: Amounts | None,
           depth: int) -> list[str]:
    pad = "  " * depth
    short = q.name.rsplit(".", 1)[-1]
    kind = "" if q.leaf or q.children else ' type="parent"'
    out = [f'{pad}<queue name="{escape(short)}"{kind}>\n']
    for comment, element in _settings(q, siblings, cluster):
        if comment:
            out.append(f"{pad}  <!-- {_comment(comment)} -->\n")
        if element:
            out.append(f"{pad}  {element}\n")
    for child in q.children:
        out += _queue(child, q.children, cluster, depth + 1)
    out.append(f"{pad}</queue>\n")
    return out


def _settings(q: DumpQueue, siblings: tuple[DumpQueue, ...], cluster: Amounts | None
              ) -> list[tuple[str, str]]:
    """(comment, element) pairs; either may be empty."""
    found: list[tuple[str, str]] = []
    if siblings:
        found.append(_weight(q, siblings))
    if q.policy in POLICIES:
        if q.policy != "fair":
            found.append(("", f"<schedulingPolicy>{q.policy}</schedulingPolicy>"))
    elif q.policy is not None:
        found.append((f"schedulingPolicy {q.policy!r} is not one fairshare knows: left out "
                      "(fair)", ""))
    if q.min_resources and any(q.min_resources):
        found.append(("", f"<minResources>{_amounts(q.min_resources)}</minResources>"))
    if q.max_resources and q.max_resources != cluster:
        found.append(("", f"<maxResources>{_amounts(q.max_resources)}</maxResources>"))
    if q.max_apps is not None and q.max_apps != JAVA_INT_MAX:
        found.append(("", f"<maxRunningApps>{q.max_apps}</maxRunningApps>"))
    if q.preemptable is False:
        found.append(("", "<allowPreemptionFrom>false</allowPreemptionFrom>"))
    if q.leaf:
        found.append(_max_am_share(q))
    return found


def _weight(q: DumpQueue, siblings: tuple[DumpQueue, ...]) -> tuple[str, str]:
    """Steady fair shares split a parent's steady share by weight among its children: their
    ratios are the weights' (min and max shares bend them, hence only a guess)."""
    steady = [s.steady_fair[0] if s.steady_fair else None for s in siblings]
    if q.steady_fair is None or None in steady:
        return ("weight guessed 1 (the default): the dump has no steadyFairResources to "
                "compare the siblings' shares", "")
    unit = min((m for m in steady if m), default=0)
    if not unit:
        return ("weight guessed 1: no sibling has a steady fair share to compare", "")
    weight = round(q.steady_fair[0] / unit, 3)
    why = (f"weight guessed from the steady fair share ({q.steady_fair[0]:,} MB) against the "
           f"smallest of its siblings' ({unit:,} MB); min or max shares would skew this")
    if weight == 1:
        return (why, "")
    return (why, f"<weight>{weight:g}</weight>")


def _max_am_share(q: DumpQueue) -> tuple[str, str]:
    """maxAMShare is not shown; the MaxAMShare gauge (amMaxResources) is maxAMShare times
    the leaf's fair share when the last AM check ran, so their ratio is a guess at it."""
    if not q.am_max or not q.fair or not q.am_max[0] or not q.fair[0]:
        return ("", "")
    share = round(q.am_max[0] / q.fair[0], 2)
    if share == DEFAULT_MAX_AM_SHARE or not 0 < share <= 1:
        return ("", "")
    return (f"maxAMShare guessed from amMaxResources ({q.am_max[0]:,} MB) over the fair "
            f"share ({q.fair[0]:,} MB) the dump shows", f"<maxAMShare>{share:g}</maxAMShare>")


def _comment(text: str) -> str:
    """Text that may stand in an XML comment, which cannot hold ``--``."""
    while "--" in text:
        text = text.replace("--", "- -")
    return text


def _amounts(amounts: Amounts) -> str:
    return f"{amounts[0]} mb, {amounts[1]} vcores"
