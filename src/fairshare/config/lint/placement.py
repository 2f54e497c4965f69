"""Findings about where applications go: placement rules YARN never reads, yarn-site keys the
allocation file's own rules make dead, and which queues any rule can reach (docs/semantics.md
§1.5.2–§1.5.4).

A ``<queuePlacementPolicy>`` is read only as a child of ``<allocations>`` (AllocationFileParser);
inside a ``<queue>`` AllocationFileQueueParser skips it without a word, and the rules in force
are then the file's top-level ones or, without those, the ones YARN generates from yarn-site.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from fairshare.config.model import AllocationConfig, ConfigWarning, PlacementPolicy, PlacementRule
from fairshare.config.model import RuleName as R
from fairshare.config.placement.default import default_queue
from fairshare.config.placement.names import ROOT
from fairshare.config.placement.policy import generated_policy
from fairshare.config.yarnsite import SiteConfig

__all__ = ["in_force", "placement_findings", "placement_in_queue", "reachable", "rules_text"]

IN_QUEUE = "placement-policy-in-queue"
FAIR = "yarn.scheduler.fair."
_SITE_KEYS = ("user-as-default-queue", "allow-undeclared-pools")
_ANY = "*"  # a queue-name component a user or group name fills in


def placement_in_queue(queue: str) -> ConfigWarning:
    """A ``<queuePlacementPolicy>`` inside ``queue``'s element; the consequence names the rules
    in force once the whole configuration is known (:func:`placement_findings`)."""
    return ConfigWarning(
        f"{queue}: <queuePlacementPolicy> inside a <queue> is ignored", code=IN_QUEUE,
        queue=queue,
        consequence="AllocationFileQueueParser skips it without a word: YARN reads placement "
        "rules only from a <queuePlacementPolicy> directly under <allocations>",
        fix="move the <queuePlacementPolicy> element out of the <queue> element, to directly "
            "under <allocations>; YARN then places applications by its rules")


def in_force(site: SiteConfig, config: AllocationConfig) -> PlacementPolicy:
    """The rules YARN places applications by: the file's, else those generated from yarn-site
    (§1.5.4)."""
    if config.placement_policy is not None:
        return config.placement_policy
    return generated_policy(site.user_as_default_queue, site.allow_undeclared_pools)


def placement_findings(site: SiteConfig, config: AllocationConfig,
                       findings: list[ConfigWarning]) -> list[ConfigWarning]:
    """``findings`` with each ignored nested policy told which rules replace it, and the
    yarn-site placement keys the file's own rules make dead."""
    policy = in_force(site, config)
    replaced = [_replaced_by(f, policy) if f.code == IN_QUEUE else f for f in findings]
    return replaced + list(_dead_site_keys(site, config))


def _replaced_by(finding: ConfigWarning, policy: PlacementPolicy) -> ConfigWarning:
    if policy.generated:
        what = ("the file has no <queuePlacementPolicy> of its own, so YARN generates the rules "
                "from yarn.scheduler.fair.user-as-default-queue and allow-undeclared-pools "
                f"(QueuePlacementPolicy.fromConfiguration): {rules_text(policy)}")
    else:
        what = f"the file's top-level <queuePlacementPolicy> is in force: {rules_text(policy)}"
    return replace(finding, consequence=f"{finding.consequence}; {what}, and the rules written "
                   "here are never used")


def _dead_site_keys(site: SiteConfig, config: AllocationConfig) -> Iterator[ConfigWarning]:
    """user-as-default-queue and allow-undeclared-pools only build the generated policy
    (§1.5.4): with rules of its own in the file they do nothing."""
    policy = config.placement_policy
    if policy is None:
        return
    for suffix in _SITE_KEYS:
        key = FAIR + suffix
        if key not in site.origins:
            continue
        value = site.user_as_default_queue if suffix == _SITE_KEYS[0] else \
            site.allow_undeclared_pools
        file, line = site.origins[key]
        yield ConfigWarning(
            f"{key}={site.raw.get(key, '').strip()} has no effect: the allocation file has "
            "placement rules of its own", file=file, line=line, code="site-placement-overridden",
            severity="info" if value else "warning",
            consequence="YARN builds placement rules from this key only when the allocation "
            "file has no <queuePlacementPolicy> (QueuePlacementPolicy.fromConfiguration); the "
            f"file's rules are in force: {rules_text(policy)}",
            fix=_site_key_fix(suffix, value))


def _site_key_fix(suffix: str, value: bool) -> str:
    if value:
        return "remove the key: the allocation file's rules decide"
    if suffix == "allow-undeclared-pools":
        return ('give the file\'s rules create="false" where no queue may be created, and '
                "remove the key")
    return ('take the user rule out of the file\'s rules and end them with <rule '
            'name="default"/>, and remove the key')


def rules_text(policy: PlacementPolicy) -> str:
    """``specified, then user (creates queues), then default (root.default)``."""
    return ", then ".join(_rule_text(rule) for rule in policy.rules)


def _rule_text(rule: PlacementRule) -> str:
    if rule.name is R.DEFAULT:
        text = f"default ({default_queue(rule)})"
    elif rule.name is R.REJECT:
        text = "reject"
    else:
        text = rule.name.value + (" (existing queues only)" if not rule.create else "")
    if rule.parent is not None:
        text += f" under {_rule_text(rule.parent)}"
    return text


def reachable(policy: PlacementPolicy, queue: str) -> bool:
    """Whether some rule can place an application in ``queue`` or below it: ``specified``
    reaches every queue, ``default`` its own, a user or group rule any child of root (or of what
    its nested rule reaches), ``reject`` none."""
    parts = queue.split(".")
    return any(pattern is None or _covers(pattern, parts)
               for rule in policy.rules for pattern in _patterns(rule))


def _patterns(rule: PlacementRule) -> list[list[str] | None]:
    """The queue names ``rule`` places into, ``*`` for a name a user or group fills in; None
    for any queue at all."""
    if rule.name is R.SPECIFIED:
        return [None]
    if rule.name is R.REJECT:
        return []
    if rule.name is R.DEFAULT:
        return [default_queue(rule).split(".")]
    parents = _patterns(rule.parent) if rule.parent is not None else [[ROOT]]
    return [None if p is None else [*p, _ANY] for p in parents]


def _covers(pattern: list[str], parts: list[str]) -> bool:
    """A name ``pattern`` produces is ``parts`` or a queue below it."""
    return len(pattern) >= len(parts) and all(
        p in (_ANY, q) for p, q in zip(pattern, parts, strict=False))
