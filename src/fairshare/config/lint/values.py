"""Findings about one element's value, made while the allocation file is read.

Each check sees the element's text as written and the value YARN keeps (after its parse-time
clamps), so that a clamp can be reported with what was written. The parser places the finding at
the element's line (``Problems.report``).

Weight 0 and ``maxRunningApps`` 0 are deliberate techniques (a queue with only its min share, a
closed queue) and get no finding.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from fairshare.config.model import ConfigWarning
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.javalang import parse_double, parse_int, shorten, wrap_long
from fairshare.resources.vector import Resource

__all__ = ["value_finding", "zero_max_finding"]

_FRACTION_FIX = "write a fraction between 0 and 1 (0.8 for 80 %)"

Check = Callable[[str, str, object], ConfigWarning | None]

_NO_WAITING = (
    "so there is no waiting: a queue below its share counts as starved at once "
    "(FSLeafQueue compares the time since it was last at its share with the timeout)"
)
_NOT_FAIR_SHARE = (
    "YARN preempts only containers of applications above their fair share, never those of a "
    "queue that is merely above its min share; the resources it recovers go to the queue's "
    "applications in order of demand, not evenly; and a min share above the queue's fair "
    "share becomes its fair share, which shrinks every sibling's"
)
_PREFER_FAIR_SHARE = (
    "prefer fair-share starvation (fairSharePreemptionTimeout with "
    "fairSharePreemptionThreshold) and weights; keep min shares for what weights cannot "
    "express (different memory and vcore proportions), with their sum below the cluster"
)


def value_finding(tag: str, text: str, value: object, subject: str = "",
                  queue: str | None = None) -> ConfigWarning | None:
    """What is wrong with the value ``text`` of element ``tag`` (kept by YARN as ``value``),
    as an unplaced finding whose message starts with ``subject`` (a queue or user), or None.
    ``queue`` is the full name of the queue the element belongs to, if it does."""
    check = _CHECKS.get(tag)
    finding = check(tag, text, value) if check is not None else None
    if finding is None or not subject:
        return finding
    return ConfigWarning(f"{subject}: {finding.message}", code=finding.code,
                         severity=finding.severity, consequence=finding.consequence,
                         fix=finding.fix, queue=queue)


def _finding(code: str, severity: str, tag: str, text: str, what: str, consequence: str,
             fix: str = "") -> ConfigWarning:
    return ConfigWarning(f'<{tag}> "{shorten(text)}" {what}', code=code, severity=severity,
                         consequence=consequence, fix=fix)


def _weight(tag: str, text: str, value: object) -> ConfigWarning | None:
    if not isinstance(value, float) or math.isfinite(value):
        return None
    fix = "a finite weight, e.g. 1.0"
    if math.isnan(value):
        return _finding(
            "weight-nan", "error", tag, text, "gives weight NaN, which YARN accepts",
            "the queue's fair share is then 0 at every step, so whenever its siblings cannot "
            "absorb the whole share (e.g. it is an only child) the doubling loop of "
            "ComputeFairShares never ends and YARN's update thread hangs", fix)
    if value > 0:
        return _finding(
            "weight-infinite", "warning", tag, text, "gives weight +Infinity, which YARN accepts",
            "the queue takes its parent's whole share up to its maxResources (unbounded by "
            "default), leaving its siblings only their min shares", fix)
    return _finding("weight-infinite", "warning", tag, text,
                    "gives weight -Infinity, which YARN treats like 0",
                    "the queue gets only its min share", fix)


def _threshold(tag: str, text: str, value: object) -> ConfigWarning | None:
    if isinstance(value, float) and math.isnan(value):
        return _finding(
            "threshold-nan", "warning", tag, text, "is NaN, which YARN accepts",
            "threshold × fair share is then 0, so no application is ever fair-share starved "
            "and fair-share preemption never happens", "a fraction between 0 and 1, e.g. 0.5")
    written = parse_double(text)  # already parsed once, so it is a valid number
    if written > 1.0:
        return _finding(
            "threshold-clamped", "warning", tag, text, "is above 1",
            "YARN clamps it to 1.0 (AllocationFileQueueParser), so an application counts as "
            "fair-share starved as soon as it is below its whole fair share, not below a "
            "fraction of it", _FRACTION_FIX)
    if written < 0.0:
        return _finding(
            "threshold-clamped", "warning", tag, text, "is below 0",
            "YARN clamps it to 0.0 (AllocationFileQueueParser): threshold × fair share is 0, "
            "so no application is ever fair-share starved and fair-share preemption never "
            "happens here", "a fraction between 0 and 1, e.g. 0.5 (YARN's default)")
    return None


def _max_am_share(tag: str, text: str, value: object) -> ConfigWarning | None:
    written = parse_double(text)
    if written > 1.0:
        return _finding(
            "max-am-share-clamped", "warning", tag, text, "is above 1",
            "YARN keeps min(value, 1.0) = 1.0 (AllocationFileQueueParser): application "
            "masters may take the queue's whole fair share, leaving no room for the containers "
            "they ask for", _FRACTION_FIX)
    # FSLeafQueue.canRunAppAM: -1 (within 0.0001) disables the check
    if written < 0.0 and abs(written + 1.0) >= 0.0001:
        return _finding(
            "max-am-share-negative", "error", tag, text, "is negative and not -1",
            "YARN accepts it, but the AM limit (fair share × maxAMShare) is then negative, so "
            "every application master fails the check (FSLeafQueue.canRunAppAM) and no "
            "application in the queue ever starts",
            "-1 to turn the check off, or a fraction between 0 and 1")
    return None


def _max_apps(tag: str, text: str, value: object) -> ConfigWarning | None:
    if isinstance(value, int) and value < 0:
        return _finding(
            "max-apps-negative", "error", tag, text, "is negative",
            "an application may run only while fewer than this many run, so none ever can "
            "(MaxRunningAppsEnforcer)", "0 to close the queue on purpose, else a positive count")
    return None


def _timeout(tag: str, text: str, value: object) -> ConfigWarning | None:
    seconds = parse_int(text, bits=64)  # already parsed once, so it is a valid long
    ms = wrap_long(seconds * 1000)
    fix = "a timeout in seconds, e.g. 30"
    if ms != seconds * 1000:
        consequence = _NO_WAITING if ms < 0 else "not the timeout that was written"
        wraps = f"seconds × 1000 overflows a Java long and wraps to {ms} ms"
        return _finding("timeout-overflow", "warning", tag, text, wraps, consequence, fix)
    if seconds < 0:
        return _finding("timeout-negative", "warning", tag, text, "is negative", _NO_WAITING, fix)
    if "MinShare" in tag or tag.startswith("minShare"):
        return _finding(
            "min-share-starvation", "info", tag, text, "configures min-share starvation",
            f"a queue below its min share for {seconds} s becomes starved, but {_NOT_FAIR_SHARE}",
            _PREFER_FAIR_SHARE)
    return None


def _zero_max(tag: str, text: str, value: object) -> ConfigWarning | None:
    return zero_max_finding(tag, text, value, None)


def zero_max_finding(tag: str, text: str, value: object, minimum: Resource | None
                     ) -> ConfigWarning | None:
    """A max share with 0 memory or vcores, unless the queue's own ``minimum`` lifts it
    (FSQueue.getMaxShare takes the larger of max and min per resource)."""
    if not isinstance(value, ConfigurableResource):
        return None
    amounts = value.absolute.values if value.absolute is not None else value.percentages
    assert amounts is not None
    floor = minimum.values if minimum is not None else (0, 0)
    zero = [name for name, amount, low in zip(("memory", "vcores"), amounts, floor,
                                              strict=False)
            if amount <= 0 and low == 0]  # -1: vcores left out of a key=value max (below)
    if not zero:
        return None
    whose = {
        "queueMaxResourcesDefault": "every queue without its own <maxResources>, root "
                                    "included, gets this max share: ",
        "maxChildResources": "every queue placement rules create under this one gets this max "
                             "share: ",
    }.get(tag, "")
    return _finding(
        "zero-max-share", "error", tag, text, f"gives a max share of 0 {' and 0 '.join(zero)}",
        f"{whose}FairScheduler.addApplication rejects every application submitted to a leaf "
        f"queue whose max share has none of a resource its AM asks for, and every AM asks "
        f"for at least yarn.scheduler.minimum-allocation-mb / -vcores (1024 MB, 1 vcore by "
        f"default); below a parent queue with such a max share no container fits "
        f"(fitsInMaxShare checks every ancestor), so its applications wait for ever",
        "give memory and vcores a positive amount, and in the key=value form write vcores too "
        '(e.g. "memory-mb=40000, vcores=100"): a vcores left out becomes 0 (YARN narrows '
        "Long.MAX_VALUE to an int, -1, then raises it to the min share)")


def _allow_preemption(tag: str, text: str, value: object) -> ConfigWarning | None:
    if text.lower() in ("true", "false"):
        return None
    return _finding(
        "allow-preemption-text", "warning", tag, text, "is neither true nor false",
        "YARN reads it with Boolean.parseBoolean, so anything but true means false: the queue "
        "and every queue below it are never preempted", "write true or false")


_CHECKS: dict[str, Check] = {
    "allowPreemptionFrom": _allow_preemption,
    "weight": _weight,
    "fairSharePreemptionThreshold": _threshold,
    "defaultFairSharePreemptionThreshold": _threshold,
    "maxAMShare": _max_am_share,
    "queueMaxAMShareDefault": _max_am_share,
    "maxRunningApps": _max_apps,
    "queueMaxAppsDefault": _max_apps,
    "userMaxAppsDefault": _max_apps,
    "minSharePreemptionTimeout": _timeout,
    "fairSharePreemptionTimeout": _timeout,
    "defaultMinSharePreemptionTimeout": _timeout,
    "defaultFairSharePreemptionTimeout": _timeout,
    "maxChildResources": _zero_max,
    "queueMaxResourcesDefault": _zero_max,
}
