"""The RM's answers as documents, written as Jersey 1.19 and JAXB write them.

The RM marshals its DAOs through ``JAXBContextResolver`` (``RM/webapp/JAXBContextResolver``):
a ``JSONJAXBContext`` in *natural* notation for JSON, plain JAXB for XML. A DAO here is an
:class:`Obj`, its fields in the Java class's declaration order (FIELD access); what that
marshalling does to values is done by :func:`to_json` and :func:`to_xml`, not by the DAOs:

* ``None`` is a null field and an empty list an empty ``ArrayList``: both are left out;
* a list is an array even with one element (natural notation knows the element is a
  collection), and in XML one element per item, under the field's name;
* ``int`` is a Java ``long``/``int``, unquoted (``9223372036854775807``); ``bool`` unquoted;
  :class:`JFloat` a Java ``float``/``double``, printed as ``Float.toString`` prints it
  (``0.0``, ``6.25``, ``131.246``) — JAXB's ``DatatypeConverter.printFloat``;
* :class:`JMap` a ``Map<String, …>`` (``resourceSecondsMap``): natural JSON writes each entry as
  another ``"entry"`` key of one object — repeated keys — with its value as a string, ``{}``
  when empty; XML writes ``<entry><key>…</key><value>…</value></entry>``;
* ``Obj.unwrapped``: a document of a DAO the resolver marshals with ``rootUnwrapping(true)``
  (``NewApplication``, ``AppState``, ``AppQueue``, ``AppPriority``): JSON leaves its root
  element out (``{"state":"KILLED"}``), XML keeps it (``<appstate>…``);
* ``Obj.xsi_type``: a subclass reached through ``@XmlSeeAlso`` (``FairSchedulerInfo``,
  ``FairSchedulerLeafQueueInfo``): natural JSON puts ``"type":"…"`` first, XML an
  ``xsi:type`` attribute (the ``xsi`` namespace declared on the first element that needs it).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from json.encoder import encode_basestring
from typing import Generic, TypeVar

from fairshare.resources.vector import float32

JSON_TYPE = "application/json;charset=utf-8"  # as Jersey writes it (no space)
XML_TYPE = "application/xml; charset=utf-8"  # as Jersey writes it (with the space)
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
XSI = "http://www.w3.org/2001/XMLSchema-instance"


@dataclass(frozen=True, slots=True, eq=False)
class JFloat:
    """A Java ``float`` (``double=False``, the value rounded to float32) or ``double``.
    Equal when written alike: 0.0 and -0.0 are not (``Float.toString`` keeps the sign, and
    :func:`json_reusing` takes an equal field's text), NaN is NaN."""

    value: float
    double: bool = False

    def text(self) -> str:
        return java_double_text(self.value) if self.double else java_float_text(self.value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JFloat) or self.double != other.double:
            return False
        a, b = self.value, other.value
        if a != a or b != b:  # NaN
            return a != a and b != b
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)

    def __hash__(self) -> int:
        return hash((self.value, self.double))


@dataclass(frozen=True, slots=True)
class JMap:
    """A ``Map<String, V>`` in insertion order; values are written as their text."""

    entries: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Obj:
    """One DAO: its fields in declaration order (repeats allowed), and its ``xsi:type``."""

    fields: tuple[tuple[str, Value], ...] = field(default=())
    xsi_type: str | None = None
    unwrapped: bool = False


Value = str | bool | int | JFloat | JMap | Obj | Sequence["Value"] | None


def obj(*fields: tuple[str, Value], xsi_type: str | None = None) -> Obj:
    return Obj(tuple(fields), xsi_type)


def unwrapped(root: str, content: Obj) -> Obj:
    """A document whose JSON is ``content`` alone, its XML ``<root>content</root>``."""
    return Obj(((root, content),), None, True)


# --- Java's number texts -----------------------------------------------------------------


def java_float_text(value: float) -> str:
    """``Float.toString(f)``: the shortest decimal that reads back as the same float32."""
    return _java_text(float32(value), _float32_digits)


def java_double_text(value: float) -> str:
    """``Double.toString(d)``."""
    return _java_text(value, _double_digits)


def _java_text(value: float, digits_of: Callable[[float], tuple[str, int]]) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    digits, exponent = digits_of(abs(value))  # value = 0.d1d2… × 10^exponent
    if 1e-3 <= abs(value) < 1e7:  # plain decimal, at least one digit after the point
        if exponent <= 0:
            return f"{sign}0.{'0' * -exponent}{digits}"
        whole, frac = digits[:exponent].ljust(exponent, "0"), digits[exponent:]
        return f"{sign}{whole}.{frac or '0'}"
    mantissa = f"{digits[0]}.{digits[1:] or '0'}"  # computerized scientific notation
    return f"{sign}{mantissa}E{exponent - 1}"


