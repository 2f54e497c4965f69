"""The placement policy: parsing ``<queuePlacementPolicy>`` (docs/semantics.md §1.5.3), the policy
generated when the file has none (§1.5.4), and evaluating the rules for one submission (§1.5.1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType

from fairshare.config.dom import (
    Problems,
    child_elements,
    dom_attribute,
    dom_tag,
    has_child_nodes,
    line_of,
)
from fairshare.config.errors import ConfigError
from fairshare.config.model import ConfigWarning, PlacementPolicy, PlacementRule, RuleName
from fairshare.config.placement import (
    default,
    nested_user,
    primary_group,
    reject,
    secondary_group,
    specified,
    user,
)
from fairshare.config.placement.base import (
    REJECTED,
    PlaceFn,
    Placement,
    QueueLookup,
    RuleContext,
)
from fairshare.config.placement.names import DEFAULT_QUEUE_NAME
from fairshare.config.xml import Element
from fairshare.resources.javalang import equals_ignore_case

RULE_MODULES: Mapping[RuleName, ModuleType] = {
    RuleName.SPECIFIED: specified,
    RuleName.USER: user,
    RuleName.PRIMARY_GROUP: primary_group,
    RuleName.SECONDARY_GROUP_EXISTING_QUEUE: secondary_group,
    RuleName.NESTED_USER_QUEUE: nested_user,
    RuleName.DEFAULT: default,
    RuleName.REJECT: reject,
}
PLACE: Mapping[RuleName, PlaceFn] = {name: mod.place for name, mod in RULE_MODULES.items()}

_RULE_NAMES = {rule.value: rule for rule in RuleName}  # case-sensitive, as in YARN

# Rules that may not be nested inside another rule (§1.5.3).
_NOT_NESTABLE = (RuleName.REJECT, RuleName.NESTED_USER_QUEUE)


@dataclass(frozen=True, slots=True)
class ParsedPolicy:
    """The result of reading one ``<queuePlacementPolicy>`` element.

    ``policy`` is None when there were errors, or when the element had content but no ``<rule>``
    (YARN then silently keeps the previous rules; ``ignored`` is True).
    """

    policy: PlacementPolicy | None
    ignored: bool
    warnings: tuple[ConfigWarning, ...]
    errors: tuple[ConfigError, ...]


def parse_placement_policy(
    element: Element,
    source: str | None = None,
    *,
    migration_mode: bool = False,
    no_terminal_rule_check: bool = False,
) -> ParsedPolicy:
    """Read and validate a ``<queuePlacementPolicy>`` element, collecting every problem."""
    problems = Problems(source)
    if not has_child_nodes(element):
        problems.error("Empty configuration for QueuePlacementPolicy is not allowed", element)
        return _result(None, False, problems)
    rule_elements = [c for c in child_elements(element) if _is_rule(c)]
    if not rule_elements:
        problems.warn(
            "<queuePlacementPolicy> has no <rule> elements", element,
            consequence="YARN ignores it and keeps the previous placement rules "
            "(QueuePlacementPolicy): at start-up the rules generated from yarn-site",
            fix='write the rules as <rule name="..."/> children, or remove the element',
        )
        return _result(None, True, problems)
    rules = [_parse_rule(el, problems) for el in rule_elements]
    complete = [r for r in rules if r is not None]
    if len(complete) == len(rules):
        skip_check = migration_mode and no_terminal_rule_check
        _check_terminal(complete, rule_elements, problems, warn_only=skip_check)
    policy = PlacementPolicy(tuple(complete)) if not problems.errors else None
    return _result(policy, False, problems)


def generated_policy(user_as_default_queue: bool, allow_undeclared_pools: bool) -> PlacementPolicy:
    """The rules YARN builds from yarn-site when the file has no placement policy (§1.5.4)."""
    create = allow_undeclared_pools
    rules = [PlacementRule(RuleName.SPECIFIED, create=create)]
    if user_as_default_queue:
        rules.append(PlacementRule(RuleName.USER, create=create))
    if not user_as_default_queue or not create:
        rules.append(PlacementRule(RuleName.DEFAULT, create=True))
    return PlacementPolicy(tuple(rules), generated=True)


def place_application(
    policy: PlacementPolicy,
    requested_queue: str | None,
    user: str,
    groups: Sequence[str],
    queues: QueueLookup,
) -> Placement:
    """Run the rules in order; the first queue returned wins (§1.5.1).

    A missing requested queue is ``default``: the RM fills that in before placement. Raises
    :class:`PlacementError` when a rule fails the submission.
    """
    requested = DEFAULT_QUEUE_NAME if requested_queue is None else requested_queue
    ctx = RuleContext(requested, user, tuple(groups), queues, PLACE)
    for index, rule in enumerate(policy.rules, start=1):
        queue = ctx.place(rule)
        if queue is not None:
            return Placement(queue, rule.name, f"rule {index} ({rule.name}) placed the app")
    last = policy.rules[-1].name if policy.rules else None
    return Placement(None, last if last is RuleName.REJECT else None, REJECTED)


def _result(policy: PlacementPolicy | None, ignored: bool, problems: Problems) -> ParsedPolicy:
    return ParsedPolicy(policy, ignored, tuple(problems.warnings), tuple(problems.errors))


def _is_rule(element: Element) -> bool:
    return equals_ignore_case(dom_tag(element), "rule")


def _rule_name(element: Element, problems: Problems) -> RuleName | None:
    """The rule's ``name`` attribute as a known rule name; names are case-sensitive."""
    name = dom_attribute(element, "name")
    if name == "":
        problems.error("No name provided for a rule element", element)
        return None
    rule = _RULE_NAMES.get(name)
    if rule is None:
        problems.error(f"No rule class found for {name}", element)
    return rule


