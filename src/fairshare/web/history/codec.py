"""The history's blobs: integer matrices with one row per queue, stored compressed in chunks
of rows, so that a page asking for one queue inflates one chunk, not the whole tree.

A blob holds several matrices of the same row count (a sample's values; a bucket's counts,
minima, spreads and deviations: :mod:`.tally`). Each chunk of :data:`CHUNK_ROWS` rows is
compressed on its own with Zstandard (the ``zstandard`` package: pyarrow's codec would
cost the watcher 50 MB of imports),
column after column. Measured on a 1,000-queue hour bucket (592 KB of numbers): zlib gives
57 KB and inflates in 1.3 ms; Zstandard level 9, 59 KB in 0.2 ms; a byte shuffle before it
would save another 10 % but un-shuffling costs more than the inflating. The 30-day tally
inflates 720 such buckets, so this is what keeps it under a second. Lossless.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import zstandard

Matrix = npt.NDArray[np.int64]
CHUNK_ROWS = 256  # queues per independently compressed chunk
_MAGIC = 1  # format version, first field of the header
_HEAD = struct.Struct("<IIII")  # version, rows, matrices, chunks
_COMPRESS = zstandard.ZstdCompressor(level=9)
_INFLATE = zstandard.ZstdDecompressor()


def pack(matrices: Sequence[Matrix]) -> bytes:
    """The matrices (same number of rows, int64) as one blob."""
    rows = matrices[0].shape[0] if matrices else 0
    widths = [m.shape[1] for m in matrices]
    starts = range(0, rows, CHUNK_ROWS)
    chunks = []
    for start in starts:
        part = [np.ascontiguousarray(m[start:start + CHUNK_ROWS].T, dtype="<i8")
                for m in matrices]
        raw = (np.concatenate([p.ravel() for p in part]) if part else np.zeros(0, "<i8")
               ).tobytes()
        chunks.append(struct.pack("<I", len(raw)) + _COMPRESS.compress(raw))
    head = _HEAD.pack(_MAGIC, rows, len(matrices), len(chunks))
    sizes = struct.pack(f"<{len(widths)}I{len(chunks)}I", *widths, *map(len, chunks))
    return head + sizes + b"".join(chunks)


def unpack(blob: bytes, rows: tuple[int, int] | None = None) -> list[Matrix]:
    """The matrices of a blob; ``rows`` (first, end) inflates only the chunks holding them."""
    version, total, count, nchunks = _HEAD.unpack_from(blob, 0)
    if version != _MAGIC:
        raise ValueError(f"history blob of unknown format {version}")
    offset = _HEAD.size
    widths = struct.unpack_from(f"<{count}I", blob, offset)
    offset += 4 * count
    sizes = struct.unpack_from(f"<{nchunks}I", blob, offset)
    offset += 4 * nchunks
    first, end = rows if rows is not None else (0, total)
    first, end = max(first, 0), min(end, total)
    out: list[list[Matrix]] = [[] for _ in widths]
    for index, size in enumerate(sizes):
        start = index * CHUNK_ROWS
        n = min(CHUNK_ROWS, total - start)
        if start + n > first and start < end:
            (length,) = struct.unpack_from("<I", blob, offset)
            numbers = np.frombuffer(_INFLATE.decompress(blob[offset + 4:offset + size],
                                                         max_output_size=length), "<i8")
            at = 0
            for k, width in enumerate(widths):
                out[k].append(numbers[at:at + width * n].reshape(width, n).T)
                at += width * n
        offset += size
    result = []
    for k, width in enumerate(widths):
        whole = (np.concatenate(out[k]) if out[k] else np.zeros((0, width), np.int64))
        skip = first - (first // CHUNK_ROWS) * CHUNK_ROWS if out[k] else 0
        result.append(np.asarray(whole[skip:skip + max(end - first, 0)], dtype=np.int64))
    return result


def pack_answers(answers: Mapping[str, str]) -> bytes:
    """A checkpoint's raw answers in one zlib stream: a JSON header line naming each answer
    and its length in bytes, then the answers one after the other. Fed answer by answer, so
    ten thousand apps' 15 MB are never copied into one escaped JSON string first."""
    bodies = [(name, text.encode("utf-8")) for name, text in answers.items()]
    stream = zlib.compressobj(6)
    header = json.dumps({name: len(body) for name, body in bodies}) + "\n"
    parts = [stream.compress(header.encode("utf-8"))]
    while bodies:
        parts.append(stream.compress(bodies.pop(0)[1]))
    parts.append(stream.flush())
    return b"".join(parts)


def unpack_answers(blob: bytes) -> dict[str, str]:
    data = zlib.decompress(blob)
    end = data.index(b"\n")
    lengths: dict[str, int] = json.loads(data[:end])
    answers, at = {}, end + 1
    for name, length in lengths.items():
        answers[name] = data[at:at + length].decode("utf-8")
        at += length
    return answers
