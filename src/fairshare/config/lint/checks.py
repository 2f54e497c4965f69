"""Findings about the configuration as a whole: the allocation file and yarn-site together.

:func:`configuration_findings` gathers every finding that needs no cluster size — the readers'
own warnings and the checks here — in file and line order, for ``validate`` and ``lint``.
"""

from __future__ import annotations

import math
from dataclasses import replace

from fairshare.config.lint.placement import in_force, placement_findings
from fairshare.config.lint.queues import min_share_timeout_applies, refine_queue_findings
from fairshare.config.model import AllocationConfig, ConfigWarning
from fairshare.config.yarnsite import SiteConfig

__all__ = ["configuration_findings", "ordered"]

PREEMPTION = "yarn.scheduler.fair.preemption"
UTILIZATION = "yarn.scheduler.fair.preemption.cluster-utilization-threshold"


def configuration_findings(site: SiteConfig, config: AllocationConfig) -> list[ConfigWarning]:
    """Every cluster-independent finding, the allocation file's first, each file's by line.

    The readers' per-element findings are refined with what only the whole configuration says:
    a queue closed on purpose, the placement rules in force (:mod:`.queues`, :mod:`.placement`).
    """
    found = refine_queue_findings(config, in_force(site, config), list(config.warnings))
    found = placement_findings(site, config, [*site.warnings, *found])
    found += [f for f in (_preemption_never(site, config), _utilization(site)) if f is not None]
    return ordered(found, config.source)


def ordered(findings: list[ConfigWarning], first: str | None) -> list[ConfigWarning]:
    """``first``'s findings, then each other file's, each by line (unlocated ones first)."""
    return sorted(findings, key=lambda f: (f.file != first, f.file or "", f.line or 0))


def _at(site: SiteConfig, key: str, finding: ConfigWarning) -> ConfigWarning:
    file, line = site.origins.get(key, (None, None))
    return replace(finding, file=file, line=line)


def _preemption_never(site: SiteConfig, config: AllocationConfig) -> ConfigWarning | None:
    """Preemption on, but no queue can ever starve: every timeout is unset (YARN's default is
    Long.MAX_VALUE ms, "never"), or there is no allocation file (the thresholds are then -1)."""
    if not site.preemption or site.migration_mode:
        return None
    if not config.has_file:
        why = "there is no allocation file, so every queue's starvation threshold is YARN's " \
              "unset -1 and no application is ever starved"
    elif _any_timeout(config):
        return None
    else:
        why = ("no fairSharePreemptionTimeout is set (nor its default), nor a "
               "minSharePreemptionTimeout that a queue with a min share takes, and an unset "
               "timeout is Long.MAX_VALUE ms in YARN: no queue or application ever counts as "
               "starved")
    return _at(site, PREEMPTION, ConfigWarning(
        f"{PREEMPTION} is true, but nothing will ever be preempted", code="preemption-never",
        consequence=f"{why} (FSLeafQueue, FSAppAttempt.fairShareStarvation), so the "
        "preemption thread never has work",
        fix="set <defaultFairSharePreemptionTimeout> (seconds) in the allocation file, or a "
            "<fairSharePreemptionTimeout> on the queues that must get their share back"))


def _any_timeout(config: AllocationConfig) -> bool:
    """A fair-share timeout anywhere, or a min-share one that a leaf with a min share takes (a
    min-share timeout without a min share starves nothing)."""
    fair = [config.default_fair_share_preemption_timeout_ms,
            *(q.fair_share_preemption_timeout_ms for q in config.queues)]
    if any(t is not None for t in fair):
        return True
    owners: list[str | None] = []
    if config.default_min_share_preemption_timeout_ms is not None:
        owners.append(None)
    owners += [q.name for q in config.queues if q.min_share_preemption_timeout_ms is not None]
    return any(min_share_timeout_applies(config, owner) for owner in owners)


def _utilization(site: SiteConfig) -> ConfigWarning | None:
    """The utilization gate: starvation is checked only while ``threshold < utilization``
    (FairScheduler.shouldAttemptPreemption, strict), utilization being at most 1."""
    if UTILIZATION not in site.origins:
        return None
    threshold = site.preemption_cluster_utilization_threshold
    text = site.raw.get(UTILIZATION, "")
    if math.isnan(threshold) or threshold >= 1.0:
        return _at(site, UTILIZATION, ConfigWarning(
            f"{UTILIZATION}={text.strip()} is not below 1", code="utilization-threshold",
            severity="error" if site.preemption else "warning",
            consequence="YARN checks starvation only while the cluster's utilization (the "
            "larger of allocated memory and allocated vcores over the cluster's) is strictly "
            "above this threshold (FairScheduler.shouldAttemptPreemption), and utilization "
            "never exceeds 1, so preemption can never start; YARN does not clamp it",
            fix="a fraction below 1: 0.8 for 80 % (YARN's default)"))
    if threshold < 0.0:
        return _at(site, UTILIZATION, ConfigWarning(
            f"{UTILIZATION}={text.strip()} is negative", code="utilization-threshold",
            consequence="any utilization is above it, so starvation is checked and containers "
            "are preempted even on an idle cluster, the churn the threshold exists to avoid",
            fix="a fraction between 0 and 1, e.g. 0.8 (YARN's default)"))
    return None
