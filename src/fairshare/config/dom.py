"""Reading a parsed configuration file the way Hadoop's DOM code does.

Shared by the allocation parser, the placement-policy parser and the yarn-site reader: tag names
as a non-namespace-aware DOM's ``getTagName()`` returns them (``prefix:local``), attributes read
as ``getAttribute`` (``""`` when absent), element children in document order, source lines, and
a collector that turns problems into located :class:`ConfigError` / :class:`ConfigWarning`
objects so that every problem in a file can be reported at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from lxml import etree

from fairshare.config.errors import ConfigError
from fairshare.config.model import ConfigWarning
from fairshare.config.xml import Element

__all__ = [
    "Problems",
    "child_elements",
    "dom_attribute",
    "dom_tag",
    "has_child_nodes",
    "line_of",
]


def dom_tag(element: Element) -> str:
    """The tag as a non-namespace-aware DOM reports it: ``p:name`` for a prefixed element.

    Comments and processing instructions have no tag (``""``). The local name alone, as a
    namespace-aware reader sees it, is ``dom_tag(e).rpartition(":")[2]``.
    """
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    local = etree.QName(tag).localname
    return f"{element.prefix}:{local}" if element.prefix else local


def dom_attribute(element: Element, name: str) -> str:
    """``Element.getAttribute``: the raw value, ``""`` when the attribute is absent."""
    return element.get(name) or ""


def has_child_nodes(element: Element) -> bool:
    """DOM ``hasChildNodes()`` with comments ignored: any text (even blank) or any child."""
    return bool(element.text) or len(element) > 0


def child_elements(element: Element) -> list[Element]:
    """Element children only (comments, PIs and entity nodes skipped), in document order."""
    return [c for c in element if isinstance(c.tag, str)]


def line_of(element: Element) -> int | None:
    line: Any = element.sourceline
    return int(line) if isinstance(line, int) else None


@dataclass
class Problems:
    """Errors and warnings found while reading one file, each located at an element's line —
    or, for an element a ``--set`` option wrote (``origins``), at that option."""

    source: str | None
    errors: list[ConfigError] = field(default_factory=list)
    warnings: list[ConfigWarning] = field(default_factory=list)
    origins: Mapping[Element, str] = field(default_factory=dict)

    def _where(self, element: Element | None) -> tuple[str | None, int | None]:
        if element is None:
            return self.source, None
        origin = self.origins.get(element)
        return (self.source, line_of(element)) if origin is None else (origin, None)

    def error(self, message: str, element: Element | None = None) -> None:
        self.errors.append(ConfigError(message, *self._where(element)))

    def warn(self, message: str, element: Element | None = None, *, consequence: str = "",
             fix: str = "") -> None:
        self.warnings.append(ConfigWarning(message, *self._where(element),
                                           consequence=consequence, fix=fix))

    def warn_at(self, message: str, line: int | None, *, consequence: str = "",
                fix: str = "") -> None:
        self.warnings.append(ConfigWarning(message, self.source, line, consequence=consequence,
                                           fix=fix))

    def report(self, finding: ConfigWarning, element: Element | None) -> None:
        """A finding made without a location (``config.lint``), placed at ``element``."""
        file, line = self._where(element)
        self.warnings.append(replace(finding, file=file, line=line))
