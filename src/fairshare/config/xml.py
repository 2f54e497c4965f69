"""Safe XML loading for fair-scheduler.xml and yarn-site.xml.

Hadoop parses these files with a stock DOM parser; we parse them with lxml set up so that a file
can do nothing but describe configuration: no DTD loading, no network, no entity substitution,
entity declarations and references rejected outright (so no "billion laughs"), and a size limit
that holds for whatever the path names (``/dev/zero``, a FIFO). Elements keep their
``sourceline`` so every error can say ``file:line``. Reading the parsed elements is
:mod:`fairshare.config.dom`'s job. Where this differs from YARN's parser (entities, unbound
namespace prefixes, split text) is listed in ``docs/fidelity.md``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from lxml import etree

from fairshare.config.errors import ConfigError
from fairshare.resources.javalang import java_trim

__all__ = [
    "MAX_XML_BYTES",
    "Element",
    "java_trim",  # re-exported: its home is fairshare.resources.javalang
    "parse_xml_bytes",
    "parse_xml_file",
    "parse_xml_text",
]

MAX_XML_BYTES = 16 * 1024 * 1024

Element = etree._Element

# lxml ends its messages with the location, which ConfigError already gives as file:line.
_LXML_LOCATION = re.compile(r", line \d+, column (\d+)$")
_UNDECLARED_ENTITY = frozenset({"WAR_UNDECLARED_ENTITY", "ERR_UNDECLARED_ENTITY"})
_NO_ENTITIES = "entity references are not allowed (entities are never expanded, for safety)"


def _parser(encoding: str | None) -> etree.XMLParser:
    return etree.XMLParser(
        encoding=encoding,
        resolve_entities=False,
        load_dtd=False,
        dtd_validation=False,
        no_network=True,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def parse_xml_bytes(data: bytes, source: str, *, encoding: str | None = None) -> Element:
    """Parse an XML document from bytes; ``source`` names it in errors.

    ``encoding`` overrides the document's own declaration (used for text already decoded).
    """
    if len(data) > MAX_XML_BYTES:
        raise _too_large(source)
    parser = _parser(encoding)
    try:
        tree = etree.fromstring(data, parser).getroottree()
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno and exc.lineno > 0 else None
        raise ConfigError(f"malformed XML: {_without_location(exc.msg)}", source, line) from None
    dtd: Any = tree.docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise ConfigError(
            "entity declarations are not allowed (entity expansion is disabled for safety)",
            source,
            1,
        )
    _reject_entity_references(tree.getroot(), parser, source)
    return tree.getroot()


def _reject_entity_references(root: Element, parser: etree.XMLParser, source: str) -> None:
    """Undeclared entities pass libxml2 when the document names an external DTD: in text they
    remain entity nodes, in attributes they silently vanish. Either way, report them."""
    for entry in parser.error_log:
        if entry.type_name in _UNDECLARED_ENTITY:
            message = f"{_without_location(entry.message)}: {_NO_ENTITIES}"
            raise ConfigError(message, source, entry.line or None)
    for node in root.iter():
        if isinstance(node, etree._Entity):
            message = f"entity reference {node.text}: {_NO_ENTITIES}"
            raise ConfigError(message, source, node.sourceline)


def _without_location(message: str) -> str:
    return _LXML_LOCATION.sub(r" (column \1)", message.strip())


def parse_xml_text(text: str, source: str) -> Element:
    """Parse a document given as text; a declared ``encoding`` is ignored, the text is decoded."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ConfigError(f"text cannot be encoded as UTF-8: {exc.reason}", source) from None
    return parse_xml_bytes(data, source, encoding="utf-8")


def parse_xml_file(path: str | Path) -> Element:
    """Read and parse a file, reporting a missing, unreadable or oversized file as a
    :class:`ConfigError`. Never reads more than :data:`MAX_XML_BYTES` + 1 bytes."""
    p = Path(path)
    try:
        data = _read_at_most(p, MAX_XML_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read file: {exc.strerror or exc}", str(p)) from None
    return parse_xml_bytes(data, str(p))


def _read_at_most(path: Path, limit: int) -> bytes:
    # O_NONBLOCK only for the open, so that a FIFO without a writer reads as empty instead of
    # blocking forever; reads then block as usual (a FIFO with a writer is read normally).
    nonblock = getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, os.O_RDONLY | nonblock | getattr(os, "O_BINARY", 0))
    try:
        if nonblock:
            os.set_blocking(fd, True)
        file = os.fdopen(fd, "rb")
    except OSError:
        os.close(fd)
        raise
    with file:
        return file.read(limit)


def _too_large(source: str) -> ConfigError:
    return ConfigError(f"file is too large (the limit is {MAX_XML_BYTES} bytes)", source)
