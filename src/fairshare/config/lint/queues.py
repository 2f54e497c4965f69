"""Per-queue findings refined by the whole configuration: a zero max share on a queue that is
closed on purpose, and min-share timeouts that apply to no min share.

Both are made while one element is read (:mod:`.values`), when neither the queue's other settings
nor the placement rules are known yet; here they are kept, softened or dropped.
"""

from __future__ import annotations

from dataclasses import replace

from fairshare.config.lint.placement import reachable
from fairshare.config.model import AllocationConfig, ConfigWarning, PlacementPolicy, QueueConfig

__all__ = ["closed_because", "min_share_timeout_applies", "refine_queue_findings"]

_UNREACHED = "no placement rule that places applications in it"


def refine_queue_findings(config: AllocationConfig, policy: PlacementPolicy,
                          findings: list[ConfigWarning]) -> list[ConfigWarning]:
    """``findings`` with a zero max share on a closed queue turned into a ``closed-queue`` note,
    and every ``min-share-starvation`` note that applies to no queue with a min share dropped."""
    refined: list[ConfigWarning] = []
    for finding in findings:
        if finding.code == "zero-max-share" and finding.queue is not None:
            why = closed_because(config, policy, finding.queue)
            refined.append(_closed(finding, why) if why else finding)
        elif finding.code == "min-share-starvation":
            if min_share_timeout_applies(config, finding.queue):
                refined.append(finding)
        else:
            refined.append(finding)
    return refined


def closed_because(config: AllocationConfig, policy: PlacementPolicy, queue: str) -> list[str]:
    """Why no application can ever run in ``queue`` whatever its max share (empty: it can run
    some): a weight of 0 or a maxRunningApps of 0 on it or above it, or no placement rule that
    reaches it."""
    why: list[str] = []
    for name in _self_and_ancestors(queue):
        q = config.queue(name)
        if q is None or q.settings_ignored:
            continue
        why += [f"{_whose(name, queue)}{setting} 0" for setting, value in
                (("weight", q.weight), ("maxRunningApps", q.max_running_apps)) if value == 0]
    own = config.queue(queue)
    if (own is None or own.max_running_apps is None) and config.queue_max_apps_default == 0:
        why.append("queueMaxAppsDefault 0")
    if not reachable(policy, queue):
        why.append(_UNREACHED)
    return why


def _whose(name: str, queue: str) -> str:
    return "" if name == queue else f"{name}'s "


def _self_and_ancestors(queue: str) -> list[str]:
    parts = queue.split(".")
    return [".".join(parts[:n]) for n in range(len(parts), 0, -1)]


def _closed(finding: ConfigWarning, why: list[str]) -> ConfigWarning:
    undo = [f"raise {w.rpartition(' ')[0]} above 0" for w in why if w != _UNREACHED]
    if _UNREACHED in why:
        undo.append("add a placement rule that reaches it (a specified rule reaches every queue)")
    return replace(
        finding, code="closed-queue", severity="info",
        message=f"{finding.message}, with {' and '.join(why)}: a closed queue",
        consequence="no application runs in it, as seems meant: FairScheduler.addApplication "
        "rejects an application whose AM asks for a resource the queue's max share has none of "
        "(every AM asks for at least 1 vcore and yarn.scheduler.minimum-allocation-mb)",
        fix="nothing if the queue is meant to be closed; to open it, give its max share "
            f"positive memory and vcores, and {', and '.join(undo)}")


def min_share_timeout_applies(config: AllocationConfig, queue: str | None) -> bool:
    """Min-share starvation is computed for leaf queues with a min share (FSLeafQueue
    .minShareStarvation), each with the timeout of its nearest queue that sets one, else the
    top-level default: the note applies when one such leaf takes this timeout."""
    for leaf in config.queues:
        if leaf.is_parent or leaf.settings_ignored or not _has_min_share(leaf):
            continue
        if _timeout_owner(config, leaf.name) == queue:
            return True
    return False


def _has_min_share(q: QueueConfig) -> bool:
    return q.min_resources is not None and any(v > 0 for v in q.min_resources.values)


def _timeout_owner(config: AllocationConfig, leaf: str) -> str | None:
    """The queue whose minSharePreemptionTimeout ``leaf`` inherits (None: the default)."""
    for name in _self_and_ancestors(leaf):
        q = config.queue(name)
        if q is not None and q.min_share_preemption_timeout_ms is not None:
            return name
    return None
