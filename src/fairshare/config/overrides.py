"""``--set``: one setting of the allocation file or of yarn-site changed for a run, no copies.

``alloc:root.tenant3.weight=2`` sets a queue's element, ``alloc:defaultFairSharePreemptionThreshold
=0.9`` a top-level one, ``site:yarn.scheduler.fair.preemption=false`` a property. The value is
written into the parsed document as if it had been in the file — the element's text replaced, or
the element added — and then read by the same parser and checks as the file, so a bad value gets
the file's message, located at the option instead of a line (``--set alloc:…: message``). A
queue, element or property fairshare does not know is an error with a "did you mean".
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from lxml import etree

from fairshare.config.allocation_queue import QUEUE_SETTINGS
from fairshare.config.dom import child_elements, dom_attribute, dom_tag
from fairshare.config.errors import ConfigError
from fairshare.config.lint import did_you_mean
from fairshare.config.placement.names import ROOT, trim_queue_name
from fairshare.config.xml import Element
from fairshare.resources.javalang import equals_ignore_case

__all__ = ["ALLOCATION_SCALARS", "OPTION", "Override", "apply_allocation_overrides",
           "parse_override", "site_overrides"]

OPTION = "--set"
Scope = Literal["alloc", "site"]

# Top-level elements of <allocations> holding one value each: what ``alloc:NAME=V`` may set.
ALLOCATION_SCALARS = (
    "queueMaxResourcesDefault", "userMaxAppsDefault", "queueMaxAppsDefault",
    "queueMaxAMShareDefault", "defaultMinSharePreemptionTimeout",
    "defaultFairSharePreemptionTimeout", "fairSharePreemptionTimeout",
    "defaultFairSharePreemptionThreshold", "defaultQueueSchedulingPolicy",
    "defaultQueueSchedulingMode",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Override:
    """One ``--set SCOPE:KEY=VALUE``; ``where`` names it in messages (``--set alloc:…=…``)."""

    scope: Scope
    key: str  # "root.tenant3.weight", "defaultFairSharePreemptionThreshold", a site property
    value: str

    @property
    def text(self) -> str:
        return f"{self.scope}:{self.key}={self.value}"

    @property
    def where(self) -> str:
        return f"{OPTION} {self.text}"


def parse_override(text: str) -> Override:
    """``SCOPE:KEY=VALUE`` → :class:`Override`; a malformed one is a :class:`ConfigError`
    naming the option. The value is everything after the first ``=`` (it may hold ``=``)."""
    where = f"{OPTION} {text}"
    scope, colon, rest = text.partition(":")
    if not colon or scope not in ("alloc", "site"):
        raise ConfigError("expected alloc:KEY=VALUE or site:KEY=VALUE "
                          "(alloc:root.a.weight=2, site:yarn.scheduler.fair.preemption=true)",
                          where)
    key, equals, value = rest.partition("=")
    key = key.strip()
    if not equals or not key:
        raise ConfigError(f"expected {scope}:KEY=VALUE", where)
    return Override("alloc" if scope == "alloc" else "site", key, value)


# -- yarn-site ------------------------------------------------------------------------------------


def site_overrides(overrides: Iterable[Override], known: Iterable[str],
                   prefixes: Sequence[str] = ()
                   ) -> tuple[dict[str, str], dict[str, tuple[str, int | None]]]:
    """The ``site:`` overrides as a property map and where each was set, for
    :func:`fairshare.config.yarnsite.load_site`. A property that is neither in ``known`` nor
    under one of ``prefixes`` is an error: it would change nothing."""
    known = sorted(known)
    values: dict[str, str] = {}
    where: dict[str, tuple[str, int | None]] = {}
    for override in overrides:
        if override.scope != "site":
            continue
        key = override.key
        if key not in known and not key.startswith(tuple(prefixes)):
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise ConfigError(f"{key} is not a property fairshare reads, so setting it would "
                              f"change nothing{hint}", override.where)
        values[key], where[key] = override.value, (override.where, None)
    return values, where


# -- the allocation file ------------------------------------------------------------------------


def apply_allocation_overrides(root: Element, overrides: Iterable[Override]
                               ) -> Mapping[Element, str]:
    """Write the ``alloc:`` overrides into the parsed ``<allocations>`` document, in order (a
    later one of the same setting wins), and return each element set → the option that set it,
    so that a problem with its value names the option. An unknown queue or element raises."""
    origins: dict[Element, str] = {}
    for override in overrides:
        if override.scope != "alloc":
            continue
        queue_name, dot, tag = override.key.rpartition(".")
        known: tuple[str, ...]
        if not dot:
            parent, known = root, ALLOCATION_SCALARS
        else:
            parent, known = _queue_element(root, queue_name, override), tuple(QUEUE_SETTINGS)
        if tag not in known:
            where = "a top-level element" if not dot else f"a setting of queue {queue_name}"
            raise ConfigError(f"<{tag}> is not {where} that --set can change"
                              f"{did_you_mean(tag, known)}", override.where)
        element = _last_child(parent, tag)
        if element is None:
            element = etree.SubElement(parent, tag)
        element.text = override.value
        origins[element] = override.where
    return origins


def _last_child(parent: Element, tag: str) -> Element | None:
    """The element YARN's reading keeps when a setting is given more than once: the last."""
    found = [child for child in child_elements(parent) if dom_tag(child) == tag]
    return found[-1] if found else None


def _queue_element(root: Element, full_name: str, override: Override) -> Element:
    """The ``<queue>`` (or ``<pool>``) element of ``root.a.b``: nested elements by name, under
    an explicit root queue element when the file has one. The last definition wins."""
    queues = _queue_elements(root)
    element = queues.get(full_name)
    if element is None:
        close = difflib.get_close_matches(full_name, list(queues), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else ""
        listed = ", ".join(queues) if 0 < len(queues) <= 8 else f"{len(queues)} queues"
        known = f" (it defines {listed})" if queues else " (it defines no queue)"
        raise ConfigError(f"queue {full_name} is not in the allocation file{known}{hint}",
                          override.where)
    return element


def _queue_elements(root: Element) -> dict[str, Element]:
    """Full queue name → its (last) element, as the allocation parser names queues."""
    found: dict[str, Element] = {}

    def walk(element: Element, parent: str | None) -> None:
        short = trim_queue_name(dom_attribute(element, "name"))
        name = short if parent is None else f"{parent}.{short}"
        found[name] = element
        for child in child_elements(element):
            if dom_tag(child) in ("queue", "pool"):
                walk(child, name)

    tops = [e for e in child_elements(root) if dom_tag(e) in ("queue", "pool")]
    explicit_root = any(equals_ignore_case(dom_attribute(e, "name"), ROOT) for e in tops)
    if not explicit_root:
        found[ROOT] = root  # root's settings can only be set by a <queue name="root">
    for element in tops:
        walk(element, None if explicit_root else ROOT)
    if not explicit_root:
        del found[ROOT]
    return found
