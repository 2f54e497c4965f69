"""``fairshare report``: where pages go, and bad input — one ``path: message`` line on stderr,
exit 2, and nothing written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app as main_app
from tests.report.conftest import SEED, invoke_report


def listing(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_a_run_gets_report_html_and_its_charts_in_report_files(seed_copy: Path) -> None:
    code, stdout, stderr = invoke_report(str(seed_copy))
    assert code == 0, stderr
    assert (seed_copy / "report.html").is_file()
    pngs = sorted(p.name for p in (seed_copy / "report-files").iterdir())
    assert len(pngs) == 7 and all(p.endswith(".png") for p in pngs)
    size = (seed_copy / "report.html").stat().st_size  # ~0.5 MB: said in MB, one decimal
    assert size >= 100_000
    assert stdout == (f"Wrote {seed_copy / 'report.html'} ({size / 1e6:.1f} MB) and 7 "
                      f"charts as PNG in {seed_copy / 'report-files'}/\n")
    assert stderr == ""  # no progress shown for pipes in so short a build


def test_o_puts_the_page_elsewhere_with_its_files_beside_it(seed_copy: Path,
                                                            tmp_path: Path) -> None:
    code, _, stderr = invoke_report(str(seed_copy), "-o", str(tmp_path / "tuning.html"), "-q")
    assert code == 0, stderr
    assert (tmp_path / "tuning.html").is_file()
    assert len(list((tmp_path / "tuning-files").glob("*.png"))) == 7
    assert not (seed_copy / "report.html").exists()


def corrupt_summary(outdir: Path) -> None:
    (outdir / "summary.json").write_text('{"span": {"start-ms": 0,\n  oops')


def summary_of_another_kind(outdir: Path) -> None:
    (outdir / "summary.json").write_text(json.dumps({"queues": {}, "apps": {}}))


def summary_without_root(outdir: Path) -> None:
    doc = json.loads((outdir / "summary.json").read_text())
    del doc["queues"]["root"]
    (outdir / "summary.json").write_text(json.dumps(doc))


def truncated_events(outdir: Path) -> None:
    text = (outdir / "events.jsonl").read_text()
    (outdir / "events.jsonl").write_text(text[: len(text) // 2] + "\n" + text[-50:])


def garbage_parquet(outdir: Path) -> None:
    (outdir / "timeline.parquet").write_bytes(b"PAR1 this is not parquet PAR1")


def parquet_of_another_run(outdir: Path) -> None:
    table = pq.read_table(outdir / "timeline.parquet")
    pq.write_table(table.slice(0, table.num_rows // 2), outdir / "timeline.parquet")


def parquet_without_a_column(outdir: Path) -> None:
    table = pq.read_table(outdir / "timeline.parquet")
    pq.write_table(table.drop_columns(["starving_mb"]), outdir / "timeline.parquet")


def no_timeline(outdir: Path) -> None:
    (outdir / "timeline.parquet").unlink()
    (outdir / "timeline.csv").unlink()


def events_of_another_run(outdir: Path) -> None:
    lines = (outdir / "events.jsonl").read_text().splitlines(keepends=True)
    (outdir / "events.jsonl").write_text("".join(
        line for line in lines if '"container-preempted"' not in line))


def csv_with_a_word(outdir: Path) -> None:
    (outdir / "timeline.parquet").unlink()
    text = (outdir / "timeline.csv").read_text().replace("root.tenant3,6144", "root.tenant3,lots",
                                                         1)
    (outdir / "timeline.csv").write_text(text)


@pytest.mark.parametrize(("spoil", "named", "message"), [
    (corrupt_summary, "summary.json:2", "not JSON"),
    (summary_of_another_kind, "summary.json", "not a fairshare summary"),
    (summary_without_root, "summary.json", "not a fairshare summary (docs/outputs.md): queues "
                                           "has no root"),
    (truncated_events, "events.jsonl:", "not a fairshare event"),
    (events_of_another_run, "events.jsonl", "not from the same run"),
    (garbage_parquet, "timeline.parquet", "not a readable timeline"),
    (parquet_of_another_run, "timeline.parquet", "not from the same run"),
    (parquet_without_a_column, "timeline.parquet", "no column 'starving_mb'"),
    (no_timeline, "out", "no timeline.parquet or timeline.csv here"),
    (csv_with_a_word, "timeline.csv", "not a readable timeline"),
], ids=lambda x: getattr(x, "__name__", None))
def test_a_spoilt_file_exits_2_naming_it_and_nothing_is_written(
        seed_copy: Path, spoil: Callable[[Path], None], named: str, message: str) -> None:
    spoil(seed_copy)
    before = listing(seed_copy)
    code, stdout, stderr = invoke_report(str(seed_copy))
    assert code == 2
    assert stdout == ""
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(str(seed_copy / named) if named != "out" else str(seed_copy))
    assert message in lines[0]
    assert listing(seed_copy) == before  # no page, no charts, no staging files


def test_a_missing_directory_exits_2_naming_it(tmp_path: Path) -> None:
    code, _, stderr = invoke_report(str(tmp_path / "nowhere"))
    assert code == 2
    assert stderr == f"{tmp_path / 'nowhere'}: not a directory (give a run's or a sweep's " \
                     "output directory, its -o)\n"
    assert list(tmp_path.iterdir()) == []


def test_a_directory_with_neither_file_exits_2(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    code, _, stderr = invoke_report(str(tmp_path))
    assert code == 2
    assert stderr.startswith(f"{tmp_path}: no summary.json or sweep.csv here")
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_an_unwritable_place_exits_2_and_keeps_the_previous_report(seed_copy: Path) -> None:
    assert invoke_report(str(seed_copy), "-q")[0] == 0
    before = listing(seed_copy)
    code, _, stderr = invoke_report(str(seed_copy), "-o", str(seed_copy / "no" / "r.html"))
    assert code == 2
    assert stderr.startswith(f"{seed_copy / 'no'}: cannot write the report")
    assert listing(seed_copy) == before


def test_focus_is_for_sweeps_only(seed_copy: Path) -> None:
    code, _, stderr = invoke_report(str(seed_copy), "--focus", "root.tenant3")
    assert code == 2
    assert stderr.startswith("--focus root.tenant3: only for a sweep's directory")


def test_simulate_report_writes_the_report_after_the_run(tmp_path: Path) -> None:
    result = CliRunner().invoke(main_app, ["simulate", str(SEED), "-o", str(tmp_path / "out"),
                                           "--report", "-q"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "report.html").is_file()
    assert len(list((tmp_path / "out" / "report-files").glob("*.png"))) == 7


def test_simulate_report_needs_an_outdir() -> None:
    result = CliRunner().invoke(main_app, ["simulate", str(SEED), "--report"])
    assert result.exit_code == 2
    assert result.stderr == "--report: needs -o OUTDIR (the report is made from the run's " \
                            "files)\n"


def test_a_truncated_events_line_is_located(seed_copy: Path) -> None:
    lines = (seed_copy / "events.jsonl").read_text().splitlines(keepends=True)
    lines[6] = lines[6][:40] + "\n"
    (seed_copy / "events.jsonl").write_text("".join(lines))
    _, _, stderr = invoke_report(str(seed_copy))
    assert stderr == (f"{seed_copy / 'events.jsonl'}:7: not a fairshare event (one JSON "
                      "object per line)\n")


def test_a_wanted_event_that_is_not_json_is_located(seed_copy: Path) -> None:
    lines = (seed_copy / "events.jsonl").read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"type":"container-preempted"' in line)
    lines[at] = lines[at].replace('"queue":', '"queue" ', 1)
    (seed_copy / "events.jsonl").write_text("".join(lines))
    _, _, stderr = invoke_report(str(seed_copy))
    assert stderr.startswith(f"{seed_copy / 'events.jsonl'}:{at + 1}: not JSON")


def test_nodes_come_and_go_in_the_capacity(tmp_path: Path) -> None:
    # not through the CLI: the capacity series from node events, computed by hand
    from fairshare.report.events import load_events

    records = [
        {"t": 0, "type": "node-added", "seq": 1, "node": "a", "rack": "/r",
         "capacity": {"memory-mb": 8192, "vcores": 4}},
        {"t": 0, "type": "node-added", "seq": 2, "node": "b", "rack": "/r",
         "capacity": {"memory-mb": 4096, "vcores": 2}},
        {"t": 5000, "type": "node-resized", "seq": 3, "node": "a",
         "capacity": {"memory-mb": 16384, "vcores": 8}},
        {"t": 9000, "type": "node-removed", "seq": 4, "node": "b", "lost-containers": 0},
        {"t": 9500, "type": "container-allocated", "seq": 5, "node": "node-added"}]
    (tmp_path / "events.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n"
                                                   for r in records))
    steps = [(c.time_ms, c.memory_mb, c.vcores, c.nodes)
             for c in load_events(tmp_path).capacity]
    assert steps == [(0, 8192, 4, 1), (0, 12288, 6, 2), (5000, 20480, 10, 2),
                     (9000, 16384, 8, 1)]


def test_the_parquet_may_have_more_columns_in_another_order(seed_copy: Path,
                                                            seed_report: list[Path]) -> None:
    table = pq.read_table(seed_copy / "timeline.parquet")
    shuffled = table.select(list(reversed(table.column_names)))
    shuffled = shuffled.append_column("extra", pa.array([1] * table.num_rows))
    pq.write_table(shuffled, seed_copy / "timeline.parquet")
    assert invoke_report(str(seed_copy), "-q")[0] == 0
    assert (seed_copy / "report.html").read_bytes() == seed_report[0].read_bytes()


@pytest.mark.parametrize(("page", "taken", "named", "message"), [
    ("report.html", "report.html/", "report.html", "cannot write the report: is a directory"),
    ("report.html", "report-files", "report-files",
     "cannot write the charts: exists and is not a directory"),
], ids=["page is a directory", "files name taken by a file"])
def test_a_target_that_cannot_be_written_is_refused_before_reading(
        tmp_path: Path, page: str, taken: str, named: str, message: str) -> None:
    # no run here at all: the target is checked first, so no file is read or drawn
    (tmp_path / "summary.json").write_text("{}")
    if taken.endswith("/"):
        (tmp_path / taken).mkdir()
    else:
        (tmp_path / taken).write_text("mine")
    before = listing(tmp_path)
    code, _, stderr = invoke_report(str(tmp_path), "-o", str(tmp_path / page))
    assert code == 2
    assert stderr == f"{tmp_path / named}: {message}\n"
    assert listing(tmp_path) == before
