"""The ``<queue>`` / ``<pool>`` elements of the allocation file (docs/semantics.md §1.3.2).

Each element becomes a :class:`QueueConfig` holding only what it configures, after YARN's
parse-time clamps. Problems are collected, not raised, so that one pass reports all of them;
values YARN accepts but that break scheduling, and elements it ignores, are warned about
(:mod:`fairshare.config.lint`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from fairshare.config.allocation_values import (
    BadValue,
    clamp_unit,
    java_boolean,
    java_double,
    java_float,
    java_int,
    java_min,
    parse_policy,
    seconds_to_ms,
)
from fairshare.config.dom import Problems, child_elements, dom_attribute, dom_tag, line_of
from fairshare.config.lint import did_you_mean, min_above_max, misspelt_fix, value_finding
from fairshare.config.lint.placement import placement_in_queue
from fairshare.config.lint.values import zero_max_finding
from fairshare.config.model import ConfigWarning, QueueConfig
from fairshare.config.placement.names import ROOT, trim_queue_name
from fairshare.config.xml import Element
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.javalang import equals_ignore_case, java_trim, shorten
from fairshare.resources.parse import ResourceStringError, parse_resource_config
from fairshare.resources.vector import Resource, ResourceTypes, fits_in, float32

Value = Callable[["QueueParser", str, str, Element], Any]

_PARENT_ONLY_ERROR = (
    "The configuration settings for {queue} are invalid. A queue element that contains child "
    "queue elements or that has the type='parent' attribute cannot also include a {tag} element."
)


@dataclass
class _Found:
    """What one queue element sets: QueueConfig attribute → value, and where it was set."""

    values: dict[str, Any] = field(default_factory=dict)
    elements: dict[str, Element] = field(default_factory=dict)
    has_children: bool = False
    ignored: bool = False  # YARN never looks these settings up: parse them, but do not lint


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a queue element sits: its parent's full name (None for root itself), and whether
    YARN ignores its settings because they sit under a root spelled in another case."""

    parent: str | None
    ignored: bool = False