def _parse_rule(element: Element, problems: Problems) -> PlacementRule | None:
    name = _rule_name(element, problems)
    if name is None:
        return None
    nested_element = _nested_rule_element(element, name, problems)
    parent = _parse_nested(nested_element, problems) if nested_element is not None else None
    if nested_element is None and getattr(RULE_MODULES[name], "NESTED_RULE_REQUIRED", False):
        problems.error(f"Rule '{name}' must have a parent rule set", element)
    if parent is not None:
        _check_nesting(name, parent, nested_element, problems)
    return _make_rule(name, element, problems, parent)


def _nested_rule_element(element: Element, name: str, problems: Problems) -> Element | None:
    """The nested (parent) rule element: the last ``<rule>`` child, with a warning if several."""
    nested = [c for c in child_elements(element) if _is_rule(c)]
    if len(nested) > 1:
        problems.warn(
            f"Rule '{name}' has multiple parent rules defined", element,
            consequence="only the last parent rule is used (QueuePlacementPolicy)",
            fix="keep one nested <rule> in it",
        )
    return nested[-1] if nested else None


def _parse_nested(element: Element, problems: Problems) -> PlacementRule | None:
    name = _rule_name(element, problems)
    if name is None:
        return None
    if name in _NOT_NESTABLE:
        problems.error(f"Rule '{name}' is not allowed as a parent rule for any rule", element)
        return None
    if any(_is_rule(c) for c in child_elements(element)):
        problems.warn(
            f"a rule nested inside the nested rule '{name}' is ignored", element,
            consequence="YARN supports only one level of nesting",
            fix="remove the inner rule",
        )
    return _make_rule(name, element, problems, None)


def _check_nesting(
    name: RuleName, parent: PlacementRule, element: Element | None, problems: Problems
) -> None:
    """YARN's rule-initialisation checks; ``user`` and ``nestedUserQueue`` are one class."""
    same_class = _rule_class(name) is _rule_class(parent.name)
    cause = (
        f"Parent rule may not be the same type as the child rule: {name}"
        if same_class
        else RULE_MODULES[name].NESTED_RULE_ERROR
    )
    if cause is not None:
        problems.error(f"Rule initialisation failed with exception: {cause}", element)


def _rule_class(name: RuleName) -> RuleName:
    return RuleName.USER if name is RuleName.NESTED_USER_QUEUE else name


def _make_rule(
    name: RuleName, element: Element, problems: Problems, parent: PlacementRule | None
) -> PlacementRule:
    # reject ignores all configuration, so its create flag keeps the default (true).
    create = True if name is RuleName.REJECT else _create_flag(element)
    queue = element.get("queue") if name is RuleName.DEFAULT else None
    rule = PlacementRule(name, create=create, queue=queue, parent=parent, line=line_of(element))
    if name is RuleName.DEFAULT:
        problem = default.queue_attribute_problem(rule)
        if problem is not None:
            problems.warn(problem, element,
                          consequence="applications this rule places go to root.default",
                          fix="write the queue's name without surrounding whitespace or dots, "
                              'e.g. queue="root.dev"')
    return rule


def _create_flag(element: Element) -> bool:
    """Absent or empty → true; otherwise Java ``Boolean.parseBoolean`` of the raw attribute."""
    text = dom_attribute(element, "create")
    return text == "" or equals_ignore_case(text, "true")


def _check_terminal(
    rules: list[PlacementRule], elements: list[Element], problems: Problems, *, warn_only: bool
) -> None:
    """Only the last rule may be terminal, and it must be (§1.5.3)."""
    for number, (rule, element) in enumerate(zip(rules[:-1], elements, strict=False), start=1):
        if rule.terminal:
            message = (f"Rules after rule {number} in queue placement policy can never be "
                       f"reached{_how_to_reach(rule)}")
            if warn_only:
                problems.warn(message + " (not checked: migration mode)", element,
                              consequence="outside migration mode YARN refuses the file",
                              fix="move the later rules before it, or remove them")
            else:
                problems.error(message, element)
    if not rules[-1].terminal:
        problems.error(
            "Could get past last queue placement rule without assigning: the last rule, "
            f"'{rules[-1].name}', {_why_not_terminal(rules[-1])}",
            elements[-1],
        )


def _how_to_reach(rule: PlacementRule) -> str:
    """Why the rule ends the policy (QueuePlacementPolicy's terminal check) and the fix."""
    what = f": rule '{rule.name}' always "
    if rule.name is RuleName.REJECT:
        return what + "rejects, so remove the rules after it or move them before it"
    fix = "move the rules after it before it, or remove them"
    if rule.name is not RuleName.DEFAULT:
        fix += ', or give it create="false" so that it places only into existing queues'
    return what + f"places the application (create is true), so {fix}"


def _why_not_terminal(rule: PlacementRule) -> str:
    if rule.name in (RuleName.SPECIFIED, RuleName.SECONDARY_GROUP_EXISTING_QUEUE):
        return "never places every application"
    if not rule.create:
        return 'has create="false"'
    assert rule.parent is not None  # the only other way a rule is not terminal
    return f"has a nested rule, '{rule.parent.name}', that may not place"
