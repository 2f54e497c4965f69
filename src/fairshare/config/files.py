"""Reading input files safely: regular files only, a size limit, no traceback.

Every file fairshare reads — allocation files, yarn-site files, scenarios, workload traces — goes
through :func:`file_problem` (or :func:`read_input`, which calls it) before it is opened:

* a path that does not exist, or cannot be looked up, is refused with the system's reason;
* a directory is refused ("is a directory");
* anything that is not a regular file — a FIFO (opening one blocks until a writer comes), a
  character device such as ``/dev/zero`` (endless), a socket, a block device — is refused
  ("not a regular file (a FIFO)"), without being opened.

:func:`read_input` then opens the file without blocking, checks the opened file again (the path
may have been replaced in between), refuses a file larger than its limit before reading it, and
reads at most the limit. Running out of memory while reading, decoding or parsing an input is
turned into a :class:`ConfigError` by :func:`memory_guard` ("too large to load in memory").
"""

from __future__ import annotations

import gc
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO, Literal

from fairshare.config.errors import ConfigError

__all__ = [
    "FileProblem",
    "check_input_file",
    "decode_utf8",
    "file_problem",
    "gc_paused",
    "memory_guard",
    "read_input",
    "too_large_in_memory",
]

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


@dataclass(frozen=True)
class FileProblem:
    """Why a path cannot be read as an input file.

    ``kind`` is ``missing`` (no such file), ``directory``, ``special`` (a FIFO, a device, a
    socket) or ``error`` (any other reason the system gives, such as a permission); ``reason``
    says it in words (``"No such file or directory"``, ``"is a directory"``, ``"not a regular
    file (a FIFO)"``, ``"Permission denied"``)."""

    kind: Literal["missing", "directory", "special", "error"]
    reason: str


def _kind_of(mode: int) -> FileProblem | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return FileProblem("directory", "is a directory")
    what = next((name for test, name in _KINDS if test(mode)), "not a file")
    return FileProblem("special", f"not a regular file ({what})")


def file_problem(path: str | os.PathLike[str]) -> FileProblem | None:
    """None if ``path`` names a regular file (after symbolic links); else what is wrong. Only
    looks the path up (``os.stat``): never opens it, so it never blocks."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError as exc:
        return FileProblem("missing", exc.strerror or "No such file or directory")
    except OSError as exc:
        return FileProblem("error", exc.strerror or str(exc))
    except ValueError:  # an embedded NUL character
        return FileProblem("error", "not a usable path")
    return _kind_of(mode)


def check_input_file(path: str | os.PathLike[str], display: str) -> None:
    """Raise ``ConfigError("cannot read file: <reason>", display)`` unless ``path`` is a regular
    file (:func:`file_problem`)."""
    problem = file_problem(path)
    if problem is not None:
        raise ConfigError(f"cannot read file: {problem.reason}", display)


def too_large_in_memory(display: str) -> ConfigError:
    return ConfigError("too large to load in memory", display)


@contextmanager
def memory_guard(display: str) -> Iterator[None]:
    """Turn a :class:`MemoryError` raised inside into a :class:`ConfigError` about ``display``."""
    try:
        yield
    except MemoryError:
        raise too_large_in_memory(display) from None


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a reader builds a large acyclic structure (its
    passes over a million new objects find nothing to free), back on after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_input(path: str | os.PathLike[str], display: str, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (``display`` names it in errors), at most
    ``limit`` of them: a larger file is refused before it is read.

    Raises :class:`ConfigError`: not a regular file (:func:`file_problem`), unreadable, larger
    than ``limit`` bytes ("file is too large (the limit is N bytes)"), or too large for memory.
    """
    check_input_file(path, display)
    try:
        # O_NONBLOCK: should the path have become a FIFO since the check, opening it must not
        # wait for a writer; the opened file is checked again below.
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(path, flags)
    except OSError as exc:
        raise ConfigError(f"cannot read file: {exc.strerror or exc}", display) from None
    except ValueError:
        raise ConfigError("cannot read file: not a usable path", display) from None
    with memory_guard(display), os.fdopen(fd, "rb", buffering=0) as file:
        try:
            info = os.fstat(fd)
            problem = _kind_of(info.st_mode)
            if problem is not None:
                raise ConfigError(f"cannot read file: {problem.reason}", display)
            if info.st_size > limit:
                raise _too_large(display, limit)
            os.set_blocking(fd, True)
            data = _read_at_most(file, info.st_size, limit + 1)
        except OSError as exc:
            raise ConfigError(f"cannot read file: {exc.strerror or exc}", display) from None
    if len(data) > limit:  # the file grew while being read
        raise _too_large(display, limit)
    return data


def _read_at_most(file: BinaryIO, expected: int, limit: int) -> bytes:
    """Up to ``limit`` bytes (``expected``: the size the file reports), in as few reads as the
    file allows: a regular file is read in one piece, without a second copy."""
    chunks: list[bytes] = []
    total = 0
    want = expected + 1
    while total < limit:
        chunk = file.read(min(max(want, 1 << 16), limit - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = 1 << 20
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _too_large(display: str, limit: int) -> ConfigError:
    return ConfigError(f"file is too large (the limit is {limit:,} bytes)", display)


def decode_utf8(data: bytes, display: str) -> str:
    """``data`` as UTF-8 text (a leading BOM dropped); invalid bytes are a :class:`ConfigError`
    at their line ("file is not UTF-8 text")."""
    try:
        with memory_guard(display):
            return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError("file is not UTF-8 text", display, line) from None
