"""Safe XML loading for fair-scheduler.xml and yarn-site.xml.

Hadoop parses these files with a stock DOM parser; we parse them with lxml set up so that a file
can do nothing but describe configuration: no DTD loading, no network, no entity substitution,
entity declarations and references rejected outright (so no "billion laughs"), only regular
files read (not ``/dev/zero``, not a FIFO: :mod:`fairshare.config.files`), and a size limit.
Elements keep their ``sourceline`` so every error can say ``file:line``. Reading the parsed
elements is :mod:`fairshare.config.dom`'s job. Where this differs from YARN's parser (entities,
unbound namespace prefixes, split text) is listed in ``docs/fidelity.md``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lxml import etree

from fairshare.config.errors import ConfigError
from fairshare.config.files import read_input, too_large_in_memory
from fairshare.resources.javalang import java_trim

__all__ = [
    "MAX_XML_BYTES",
    "MAX_XML_TAGS",
    "Element",
    "java_trim",  # re-exported: its home is fairshare.resources.javalang
    "parse_xml_bytes",
    "parse_xml_file",
    "parse_xml_text",
]

MAX_XML_BYTES = 16 * 1024 * 1024
MAX_XML_TAGS = 400_000  # '<' characters: each element costs its Python walk time and memory

Element = etree._Element

# lxml ends its messages with the location, which ConfigError already gives as file:line.
_LXML_LOCATION = re.compile(r"\s*, line \d+, column (\d+)$")
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
    tags = data.count(b"<")  # elements, end tags, comments: a bound on the elements' number
    if tags > MAX_XML_TAGS:
        raise ConfigError(f"too large: more than {MAX_XML_TAGS:,} tags ('<' characters; "
                          f"{tags:,} in the file)", source)
    parser = _parser(encoding)
    try:
        tree = etree.fromstring(data, parser).getroottree()
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno and exc.lineno > 0 else None
        raise ConfigError(f"malformed XML: {_without_location(exc.msg)}", source, line) from None
    except MemoryError:
        raise too_large_in_memory(source) from None
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
    """libxml2's message on one line (some carry a newline), its ``line N, column M`` tail
    shortened: the line is already the error's own."""
    return _LXML_LOCATION.sub(r" (column \1)", " ".join(message.split()))


def parse_xml_text(text: str, source: str) -> Element:
    """Parse a document given as text; a declared ``encoding`` is ignored, the text is decoded."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ConfigError(f"text cannot be encoded as UTF-8: {exc.reason}", source) from None
    return parse_xml_bytes(data, source, encoding="utf-8")


def parse_xml_file(path: str | Path, display: str | None = None) -> Element:
    """Read and parse a file (``display`` names it in errors, default ``path``). A path that is
    not a regular file (missing, a directory, a FIFO, a device such as ``/dev/zero``) is refused
    without being opened (:func:`fairshare.config.files.read_input`); a file larger than
    :data:`MAX_XML_BYTES` is refused without being read."""
    source = str(path) if display is None else display
    data = read_input(path, source, MAX_XML_BYTES)
    return parse_xml_bytes(data, source)


def _too_large(source: str) -> ConfigError:
    return ConfigError(f"file is too large (the limit is {MAX_XML_BYTES:,} bytes)", source)