@dataclass
class QueueParser:
    """Parses the queue elements of one file into document-ordered :class:`QueueConfig` s."""

    problems: Problems
    types: ResourceTypes
    configs: dict[str, QueueConfig] = field(default_factory=dict)  # insertion = document order

    def parse_top_level(self, elements: list[Element]) -> tuple[QueueConfig, ...]:
        """Top-level elements hang under ``root``, unless one of them *is* root (§1.3.2)."""
        for element in elements:
            is_root = equals_ignore_case(dom_attribute(element, "name"), ROOT)
            if is_root and len(elements) > 1:
                self.problems.error(
                    "If configuring root queue, no other queues can be placed alongside it.",
                    element,
                )
            self.parse_queue(element, _Place(None) if is_root else _Place(ROOT))
        return tuple(self.configs.values())

    def parse_queue(self, element: Element, place: _Place) -> None:
        name, ignored = self._queue_name(element, place)
        self.configs.setdefault(name, QueueConfig(name, is_parent=name == ROOT))  # keep order
        found = _Found(ignored=ignored)
        for child in child_elements(element):
            tag = dom_tag(child)
            if _is_nested_queue(tag):
                self.parse_queue(child, _Place(name, ignored))
                found.has_children = True
            elif tag in _SETTINGS:
                self._read_setting(name, tag, child, found)
            elif tag == "queuePlacementPolicy":
                self.problems.report(placement_in_queue(name), child)
            else:
                hint = did_you_mean(tag, _KNOWN_CHILDREN)
                self.problems.warn(
                    f"{name}: <{shorten(tag)}> is not a queue setting; YARN silently ignores "
                    f"it{hint}", child,
                    consequence="AllocationFileQueueParser skips it without a word, so the "
                    "setting meant keeps its inherited or default value",
                    fix=misspelt_fix(hint),
                )
        self._check_zero_max(name, found)
        xml_parent = found.has_children or dom_attribute(element, "type") == "parent"
        if xml_parent:
            self._check_parent_only(name, found)
        reservation = "reservation" in found.values
        is_parent = xml_parent or reservation or name == ROOT
        settings = {"settings_ignored": True} if ignored else found.values
        self._store(name, element, {**settings, "is_parent": is_parent})

    def _queue_name(self, element: Element, place: _Place) -> tuple[str, bool]:
        """The queue's full name, and whether YARN ignores its settings."""
        short = trim_queue_name(dom_attribute(element, "name"))
        where = f" (a <{dom_tag(element)}> under {place.parent or ROOT})"
        if "." in short:
            self.problems.error(
                f"queue name ({shorten(short)}) shouldn't contain period{where}", element
            )
        if not short:
            self.problems.error(
                f"queue name shouldn't be empty or consist only of whitespace{where}", element
            )
        if place.parent is not None:
            return f"{place.parent}.{short}", place.ignored
        if short != ROOT:
            # YARN keeps settings under "Root" / "Root.x" but creates root.Root / root.Root.x,
            # whose lookups miss: no setting or ACL of this subtree applies (§1.3.2).
            self.problems.warn(
                f'queue "{short}" is not "root"', element,
                consequence=f'YARN keeps its settings under the name "{short}" but creates the '
                f"queue as root.{short}, so all its settings and ACLs, and those of the queues "
                f"inside it, are ignored; it inherits root's ACLs",
                fix='write name="root" in lower case to configure root, or give the queue '
                    "another name",
            )
            return f"{ROOT}.{short}", True
        return short, False

    def _read_setting(self, queue: str, tag: str, child: Element, found: _Found) -> None:
        attribute, reader, trimmed = _SETTINGS[tag]
        found.elements[attribute] = child
        if attribute == "reservation":  # presence is all that counts
            found.values[attribute] = True
            return
        if child.text is None:
            self.problems.error(f"{queue}: <{tag}> has no value", child)
            return
        text = java_trim(child.text) if trimmed else child.text
        try:
            found.values[attribute] = reader(self, queue, text, child)
        except BadValue as exc:
            self.problems.error(f"{queue}: <{tag}> {exc}", child)
            return
        except (ResourceStringError, ValueError, OverflowError) as exc:
            self.problems.error(f"{queue}: <{tag}>: {exc}", child)
            return
        finding = None if found.ignored else value_finding(tag, text, found.values[attribute],
                                                            queue, queue)
        if finding is not None:
            self.problems.report(finding, child)

    def _check_zero_max(self, queue: str, found: _Found) -> None:
        """Checked once the queue's min share is known too: it can lift a 0 in the max."""
        element = found.elements.get("max_resources")
        value = found.values.get("max_resources")
        if found.ignored or element is None or value is None:
            return
        finding = zero_max_finding("maxResources", java_trim(element.text or ""), value,
                                   found.values.get("min_resources"))
        if finding is not None:
            self.problems.report(replace(finding, message=f"{queue}: {finding.message}",
                                         queue=queue), element)

    def _check_parent_only(self, queue: str, found: _Found) -> None:
        """``reservation`` and ``maxAMShare`` are leaf-only (§1.3.2, YARN-10528)."""
        for attribute, tag in (("reservation", "reservation"), ("max_am_share", "maxAMShare")):
            if attribute in found.values:
                message = _PARENT_ONLY_ERROR.format(queue=queue, tag=tag)
                self.problems.error(message, found.elements[attribute])
                return  # YARN reports only the first of the two

    def _store(self, name: str, element: Element, settings: dict[str, Any]) -> None:
        old = self.configs[name]
        if old.line is None:
            self.configs[name] = dataclasses.replace(old, line=line_of(element), **settings)
        else:
            self.problems.warn(
                f"queue {name} is defined more than once (first at line {old.line})", element,
                consequence="YARN merges the definitions and the later settings win",
                fix="keep one definition of the queue, with every setting in it",
            )
            merged = {k: v for k, v in settings.items() if v is not None}
            merged["is_parent"] = old.is_parent or settings["is_parent"]
            self.configs[name] = dataclasses.replace(old, **merged)
        self._check_min_max(self.configs[name], element)

    def _check_min_max(self, queue: QueueConfig, element: Element) -> None:
        """min > absolute max is only logged by YARN; the min wins at run time."""
        low, high = queue.min_resources, queue.max_resources
        if low is None or high is None or high.absolute is None or fits_in(low, high.absolute):
            return
        self.problems.report(min_above_max(queue.name, low, high.absolute, self.types), element)

    # --- value readers (text is trimmed unless the setting is an ACL) --------------------------

    def min_resources(self, queue: str, text: str, child: Element) -> Resource | None:
        return self._absolute_only(
            queue, text, child, "zero",
            ConfigWarning(
                f"{queue}: <minResources> is a percentage", code="min-share-percentage",
                consequence="YARN parses it but keeps only an absolute min share "
                "(ConfigurableResource.getResource gives none for a percentage), so the queue "
                "silently has no min share",
                fix='write absolute amounts, e.g. "memory-mb=8192, vcores=4"'),
        )

    def max_resources(self, queue: str, text: str, child: Element) -> ConfigurableResource:
        return parse_resource_config(text, self.types, missing="unbounded")

    def max_container_allocation(self, queue: str, text: str, child: Element) -> Resource | None:
        return self._absolute_only(
            queue, text, child, "unbounded",
            ConfigWarning(
                f"{queue}: <maxContainerAllocation> is a percentage",
                code="container-cap-percentage",
                consequence="YARN keeps only an absolute cap, so the queue inherits its "
                "parent's cap (or none) as if the element were absent",
                fix='write absolute amounts, e.g. "memory-mb=8192, vcores=4"'),
        )

    def _absolute_only(
        self, queue: str, text: str, child: Element, missing: Literal["zero", "unbounded"],
        if_percentage: ConfigWarning,
    ) -> Resource | None:
        """Settings YARN reads only as absolute values; a percentage becomes "unset"."""
        resource = parse_resource_config(text, self.types, missing=missing)
        if resource.absolute is None:
            self.problems.report(if_percentage, child)
        return resource.absolute


