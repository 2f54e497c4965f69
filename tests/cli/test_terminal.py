"""The CLI at a terminal and in a pipe: tables fit the width, lines carry no trailing spaces,
help is plain text wrapped where the width needs it, and one output option everywhere."""

from __future__ import annotations

import io
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from fairshare.cli.common import without_trailing_spaces
from fairshare.cli.main import app
from fairshare.cli.tables import FitTable, share_widths

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "examples" / "seed-three-tenants"
runner = CliRunner()


def _fairshare(*args: str, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(ROOT / "src")
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run([sys.executable, "-m", "fairshare", *args], capture_output=True,
                          text=True, env=env, timeout=120, check=False)


def test_piped_tables_fit_columns_and_carry_no_trailing_spaces() -> None:
    result = _fairshare("validate", str(SEED / "fair-scheduler.xml"), columns=64)
    assert result.returncode == 0, result.stderr
    table = result.stdout.split("\n\n")[1].splitlines()
    assert max(len(line) for line in table) <= 64
    assert "…" not in result.stdout
    assert not [line for line in result.stdout.splitlines() if line != line.rstrip()]
    # every queue keeps its weight, policy and name (rich alone squeezed Weight and Policy away
    # and cut the names to "tenan…")
    rows = [line.split() for line in table if line.strip().startswith("tenant")]
    assert [row[:3] for row in rows] == [["tenant1", "1", "drf"], ["tenant2", "2", "drf"],
                                         ["tenant3", "1", "drf"]]


def test_without_columns_a_pipe_gets_whole_lines() -> None:
    result = _fairshare("validate", str(SEED / "fair-scheduler.xml"))
    lines = result.stdout.splitlines()
    assert any(len(line) > 80 for line in lines)  # the preemption line, unwrapped
    assert not [line for line in lines if line != line.rstrip()]


def _resource_table() -> FitTable:
    table = FitTable(pad_edge=False, collapse_padding=True, box=None)
    table.add_column("queue")
    table.add_column("usage", justify="right")
    table.add_column("time\nstarved", justify="right")
    table.add_row("root.tenant1", "20,419 MB, 10 vc", "1 m 43 s")
    table.add_row("root.tenant2", "241 MB, 0.2 vc", "0")
    return table


def _render(table: FitTable, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(table)
    return [line.rstrip() for line in console.file.getvalue().splitlines()]  # type: ignore[attr-defined]


def test_a_narrow_table_breaks_resources_after_a_comma_and_keeps_durations_whole() -> None:
    # 80 columns: as wide as it needs (36 characters and 2 spaces between the columns)
    assert _render(_resource_table(), 80) == [
        "                                  time",
        "queue                   usage  starved",
        "root.tenant1 20,419 MB, 10 vc 1 m 43 s",
        "root.tenant2   241 MB, 0.2 vc        0",
    ]
    # 34: 32 for the cells; unbreakable parts 10 + 10 ("20,419 MB,") + 8; the queue needs 2
    # more to be whole, the usage 6: the queue gets them, the usage the 2 left and breaks
    assert _render(_resource_table(), 34) == [
        "                              time",
        "queue               usage  starved",
        "root.tenant1   20,419 MB, 1 m 43 s",
        "                    10 vc",
        "root.tenant2      241 MB,        0",
        "                   0.2 vc",
    ]
    # 30: only the unbreakable parts fit, and the name folds at 10
    assert _render(_resource_table(), 30)[2:4] == ["root.tenan 20,419 MB, 1 m 43 s",
                                                   "t1              10 vc"]


def test_share_widths_widens_the_columns_that_need_least_first() -> None:
    # budget 30: at least [5, 10, 8] (23); column 1 needs 6 more, column 0 7: column 1 first,
    # and the last character goes to column 0
    assert share_widths([12, 16, 8], [5, 10, 8], 30) == [6, 16, 8]
    assert share_widths([12, 16, 8], [5, 10, 8], 40) == [12, 16, 8]
    assert share_widths([12, 16, 8], [5, 10, 8], 24) == [6, 10, 8]  # the rest a character each


def test_trailing_spaces_are_dropped_but_not_spaces_before_text() -> None:
    from rich.segment import Segment
    segments = [Segment("a  "), Segment("  "), Segment("b "), Segment("\n  \nc"), Segment(" ")]
    text = "".join(s.text for s in without_trailing_spaces(segments))
    assert text == "a    b\n\nc "  # the last line is not finished: its space may be a prompt's


def test_help_shows_flags_without_a_type_and_wraps_only_at_the_width() -> None:
    result = runner.invoke(app, ["--help"], terminal_width=80, env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert "<bool>" not in result.stdout
    assert not [line for line in result.stdout.splitlines() if line != line.rstrip()]
    assert "--version  " in result.stdout
    lines = result.stdout.splitlines()
    start = lines.index("Commands:") + 1
    entries = lines[start:]
    # a line is broken only when the next word would not fit in 80 columns
    for line, following in itertools.pairwise(entries):
        if following.startswith(" " * 12) and following.strip():
            assert len(line) + 1 + len(following.split()[0]) > 80, (line, following)
    # (the names' column is as wide as the longest name, serve-users)
    validate = " ".join(" ".join(line.split()) for line in entries[:3])
    assert validate.startswith("validate Check an allocation file as the ResourceManager "
                               "would, summarise it, and list the findings of `fairshare lint`")


@pytest.mark.parametrize("command", ["shares", "lint", "compare", "explain"])
def test_every_machine_readable_command_takes_format_and_json(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "100"})
    assert "--format [text|json]" in result.stdout or "--format <text|json>" in result.stdout
    assert "--json" in result.stdout


def test_format_json_is_json_and_its_alias(tmp_path: Path) -> None:
    xml = str(SEED / "fair-scheduler.xml")
    for args in (["shares", xml, "--cluster", "24g/12"], ["lint", xml]):
        long = runner.invoke(app, [*args, "--format", "json"])
        short = runner.invoke(app, [*args, "--json"])
        text = runner.invoke(app, [*args, "--format", "text"])
        assert long.exit_code == short.exit_code == text.exit_code == 0
        assert long.stdout == short.stdout != text.stdout
        assert long.stdout.lstrip()[0] in "[{"
    run = tmp_path / "run"
    result = runner.invoke(app, ["simulate", str(SEED / "simulation.yaml"), "-o", str(run),
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    for args in (["compare", str(run), str(run)], ["explain", str(run), "--app", "adhoc"]):
        long = runner.invoke(app, [*args, "--format", "json"])
        short = runner.invoke(app, [*args, "--json"])
        assert long.exit_code == short.exit_code == 0, long.output
        assert long.stdout == short.stdout
        assert long.stdout.startswith("{")
