"""Every command shown in README.md and docs/*.md runs as shown.

Two kinds of blocks are read:

* A fenced block whose lines start with ``$ fairshare …`` shows commands and their output. Each
  command (a line ending in ``\\`` continues on the next) runs, with ``fairshare`` being
  ``sys.executable -m fairshare`` and a shell for ``*``, and what it prints (stdout, then
  stderr) must match the lines below it up to the next ``$`` line: line for line, trailing
  spaces ignored, where ``…`` in a line stands for any text (the docs cut long lines and
  nondeterministic figures, such as wall-clock times, that way) and a line that is only ``…``
  for any number of lines (a command shown without output only has to succeed). The exit
  code must be 0 unless the shown output is an error (``file:line:`` or an option's name
  first) — then 1 (lint's errors) or 2 (bad input).
* A ````` ```sh ````` block's ``fairshare`` lines are synopses (``[--site yarn-site.xml]``,
  ``OUTDIR``): every ``--option`` named must be one of that command's options (its ``--help``).

The commands of one file run in order in one temporary directory that holds the repository's
``examples/`` (a doc's later command reads an earlier one's outputs). A marker comment on the
line before a block changes that:

* ``<!-- docs-test: in DIR -->``: the block runs among the files of the repository's folder DIR
  (copied): an example's (``examples/seed-three-tenants``, where the docs say
  ``simulation.yaml``), or ``docs/files/…``, which holds the files the docs show commands on
  (a broken ``bad.xml``, Hadoop's own example, a dump); ``out/`` is still the document's.
* ``<!-- docs-test: skip REASON -->``: the block is not run — only for commands that need what
  the repository cannot hold (a running ResourceManager, an admin's own dump). Keep them rare:
  :data:`MAX_SKIPS` bounds how many there are.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MAX_SKIPS = 4
TIMEOUT_S = 120
_MARKER = re.compile(r"<!--\s*docs-test:\s*(skip|in)\b\s*(.*?)\s*-->")
# file:line:, --option: or --option VALUE: first: an error
_ERROR = re.compile(r"^(\S+:\d+: |--[\w-]+(=| )?\S*: )")


@dataclass
class Block:
    doc: Path
    line: int  # of the opening fence
    fence: str  # the info string: "sh", "" …
    lines: list[str]
    marker: tuple[str, str] | None


def blocks(doc: Path) -> list[Block]:
    found: list[Block] = []
    text = doc.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(text):
        if text[i].startswith("```"):
            start, fence = i, text[i][3:].strip()
            end = next(j for j in range(i + 1, len(text)) if text[j].startswith("```"))
            before = next((text[j] for j in range(start - 1, -1, -1) if text[j].strip()), "")
            match = _MARKER.search(before)
            marker = (match.group(1), match.group(2)) if match else None
            found.append(Block(doc, start + 1, fence, text[start + 1:end], marker))
            i = end
        i += 1
    return found


def _joined(lines: list[str]) -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` for each ``$ `` line, continuations joined."""
    runs: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if runs:
                runs[-1][1].append(line)
            i += 1
            continue
        command = line[2:]
        while command.endswith("\\"):
            i += 1
            command = command[:-1].rstrip() + " " + lines[i].strip()
        runs.append((command, []))
        i += 1
    return runs


