"""An allocation file rebuilt from the scheduler's queue tree, when the dump has none.

``/ws/v1/cluster/scheduler`` shows each queue's policy, min share, max share (cut at the cluster
size), maxApps and (Hadoop 3) whether it is preemptable: those are written as they are. The
policy is read as YARN's ``SchedulingPolicy.parse`` reads it, in any case: the REST API writes
``fair``, ``DRF`` and ``FIFO`` (each policy's NAME). It does not show weights: they are read
from the steady fair shares of sibling queues (:mod:`fairshare.sim.importer.weights`). Nor
maxAMShare: it is read from the AM limit gauge when that reading is exact, else YARN's default
is kept. What it does not show at all (preemption timeouts and thresholds, ACLs, placement
rules, user limits) keeps YARN's defaults. Each guess is an XML comment beside the value it
concerns, and one line of :attr:`Rebuilt.guesses`, which the import prints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.allocation_values import BadValue, parse_policy
from fairshare.config.errors import ConfigError, ConfigErrors
from fairshare.config.model import AllocationConfig, PolicyName
from fairshare.resources.vector import ResourceTypes, float32
from fairshare.sim.importer.dump import JAVA_INT_MAX, Amounts, DumpQueue
from fairshare.sim.importer.weights import WeightGuess, guess_weights

DEFAULT_MAX_AM_SHARE = 0.5  # queueMaxAMShareDefault (YARN-2539)


@dataclass(frozen=True)
class Rebuilt:
    text: str
    guesses: tuple[str, ...]  # "root.etl: weight guessed …", in the file's order


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


def rebuild_allocations(root: DumpQueue, cluster: Amounts | None, source: str) -> Rebuilt:
    """The allocation file's text (the root queue and every queue under it), and its guesses."""
    lines = [HEADER.format(source=_comment(source))]
    guesses: list[str] = []
    lines += _queue(root, {}, cluster, 1, guesses)
    lines.append("</allocations>\n")
    return Rebuilt("".join(lines), tuple(guesses))


def read_rebuilt(rebuilt: Rebuilt, root: DumpQueue, scheduler: str, types: ResourceTypes
                 ) -> AllocationConfig:
    """The rebuilt file as the scenario will load it. A value YARN would refuse (a vcore count
    beyond a Java int, say) comes from the dump: it is reported at ``scheduler.json``, at the
    queue's line, not at a file that is never written."""
    try:
        return parse_allocations_text(rebuilt.text, "fair-scheduler.xml", types)
    except ConfigError as e:
        lines = {}
        todo = [root]
        while todo:
            q = todo.pop()
            lines[q.name] = q.line
            todo += q.children
        errors = e.errors if isinstance(e, ConfigErrors) else [e]
        raise ConfigErrors([ConfigError(
            f"{err.message} (in the allocation file rebuilt from it)", scheduler,
            lines.get(err.message.split(":", 1)[0])) for err in errors]) from None


def _queue(q: DumpQueue, weights: dict[str, WeightGuess], cluster: Amounts | None, depth: int,
           guesses: list[str]) -> list[str]:
    pad = "  " * depth
    short = q.name.rsplit(".", 1)[-1]
    kind = "" if q.leaf or q.children else ' type="parent"'
    out = [f'{pad}<queue name="{escape(short)}"{kind}>\n']
    for comment, element in _settings(q, weights.get(q.name), cluster):
        if comment:
            out.append(f"{pad}  <!-- {_comment(comment)} -->\n")
            guesses.append(f"{q.name}: {element}: {comment}" if element else
                           f"{q.name}: {comment}")
        if element:
            out.append(f"{pad}  {element}\n")
    if q.children:
        drf = _policy(q)[0] is PolicyName.DRF
        child_weights = guess_weights(q.children, drf)
        for child in q.children:
            out += _queue(child, child_weights, cluster, depth + 1, guesses)
    out.append(f"{pad}</queue>\n")
    return out


def _policy(q: DumpQueue) -> tuple[PolicyName | None, str]:
    """The dump's policy name as YARN reads one (any case), or None and why not."""
    if q.policy is None:
        return None, ""
    try:
        return parse_policy(q.policy.strip()), ""
    except BadValue:
        return None, (f"schedulingPolicy {q.policy!r} is not fair, DRF or FIFO (a policy class "
                      "fairshare does not have): left out, so the queue is fair")


def _settings(q: DumpQueue, weight: WeightGuess | None, cluster: Amounts | None
              ) -> list[tuple[str, str]]:
    """(comment, element) pairs; either may be empty."""
    found: list[tuple[str, str]] = []
    if weight is not None:
        element = "" if weight.weight == 1 else f"<weight>{weight.weight:g}</weight>"
        found.append((weight.why, element))
    policy, why = _policy(q)
    if why:
        found.append((why, ""))
    elif policy is not None and policy is not PolicyName.FAIR:
        found.append(("", f"<schedulingPolicy>{policy.value}</schedulingPolicy>"))
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


def _max_am_share(q: DumpQueue) -> tuple[str, str]:
    """maxAMShare is not shown. The MaxAMShare gauge (amMaxResources) is set when YARN checks
    an AM against the limit: ``ceil(fair share × maxAMShare)`` for the fair share of that moment
    (FSLeafQueue.computeMaxAMResource, docs/semantics.md §3.6.4). A share of two decimals that
    gives the gauge exactly from today's fair share is taken; otherwise the fair share has moved
    since (or the check never ran), and YARN's default is the likelier value."""
    default = f"maxAMShare left at YARN's default {DEFAULT_MAX_AM_SHARE:g}"
    if q.am_max is None:
        return ("", "")
    if not q.am_max[0]:
        return (f"{default}: amMaxResources is 0 (no AM limit computed yet)", "")
    if not q.fair or not q.fair[0]:
        return (f"{default}: the fair share is 0, so amMaxResources ({q.am_max[0]:,} MB) "
                "cannot be compared with it", "")
    gauge, fair = q.am_max[0], q.fair[0]
    share = round(gauge / fair, 2)
    if 0 < share <= 1 and math.ceil(fair * float32(share)) == gauge:
        if share == DEFAULT_MAX_AM_SHARE:
            return (f"{default}: amMaxResources ({gauge:,} MB) is half the fair share "
                    f"({fair:,} MB)", "")
        return (f"maxAMShare guessed from amMaxResources ({gauge:,} MB) over the fair share "
                f"({fair:,} MB) the dump shows", f"<maxAMShare>{share:g}</maxAMShare>")
    return (f"{default}: amMaxResources ({gauge:,} MB) is no share of two decimals of the fair "
            f"share ({fair:,} MB): the fair share has changed since YARN computed the AM limit",
            "")


def _comment(text: str) -> str:
    """Text that may stand in an XML comment, which cannot hold ``--``."""
    while "--" in text:
        text = text.replace("--", "- -")
    return text


def _amounts(amounts: Amounts) -> str:
    return f"{amounts[0]} mb, {amounts[1]} vcores"