def _is_nested_queue(tag: str) -> bool:
    # YARN tests '"queue".endsWith(tag)', so "ueue", "e", ... also nest; "pool" must match.
    return "queue".endswith(tag) or tag == "pool"


def _plain(parse: Callable[[str], Any]) -> Value:
    return lambda _parser, _queue, text, _child: parse(text)


def _text(_parser: QueueParser, _queue: str, text: str, _child: Element) -> str:
    return text


# tag → (QueueConfig attribute, reader, text trimmed?)
_SETTINGS: dict[str, tuple[str, Value, bool]] = {
    "minResources": ("min_resources", QueueParser.min_resources, True),
    "maxResources": ("max_resources", QueueParser.max_resources, True),
    "maxChildResources": ("max_child_resources", QueueParser.max_resources, True),
    "maxContainerAllocation": (
        "max_container_allocation",
        QueueParser.max_container_allocation,
        True,
    ),
    "maxRunningApps": ("max_running_apps", _plain(java_int), True),
    "maxAMShare": ("max_am_share", _plain(lambda t: java_min(java_float(t), 1.0)), True),
    "weight": ("weight", _plain(lambda t: float32(java_double(t))), True),
    "minSharePreemptionTimeout": ("min_share_preemption_timeout_ms", _plain(seconds_to_ms), True),
    "fairSharePreemptionTimeout": ("fair_share_preemption_timeout_ms", _plain(seconds_to_ms), True),
    "fairSharePreemptionThreshold": (
        "fair_share_preemption_threshold",
        _plain(lambda t: clamp_unit(java_float(t))),
        True,
    ),
    "schedulingPolicy": ("scheduling_policy", _plain(parse_policy), True),
    "schedulingMode": ("scheduling_policy", _plain(parse_policy), True),
    "allowPreemptionFrom": ("allow_preemption_from", _plain(java_boolean), True),
    "aclSubmitApps": ("acl_submit_apps", _text, False),
    "aclAdministerApps": ("acl_administer_apps", _text, False),
    "aclAdministerReservations": ("acl_administer_reservations", _text, False),
    "aclListReservations": ("acl_list_reservations", _text, False),
    "aclSubmitReservations": ("acl_submit_reservations", _text, False),
    "reservation": ("reservation", _text, False),
}
_KNOWN_CHILDREN = (*_SETTINGS, "queue", "pool")
QUEUE_SETTINGS = tuple(_SETTINGS)  # the elements a queue may set, for --set
