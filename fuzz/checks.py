"""The contract every ``fairshare`` run must keep, whatever its input.

* No traceback, ever: "Traceback (most recent call last)" anywhere in stdout or stderr fails.
* Exit 0 (ok), 1 (an ``expect`` failed: ``run``/``simulate`` only) or 2 (bad input); a signal
  or any other code fails. A run killed for its time or memory fails as a hang or for memory.
* Exit 2 (and exit 1) print, on stderr, only lines that start with a location:
  ``path:line: message``, ``path: message``, or for options ``--option: message`` /
  ``--option KEY: message``; the path must name something of the case.
* Outputs: after exit 0 or 1 with ``-o``, OUTDIR holds complete, parseable files (every
  ``events.jsonl`` line a JSON object, ``snapshots.json`` a list, for a workload also
  ``timeline.csv`` = ``timeline.parquet`` and ``summary.json``), every JSON number finite.
  After any other end, the case directory is exactly as it was (OUTDIR byte-identical, nothing
  left beside it). Input files are never changed; without ``-o`` nothing is written.
* Safety: a ``!!python`` tag never runs (:data:`fuzz.mutators.SENTINEL` never appears), an XML
  external entity is never read (:data:`fuzz.mutators.SECRET_TOKEN` never shows up).
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import re
import signal
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from fuzz.cases import OUTPUT_NAMES, Case
from fuzz.mutators import SECRET_TOKEN, SENTINEL
from fuzz.runner import Limits, RunResult

TRACEBACK = "Traceback (most recent call last)"
CLASSES = ("traceback", "bad-exit", "hang", "memory", "unlocated", "partial-output",
           "nondeterminism", "invariant", "unsafe")
CLASS_TITLES = {
    "traceback": "traceback",
    "bad-exit": "bad exit code (signal, or not 0/1/2)",
    "hang": "hang (over the time limit)",
    "memory": "memory over the limit",
    "unlocated": "exit 2 (or 1) without a location",
    "partial-output": "partial or changed output",
    "nondeterminism": "nondeterminism",
    "invariant": "invariant broken",
    "unsafe": "unsafe input handling",
}
TIMELINE_COLUMNS = (
    "time_ms", "queue", "steady_fair_share_mb", "steady_fair_share_vcores", "fair_share_mb",
    "fair_share_vcores", "min_share_mb", "min_share_vcores", "usage_mb", "usage_vcores",
    "demand_mb", "demand_vcores", "pending_mb", "pending_vcores", "starving_mb",
    "starving_vcores", "running_apps", "pending_apps", "containers",
)
SUMMARY_KEYS = ("scenario", "span", "counts", "cluster", "queues", "apps")
WORKLOAD_OUTPUTS = ("timeline.csv", "timeline.parquet", "summary.json")
BIG_FILE = 64 * 1024 * 1024  # beyond this only the head and the tail of events.jsonl are read


@dataclass(frozen=True)
class Finding:
    cls: str
    message: str
    signature: str  # what makes two findings the same cause


# -- tracebacks -----------------------------------------------------------------------------------

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line \d+, in (?P<func>\S+)', re.MULTILINE)


def _short_file(path: str) -> str:
    for marker in ("/fairshare/", "/site-packages/", "/lib/python"):
        if marker in path:
            return path.split(marker, 1)[1]
    return Path(path).name


def traceback_summary(text: str) -> tuple[str, str]:
    """(the exception line, a signature: exception type and the last three frames)."""
    last = text.rfind(TRACEBACK)
    block = text[last:]
    lines = [ln for ln in block.splitlines() if ln.strip()]
    exception = ""
    for ln in reversed(lines):
        if not ln.startswith((" ", "\t")) and not ln.startswith(TRACEBACK):
            exception = ln.strip()
            break
    frames = [f"{_short_file(m['file'])}:{m['func']}" for m in _FRAME.finditer(block)]
    kind = exception.split(":", 1)[0] if exception else "?"
    return exception, f"{kind} @ {' < '.join(reversed(frames[-3:]))}"


# -- locations ------------------------------------------------------------------------------------

_LOCATED = re.compile(r"^(?P<loc>.+?)(?::(?P<line>\d+)(?::\d+)?)?: (?P<msg>.*\S.*)$")


def _known_paths(case: Case, case_dir: Path) -> set[str]:
    known = {os.path.normpath(case_dir), os.path.realpath(case_dir)}
    for name, entry in case.files.items():
        known.add(os.path.normpath(case_dir / name))
        if entry.kind == "symlink":
            known.add(os.path.normpath(os.path.join(case_dir, os.path.dirname(name),
                                                    entry.target)))
    for arg in case.argv:
        arg = arg.replace("{CASE}", str(case_dir))
        known.add(arg)
        known.add(os.path.normpath(os.path.join(case_dir, arg)) if arg else arg)
    return known


def location_ok(line: str, case: Case, case_dir: Path) -> bool:
    """Does ``line`` start with a location that names something of this case?

    ``--option`` (or ``--option KEY``) must be an option of the command line; a path must be
    one the case knows (a file of it, an argument, a symlink's target) or lie inside the case
    directory and either exist or look like a file name (``jobs.json`` that is missing).
    """
    m = _LOCATED.match(line)
    if m is None:
        return False
    loc = m["loc"]
    if loc.startswith("-"):  # --option, --option KEY, or the short form: -o out
        option = loc.split(" ", 1)[0]
        return option in case.argv or any(a.startswith(option + "=") for a in case.argv)
    known = _known_paths(case, case_dir)
    if loc in known:
        return True
    path = loc if os.path.isabs(loc) else os.path.join(case_dir, loc)
    norm = os.path.normpath(path)
    if norm in known:
        return True
    roots = (os.path.normpath(case_dir), os.path.realpath(case_dir))
    inside = any(norm == r or norm.startswith(r + os.sep) for r in roots)
    looks_like_a_path = "/" in loc or "." in os.path.basename(loc)
    return inside and (os.path.lexists(norm) or looks_like_a_path)


def unlocated_lines(stderr: str, case: Case, case_dir: Path) -> list[str]:
    # lines end at "\n" only: str.splitlines would also split at U+0085, U+2028, \x1c…,
    # which terminals and grep do not take for line breaks
    lines = [ln.rstrip("\r") for ln in stderr.split("\n") if ln.strip()]
    if not lines:
        return ["(nothing on stderr)"]
    return [ln for ln in lines if not location_ok(ln, case, case_dir)]


def _normalize(text: str, case_dir: Path | None = None) -> str:
    """A message with the case's own details taken out, to group findings by cause."""
    if case_dir is not None:
        text = text.replace(str(case_dir), "<case>")
    text = re.sub(r"/tmp/[^\s:'\"]+", "<tmp>", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"\d+", "N", text)
    return text[:160]


# -- the case directory before and after ---------------------------------------------------------

Tree = dict[str, tuple[str, int, str]]  # relative path -> (type, size, digest or link target)


def snapshot(root: Path) -> Tree:
    """Every path under ``root`` (symlinks and FIFOs not followed or opened)."""
    tree: Tree = {}

    def walk(directory: Path, rel: str) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            path = f"{rel}{entry.name}"
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                tree[path] = ("link", 0, os.readlink(entry.path))
            elif stat.S_ISDIR(st.st_mode):
                tree[path] = ("dir", 0, "")
                walk(Path(entry.path), path + "/")
            elif stat.S_ISREG(st.st_mode):
                tree[path] = ("file", st.st_size, _digest(Path(entry.path), st.st_size))
            else:
                tree[path] = ("special", 0, oct(stat.S_IFMT(st.st_mode)))

    walk(root, "")
    return tree


def _digest(path: Path, size: int) -> str:
    if size > 256 * 1024 * 1024:
        return f"big:{size}"
    h = hashlib.sha256()
    try:
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as e:
        return f"unreadable:{e.errno}"
    return h.hexdigest()


def _under(path: str, outdir: str) -> bool:
    if outdir in ("", "."):
        return True
    return path == outdir or path.startswith(outdir + "/")


def _ancestor(path: str, outdir: str) -> bool:
    return outdir.startswith(path + "/")


def tree_changes(before: Tree, after: Tree) -> list[str]:
    changes = []
    for path in sorted(set(before) | set(after)):
        if path not in after:
            changes.append(f"removed {path}")
        elif path not in before:
            changes.append(f"new {path}")
        elif before[path] != after[path]:
            changes.append(f"changed {path}")
    return changes


# -- JSON that must be finite ---------------------------------------------------------------------


class NotFinite(ValueError):
    pass


def _constant(name: str) -> Any:
    raise NotFinite(f"non-finite number {name}")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotFinite(f"number {text[:30]} is not finite")
    return value


def finite_json(text: str | bytes) -> Any:
    """json.loads that refuses NaN, Infinity and numbers that overflow to infinity."""
    return json.loads(text, parse_constant=_constant, parse_float=_float)


# -- outputs --------------------------------------------------------------------------------------


def _jsonl_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    size = path.stat().st_size
    with path.open("rb") as f:
        if size <= BIG_FILE:
            for n, line in enumerate(f, start=1):
                yield n, line
            return
        for n, line in enumerate(f, start=1):
            yield n, line
            if n >= 200_000:
                break
        f.seek(size - 4 * 1024 * 1024)
        f.readline()  # the rest of a line cut by the seek
        for line in f:
            yield -1, line


def check_events(path: Path) -> list[str]:
    problems: list[str] = []
    try:
        for n, line in _jsonl_lines(path):
            where = f"events.jsonl:{n}" if n > 0 else "events.jsonl (tail)"
            if not line.endswith(b"\n"):
                problems.append(f"{where}: last line has no newline (cut short?)")
            try:
                record = finite_json(line)
            except NotFinite as e:
                problems.append(f"{where}: {e}")
                break
            except ValueError as e:
                problems.append(f"{where}: not JSON: {str(e)[:80]}")
                break
            if not isinstance(record, dict) or "t" not in record or "type" not in record:
                problems.append(f"{where}: not an event object with 't' and 'type'")
                break
    except OSError as e:
        problems.append(f"events.jsonl: unreadable: {e}")
    return problems


def _json_file(path: Path, want: type[dict[str, Any]] | type[list[Any]]) -> list[str]:
    try:
        doc = finite_json(path.read_bytes())
    except NotFinite as e:
        return [f"{path.name}: {e}"]
    except (ValueError, OSError) as e:
        return [f"{path.name}: not JSON: {str(e)[:80]}"]
    if not isinstance(doc, want):
        return [f"{path.name}: a JSON {type(doc).__name__}, not a {want.__name__}"]
    if isinstance(doc, dict):
        missing = [k for k in SUMMARY_KEYS if k not in doc]
        if missing:
            return [f"{path.name}: missing keys {missing}"]
    return []


def _timeline(outdir: Path) -> list[str]:
    problems: list[str] = []
    rows: list[list[str]] = []
    try:
        with (outdir / "timeline.csv").open(newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                return ["timeline.csv: empty (no header)"]
            if tuple(header) != TIMELINE_COLUMNS:
                problems.append(f"timeline.csv: header {header[:4]}… is not docs/outputs.md's")
            for n, row in enumerate(reader, start=2):
                if len(row) != len(header):
                    problems.append(f"timeline.csv:{n}: {len(row)} fields, not {len(header)}")
                    break
                try:
                    [int(v) for i, v in enumerate(row) if i != 1]
                except ValueError:
                    problems.append(f"timeline.csv:{n}: a value is not an integer")
                    break
                if len(rows) < 300_000:
                    rows.append(row)
                else:
                    rows.append([])
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        return [f"timeline.csv: unreadable: {str(e)[:80]}"]
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(outdir / "timeline.parquet", use_threads=False)
    except Exception as e:
        return [*problems, f"timeline.parquet: unreadable: {type(e).__name__}: {str(e)[:80]}"]
    if problems:
        return problems  # the CSV could not be read through: comparing rows says nothing more
    if table.num_rows != len(rows):
        problems.append(f"timeline.parquet has {table.num_rows} rows, timeline.csv {len(rows)}")
    elif rows and table.num_rows <= 300_000 and tuple(table.column_names) == TIMELINE_COLUMNS:
        columns = table.to_pydict()
        for i, row in enumerate(rows):
            parquet_row = [str(columns[c][i]) for c in TIMELINE_COLUMNS]
            if parquet_row != row:
                problems.append(f"timeline.parquet row {i} differs from timeline.csv line {i + 2}")
                break
    return problems


def check_outputs(outdir: Path, workload: bool | None) -> list[str]:
    """What is wrong with the outputs of a run that ended with exit 0 or 1."""
    if not outdir.is_dir():
        return [f"OUTDIR {outdir.name or outdir} is not a directory after the run"]
    problems: list[str] = []
    for name in ("events.jsonl", "snapshots.json"):
        if not (outdir / name).is_file():
            problems.append(f"{name} missing")
    if (outdir / "events.jsonl").is_file():
        problems += check_events(outdir / "events.jsonl")
    if (outdir / "snapshots.json").is_file():
        problems += _json_file(outdir / "snapshots.json", list)
    present = [n for n in WORKLOAD_OUTPUTS if (outdir / n).is_file()]
    if workload or present:
        missing = [n for n in WORKLOAD_OUTPUTS if n not in present]
        if missing:
            problems.append(f"{', '.join(missing)} missing"
                            + (f" (but {', '.join(present)} written)" if present else ""))
    if (outdir / "summary.json").is_file():
        problems += _json_file(outdir / "summary.json", dict)
    if (outdir / "timeline.csv").is_file() and (outdir / "timeline.parquet").is_file():
        problems += _timeline(outdir)
    return problems


# -- one run --------------------------------------------------------------------------------------


IMPORT_OUTPUTS = ("scenario.yaml", "fair-scheduler.xml")


def check_import_outputs(outdir: Path) -> list[str]:
    """What is wrong with what ``fairshare import`` wrote (exit 0): both files, the scenario
    a YAML mapping with its workload."""
    if not outdir.is_dir():
        return [f"OUTDIR {outdir.name or outdir} is not a directory after the import"]
    problems = [f"{name} missing" for name in IMPORT_OUTPUTS if not (outdir / name).is_file()]
    if (outdir / "scenario.yaml").is_file():
        try:
            doc = yaml.safe_load((outdir / "scenario.yaml").read_bytes())
        except yaml.YAMLError as e:
            return [*problems, f"scenario.yaml is not YAML: {str(e)[:100]}"]
        if not isinstance(doc, dict) or "workload" not in doc or "cluster" not in doc:
            problems.append("scenario.yaml has no cluster or workload")
    return problems


def _text(data: bytes) -> str:
    return data.decode("utf-8", "backslashreplace")


def check_run(case: Case, result: RunResult, case_dir: Path, before: Tree, limits: Limits
              ) -> list[Finding]:
    """Everything wrong with one run of ``case`` (``before``: the case directory beforehand)."""
    findings: list[Finding] = []
    stdout, stderr = _text(result.stdout), _text(result.stderr)
    command = case.command
    crashed = False
    if TRACEBACK in stdout or TRACEBACK in stderr:
        exception, signature = traceback_summary(stderr if TRACEBACK in stderr else stdout)
        if exception.startswith("MemoryError"):
            findings.append(Finding("memory", f"MemoryError (the address-space guard, "
                                    f"{limits.address_space_mb} MB)", f"memory|MemoryError|"
                                    f"{signature}"))
        else:
            findings.append(Finding("traceback", exception[:300], signature))
        crashed = True
    if result.timed_out:
        findings.append(Finding("hang", f"still running after {limits.timeout_s:g} s",
                                f"hang|{command}|{case.hint}"))
    elif result.memory_killed or result.max_rss_mb > limits.max_rss_mb:
        findings.append(Finding("memory", f"resident memory over {limits.max_rss_mb} MB "
                                f"(peak {result.max_rss_mb:,.0f} MB)",
                                f"memory|{command}|{case.hint}"))
    elif result.signal == signal.SIGXFSZ:
        findings.append(Finding("memory", f"an output passed the {limits.file_size_mb} MB "
                                "file-size limit", f"memory|fsize|{command}|{case.hint}"))
    elif result.signal is not None:
        name = signal.Signals(result.signal).name
        findings.append(Finding("bad-exit", f"killed by {name}",
                                f"bad-exit|{name}|{command}"))
        crashed = True
    elif result.exit_code not in (0, 1, 2):
        findings.append(Finding("bad-exit", f"exit code {result.exit_code}",
                                f"bad-exit|{result.exit_code}|{command}"))
        crashed = True
    elif result.exit_code == 1 and command in ("validate", "shares", "import") and not crashed:
        findings.append(Finding("bad-exit", f"exit 1 from {command} (only run/simulate have "
                                "expectations)", f"bad-exit|1|{command}"))
        crashed = True
    if result.killed_by_us:
        return findings + _safety(case, result, case_dir)
    code = result.exit_code
    if not crashed and (code == 2 or (code == 1 and command in ("run", "simulate"))):
        bad = unlocated_lines(stderr, case, case_dir)
        if bad:
            findings.append(Finding("unlocated", f"exit {code}, stderr line without a location: "
                                    f"{bad[0][:200]!r}",
                                    f"unlocated|{_normalize(bad[0], case_dir)}"))
    findings += _outputs(case, result, case_dir, before, ok=not crashed and code in (0, 1))
    return findings + _safety(case, result, case_dir)


def _outputs(case: Case, result: RunResult, case_dir: Path, before: Tree, *, ok: bool
             ) -> list[Finding]:
    after = snapshot(case_dir)
    outdir = case.outdir
    inputs = {p for p in case.files if p not in case.previous}
    findings = []

    def add(message: str, what: str) -> None:
        findings.append(Finding("partial-output", message,
                                f"partial|{case.command}|{what}"))

    changed_inputs = [p for p in sorted(inputs) if p in before and before.get(p) != after.get(p)]
    if changed_inputs:
        add(f"an input changed: {changed_inputs[0]}", "input changed")
    if outdir is None or not ok:
        changes = [c for c in tree_changes(before, after) if c.split(" ", 1)[1] not in
                   changed_inputs]
        if changes:
            why = "without -o" if outdir is None else f"after exit {result.exit_code}"
            add(f"{why}, the case directory changed: {', '.join(changes[:3])}"
                + (f" (+{len(changes) - 3})" if len(changes) > 3 else ""),
                f"{'no -o' if outdir is None else 'failed run'}: "
                f"{_normalize(changes[0].split(' ', 1)[0])}")
        if (ok and case.command == "shares" and "--json" in case.argv and result.exit_code == 0
                and not result.stdout_cut):
            try:
                finite_json(result.stdout)
            except ValueError as e:
                add(f"shares --json printed bad JSON: {str(e)[:100]}", "shares --json")
        return findings
    targets = [outdir]  # OUTDIR, and where it points when it is a symlink to a directory
    entry = case.files.get(outdir)
    if entry is not None and entry.kind == "symlink":
        targets.append(os.path.normpath(os.path.join(os.path.dirname(outdir), entry.target)))
    stray = [c for c in tree_changes(before, after)
             if not any(_under(c.split(" ", 1)[1], t) or _ancestor(c.split(" ", 1)[1], t)
                        for t in targets)]
    if stray:
        add(f"after exit {result.exit_code}, a change outside OUTDIR: {stray[0]}",
            f"outside OUTDIR: {_normalize(stray[0].split(' ', 1)[0])}")
    check = (check_import_outputs if case.command == "import" else
             lambda path: check_outputs(path, case.workload))
    for problem in check(case_dir / outdir):
        add(f"after exit {result.exit_code}: {problem}", _normalize(problem))
    return findings


def _safety(case: Case, result: RunResult, case_dir: Path) -> list[Finding]:
    findings = []
    for path in case_dir.rglob(SENTINEL):
        findings.append(Finding("unsafe", f"code in the input ran: {path.name} was created",
                                f"unsafe|ran code|{case.hint}"))
        break
    token = SECRET_TOKEN.encode()
    leaked = token in result.stdout or token in result.stderr
    if not leaked and case.outdir is not None and (case_dir / case.outdir).is_dir():
        for name in OUTPUT_NAMES:
            path = case_dir / case.outdir / name
            try:
                if path.is_file() and path.stat().st_size < BIG_FILE and \
                        token in path.read_bytes():
                    leaked = True
            except OSError:
                pass
    if leaked:
        findings.append(Finding("unsafe", "an external entity was read: secret.txt's content "
                                "is in the output", f"unsafe|external entity|{case.hint}"))
    return findings