def _matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` with each ``…`` filled in (see the module doc)."""
    if not expected:
        return not actual
    head, rest = expected[0].rstrip(), expected[1:]
    if head == "…":
        return any(_matches(rest, actual[k:]) for k in range(len(actual) + 1))
    if not actual:
        return False
    pattern = ".*".join(re.escape(part) for part in head.split("…"))
    return re.fullmatch(pattern, actual[0].rstrip()) is not None and _matches(rest, actual[1:])


def _run(command: str, cwd: Path, work: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR")}
    env |= {"PYTHONPATH": str(ROOT / "src"), "COLUMNS": "200", "NO_COLOR": "1",
            "FAIRSHARE_PY": sys.executable, "DOCS_OUT": str(work)}
    script = f'fairshare() {{ "$FAIRSHARE_PY" -m fairshare "$@"; }}\n{command}\n'
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT_S, check=False)


def _workdir(tmp: Path) -> Path:
    (tmp / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    return tmp


def _among(block: Block, work: Path) -> Path:
    """The directory a ``docs-test: in`` block runs in: a copy of the example's files, with
    the outputs' directory ``out`` linked to the document's (so later blocks see them)."""
    source = ROOT / block.marker[1] if block.marker else work
    place = work / "in" / source.name
    if not place.exists():
        shutil.copytree(source, place)
        (work / "out").mkdir(exist_ok=True)
        (place / "out").symlink_to(work / "out", target_is_directory=True)
    return place


def _check_output(block: Block, command: str, expected: list[str], cwd: Path,
                  work: Path) -> list[str]:
    result = _run(command, cwd, work)
    actual = (result.stdout + result.stderr).splitlines()
    where = f"{block.doc.relative_to(ROOT)}:{block.line}: $ {command}"
    problems = []
    error = bool(expected) and _ERROR.match(expected[0]) is not None
    if (result.returncode in (1, 2)) != error:  # lint's errors exit 1, bad input 2
        problems.append(f"{where}: exit {result.returncode}\n{result.stderr[-2000:]}")
    elif expected and not _matches(expected, actual):  # none shown: the prose tells it
        problems.append(f"{where}: printed\n" + "\n".join(actual[:60]) +
                        "\n--- the doc shows\n" + "\n".join(expected))
    return problems


@functools.cache
def _help(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, (path, result.output)
    return result.stdout


def _options(command: str) -> set[str]:
    words = [w for w in command.split()[1:] if not w.startswith("-")]
    if words[:1] == ["watch"]:  # watch's default command (start) takes the RM's URL
        path = ("watch", words[1] if words[1:2] in (["status"], ["fork"]) else "start")
    else:
        path = tuple(words[:2] if words[:1] == ["workload"] else words[:1])
    text = _help(path)
    return set(re.findall(r"(?<![\w-])--[a-z][\w-]*", text)) | set(
        re.findall(r"(?<![\w-])-[a-z]\b", text))


def _check_synopsis(block: Block, line: str) -> list[str]:
    named = set(re.findall(r"(?<![\w-])--?[a-z][\w-]*", line.split("#")[0]))
    unknown = sorted(named - _options(line))
    if unknown:
        return [f"{block.doc.relative_to(ROOT)}:{block.line}: {line}: not an option of "
                f"the command: {', '.join(unknown)}"]
    return []


def _synopses(block: Block) -> list[str]:
    joined: list[str] = []
    for line in block.lines:
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1].rstrip() + " " + line.strip()
        else:
            joined.append(line)
    return [line for line in joined if line.startswith("fairshare ")]


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_every_command_in_the_doc_runs_as_shown(doc: Path, tmp_path: Path) -> None:
    work = _workdir(tmp_path)
    problems: list[str] = []
    for block in blocks(doc):
        if block.marker and block.marker[0] == "skip":
            assert block.marker[1], f"{doc.name}:{block.line}: a skip must say why"
            continue
        if block.fence == "sh":
            for line in _synopses(block):
                problems += _check_synopsis(block, line)
            continue
        cwd = _among(block, work) if block.marker else work
        for command, expected in _joined(block.lines):
            if command.startswith("fairshare "):
                problems += _check_output(block, command, expected, cwd, work)
    assert not problems, "\n\n".join(problems)


def test_skips_are_rare_and_say_why() -> None:
    skips = [(b.doc.name, b.line, b.marker[1]) for d in DOCS for b in blocks(d)
             if b.marker and b.marker[0] == "skip"]
    assert len(skips) <= MAX_SKIPS, skips
    assert all(reason for _, _, reason in skips)


def test_the_matcher_fills_in_ellipses() -> None:
    assert _matches(["a …", "…", "z"], ["a b c", "x", "y", "z"])
    assert _matches(["…"], [])
    assert not _matches(["a", "b"], ["a", "c"])
    assert not _matches(["a …"], ["b a"])
    assert _joined(["$ fairshare x \\", "    --y 1", "out", "$ fairshare z"]) == [
        ("fairshare x --y 1", ["out"]), ("fairshare z", [])]
