"""The ``yarn.scheduler.fair.*`` and ``yarn.resourcemanager.scheduler.*`` properties YARN reads,
and the finding for a key among them that it does not (a misspelling, most often).

The Fair Scheduler's keys are those of ``FairSchedulerConfiguration`` (every one of them is read
by ``config.yarnsite``); of ``yarn.resourcemanager.scheduler.*`` (``YarnConfiguration``'s
``RM_SCHEDULER_*``) the model needs only the class, but the others are real and not reported.
"""

from __future__ import annotations

import difflib

from fairshare.config.hadoopconf import ConfReader

__all__ = ["AM_PREEMPTION_PREFIX", "FAIR", "KNOWN_FAIR", "RM_SCHEDULER", "warn_unknown_keys"]

FAIR = "yarn.scheduler.fair."
KNOWN_FAIR = frozenset(
    {
        "allocation.file", "user-as-default-queue", "allow-undeclared-pools", "preemption",
        "preemption.cluster-utilization-threshold", "am.preemption", "waitTimeBeforeKill",
        "waitTimeBeforeNextStarvationCheck", "assignmultiple", "dynamic.max.assign", "max.assign",
        "sizebasedweight", "locality.threshold.node", "locality.threshold.rack",
        "update-interval-ms", "reservable-nodes", "continuous-scheduling-enabled",
        "continuous-scheduling-sleep-ms", "locality-delay-node-ms", "locality-delay-rack-ms",
        "migration.mode", "no-terminal-rule.check",
    }
)  # fmt: skip
AM_PREEMPTION_PREFIX = FAIR + "am.preemption."


# The yarn.resourcemanager.scheduler.* properties of YarnConfiguration (RM_SCHEDULER_*): the
# RM reads them, the Fair Scheduler model needs only the class; HA setups suffix the address
# with the RM id (yarn.resourcemanager.scheduler.address.rm1).
RM_SCHEDULER = "yarn.resourcemanager.scheduler."
_KNOWN_RM_SCHEDULER = frozenset(
    {"address", "class", "client.thread-count", "monitor.enable", "monitor.policies"}
)


def warn_unknown_keys(r: ConfReader) -> None:
    """A ``yarn.scheduler.fair.*`` or ``yarn.resourcemanager.scheduler.*`` key YARN never
    reads is dead (a misspelling, most often): say so, with the closest real key."""
    for key in r.entries:
        if key.startswith(FAIR) and not key.startswith(AM_PREEMPTION_PREFIX):
            _check_fair_key(r, key, key[len(FAIR):])
        elif key.startswith(RM_SCHEDULER):
            suffix = key[len(RM_SCHEDULER):]
            if suffix not in _KNOWN_RM_SCHEDULER and not suffix.startswith("address."):
                _unknown_key(r, key, RM_SCHEDULER, suffix, _KNOWN_RM_SCHEDULER)


def _check_fair_key(r: ConfReader, key: str, suffix: str) -> None:
    if suffix in KNOWN_FAIR:
        return
    gone = "it has no effect"
    if suffix == "preemptionInterval":
        r.warn(key, f"{key} was removed by YARN-6163 with the old preemption code",
               code="removed-site-key", consequence=gone, fix="remove it")
    elif suffix.startswith("event-log-"):
        r.warn(key, f"{key} was removed by YARN-7524 with the event log",
               code="removed-site-key", consequence=gone, fix="remove it")
    else:
        _unknown_key(r, key, FAIR, suffix, KNOWN_FAIR)


def _unknown_key(r: ConfReader, key: str, prefix: str, suffix: str,
                 known: frozenset[str]) -> None:
    close = difflib.get_close_matches(suffix, sorted(known), n=1)
    hint = f"; did you mean {prefix}{close[0]}?" if close else ""
    r.warn(key, f"{key} is not a property YARN reads{hint}", code="unknown-site-key",
           consequence="it has no effect" + (f", so {prefix}{close[0]} keeps its value or "
                                              "default" if close else ""),
           fix=f"spell it {prefix}{close[0]}" if close else "remove it")