def _split(text: str) -> tuple[str, int]:
    """A decimal text → its significant digits and the exponent ``e`` of ``0.d… × 10^e``."""
    _, digits, exp = Decimal(text).as_tuple()
    shown = "".join(map(str, digits))
    return shown.rstrip("0") or "0", len(digits) + int(exp)


def _float32_digits(value: float) -> tuple[str, int]:
    for precision in range(9):  # nine significant digits always identify a float32
        text = f"{value:.{precision}e}"
        if float32(float(text)) == value:
            return _split(text)
    return _split(f"{value:.8e}")


def _double_digits(value: float) -> tuple[str, int]:
    return _split(repr(value))  # Python's repr is the shortest that reads back, as Java's


# --- JSON ----------------------------------------------------------------------------------


def to_json(doc: Obj) -> bytes:
    """The document as Jersey's natural JSON, UTF-8, with no white space."""
    out: list[str] = []
    if doc.unwrapped:
        (_, content), = doc.fields
        if isinstance(content, Obj):
            doc = content
    _json_obj(doc, out)
    # a lone surrogate becomes "?", as Java's UTF-8 encoder writes it (a safety net: bodies
    # holding one are refused, rest/body.py)
    return "".join(out).encode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class FieldTexts:
    """An :class:`Obj`'s JSON text (as :func:`to_json` writes it, decoded) with the text of
    each of its fields ("" for one left out), kept so that the DAO's next version writes
    again only the fields whose values changed (:func:`json_reusing`)."""
    fields: tuple[tuple[str, Value], ...]
    parts: tuple[str, ...]
    text: str


def json_reusing(o: Obj, kept: FieldTexts | None) -> FieldTexts:
    """``to_json(o)`` as :class:`FieldTexts`; a field whose name and value (of the same
    type, and equal) are those at its place in ``kept`` — an earlier version of the same
    DAO — takes its text from ``kept``. A running app's ``AppInfo`` changes a few of its
    45 fields from one snapshot to the next (its elapsed time, its usage); writing only
    those makes ``/apps`` of a new snapshot about a third cheaper (docs/benchmarks.md)."""
    if o.xsi_type is not None or o.unwrapped:  # (no such DAO is written this way)
        return FieldTexts(o.fields, (), to_json(o).decode("utf-8"))
    fields = o.fields
    if kept is None or len(kept.parts) != len(fields):  # (none kept field by field)
        parts = [_field_json(name, value) for name, value in fields]
    else:
        parts = [
            # the same type too: True == 1 and (1,) == (True,), but their texts differ
            part if (value is old or (type(value) is type(old) and value == old))
            and name == old_name else _field_json(name, value)
            for (name, value), (old_name, old), part in zip(fields, kept.fields, kept.parts,
                                                           strict=True)]
    text = "{" + ",".join(part for part in parts if part) + "}"
    # a lone surrogate becomes "?", as to_json writes it
    return FieldTexts(o.fields, tuple(parts), text.encode("utf-8", "replace").decode("utf-8"))


def _field_json(name: str, value: Value) -> str:
    """``"name":value``, or "" for a field left out."""
    if not _present(value):
        return ""
    out = [_json_str(name), ":"]
    _json_value(value, out)
    return "".join(out)


def _present(value: Value) -> bool:
    if value is None:
        return False
    return not (isinstance(value, (list, tuple)) and not value)


def _json_obj(o: Obj, out: list[str]) -> None:
    out.append("{")
    first = True
    if o.xsi_type is not None:
        out.append(f'"type":{_json_str(o.xsi_type)}')
        first = False
    for name, value in o.fields:
        if not _present(value):
            continue
        if not first:
            out.append(",")
        first = False
        out.append(_json_str(name))
        out.append(":")
        _json_value(value, out)
    out.append("}")


