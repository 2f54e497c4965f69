"""Mutation operators: turn one input file into a hostile or broken one, deterministically.

:func:`mutate` picks an operator for the file's kind from ``random.Random`` (so a seed gives
the same mutants on every machine and Python version) and sometimes stacks a second one. Every
operator returns the new bytes and a one-line description of what it did.

Operators on any file (bytes and lines): truncation, deleted / duplicated / swapped lines, BOMs
and UTF-16, CRLF and lone CR, empty and blank files, flipped bytes, invalid UTF-8, NUL and
control characters, numbers replaced by huge / negative / NaN / infinite ones, a very long line.

Operators on the parsed document (YAML scenarios, JSON traces, XML allocation and site files,
CSV workloads): swapped types, deleted and unknown keys, extreme numbers, unicode and rich
markup in names, lists multiplied, deep nesting, YAML alias bombs and ``!!python`` tags, XML
entity bombs and external entities, Hadoop ``${var}`` expansion bombs, CSV column and quoting
chaos. Some operators need a companion file (``secret.txt``, which an external entity points
at) or leave a trap (:data:`SENTINEL`, a file a ``!!python`` tag would create if it ran).
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from lxml import etree

from fuzz import corpus

SENTINEL = "PWNED_BY_FUZZ"  # a file that exists only if a YAML tag ran code
SECRET_NAME = "secret.txt"  # what XML external entities point at
SECRET_TOKEN = "fuzz-secret-b7e1c4"  # its content: must never show up in any output


class Skip(Exception):
    """The operator does not apply to this input."""


@dataclass(frozen=True)
class Mutation:
    data: bytes
    ops: tuple[str, ...]
    extra_files: dict[str, bytes] = field(default_factory=dict)


@dataclass
class _Out:
    data: bytes
    detail: str
    extra: dict[str, bytes] = field(default_factory=dict)


Op = Callable[[bytes, random.Random], _Out]

# -- hostile values -------------------------------------------------------------------------------

NUMBER_TOKENS = [
    "-1", "0", "-0", "1e400", "-1e400", "1E309", "9223372036854775807", "9223372036854775808",
    "-9223372036854775809", "18446744073709551616", "2147483648", "-2147483649",
    "99999999999999999999999999999999999999", "1e18", "0.5", "1.0000000001", "1e-400",
    "4.9e-324", "NaN", "nan", "-nan", "Infinity", "-Infinity", "inf", ".nan", ".inf", "-.inf",
    "0x7fffffffffffffff", "0x", "0xg", "1_000", "0o17", "017", "0b101", "+5", "5e2", " 5 ",
    "", "true", "null", "~", "1/0", "1:20", "٣", "１２", "5\u00a0", "9" * 5000,
]

NUMBERS: list[Any] = [
    -1, 0, 2**31, 2**31 - 1, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30, 10**100,
    1e308, float("inf"), float("-inf"), float("nan"), 0.5, -0.0, 1e-320, 1.5, True, False,
    "12", "1e3", "NaN", "Infinity", None,
]

NAMES = [
    "[/x]", "[bold red]x[/bold red]", "[link=file:///etc/passwd]x[/link]", "[", "]", "\\[x]",
    "[/]", "[red]", "名前", "ünïcödé", "🔥💥", "e\u0301", "\u202eevil", "\u200b", "\ufeffbom",
    "a\nb", "a\rb", "a\tb", "\x1b[31mred\x1b[0m", "\x00", "a\x00b", "\x7f", "\x85", " ", "",
    " leading", "trailing ", "a/b", "/", "a/../../b", "../../../etc/passwd", "..", ".", "root.",
    "root..a", ".a", "a.b", "root", "root.default", "*", "%s%n%x", "{0}{name}",
    "$(touch PWNED_BY_FUZZ)", "`id`", "<script>alert(1)</script>", "&amp;", "]]>", "'\"",
    "\\", "x" * 5000, "\ud800", "\udfff", "a\ud800b", "\U0010ffff", "\ufffe", "NaN", "null",
    "true", "~", "-", "#comment", "a,b", "a;b", "=", "CON", "a:b", "a: b", "- x", "\u2028",
]

# Names that broke something before (rich markup, path separators, surrogates, escapes): drawn
# half of the time, the whole list the other half.
SHARP_NAMES = ["[/x]", "[bold red]x[/bold red]", "a/b", "/", "\ud800", "a\ud800b", "名前", "🔥💥",
               "a\nb", "\x1b[31mred\x1b[0m", "", " ", "x" * 5000, "../../../etc/passwd",
               "\u202eevil", "a\x00b", "%s{0}", "[link=x]y[/link]"]


def hostile_name(rng: random.Random) -> str:
    return rng.choice(SHARP_NAMES if rng.random() < 0.5 else NAMES)


_OTHER_TYPES: list[Any] = [[], {}, "", "text", 0, -1, 1.5, True, None, [1, 2], {"a": 1},
                           [[]], [{}], {"": None}]

MAX_ITEMS = 20_000  # a multiplied list stops here (serializing more is slow)
MAX_ROWS = 100_000  # and a multiplied CSV

_NAME_KEYS = ("name", "app", "queue", "user", "id", "prefix", "label", "node", "rack",
              "job.id", "job.queue.name", "job.user", "container.host", "queue_name",
              "class_name", "user_name", "workload_name")

# -- generic: bytes and lines ---------------------------------------------------------------------


def _truncate(data: bytes, rng: random.Random) -> _Out:
    if len(data) < 2:
        raise Skip
    cut = rng.randrange(1, len(data))
    return _Out(data[:cut], f"truncated at byte {cut} of {len(data)}")


def _lines(data: bytes, least: int = 2) -> list[bytes]:
    lines = data.splitlines(keepends=True)
    if len(lines) < least:
        raise Skip
    return lines


def _delete_lines(data: bytes, rng: random.Random) -> _Out:
    lines = _lines(data)
    n = rng.choice([1, 1, 1, 2, 3])
    at = rng.randrange(len(lines))
    del lines[at:at + n]
    return _Out(b"".join(lines), f"deleted line(s) {at + 1}..{at + n}")


def _duplicate_lines(data: bytes, rng: random.Random) -> _Out:
    lines = _lines(data, 1)
    n = rng.choice([1, 1, 2, 3])
    at = rng.randrange(len(lines))
    block = lines[at:at + n]
    to = at + len(block) if rng.random() < 0.6 else rng.randrange(len(lines) + 1)
    copies = rng.choice([1, 1, 1, 2, 10])
    lines[to:to] = block * copies
    return _Out(b"".join(lines), f"duplicated line(s) {at + 1}..{at + n} x{copies} at {to + 1}")


def _swap_lines(data: bytes, rng: random.Random) -> _Out:
    lines = _lines(data)
    i, j = rng.sample(range(len(lines)), 2)
    lines[i], lines[j] = lines[j], lines[i]
    return _Out(b"".join(lines), f"swapped lines {i + 1} and {j + 1}")


def _bom(data: bytes, rng: random.Random) -> _Out:
    text = data.decode("utf-8", "replace")
    choice = rng.randrange(6)
    if choice == 0:
        return _Out(b"\xef\xbb\xbf" + data, "UTF-8 BOM")
    if choice == 1:
        return _Out(text.encode("utf-16"), "UTF-16 with BOM")
    if choice == 2:
        return _Out(text.encode("utf-16-le"), "UTF-16-LE without BOM")
    if choice == 3:
        return _Out(b"\xef\xbb\xbf\xef\xbb\xbf" + data, "two UTF-8 BOMs")
    if choice == 4:
        return _Out(text.encode("utf-32"), "UTF-32 with BOM")
    at = rng.randrange(len(data) + 1)
    return _Out(data[:at] + b"\xef\xbb\xbf" + data[at:], f"BOM inside, at byte {at}")


def _line_endings(data: bytes, rng: random.Random) -> _Out:
    choice = rng.randrange(3)
    if choice == 0:
        return _Out(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"), "CRLF line endings")
    if choice == 1:
        return _Out(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r"), "lone CR line endings")
    lines = _lines(data)
    mixed = b"".join(ln.rstrip(b"\r\n") + rng.choice([b"\n", b"\r\n", b"\r"]) for ln in lines)
    return _Out(mixed, "mixed line endings")


_EMPTY = [b"", b"\n", b"   \n\t\n", b"\xef\xbb\xbf", b"\x00", b"#\n", b"---\n", b"\r\n",
          b"\xff\xfe", b"{}", b"[]", b"null", b"0", b"<", b"\"", b"\x1a"]


def _empty(data: bytes, rng: random.Random) -> _Out:
    value = rng.choice(_EMPTY)
    return _Out(value, f"replaced by {value!r}")


def _byte_flips(data: bytes, rng: random.Random) -> _Out:
    if not data:
        raise Skip
    buf = bytearray(data)
    where = sorted(rng.randrange(len(buf)) for _ in range(rng.choice([1, 2, 4, 16])))
    for i in where:
        buf[i] = rng.randrange(256)
    return _Out(bytes(buf), f"random bytes at {where[:4]}{'…' if len(where) > 4 else ''}")


_BAD_UTF8 = [b"\xff\xfe", b"\xc3\x28", b"\xed\xa0\x80", b"\xc0\xaf", b"\xe2\x82", b"\x80",
             b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80"]


def _invalid_utf8(data: bytes, rng: random.Random) -> _Out:
    bad = rng.choice(_BAD_UTF8)
    at = rng.randrange(len(data) + 1)
    return _Out(data[:at] + bad + data[at:], f"invalid UTF-8 {bad!r} at byte {at}")


_CONTROL = [b"\x00", b"\x1b[2J", b"\x07", b"\x08\x08", b"\x0b", b"\x0c", b"\x1b]0;x\x07",
            b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xae"]


def _control(data: bytes, rng: random.Random) -> _Out:
    bad = rng.choice(_CONTROL)
    at = rng.randrange(len(data) + 1)
    return _Out(data[:at] + bad + data[at:], f"control bytes {bad!r} at byte {at}")


_NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")


def _number_token(data: bytes, rng: random.Random) -> _Out:
    spots = list(_NUMBER.finditer(data))
    if not spots:
        raise Skip
    token = rng.choice(NUMBER_TOKENS).encode()
    if rng.random() < 0.15:
        return _Out(_NUMBER.sub(lambda m: token, data), f"every number -> {_short(token)}")
    m = rng.choice(spots)
    return _Out(data[:m.start()] + token + data[m.end():],
                f"number {m.group().decode()} at byte {m.start()} -> {_short(token)}")


def _long_line(data: bytes, rng: random.Random) -> _Out:
    size = rng.choice([10**4, 10**5, 10**6, 4 * 10**6])
    filler = rng.choice([b"x", b"9", b"a,", b"[", b" ", b"#"]) * (size // 2)
    lines = data.splitlines(keepends=True) or [b""]
    at = rng.randrange(len(lines) + 1)
    lines.insert(at, filler + b"\n")
    return _Out(b"".join(lines), f"a {len(filler):,}-byte line of {filler[:2]!r} at line {at + 1}")


GENERIC: list[tuple[str, int, Op]] = [
    ("truncate", 4, _truncate),
    ("delete-lines", 4, _delete_lines),
    ("duplicate-lines", 3, _duplicate_lines),
    ("swap-lines", 2, _swap_lines),
    ("bom", 2, _bom),
    ("line-endings", 2, _line_endings),
    ("empty", 2, _empty),
    ("byte-flips", 2, _byte_flips),
    ("invalid-utf8", 2, _invalid_utf8),
    ("control", 1, _control),
    ("number-token", 4, _number_token),
    ("long-line", 1, _long_line),
]

# -- documents as trees (YAML and JSON) -----------------------------------------------------------

Path = tuple[Any, ...]


def _walk(tree: Any, limit: int = 100_000) -> list[tuple[Path, Any]]:
    """Every (path, value) under ``tree``, each shared container once (alias bombs)."""
    found: list[tuple[Path, Any]] = []
    seen: set[int] = set()
    stack: list[tuple[Path, Any]] = [((), tree)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict | list):
            if id(node) in seen:
                continue
            seen.add(id(node))
            items = node.items() if isinstance(node, dict) else enumerate(node)
            children = [((*path, key), value) for key, value in items]
            found += children
            stack += reversed(children)
            if len(found) > limit:
                raise Skip
    return found


def _set(tree: Any, path: Path, value: Any) -> None:
    for key in path[:-1]:
        tree = tree[key]
    tree[path[-1]] = value


def _delete(tree: Any, path: Path) -> None:
    for key in path[:-1]:
        tree = tree[key]
    del tree[path[-1]]


def show_path(path: Path) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out or "(top)"


def _short(value: Any, limit: int = 40) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else repr(value)
    return text if len(text) <= limit else text[:limit] + f"…({len(text):,} chars)"


def _encode(text: str) -> bytes:
    """UTF-8, with escaped bytes put back and lone surrogates encoded as such (invalid UTF-8)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


