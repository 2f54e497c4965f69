"""A request body — JSON or XML — read into one shape, and typed reads that name the field
they refuse.

Jersey's natural JSON and JAXB's XML say the same document two ways: a field given several
times (XML's repeated elements, natural JSON's arrays and repeated ``"entry"`` keys) is one
list, and every scalar is text to JAXB (``"priority":"1"`` reads as 1). :class:`Fields` holds
either as field → list of values; the readers below accept what JAXB accepts for each type
and refuse the rest with YARN's ``BadRequestException`` naming the field (where JAXB would
quietly read a bad number as 0: docs/rest.md).

A JSON body's text is refused where it holds a character no XML 1.0 document can carry (C0
controls but tab, line feed and carriage return; U+FFFE, U+FFFF; half of a surrogate pair,
as ``"\\ud800"`` gives): an XML body cannot hold them at all (JAXB's parser refuses it), and
the server's XML answers, and its pages' history, could not write them (docs/serve.md, "Bad
input").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.config.xml import Element, parse_xml_bytes
from fairshare.resources.javalang import parse_int
from fairshare.server.control import Refused, bad_request

Raw = Any  # str | int | float | bool | None | Fields


@dataclass(slots=True)
class Fields:
    """One object of the body: each field's values in the order given."""

    values: dict[str, list[Raw]] = field(default_factory=dict)

    def add(self, name: str, value: Raw) -> None:
        items = value if isinstance(value, list) else [value]
        self.values.setdefault(name, []).extend(items)


def unreadable(detail: str) -> Refused:
    """What Jersey answers for a body it cannot unmarshal: ``GenericExceptionHandler`` maps a
    ``WebApplicationException`` caused by an ``UnmarshalException`` to 400."""
    return Refused(400, "WebApplicationException", "javax.ws.rs.WebApplicationException",
                   f"javax.xml.bind.UnmarshalException\n - with linked exception:\n[{detail}]")


def parse_body(body: bytes, media_type: str, root: str) -> Fields:
    """``body`` as JSON (root-unwrapped: the object itself) or XML (its root element must be
    ``root``)."""
    if media_type == "application/json":
        return _json(body)
    return _xml(body, root)


def _pairs(pairs: list[tuple[str, Raw]]) -> Fields:
    f = Fields()
    for name, value in pairs:
        f.add(name, value)
    return f


def _json(body: bytes) -> Fields:
    try:
        doc = json.loads(body.decode("utf-8"), object_pairs_hook=_pairs)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise unreadable(f"the body is not JSON: {e}") from None
    if not isinstance(doc, Fields):
        raise unreadable("the body is not a JSON object")
    _check_text(doc, "")
    return doc


# XML 1.0's Char production, negated: what no XML document (so no JAXB answer) can hold
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def unwritable(text: str) -> str | None:
    """Why ``text`` cannot be written into an answer (see the module docstring), or None."""
    found = _NOT_XML.search(text)
    if found is None:
        return None
    code = ord(found.group())
    if 0xD800 <= code <= 0xDFFF:
        return f"U+{code:04X} (half of a surrogate pair, not a character)"
    return f"U+{code:04X} (a character no XML document can carry)"


def checked_text(value: str, where: str) -> str:
    """``value``, or YARN's 400 naming ``where`` if it holds what no answer can carry."""
    why = unwritable(value)
    if why is not None:
        raise bad_request(f"{escaped(where)}: contains {why}")
    return value