def _json_value(value: Value, out: list[str]) -> None:
    if isinstance(value, Obj):
        _json_obj(value, out)
    elif isinstance(value, JMap):
        out.append("{" + ",".join(
            f'"entry":{{"key":{_json_str(k)},"value":{_json_str(v)}}}'
            for k, v in value.entries) + "}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _json_value(item, out)
        out.append("]")
    else:
        out.append(_json_scalar(value))


def _json_scalar(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, JFloat):
        return value.text()
    if isinstance(value, str):
        return _json_str(value)
    raise TypeError(f"not a document value: {value!r}")


def _json_str(text: str) -> str:
    # what json.dumps(text, ensure_ascii=False) returns for a str (JSONEncoder.encode hands
    # it to this very function), without building an encoder per string: the writer's
    # hottest call on the big lists
    return encode_basestring(text)


# --- XML -----------------------------------------------------------------------------------


def to_xml(doc: Obj) -> bytes:
    """The document as JAXB's XML: the declaration, then its one root element."""
    roots = [(name, value) for name, value in doc.fields if _present(value)]
    if len(roots) != 1:
        raise ValueError("an XML document has exactly one root element")
    out = [XML_DECLARATION]
    _xml_element(roots[0][0], roots[0][1], out, xsi_declared=False)
    # a lone surrogate becomes "?", as Java's UTF-8 encoder writes it (a safety net: bodies
    # holding one are refused, rest/body.py)
    return "".join(out).encode("utf-8", "replace")


def _xml_element(name: str, value: Value, out: list[str], *, xsi_declared: bool) -> None:
    if isinstance(value, (list, tuple)):
        for item in value:
            if item is not None:
                _xml_element(name, item, out, xsi_declared=xsi_declared)
        return
    attrs = ""
    if isinstance(value, Obj) and value.xsi_type is not None:
        if not xsi_declared:
            attrs = f' xmlns:xsi="{XSI}"'
            xsi_declared = True
        attrs += f' xsi:type="{_xml_escape(value.xsi_type, attr=True)}"'
    inner: list[str] = []
    if isinstance(value, Obj):
        for child, child_value in value.fields:
            if _present(child_value):
                _xml_element(child, child_value, inner, xsi_declared=xsi_declared)
    elif isinstance(value, JMap):
        inner.extend(f"<entry><key>{_xml_escape(k)}</key><value>{_xml_escape(v)}</value>"
                     "</entry>" for k, v in value.entries)
    else:  # a leaf: JAXB writes its text, even an empty one, between two tags
        text = value if isinstance(value, str) else _json_scalar(value)
        out.append(f"<{name}>{_xml_escape(text)}</{name}>")
        return
    body = "".join(inner)
    out.append(f"<{name}{attrs}>{body}</{name}>" if body else f"<{name}{attrs}/>")


def _xml_escape(text: str, *, attr: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if attr else text


def written(doc: Obj, xml: bool) -> bytes:
    """``doc`` as XML or as JSON."""
    return to_xml(doc) if xml else to_json(doc)


# --- what is written once per snapshot ---------------------------------------------------

V = TypeVar("V")
_MISSING = object()


class _Owned:
    __slots__ = ("locks", "owner", "spent", "values")

    def __init__(self, owner: object) -> None:
        self.owner = owner  # kept alive: its id is not reused while its values are kept
        self.values: dict[Hashable, object] = {}
        self.locks: dict[Hashable, threading.Lock] = {}
        self.spent = 0


class PerSnapshot(Generic[V]):
    """Values made once per frozen object (a snapshot: what is made of it never changes),
    for the last ``keep`` objects asked about. Snapshots cannot carry fields of ours (they
    are the engine's), nor weak references (slotted): they are kept by identity, alive while
    their values are. Threads asking for the same value of the same object wait for the one
    making it (a hundred clients reading the snapshot just published make it once); a value
    that does not fit in ``budget`` (``size`` of each, per object) is made and not kept,
    and past ``MAX_KEYS`` keys of one object (every query a client can write) nothing more
    is kept of it."""

    MAX_KEYS = 256

    def __init__(self, keep: int = 3, *, budget: int | None = None,
                 size: Callable[[V], int] | None = None) -> None:
        self.keep, self.budget, self.size = keep, budget, size
        self._owners: dict[int, _Owned] = {}
        self._lock = threading.Lock()

    def _owned(self, owner: object) -> _Owned:
        owned = self._owners.get(id(owner))
        if owned is not None and owned.owner is owner:
            return owned
        with self._lock:
            owned = self._owners.get(id(owner))
            if owned is None or owned.owner is not owner:
                owned = self._owners[id(owner)] = _Owned(owner)
                while len(self._owners) > self.keep:  # the oldest first (insertion order)
                    del self._owners[next(iter(self._owners))]
            return owned

    def get(self, owner: object, key: Hashable, make: Callable[[], V]) -> V:
        """``make()``, or what it made for ``owner`` and ``key`` before."""
        owned = self._owned(owner)
        value = owned.values.get(key, _MISSING)
        if value is not _MISSING:
            return value  # type: ignore[return-value]
        with self._lock:
            lock = owned.locks.get(key)
            if lock is None:
                if len(owned.locks) >= self.MAX_KEYS:
                    lock = None
                else:
                    lock = owned.locks[key] = threading.Lock()
        if lock is None:
            return make()
        with lock:
            value = owned.values.get(key, _MISSING)
            if value is not _MISSING:
                return value  # type: ignore[return-value]
            made = make()
            cost = self.size(made) if self.size is not None else 0
            if self.budget is None or owned.spent + cost <= self.budget:
                owned.spent += cost
                owned.values[key] = made
            return made


# the whole answers of the reads many clients repeat (/scheduler, /metrics, /nodes, /apps…),
# by snapshot and by everything else their bytes depend on (the format, the caller's view,
# the Host header…): at most 64 MB of them for each of the last three snapshots
ANSWERS: PerSnapshot[bytes] = PerSnapshot(3, budget=64 * 1024 * 1024, size=len)
