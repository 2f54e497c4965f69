"""Safe XML loading for fair-scheduler.xml and yarn-site.xml.

Hadoop parses these files with a stock DOM parser; we parse them with lxml set up so that a file
can do nothing but describe configuration: no DTD loading, no network, no entity substitution,
entity declarations rejected outright (so no "billion laughs"), and a size limit. Elements keep
their ``sourceline`` so every error can say ``file:line``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lxml import etree

from fairshare.config.errors import ConfigError

MAX_XML_BYTES = 16 * 1024 * 1024

Element = etree._Element


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        load_dtd=False,
        dtd_validation=False,
        no_network=True,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def parse_xml_bytes(data: bytes, source: str) -> Element:
    """Parse an XML document from bytes; ``source`` names it in errors."""
    if len(data) > MAX_XML_BYTES:
        raise ConfigError(
            f"file is too large ({len(data)} bytes; the limit is {MAX_XML_BYTES})", source
        )
    try:
        tree = etree.fromstring(data, _parser()).getroottree()
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno and exc.lineno > 0 else None
        raise ConfigError(f"malformed XML: {exc.msg}", source, line) from None
    dtd: Any = tree.docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise ConfigError(
            "entity declarations are not allowed (entity expansion is disabled for safety)",
            source,
            1,
        )
    root = tree.getroot()
    for node in root.iter():
        if isinstance(node, etree._Entity):
            raise ConfigError(f"undefined entity reference {node.text}", source, node.sourceline)
    return root


def parse_xml_text(text: str, source: str) -> Element:
    return parse_xml_bytes(text.encode("utf-8"), source)


def parse_xml_file(path: str | Path) -> Element:
    """Read and parse a file, reporting a missing or unreadable file as a :class:`ConfigError`."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_XML_BYTES:
            raise ConfigError(
                f"file is too large ({size} bytes; the limit is {MAX_XML_BYTES})", str(p)
            )
        data = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read file: {exc.strerror or exc}", str(p)) from None
    return parse_xml_bytes(data, str(p))


def local_name(element: Element) -> str:
    """The tag without any namespace; comments and PIs have no name."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return etree.QName(tag).localname


def child_elements(element: Element) -> list[Element]:
    """Element children only (comments, PIs and entity nodes skipped), in document order."""
    return [c for c in element if isinstance(c.tag, str)]


def element_text(element: Element, *, strip: bool = True) -> str | None:
    """The element's first text child, trimmed as Hadoop trims it; None when it has no text."""
    text = element.text
    if text is None:
        return None
    return java_trim(text) if strip else text


def java_trim(text: str) -> str:
    """Java's ``String.trim()``: strips characters up to U+0020 only, not Unicode whitespace."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def line_of(element: Element) -> int | None:
    line: Any = element.sourceline
    return int(line) if isinstance(line, int) else None