def escaped(text: str) -> str:
    """``text`` with what no answer can carry written as ``\\uXXXX`` (to name it safely)."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def check_json_text(value: object, path: str = "") -> None:
    """:func:`checked_text` over every key and string of a parsed JSON document."""
    if isinstance(value, str):
        checked_text(value, path or "the body")
    elif isinstance(value, dict):
        for name, item in value.items():
            where = _where(path, str(name))
            checked_text(str(name), where)
            check_json_text(item, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_json_text(item, f"{path}[{i}]")


def _check_text(value: Raw, path: str) -> None:
    if isinstance(value, str):
        checked_text(value, path or "the body")
    elif isinstance(value, Fields):
        for name, items in value.values.items():
            where = _where(path, name)
            checked_text(name, where)
            for item in items:
                _check_text(item, where)


def _xml(body: bytes, root: str) -> Fields:
    try:
        element = parse_xml_bytes(body, "the request body")
    except ConfigError as e:
        raise unreadable(f"the body is not XML: {e}") from None
    if element.tag != root:
        raise unreadable(f'unexpected element "{element.tag}", expected "{root}"')
    value = _element(element)
    return value if isinstance(value, Fields) else Fields()


def _element(element: Element) -> Raw:
    children = [c for c in element if isinstance(c.tag, str)]
    if not children:
        return element.text or ""
    f = Fields()
    for child in children:
        f.add(str(child.tag), [_element(child)])
    return f


# --- typed reads ---------------------------------------------------------------------------


def _where(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def one(f: Fields, name: str, path: str = "") -> Raw:
    """The field's one value, or None when absent (a JSON null is absent, as for JAXB)."""
    values = [v for v in f.values.get(name, []) if v is not None]
    if len(values) > 1:
        raise bad_request(f"{_where(path, name)}: given {len(values)} times, expected once")
    return values[0] if values else None


def many(f: Fields, name: str) -> list[Raw]:
    return [v for v in f.values.get(name, []) if v is not None]


def text(f: Fields, name: str, path: str = "") -> str | None:
    value = one(f, name, path)
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise bad_request(f"{_where(path, name)}: expected a string, not an object")


def integer(f: Fields, name: str, path: str = "", *, bits: int = 32,
            minimum: int | None = None) -> int | None:
    value = one(f, name, path)
    if value is None:
        return None
    where = _where(path, name)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise bad_request(f"{where}: expected an integer, not {_kind(value)}")
    if isinstance(value, str):
        try:
            value = parse_int(value.strip(), bits=bits)
        except ValueError:
            raise bad_request(f'{where}: expected an integer, not "{value}"') from None
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise bad_request(f"{where}: {value} is out of range")
    if minimum is not None and value < minimum:
        raise bad_request(f"{where}: must be at least {minimum}, not {value}")
    return value


def boolean(f: Fields, name: str, path: str = "") -> bool | None:
    """``DatatypeConverter.parseBoolean``: ``true``/``1`` and ``false``/``0``."""
    value = one(f, name, path)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip() in ("true", "1", "false", "0"):
        return value.strip() in ("true", "1")
    raise bad_request(f"{_where(path, name)}: expected true or false, not {_shown(value)}")


def nested(f: Fields, name: str, path: str = "") -> Fields | None:
    value = one(f, name, path)
    if value is None or isinstance(value, Fields):
        return value
    if value == "":  # an empty XML element: an object with nothing set
        return Fields()
    raise bad_request(f"{_where(path, name)}: expected an object, not {_kind(value)}")


def each(f: Fields, name: str, path: str, read: Callable[[Fields, str], Any]) -> list[Any]:
    """``read`` over every object the field holds (``path[i]`` naming each)."""
    out = []
    for i, value in enumerate(many(f, name)):
        where = f"{_where(path, name)}[{i}]"
        if not isinstance(value, Fields):
            raise bad_request(f"{where}: expected an object, not {_kind(value)}")
        out.append(read(value, where))
    return out


def only(f: Fields, path: str, allowed: tuple[str, ...]) -> None:
    """fairshare's own objects are strict: a field it does not know is refused."""
    unknown = [name for name in f.values if name not in allowed]
    if unknown:
        raise bad_request(f'{_where(path, unknown[0])}: unknown field (known: '
                          f'{", ".join(allowed)})')


def _kind(value: Raw) -> str:
    if isinstance(value, Fields):
        return "an object"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float):
        return f"the number {value!r}"
    return _shown(value)


def _shown(value: Raw) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)
