"""Loading ``fair-scheduler.xml`` into an :class:`AllocationConfig`
(docs/semantics.md §1.2–§1.5, §1.7).

All-or-nothing, like a YARN reload: every problem in the file is collected and raised together
as :class:`ConfigErrors` (one error alone is raised as a plain :class:`ConfigError`), each with
the file and the line of the offending element; otherwise a complete configuration is returned,
carrying the warnings YARN would only log (and a few more that catch surprising settings).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from lxml import etree

from fairshare.config.allocation_policies import check_policies
from fairshare.config.allocation_queue import QueueParser
from fairshare.config.allocation_values import (
    BadValue,
    clamp_unit,
    java_float,
    java_int,
    java_min,
    parse_policy,
    seconds_to_ms,
)
from fairshare.config.dom import Problems, child_elements, dom_attribute, dom_tag, line_of
from fairshare.config.errors import ConfigError, ConfigErrors
from fairshare.config.files import decode_utf8, read_input
from fairshare.config.lint import did_you_mean, misspelt_fix, value_finding
from fairshare.config.lint.hadoop1 import with_hadoop1_finding
from fairshare.config.model import AllocationConfig, PolicyName
from fairshare.config.overrides import Override, apply_allocation_overrides
from fairshare.config.placement.policy import parse_placement_policy
from fairshare.config.xml import MAX_XML_BYTES, Element, parse_xml_file, parse_xml_text
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.javalang import equals_ignore_case, java_trim, shorten
from fairshare.resources.parse import ResourceStringError, parse_resource_config
from fairshare.resources.vector import DEFAULT_TYPES, ResourceTypes

_T = TypeVar("_T")

__all__ = ["EMPTY_ALLOCATIONS", "allocation_text", "load_allocations", "parse_allocations_text",
           "read_allocations"]

EMPTY_ALLOCATIONS = "<allocations/>"  # an allocation file with nothing in it

# Top-level elements holding one scalar each: the last occurrence wins (§1.3.1).
_SCALARS = frozenset(
    {
        "queueMaxResourcesDefault",
        "userMaxAppsDefault",
        "queueMaxAppsDefault",
        "queueMaxAMShareDefault",
        "defaultMinSharePreemptionTimeout",
        "defaultFairSharePreemptionTimeout",
        "fairSharePreemptionTimeout",  # legacy spelling of the default, see _fair_share_timeout
        "defaultFairSharePreemptionThreshold",
        "reservation-agent",
        "reservation-policy",
        "reservation-planner",
    }
)
_DEFAULT_POLICY_TAGS = ("defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode")
_KNOWN_TOP_LEVEL = (
    *_SCALARS,
    *_DEFAULT_POLICY_TAGS,
    "queue",
    "pool",
    "user",
    "queuePlacementPolicy",
)


@dataclass(frozen=True, slots=True)
class _Flags:
    migration_mode: bool = False
    no_terminal_rule_check: bool = False


def load_allocations(
    path: str | Path,
    types: ResourceTypes = DEFAULT_TYPES,
    *,
    migration_mode: bool = False,
    no_terminal_rule_check: bool = False,
    overrides: Sequence[Override] = (),
) -> AllocationConfig:
    """Read and parse an allocation file; raises :class:`ConfigError` for any problem.
    ``overrides`` (``--set alloc:…``) are written into the document before it is read."""
    root = parse_xml_file(path)
    return _build(root, str(path), types, _Flags(migration_mode, no_terminal_rule_check),
                  overrides)


def parse_allocations_text(
    text: str,
    source: str = "<inline>",
    types: ResourceTypes = DEFAULT_TYPES,
    *,
    migration_mode: bool = False,
    no_terminal_rule_check: bool = False,
    overrides: Sequence[Override] = (),
) -> AllocationConfig:
    """Parse allocation-file XML given as a string; ``source`` names it in messages.

    The text is already decoded, so an ``encoding`` in its XML declaration is ignored.
    """
    root = parse_xml_text(text, source)
    return _build(root, source, types, _Flags(migration_mode, no_terminal_rule_check),
                  overrides)


def allocation_text(text: str | None, path: Path | None,
                    overrides: Sequence[Override] = ()) -> str:
    """The allocation file a ResourceManager would read for :func:`read_allocations`'s
    arguments: the file (or ``text``) with the overrides written into it. A document that is
    not well-formed, or not an allocation file, is given as it is (YARN refuses it)."""
    if path is not None:
        text = decode_utf8(read_input(path, str(path), MAX_XML_BYTES), str(path))
    text = EMPTY_ALLOCATIONS if text is None else text
    if not overrides:
        return text
    try:
        root = parse_xml_text(text, "allocations")
    except ConfigError:
        return text
    if dom_tag(root) != "allocations":
        return text
    apply_allocation_overrides(root, overrides)
    return etree.tostring(root, encoding="unicode") + "\n"


def read_allocations(
    text: str | None,
    path: Path | None,
    source: str,
    types: ResourceTypes = DEFAULT_TYPES,
    *,
    overrides: Sequence[Override] = (),
) -> AllocationConfig:
    """An allocation file given by ``path``, else inline as ``text`` (named ``source`` in
    messages), else an empty one (what overrides are written into when there is no file)."""
    if path is not None:
        return load_allocations(path, types, overrides=overrides)
    return parse_allocations_text(EMPTY_ALLOCATIONS if text is None else text, source, types,
                                  overrides=overrides)


@dataclass
class _TopLevel:
    """The children of ``<allocations>``, sorted by kind."""

    queues: list[Element] = field(default_factory=list)
    scalars: dict[str, tuple[str, Element]] = field(default_factory=dict)
    users: dict[str, int] = field(default_factory=dict)
    default_policy: PolicyName = PolicyName.FAIR
    placement: Element | None = None


def _build(root: Element, source: str, types: ResourceTypes, flags: _Flags,
           overrides: Sequence[Override] = ()) -> AllocationConfig:
    if dom_tag(root) != "allocations":
        raise ConfigError(_not_allocations(dom_tag(root)), source, line_of(root))
    problems = Problems(source, origins=apply_allocation_overrides(root, overrides))
    top = _scan(root, problems)
    queues = QueueParser(problems, types).parse_top_level(top.queues)
    settings = _ScalarReader(problems, top.scalars, types).read()
    placement = _placement(top.placement, problems, flags)
    check_policies(queues, top.default_policy, problems)
    if problems.errors:
        errors = sorted(problems.errors, key=lambda e: e.line or 0)
        raise ConfigErrors(errors, warnings=problems.warnings)
    return AllocationConfig(
        queues=queues,
        user_max_apps=MappingProxyType(dict(top.users)),
        default_scheduling_policy=top.default_policy,
        **settings,
        **placement,
        source=source,
        has_file=True,
        warnings=tuple(with_hadoop1_finding(root, source, problems.warnings)),
    )


def _not_allocations(tag: str) -> str:
    message = "Bad fair scheduler config file: top-level element not <allocations>"
    if tag.rpartition(":")[2] != "configuration":
        return message
    return (
        f"{message}. This is a Hadoop site file (top-level <configuration>, like "
        "yarn-site.xml), not an allocation file (fair-scheduler.xml): give it as the site "
        "file (--site, or a scenario's site-file) and the allocation file in its place"
    )


def _scan(root: Element, problems: Problems) -> _TopLevel:
    top = _TopLevel()
    for element in child_elements(root):
        tag = dom_tag(element)
        if tag in ("queue", "pool"):
            top.queues.append(element)
        elif tag == "user":
            _read_user(element, top.users, problems)
        elif tag in _DEFAULT_POLICY_TAGS:
            # Parsed at once, so even an overridden occurrence must be valid (as in YARN).
            top.default_policy = _default_policy(element, problems) or top.default_policy
        elif tag == "queuePlacementPolicy":
            top.placement = element  # the last one wins
        elif tag in _SCALARS:
            _keep_scalar(element, tag, top.scalars, problems)
        else:
            hint = did_you_mean(tag, _KNOWN_TOP_LEVEL)
            problems.warn(
                f"Bad element in allocations file: <{shorten(tag)}> is ignored{hint}", element,
                consequence="AllocationFileParser only logs it and reads nothing from it, so "
                "the setting meant keeps its default",
                fix=misspelt_fix(hint),
            )
    return top


def _keep_scalar(
    element: Element, tag: str, scalars: dict[str, tuple[str, Element]], problems: Problems
) -> None:
    if element.text is None:
        problems.error(f"<{tag}> has no value", element)
        return
    if tag in scalars:
        first = line_of(scalars[tag][1])
        problems.warn(
            f"<{tag}> is given more than once (earlier at line {first})", element,
            consequence="AllocationFileParser keeps the text of each top-level setting by its "
            "name, so the last one wins and the earlier ones have no effect",
            fix="keep one of them",
        )
    scalars[tag] = (java_trim(element.text), element)


def _read_user(element: Element, users: dict[str, int], problems: Problems) -> None:
    name = dom_attribute(element, "name")
    if not name:
        problems.warn('<user> without a name', element,
                      consequence='its limit applies to a user named "", which no user is',
                      fix='give it the user\'s name: <user name="alice">')
    who = f'user "{shorten(name)}"'
    for field_element in child_elements(element):
        tag = dom_tag(field_element)
        if tag != "maxRunningApps":
            hint = did_you_mean(tag, ["maxRunningApps"])
            problems.warn(f"{who}: <{shorten(tag)}> is ignored by YARN{hint}", field_element,
                          consequence="a <user> element has only <maxRunningApps>; "
                          "AllocationFileParser skips anything else without a word",
                          fix=misspelt_fix(hint))
            continue
        if field_element.text is None:
            problems.error(f"{who}: <maxRunningApps> has no value", field_element)
            continue
        text = java_trim(field_element.text)
        try:
            users[name] = java_int(text)
        except BadValue as exc:
            problems.error(f"{who}: <maxRunningApps> {exc}", field_element)
            continue
        finding = value_finding(tag, text, users[name], who)
        if finding is not None:
            problems.report(finding, field_element)


def _default_policy(element: Element, problems: Problems) -> PolicyName | None:
    tag = dom_tag(element)
    if element.text is None:
        problems.error(f"<{tag}> has no value", element)
        return None
    text = java_trim(element.text)
    if equals_ignore_case(text, "fifo"):  # only the word: YARN tests it before parsing
        problems.error(
            "Bad fair scheduler config file: defaultQueueSchedulingPolicy or "
            "defaultQueueSchedulingMode can't be FIFO.",
            element,
        )
        return None
    try:
        policy = parse_policy(text)
    except BadValue as exc:
        problems.error(f"<{tag}> {exc}", element)
        return None
    if policy is PolicyName.FIFO:
        problems.warn(
            f"<{tag}> is FifoPolicy's class name: YARN rejects only the word fifo here, so it "
            "accepts this, but fifo is for leaf queues only, so root and every parent queue "
            "without its own <schedulingPolicy> cannot take it",
            element,
            consequence="YARN logs an error and they keep their previous policy, and parent "
            "queues created later fail (FSQueue.verifyAndSetPolicyFromConf)",
            fix="make the default fair or drf, and give fifo leaves their own "
                "<schedulingPolicy>fifo</schedulingPolicy>",
        )
    return policy


@dataclass
class _ScalarReader:
    """Turns the kept top-level scalars into AllocationConfig fields."""

    problems: Problems
    scalars: dict[str, tuple[str, Element]]
    types: ResourceTypes

    def read(self) -> dict[str, Any]:
        """The configured fields; absent or broken ones are left out so the defaults apply."""
        values = {
            "user_max_apps_default": self._get("userMaxAppsDefault", java_int),
            "queue_max_apps_default": self._get("queueMaxAppsDefault", java_int),
            "queue_max_resources_default": self._get("queueMaxResourcesDefault", self._max),
            "queue_max_am_share_default": self._get(
                "queueMaxAMShareDefault", lambda t: java_min(java_float(t), 1.0)
            ),
            "default_min_share_preemption_timeout_ms": self._get(
                "defaultMinSharePreemptionTimeout", seconds_to_ms
            ),
            "default_fair_share_preemption_timeout_ms": self._fair_share_timeout(),
            "default_fair_share_preemption_threshold": self._get(
                "defaultFairSharePreemptionThreshold", lambda t: clamp_unit(java_float(t))
            ),
            "reservation_agent": self._get("reservation-agent", str),
            "reservation_policy": self._get("reservation-policy", str),
            "reservation_planner": self._get("reservation-planner", str),
        }
        return {key: value for key, value in values.items() if value is not None}

    def _fair_share_timeout(self) -> int | None:
        """The legacy top-level ``fairSharePreemptionTimeout`` counts only without the new one."""
        if "defaultFairSharePreemptionTimeout" in self.scalars:
            return self._get("defaultFairSharePreemptionTimeout", seconds_to_ms)
        return self._get("fairSharePreemptionTimeout", seconds_to_ms)

    def _get(self, tag: str, parse: Callable[[str], _T]) -> _T | None:
        if tag not in self.scalars:
            return None
        text, element = self.scalars[tag]
        try:
            value = parse(text)
        except BadValue as exc:
            self.problems.error(f"<{tag}> {exc}", element)
            return None
        except (ResourceStringError, ValueError, OverflowError) as exc:
            self.problems.error(f"<{tag}>: {exc}", element)
            return None
        finding = value_finding(tag, text, value)
        if finding is not None:
            self.problems.report(finding, element)
        return value

    def _max(self, text: str) -> ConfigurableResource:
        return parse_resource_config(text, self.types, missing="unbounded")


def _placement(element: Element | None, problems: Problems, flags: _Flags) -> dict[str, Any]:
    if element is None:
        return {"placement_policy": None, "placement_update_ignored": False}
    parsed = parse_placement_policy(
        element,
        problems.source,
        migration_mode=flags.migration_mode,
        no_terminal_rule_check=flags.no_terminal_rule_check,
    )
    problems.errors.extend(parsed.errors)
    problems.warnings.extend(parsed.warnings)
    return {"placement_policy": parsed.policy, "placement_update_ignored": parsed.ignored}