class _Raw:
    """Text to splice into a serialized document where a placeholder string stands."""

    def __init__(self) -> None:
        self.pieces: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        key = f"FUZZRAW{len(self.pieces)}X"
        self.pieces[key] = text
        return key

    def splice(self, serialized: str, quoted: bool) -> str:
        for key, text in self.pieces.items():
            serialized = serialized.replace(f'"{key}"' if quoted else key, text)
            serialized = serialized.replace(key, text)
        return serialized


def _tree_op(tree: Any, rng: random.Random, raw: _Raw, flavour: str) -> str:
    """Mutate ``tree`` in place (or through ``raw`` placeholders); describe what was done."""
    nodes = _walk(tree)
    if not nodes:
        raise Skip
    choice = rng.choices(
        ["swap-type", "delete-key", "add-key", "extreme-number", "hostile-name", "hostile-key",
         "multiply-list", "deep-nesting", "null"],
        weights=[5, 4, 2, 6, 6, 2, 2, 2, 1])[0]
    if choice == "extreme-number":
        numeric = [(p, v) for p, v in nodes if isinstance(v, int | float) and
                   not isinstance(v, bool)]
        if not numeric:
            raise Skip
        path, _ = rng.choice(numeric)
        value: Any = rng.choice(NUMBERS)
        if rng.random() < 0.1:
            value = raw("9" * 5000)
        _set(tree, path, value)
        return f"{flavour}.extreme-number {show_path(path)} = {_short(value)}"
    if choice == "hostile-name":
        strings = [(p, v) for p, v in nodes if isinstance(v, str)]
        named = [(p, v) for p, v in strings if isinstance(p[-1], str) and p[-1] in _NAME_KEYS]
        pool = named if named and rng.random() < 0.7 else strings
        if not pool:
            raise Skip
        path, _ = rng.choice(pool)
        name = hostile_name(rng)
        _set(tree, path, name)
        return f"{flavour}.hostile-name {show_path(path)} = {_short(name)}"
    if choice == "hostile-key":
        maps = [(p, v) for p, v in [((), tree), *nodes] if isinstance(v, dict) and v]
        if not maps:
            raise Skip
        path, target = rng.choice(maps)
        old = rng.choice(list(target))
        new = hostile_name(rng)
        items = [(new if k == old else k, v) for k, v in target.items()]
        target.clear()
        target.update(items)
        return f"{flavour}.hostile-key {show_path((*path, old))} renamed {_short(new)}"
    if choice == "swap-type":
        path, old = rng.choice(nodes)
        options = [v for v in _OTHER_TYPES if type(v) is not type(old)]
        value = rng.choice(options)
        _set(tree, path, value)
        return f"{flavour}.swap-type {show_path(path)}: {type(old).__name__} -> {_short(value)}"
    if choice == "delete-key":
        path, _ = rng.choice(nodes)
        _delete(tree, path)
        return f"{flavour}.delete {show_path(path)}"
    if choice == "add-key":
        maps = [(p, v) for p, v in [((), tree), *nodes] if isinstance(v, dict)]
        if not maps:
            raise Skip
        path, target = rng.choice(maps)
        key = rng.choice(["memroy-mb", "vcore", "unknown", "x-extra", "am", "tasks", "count",
                          *NAMES[:12]])
        target[key] = rng.choice(_OTHER_TYPES + NUMBERS)
        return f"{flavour}.add-key {show_path((*path, key))}"
    if choice == "multiply-list":
        lists = [(p, v) for p, v in [((), tree), *nodes] if isinstance(v, list) and v]
        if not lists:
            raise Skip
        path, seq = rng.choice(lists)
        times = rng.choice([2, 10, 100, 1000, 5000])
        unique = rng.random() < 0.5
        items = list(seq)
        seq[:] = [_renamed(item, i) if unique else item
                     for i in range(times) for item in items][:MAX_ITEMS]
        return f"{flavour}.multiply-list {show_path(path)} x{times}{' (renamed)' if unique else ''}"
    if choice == "deep-nesting":
        path, _ = rng.choice(nodes)
        depth = rng.choice([50, 500, 5000, 100_000])
        if flavour == "yaml":
            text = rng.choice(["[" * depth + "]" * depth, "{a: " * depth + "1" + "}" * depth])
        else:
            text = rng.choice(["[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth])
        _set(tree, path, raw(text))
        return f"{flavour}.deep-nesting {show_path(path)} depth {depth:,}"
    path, _ = rng.choice(nodes)
    _set(tree, path, None)
    return f"{flavour}.null {show_path(path)}"


def _renamed(item: Any, i: int) -> Any:
    """A copy of a list item whose names are made unique (a big valid-looking input)."""
    if i == 0 or not isinstance(item, dict):
        return item
    copy = dict(item)
    for key in ("id", "name", "app", "job.id", "node", "prefix"):
        if isinstance(copy.get(key), str):
            copy[key] = f"{copy[key]}-{i}"
    return copy


# -- YAML -----------------------------------------------------------------------------------------

_ALIAS_BOMBS = [
    "[&a [lol, lol, lol, lol, lol, lol, lol, lol, lol], &b [*a, *a, *a, *a, *a, *a, *a, *a, *a],"
    " &c [*b, *b, *b, *b, *b, *b, *b, *b, *b], &d [*c, *c, *c, *c, *c, *c, *c, *c, *c],"
    " &e [*d, *d, *d, *d, *d, *d, *d, *d, *d], &f [*e, *e, *e, *e, *e, *e, *e, *e, *e],"
    " &g [*f, *f, *f, *f, *f, *f, *f, *f, *f], &h [*g, *g, *g, *g, *g, *g, *g, *g, *g],"
    " &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]]",
    "[&a [x, x, x, x, x, x], &b [*a, *a, *a, *a, *a, *a], &c [*b, *b, *b, *b, *b, *b],"
    " &d [*c, *c, *c, *c, *c, *c], &e [*d, *d, *d, *d, *d, *d]]",
    "{a: &a {k0: v, k1: v, k2: v, k3: v, k4: v, k5: v, k6: v, k7: v, k8: v, k9: v},"
    " b: &b {k0: *a, k1: *a, k2: *a, k3: *a, k4: *a, k5: *a, k6: *a, k7: *a, k8: *a, k9: *a},"
    " c: &c {k0: *b, k1: *b, k2: *b, k3: *b, k4: *b, k5: *b, k6: *b, k7: *b, k8: *b, k9: *b},"
    " d: &d {k0: *c, k1: *c, k2: *c, k3: *c, k4: *c, k5: *c, k6: *c, k7: *c, k8: *c, k9: *c},"
    " e: &e {k0: *d, k1: *d, k2: *d, k3: *d, k4: *d, k5: *d, k6: *d, k7: *d, k8: *d, k9: *d},"
    " f: &f {k0: *e, k1: *e, k2: *e, k3: *e, k4: *e, k5: *e, k6: *e, k7: *e, k8: *e, k9: *e},"
    " g: &g {k0: *f, k1: *f, k2: *f, k3: *f, k4: *f, k5: *f, k6: *f, k7: *f, k8: *f, k9: *f},"
    " h: &h {k0: *g, k1: *g, k2: *g, k3: *g, k4: *g, k5: *g, k6: *g, k7: *g, k8: *g, k9: *g}}",
    "&self [*self]",
    "*undefined",
    "{<<: [&a {x: 1}, *a, *a], y: 2}",
]

_TAGS = [
    f'!!python/object/apply:os.system ["touch {SENTINEL}"]',
    f'!!python/object/apply:subprocess.check_output [["touch", "{SENTINEL}"]]',
    "!!python/name:os.system", "!!python/module:os", "!!python/object/new:int [5]",
    "!!python/tuple [1, 2]", "!!python/str x", "!!python/none ''", "!!binary aGVsbG8=",
    "!!set {a, b}", "!!timestamp 2001-12-14t21:59:43.10-05:00", "2001-12-14", "!!omap [{a: 1}]",
    "!!pairs [[a, 1]]", "!custom x", "!!int 0x10", "!!float 1e400", "!!str 5", "!!null ''",
    "!!bool yes", "yes", "no", "on", "off", "0o777", "0b101", "1:20", "~", "<<", "=",
    "!!int '" + "1" * 5000 + "'", "!<tag:yaml.org,2002:python/object/apply:os.system> [x]",
    "&anchor 5", "*nope", "|-\n  block", ">\n  folded", "!!map []", "!!seq {}",
]


def _yaml_tree(data: bytes, rng: random.Random) -> _Out:
    tree = _load_yaml(data)
    raw = _Raw()
    roll = rng.random()
    if roll < 0.12:
        path, _ = rng.choice(_walk(tree) or [((), None)])
        if not path:
            raise Skip
        bomb = rng.choice(_ALIAS_BOMBS)
        _set(tree, path, raw(bomb))
        detail = f"yaml.alias-bomb at {show_path(path)}: {_short(bomb, 30)}"
    elif roll < 0.24:
        path, _ = rng.choice(_walk(tree) or [((), None)])
        if not path:
            raise Skip
        tag = rng.choice(_TAGS[:2] if rng.random() < 0.3 else _TAGS)
        _set(tree, path, raw(tag if "\n" not in tag else _indent_block(tag, len(path))))
        detail = f"yaml.tag at {show_path(path)}: {_short(tag)}"
    elif roll < 0.34 and isinstance(tree, dict) and isinstance(tree.get("allocations"), str):
        xml = tree["allocations"].encode()
        out = _xml_op(xml, rng, corpus.ALLOC)
        tree["allocations"] = out.data.decode("utf-8", "surrogateescape")
        text = _dump_yaml(tree, raw)
        return _Out(text, f"yaml.inline-allocations: {out.detail}", out.extra)
    else:
        detail = _tree_op(tree, rng, raw, "yaml")
    return _Out(_dump_yaml(tree, raw), detail)


def _indent_block(text: str, depth: int) -> str:
    first, *rest = text.split("\n")
    pad = "  " * (depth + 1)
    return "\n".join([first, *(pad + line.strip() for line in rest)])


def _load_yaml(data: bytes) -> Any:
    try:
        tree = yaml.safe_load(data)
    except (yaml.YAMLError, ValueError, RecursionError) as e:
        raise Skip from e
    if not isinstance(tree, dict | list):
        raise Skip
    return tree


def _dump_yaml(tree: Any, raw: _Raw) -> bytes:
    try:
        text = yaml.safe_dump(tree, allow_unicode=True, sort_keys=False, width=100)
    except (yaml.YAMLError, ValueError, RecursionError) as e:
        raise Skip from e
    return _encode(raw.splice(text, quoted=False))


_YAML_KEY_LINE = re.compile(rb"^(\s*)([\w.-]+):[ \t]*(\S.*)?$", re.MULTILINE)


def _yaml_text(data: bytes, rng: random.Random) -> _Out:
    choice = rng.randrange(7)
    lines = data.splitlines(keepends=True)
    if choice == 0:  # a key twice
        keyed = [i for i, ln in enumerate(lines) if _YAML_KEY_LINE.match(ln)]
        if not keyed:
            raise Skip
        i = rng.choice(keyed)
        m = _YAML_KEY_LINE.match(lines[i])
        assert m is not None
        dup = m.group(1) + m.group(2) + b": " + rng.choice(NUMBER_TOKENS[:20]).encode() + b"\n"
        lines.insert(i + 1, dup)
        return _Out(b"".join(lines), f"yaml.duplicate-key {m.group(2).decode()} at line {i + 2}")
    if choice == 1:  # a tab in the indentation
        indented = [i for i, ln in enumerate(lines) if ln.startswith(b"  ")]
        if not indented:
            raise Skip
        i = rng.choice(indented)
        lines[i] = b"\t" + lines[i].lstrip(b" ")
        return _Out(b"".join(lines), f"yaml.tab-indent line {i + 1}")
    if choice == 2:
        extra = rng.choice([b"\n---\n", b"\n---\nversion: 1\n", b"\n...\n", b"\n--- !!map\n"])
        return _Out(data + extra, f"yaml.documents {extra!r}")
    if choice == 3:
        head = rng.choice([b"%YAML 1.2\n---\n", b"%YAML 9.9\n---\n", b"%TAG ! tag:x,2000:\n---\n",
                           b"--- !!python/object:object\n", b"!!set\n", b"--- |\n"])
        return _Out(head + data, f"yaml.header {head!r}")
    if choice == 4:  # a name-like value replaced by escaped hostile text
        spots = [m for m in re.finditer(
            rb"\b(name|app|queue|user|id|prefix|label|node|rack): ?([^,}\]\n#]+)", data)]
        if not spots:
            raise Skip
        m = rng.choice(spots)
        name = hostile_name(rng)
        quoted = json.dumps(name).encode()
        return _Out(data[:m.start(2)] + quoted + data[m.end(2):],
                    f"yaml.hostile-name {m.group(1).decode()} = {_short(name)}")
    if choice == 5:
        tag = rng.choice(_TAGS).encode()
        valued = [k for k in _YAML_KEY_LINE.finditer(data) if k.group(3)]
        if not valued:
            raise Skip
        k = rng.choice(valued)
        return _Out(data[:k.start(3)] + tag + data[k.end(3):],
                    f"yaml.tag {k.group(2).decode()}: {_short(tag)}")
    bomb = rng.choice(_ALIAS_BOMBS).encode()
    return _Out(data.rstrip(b"\n") + b"\nx-bomb: " + bomb + b"\n", "yaml.alias-bomb (x-bomb)")


# -- JSON (SLS traces, topologies, SYNTH) ---------------------------------------------------------


def _json_docs(data: bytes) -> list[Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Skip from e
    decoder = json.JSONDecoder()
    docs, at = [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            break
        try:
            doc, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError) as e:
            raise Skip from e
        docs.append(doc)
    if not docs:
        raise Skip
    return docs


def _json_tree(data: bytes, rng: random.Random) -> _Out:
    docs = _json_docs(data)
    raw = _Raw()
    if rng.random() < 0.1:
        choice = rng.randrange(4)
        if choice == 0:
            docs = [rng.choice([[], None, 5, "str", [[]], {}, [None], True])]
            detail = f"json.top-level {_short(docs[0])}"
        elif choice == 1:
            docs = docs * rng.choice([2, 100, 2000])
            detail = f"json.repeat-documents x{len(docs)}"
        elif choice == 2:
            docs.append(raw('{"a": 1, "a": 2}'))
            detail = "json.duplicate-keys document"
        else:
            docs.insert(rng.randrange(len(docs) + 1), raw("[" * 100_000 + "]" * 100_000))
            detail = "json.deep-nesting document depth 100,000"
    else:
        tree: Any = docs if len(docs) > 1 else docs[0]
        detail = _tree_op(tree, rng, raw, "json")
        docs = tree if len(docs) > 1 else [tree]
    style = rng.choices(["stream-pretty", "stream-compact", "array"], weights=[6, 2, 2])[0]
    try:
        if style == "array":
            text = json.dumps(docs, indent=1)
        elif style == "stream-pretty":
            text = "\n".join(json.dumps(d, indent=2) for d in docs)
        else:
            text = "".join(json.dumps(d, separators=(",", ":")) for d in docs)
    except (ValueError, RecursionError) as e:
        raise Skip from e
    return _Out(raw.splice(text, quoted=True).encode(), f"{detail} ({style})")


def _json_text(data: bytes, rng: random.Random) -> _Out:
    choice = rng.randrange(5)
    if choice == 0:
        spots = [m.start() for m in re.finditer(rb"\n\s*[}\]]", data)]
        if not spots:
            raise Skip
        at = rng.choice(spots)
        return _Out(data[:at] + b"," + data[at:], f"json.trailing-comma at byte {at}")
    if choice == 1:
        return _Out(b"// a comment\n" + data + b"\n/* trailing */", "json.comments")
    if choice == 2:
        return _Out(data.replace(b'"', b"'"), "json.single-quotes")
    if choice == 3:
        return _Out(data.replace(b"}\n{", b"} garbage {"), "json.garbage between documents")
    members = list(re.finditer(rb'\n(\s*)("[^"\n]+": [^\n]+?),?\n', data))
    if not members:
        raise Skip
    k = rng.choice(members)
    dup = k.group(1) + k.group(2).split(b":")[0] + b": " + rng.choice(NUMBER_TOKENS).encode()
    return _Out(data[:k.end(2)] + b",\n" + dup + data[k.end(2):],
                f"json.duplicate-key {k.group(2).split(b':')[0].decode()}")


# -- XML (allocation files, yarn-site) ------------------------------------------------------------

_XML_PARSER = etree.XMLParser(remove_blank_text=False, resolve_entities=False,
                              no_network=True, load_dtd=False)

_ELEMENT_NAMES = ["weight", "minResources", "maxResources", "maxRunningApps", "maxAMShare",
                  "schedulingPolicy", "allowPreemptionFrom", "fairSharePreemptionTimeout",
                  "fairSharePreemptionThreshold", "minSharePreemptionTimeout", "queue", "user",
                  "userMaxAppsDefault", "queuePlacementPolicy", "rule", "wieght", "reservation",
                  "maxChildResources", "aclSubmitApps", "property", "name", "value"]

_RESOURCE_TEXTS = ["1024 mb, 1 vcores", "-1 mb, -1 vcores", "NaN mb, 1 vcores",
                   "9223372036854775808 mb, 1 vcores", "50%", "50.0%, 10%", "-50%", "NaN%",
                   "memory-mb=1024,vcores=1", "memory-mb=-1", "vcores=1e400",
                   "memory-mb=1024,vcores=1,yarn.io/gpu=1", "[bold]x[/bold]", "mb", "",
                   "1024", "1e400 mb, 1e400 vcores", "memory-mb=Infinity%"]


def _xml_op(data: bytes, rng: random.Random, kind: str) -> _Out:
    ops = [_xml_text_value, _xml_attribute, _xml_delete, _xml_duplicate, _xml_move,
           _xml_unknown, _xml_deep, _xml_many, _xml_entities, _xml_prolog, _xml_charref]
    weights = [6, 4, 3, 3, 2, 2, 2, 1, 3, 2, 2]
    if kind == corpus.SITE:
        ops.append(_site_expansion)
        weights.append(3)
    for _ in range(10):
        op = rng.choices(ops, weights=weights)[0]
        try:
            return op(data, rng)
        except Skip:
            continue
    raise Skip


def _xml_root(data: bytes) -> Any:
    try:
        return etree.fromstring(data, _XML_PARSER)
    except (etree.XMLSyntaxError, ValueError) as e:
        raise Skip from e


def _elements(root: Any) -> list[Any]:
    return [el for el in root.iter() if isinstance(el.tag, str)]


def _xml_bytes(root: Any, raw: _Raw | None = None) -> bytes:
    text = etree.tostring(root.getroottree(), xml_declaration=True, encoding="UTF-8")
    if raw is None:
        return bytes(text)
    return _encode(raw.splice(text.decode("utf-8"), quoted=False))


def _set_text(el: Any, value: str, raw: _Raw) -> str:
    try:
        el.text = value
    except ValueError:  # lxml refuses what XML cannot hold: put it in raw
        el.text = raw(value)
    return value


def _xml_text_value(data: bytes, rng: random.Random) -> _Out:
    root = _xml_root(data)
    leaves = [el for el in _elements(root) if len(el) == 0 and el is not root]
    if not leaves:
        raise Skip
    el = rng.choice(leaves)
    raw = _Raw()
    pool = (_RESOURCE_TEXTS if "Resources" in el.tag or (el.tag == "value" and rng.random() < 0.3)
            else NUMBER_TOKENS if rng.random() < 0.65 else NAMES)
    value = _set_text(el, rng.choice(pool), raw)
    return _Out(_xml_bytes(root, raw), f"xml.text <{el.tag}> = {_short(value)}")


def _xml_attribute(data: bytes, rng: random.Random) -> _Out:
    root = _xml_root(data)
    elements = _elements(root)
    with_attrs = [el for el in elements if el.attrib]
    raw = _Raw()
    if with_attrs and rng.random() < 0.8:
        el = rng.choice(with_attrs)
        attr = rng.choice(list(el.attrib))
    else:
        el = rng.choice(elements)
        attr = rng.choice(["name", "type", "create", "unknown", "id"])
    value = (hostile_name(rng) if rng.random() < 0.85
             else rng.choice(["parent", "PARENT", "reservation", "false", "maybe"]))
    try:
        el.set(attr, value)
    except ValueError:
        el.set(attr, raw(_escape_attr(value)))
    return _Out(_xml_bytes(root, raw), f"xml.attribute <{el.tag} {attr}> = {_short(value)}")


def _escape_attr(value: str) -> str:
    return "".join(c if c.isprintable() and c not in "<&\"" else f"&#x{ord(c):X};"
                   for c in value)


def _xml_delete(data: bytes, rng: random.Random) -> _Out:
    root = _xml_root(data)
    candidates = [el for el in _elements(root) if el is not root]
    if not candidates:
        raise Skip
    el = rng.choice(candidates)
    parent = el.getparent()
    parent.remove(el)
    return _Out(_xml_bytes(root), f"xml.delete <{el.tag}>")


def _xml_duplicate(data: bytes, rng: random.Random) -> _Out:
    root = _xml_root(data)
    candidates = [el for el in _elements(root) if el is not root]
    if not candidates:
        raise Skip
    el = rng.choice(candidates)
    times = rng.choice([1, 1, 1, 50, 3000])
    for _ in range(times):
        el.addnext(etree.fromstring(etree.tostring(el)))
    return _Out(_xml_bytes(root), f"xml.duplicate <{el.tag}> x{times}")


def _xml_move(data: bytes, rng: random.Random) -> _Out:
    root = _xml_root(data)
    elements = _elements(root)
    candidates = [el for el in elements if el is not root]
    if len(candidates) < 2:
        raise Skip
    el = rng.choice(candidates)
    targets = [t for t in elements if t is not el and el not in t.iterancestors()]
    target = rng.choice(targets)
    el.getparent().remove(el)
    target.append(el)
    return _Out(_xml_bytes(root), f"xml.move <{el.tag}> into <{target.tag}>")


def _xml_unknown(data: bytes, rng: random.Random) -> _Out:
    root = _xml_root(data)
    target = rng.choice(_elements(root))
    name = rng.choice(_ELEMENT_NAMES)
    child = etree.SubElement(target, name)
    raw = _Raw()
    _set_text(child, rng.choice(NUMBER_TOKENS + NAMES), raw)
    if name == "queue":
        child.set("name", rng.choice(["q", "x", "default", "root"]))
    return _Out(_xml_bytes(root, raw), f"xml.add <{name}> under <{target.tag}>")


def _insert_before_close(data: bytes, snippet: bytes) -> bytes:
    close = data.rfind(b"</")
    if close < 0:
        raise Skip
    return data[:close] + snippet + data[close:]


def _xml_deep(data: bytes, rng: random.Random) -> _Out:
    depth = rng.choice([40, 300, 3000, 30000])
    if b"<allocations" in data:
        snippet = b'<queue name="q">' * depth + b"<weight>1</weight>" + b"</queue>" * depth
    else:
        snippet = b"<property>" * depth + b"</property>" * depth
    return _Out(_insert_before_close(data, snippet), f"xml.deep-nesting depth {depth:,}")


def _xml_many(data: bytes, rng: random.Random) -> _Out:
    count = rng.choice([1000, 1000, 5000])  # 20,000 queues: ~15 s validate, ~35 s a run
    if b"<allocations" in data:
        snippet = b"".join(b'<queue name="q%d"><weight>%d</weight></queue>' % (i, i % 7)
                           for i in range(count))
    else:
        snippet = b"".join(b"<property><name>p%d</name><value>%d</value></property>" % (i, i)
                           for i in range(count))
    return _Out(_insert_before_close(data, snippet), f"xml.many-elements {count:,}")


_ENTITY_BOMB = (
    '<!DOCTYPE {root} [\n <!ENTITY lol "lol">\n'
    ' <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n'
    ' <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">\n'
    ' <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">\n'
    ' <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">\n'
    ' <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">\n'
    ' <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">\n'
    ' <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">\n'
    ' <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">\n'
    ' <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">\n]>\n'
)
_ENTITIES = [
    ("billion-laughs", _ENTITY_BOMB, "&lol9;"),
    ("external-secret", '<!DOCTYPE {root} [<!ENTITY x SYSTEM "secret.txt">]>\n', "&x;"),
    ("external-dev-zero", '<!DOCTYPE {root} [<!ENTITY x SYSTEM "/dev/zero">]>\n', "&x;"),
    ("external-url", '<!DOCTYPE {root} [<!ENTITY x SYSTEM "file:///dev/zero">]>\n', "&x;"),
    ("parameter-entity",
     '<!DOCTYPE {root} [<!ENTITY % p SYSTEM "secret.txt"> %p;]>\n', ""),
    ("external-dtd", '<!DOCTYPE {root} SYSTEM "secret.txt">\n', ""),
    ("network-dtd", '<!DOCTYPE {root} SYSTEM "http://127.0.0.1:9/x.dtd">\n', ""),
    ("undefined-entity", "", "&undefined;"),
    ("internal-entity", '<!DOCTYPE {root} [<!ENTITY w "2">]>\n', "&w;"),
]


def _xml_entities(data: bytes, rng: random.Random) -> _Out:
    name, doctype, ref = rng.choice(_ENTITIES)
    text = data.decode("utf-8", "surrogateescape")
    m = re.search(r"<(allocations|configuration)\b", text)
    if m is None:
        raise Skip
    root = m.group(1)
    text = text[:m.start()] + doctype.replace("{root}", root) + text[m.start():]
    if ref:
        spots = list(re.finditer(r'name="([^"]*)"|<(weight|value|name)>([^<]*)<', text))
        if not spots:
            raise Skip
        spot = rng.choice(spots)
        group = 1 if spot.group(1) is not None else 3
        text = text[:spot.start(group)] + ref + text[spot.end(group):]
    extra = {SECRET_NAME: (SECRET_TOKEN + "\n").encode()}
    return _Out(_encode(text), f"xml.entities {name}", extra)


def _xml_prolog(data: bytes, rng: random.Random) -> _Out:
    body = re.sub(rb"^\s*<\?xml[^>]*\?>\s*", b"", data)
    prolog = rng.choice([
        b'<?xml version="1.0" encoding="UTF-16"?>\n', b'<?xml version="1.0" encoding="bogus"?>\n',
        b'<?xml version="1.1"?>\n', b'<?xml version="2.0"?>\n',
        b'<?xml version="1.0" encoding="ISO-8859-1"?>\n', b"<?xml?>\n",
        b'<?xml-stylesheet href="secret.txt"?>\n', b'\n\n<?xml version="1.0"?>\n',
        b"<!-- -- -->\n", b"<![CDATA[x]]>\n", b"<other/>\n", b"",
    ])
    if rng.random() < 0.3:
        body = re.sub(rb"<(/?)(allocations|configuration)\b", rb"<\1x:\2", body, count=2)
        body = body.replace(b"<x:allocations", b'<x:allocations xmlns:x="urn:x"', 1)
        body = body.replace(b"<x:configuration", b'<x:configuration xmlns:x="urn:x"', 1)
    return _Out(prolog + body, f"xml.prolog {prolog[:40]!r}")


def _xml_charref(data: bytes, rng: random.Random) -> _Out:
    spots = list(re.finditer(rb">([^<\s][^<]*)<", data))
    if not spots:
        raise Skip
    m = rng.choice(spots)
    ref = rng.choice([b"&#x0;", b"&#xD800;", b"&#x1B;", b"&#xFFFE;", b"&#1114112;", b"&#;",
                      b"&amp", b"<![CDATA[2]]>", b"&#x5B;bold&#x5D;", b"&lt;queue&gt;"])
    return _Out(data[:m.start(1)] + ref + data[m.end(1):], f"xml.char-ref {ref!r}")


def _site_expansion(data: bytes, rng: random.Random) -> _Out:
    close = data.rfind(b"</configuration>")
    if close < 0:
        raise Skip
    choice = rng.randrange(3)
    if choice == 0:  # each level twice the previous: 2^40 characters if expanded
        props = [b"<property><name>bomb0</name><value>xxxxxxxxxx</value></property>"]
        props += [b"<property><name>bomb%d</name><value>${bomb%d}${bomb%d}</value></property>"
                  % (i, i - 1, i - 1) for i in range(1, 41)]
        props.append(b"<property><name>yarn.scheduler.fair.preemption</name>"
                     b"<value>${bomb40}</value></property>")
        detail = "site.expansion-bomb 2^40"
    elif choice == 1:
        props = [b"<property><name>yarn.scheduler.fair.waitTimeBeforeKill</name>"
                 b"<value>${yarn.scheduler.fair.waitTimeBeforeKill}</value></property>"]
        detail = "site.self-reference"
    else:
        types = b",".join(b"t%d" % i for i in range(rng.choice([100, 5000])))
        props = [b"<property><name>yarn.resource-types</name><value>" + types +
                 b"</value></property>"]
        detail = "site.many-resource-types"
    return _Out(data[:close] + b"\n".join(props) + data[close:], detail)


# -- CSV ------------------------------------------------------------------------------------------


def _csv_rows(data: bytes) -> list[list[str]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Skip from e
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:  # e.g. a lone CR in an unquoted field
        raise Skip from e
    if not rows:
        raise Skip
    return rows


def _csv_bytes(rows: list[list[str]], delimiter: str = ",") -> bytes:
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return _encode(buf.getvalue())


def _csv_op(data: bytes, rng: random.Random) -> _Out:
    rows = _csv_rows(data)
    header_at = next((i for i, r in enumerate(rows) if r and not r[0].startswith("#")), 0)
    body = [i for i in range(header_at + 1, len(rows)) if rows[i]]
    choice = rng.choices(range(9), weights=[6, 5, 3, 3, 3, 2, 2, 2, 2])[0]
    if choice in (0, 1):
        if not body:
            raise Skip
        i = rng.choice(body)
        j = rng.randrange(len(rows[i]) or 1)
        if not rows[i]:
            raise Skip
        value = rng.choice(NUMBER_TOKENS) if choice == 0 else hostile_name(rng)
        rows[i][j] = value
        return _Out(_csv_bytes(rows), f"csv.cell row {i + 1} col {j + 1} = {_short(value)}")
    if choice == 2:
        if not body:
            raise Skip
        i = rng.choice(body)
        if rng.random() < 0.5 and rows[i]:
            del rows[i][rng.randrange(len(rows[i]))]
            return _Out(_csv_bytes(rows), f"csv.fewer-cells row {i + 1}")
        rows[i] += ["extra"] * rng.choice([1, 5, 10_000])
        return _Out(_csv_bytes(rows), f"csv.more-cells row {i + 1}")
    if choice == 3:
        header = rows[header_at]
        if not header:
            raise Skip
        j = rng.randrange(len(header))
        action = rng.randrange(5)
        if action == 0:
            header[j] = rng.choice(["memroy-mb", "durationms", "yarn.io/gpu", "am-yarn.io/gpu",
                                    "", " app ", "APP", *NAMES[:10]])
        elif action == 1:
            header.append(header[j])
        elif action == 2:
            del header[j]
        elif action == 3:
            rows[header_at] = header[::-1]
        else:
            header[j] = header[j].replace("-", "_")
        return _Out(_csv_bytes(rows), f"csv.header {action} at column {j + 1}")
    if choice == 4:
        if not body:
            raise Skip
        times = rng.choice([10, 1000, 50_000])
        unique = rng.random() < 0.5
        extra = []
        for n in range(times):
            for i in body:
                row = list(rows[i])
                if unique and row:
                    row[0] = f"{row[0]}-{n}"
                extra.append(row)
            if len(extra) > MAX_ROWS:
                break
        rows = rows + extra
        return _Out(_csv_bytes(rows), f"csv.repeat-rows x{times}{' (renamed)' if unique else ''}")
    if choice == 5:
        delimiter = rng.choice([";", "\t", "|"])
        return _Out(_csv_bytes(rows, delimiter), f"csv.delimiter {delimiter!r}")
    if choice == 6:
        text = data.decode("utf-8")
        at = rng.randrange(len(text) + 1)
        return _Out((text[:at] + '"' + text[at:]).encode(), f"csv.unbalanced-quote at {at}")
    if choice == 7:
        if not body:
            raise Skip
        i = rng.choice(body)
        rows[i][0] = rng.choice(["a\nb", "a\r\nb", "\n", '"', "a,b", "#x", "   "])
        return _Out(_csv_bytes(rows), f"csv.quoted-cell row {i + 1} = {_short(rows[i][0])}")
    extra_rows = rng.choice([[""], [",,,,,,,,"], ["#"], [" "], ["\x00"]])
    at = rng.randrange(len(rows) + 1)
    text = data.decode("utf-8")
    lines = text.splitlines(keepends=True)
    lines.insert(min(at, len(lines)), extra_rows[0] + "\n")
    return _Out("".join(lines).encode(), f"csv.odd-row {extra_rows[0]!r} at line {at + 1}")


# -- ResourceManager dumps (fairshare import) ------------------------------------------------------

DUMP_NUMBERS = ("allocatedMB", "allocatedVCores", "runningContainers", "usedMemoryMB",
                "usedVirtualCores", "availMemoryMB", "availableVirtualCores", "numContainers",
                "memory", "vCores", "priority", "allocatedMB", "allocatedVCores")
DUMP_TEXTS = ("amHostHttpAddress", "state", "queue", "nodeHostName", "schedulingPolicy",
              "resourceName", "type", "queueName", "id")


def _dump_numbers(data: bytes, rng: random.Random) -> _Out:
    """A dump whose numbers or names no longer agree: one container more or less on an app
    or a node, totals off by one or far off, an AM host or state another one's."""
    doc = json.loads(data)
    found: list[tuple[Any, Any, str]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in DUMP_NUMBERS and isinstance(item, int) and not isinstance(item, bool):
                    found.append((value, key, "number"))
                elif key in DUMP_TEXTS and isinstance(item, str):
                    found.append((value, key, "text"))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(doc)
    if not found:
        raise Skip
    details = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        parent, key, what = rng.choice(found)
        old = parent[key]
        if what == "number":
            parent[key] = rng.choice([0, 1, old + 1, old - 1, old * 2, old // 3, old + 1024,
                                      17, 2**31 - 1, 2**63, -1, str(old), float(old) + 0.5])
        else:
            others = sorted({p[k] for p, k, w in found if w == "text" and k == key} - {old})
            parent[key] = rng.choice([*others, "", "root", "ACCEPTED", "nowhere:8042",
                                      old.upper(), old + "x"]) if others or rng.random() < 0.5 \
                else None
        details.append(f"{key} {_short(old)} -> {_short(parent[key])}")
    return _Out(json.dumps(doc, indent=1).encode(), "dump.values " + "; ".join(details))


# -- choosing ------------------------------------------------------------------------------------


def _structured(kind: str) -> Op | None:
    if kind == corpus.SCENARIO:
        return lambda d, r: _yaml_text(d, r) if r.random() < 0.3 else _yaml_tree(d, r)
    if kind in (corpus.SLS, corpus.TOPOLOGY, corpus.SYNTH):
        return lambda d, r: _json_text(d, r) if r.random() < 0.2 else _json_tree(d, r)
    if kind == corpus.DUMP:
        return lambda d, r: (_json_text(d, r) if r.random() < 0.15 else _json_tree(d, r)
                             if r.random() < 0.4 else _dump_numbers(d, r))
    if kind in (corpus.ALLOC, corpus.SITE):
        return lambda d, r: _xml_op(d, r, kind)
    if kind == corpus.CSV:
        return _csv_op
    return None


def _one(kind: str, data: bytes, rng: random.Random) -> _Out:
    structured = _structured(kind)
    for _ in range(20):
        if structured is not None and rng.random() < 0.6:
            op: Op = structured
        else:
            _, _, op = rng.choices(GENERIC, weights=[w for _, w, _ in GENERIC])[0]
        try:
            return op(data, rng)
        except Skip:
            continue
        except (ValueError, csv.Error, RecursionError, UnicodeError, etree.LxmlError):
            continue  # an operator choking on an earlier mutant's output: try another
    return _truncate(data, rng) if len(data) > 1 else _empty(data, rng)


def mutate(kind: str, data: bytes, rng: random.Random) -> Mutation:
    """A mutant of ``data`` (a file of ``kind``): one operator, sometimes two stacked."""
    first = _one(kind, data, rng)
    ops, extra, out = [first.detail], dict(first.extra), first.data
    if rng.random() < 0.2:
        second = _one(kind, out, rng)
        ops.append(second.detail)
        extra.update(second.extra)
        out = second.data
    return Mutation(out, tuple(ops), extra)
