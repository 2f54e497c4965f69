"""Finding a few kinds of lines in a large JSON-lines file, fast.

``events.jsonl`` of a simulated day is a few GB, and the report wants one line in thirty.
Parsing every line as JSON would take minutes; instead the file is read in large blocks into
one reused buffer (no new allocation per block), newlines are located with numpy, and only
the lines holding one of a few byte strings are parsed (found with ``bytearray.find``, a fast
search). Every line is still checked — it must start with ``{`` and end with ``}``, since a
raw newline cannot occur inside JSON text — so a truncated or foreign file is refused, with
its line number, rather than read as containing nothing of interest.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fairshare.config.errors import ConfigError

BLOCK_BYTES = 32 << 20
_OPEN, _CLOSE, _NEWLINE = ord("{"), ord("}"), ord("\n")
Found = tuple[int, Any]  # (line number, the line's JSON value)


def scan(path: Path, display: str, needles: Sequence[bytes]) -> Iterator[Found]:
    """Every line of ``path`` that contains one of ``needles``, parsed, in file order; a line
    that is not one JSON object is a ConfigError at ``display:line``."""
    buf = bytearray(BLOCK_BYTES)
    carry = bytearray()  # the start of a line the previous block cut
    lines = 0
    with path.open("rb", buffering=0) as f:
        while n := f.readinto(buf):
            first = buf.find(b"\n", 0, n)
            if first < 0:  # a line longer than the block
                carry += buf[:n]
                continue
            if carry:  # the line the last block cut, whole now
                carry += buf[:first + 1]
                count, found = _lines(carry, 0, len(carry), lines, display, needles)
                lines += count
                yield from found
                carry = bytearray()
                start = first + 1
            else:
                start = 0
            end = buf.rfind(b"\n", 0, n) + 1
            if end > start:
                count, found = _lines(buf, start, end, lines, display, needles)
                lines += count
                yield from found
            carry += buf[end:n]
    if carry:  # the last line, without its newline
        carry += b"\n"
        yield from _lines(carry, 0, len(carry), lines, display, needles)[1]


def _lines(data: bytearray, lo: int, hi: int, before: int, display: str,
           needles: Sequence[bytes]) -> tuple[int, list[Found]]:
    """The whole lines of ``data[lo:hi]`` (``hi`` just past a newline): how many, and the
    wanted ones parsed."""
    codes = np.frombuffer(data, dtype=np.uint8, count=hi)
    ends = np.flatnonzero(codes[lo:] == _NEWLINE) + lo
    starts = np.concatenate(([lo], ends[:-1] + 1))
    bad = (codes[starts] != _OPEN) | (codes[np.maximum(ends - 1, 0)] != _CLOSE) | (starts == ends)
    if bad.any():
        line = before + int(np.argmax(bad)) + 1
        raise ConfigError("not a fairshare event (one JSON object per line)", display, line)
    wanted: set[int] = set()
    for needle in needles:
        at = data.find(needle, lo, hi)
        while at >= 0:
            i = int(np.searchsorted(ends, at))  # the line whose end is the first after it
            wanted.add(i)
            at = data.find(needle, int(ends[i]), hi)  # one hit per line is enough
    found = []
    for i in sorted(wanted):
        try:
            found.append((before + i + 1, json.loads(data[starts[i]:ends[i]])))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            why = e.msg if isinstance(e, json.JSONDecodeError) else "not UTF-8 text"
            raise ConfigError(f"not JSON: {why}", display, before + i + 1) from None
    return len(ends), found
