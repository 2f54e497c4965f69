"""Reading the allocation file the way Hadoop's (non-namespace-aware) DOM code does.

Shared by the allocation parser and the placement-policy parser: tag names compared as DOM
``getTagName()`` returns them (``prefix:local``), attributes read as ``getAttribute`` (``""`` when
absent), and a collector that turns problems into located :class:`ConfigError` /
:class:`ConfigWarning` objects so that every error in a file can be reported at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from fairshare.config.errors import ConfigError
from fairshare.config.model import ConfigWarning
from fairshare.config.xml import Element, line_of


def dom_tag(element: Element) -> str:
    """The tag as a non-namespace-aware DOM reports it: ``p:name`` for a prefixed element."""
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


def java_equals_ignore_case(a: str, b: str) -> bool:
    """``String.equalsIgnoreCase``: char by char, equal as is, upper-cased or lower-cased."""
    if len(a) != len(b):
        return False
    return all(
        x == y or _upper(x) == _upper(y) or _lower(x) == _lower(y)
        for x, y in zip(a, b, strict=True)
    )


# Java maps one char to one char; where Python's mapping expands (e.g. "ß".upper() == "SS"),
# Java's Character.toUpperCase leaves the char alone.
def _upper(c: str) -> str:
    mapped = c.upper()
    return mapped if len(mapped) == 1 else c


def _lower(c: str) -> str:
    mapped = c.lower()
    return mapped if len(mapped) == 1 else c


@dataclass
class Problems:
    """Errors and warnings found while reading one file, each located at an element's line."""

    source: str | None
    errors: list[ConfigError] = field(default_factory=list)
    warnings: list[ConfigWarning] = field(default_factory=list)

    def error(self, message: str, element: Element | None = None) -> None:
        line = line_of(element) if element is not None else None
        self.errors.append(ConfigError(message, self.source, line))

    def warn(self, message: str, element: Element | None = None) -> None:
        line = line_of(element) if element is not None else None
        self.warnings.append(ConfigWarning(message, self.source, line))

    def warn_at(self, message: str, line: int | None) -> None:
        self.warnings.append(ConfigWarning(message, self.source, line))
