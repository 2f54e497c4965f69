"""``fairshare sweep``: the grid, the rows, failures, and the same bytes on every backend."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.config.errors import ConfigError
from fairshare.config.overrides import Override
from fairshare.workbench.sweep import grid, parse_axis

SEED = Path(__file__).resolve().parents[2] / "examples/seed-three-tenants/simulation.yaml"
runner = CliRunner()


# -- the grid ------------------------------------------------------------------------------------


def test_values_are_split_at_commas_or_at_semicolons_when_there_are_any() -> None:
    assert parse_axis("alloc:root.a.weight=1,2,3").overrides == tuple(
        Override("alloc", "root.a.weight", v) for v in ("1", "2", "3"))
    resources = parse_axis("alloc:root.a.maxResources=1024 mb, 1 vcores;2048 mb, 2 vcores")
    assert [o.value for o in resources.overrides] == ["1024 mb, 1 vcores", "2048 mb, 2 vcores"]


def test_an_empty_value_is_an_error_naming_the_option() -> None:
    with pytest.raises(ConfigError) as info:
        parse_axis("alloc:root.a.weight=1,,3")
    assert str(info.value) == ("--set alloc:root.a.weight=1,,3: an empty value in the list "
                               "(values are separated by ',')")


def test_the_grid_is_the_product_first_option_slowest_with_numbered_readable_names() -> None:
    variants = grid([parse_axis("alloc:root.tenant3.weight=1,2"),
                     parse_axis("site:yarn.scheduler.fair.waitTimeBeforeKill=0,15000,30000")])
    assert [v.name for v in variants] == [
        "1-tenant3.weight=1_waitTimeBeforeKill=0", "2-tenant3.weight=1_waitTimeBeforeKill=15000",
        "3-tenant3.weight=1_waitTimeBeforeKill=30000", "4-tenant3.weight=2_waitTimeBeforeKill=0",
        "5-tenant3.weight=2_waitTimeBeforeKill=15000",
        "6-tenant3.weight=2_waitTimeBeforeKill=30000"]
    assert [o.value for o in variants[4].overrides] == ["2", "15000"]


def test_names_hold_no_path_separators_and_number_width_keeps_them_sorted() -> None:
    variants = grid([parse_axis("alloc:root.a.aclSubmitApps=" + ",".join(
        f"u/{i} g" for i in range(12)))])
    assert variants[0].name == "01-a.aclSubmitApps=u_0_g"
    assert [v.name for v in variants] == sorted(v.name for v in variants)


def test_a_setting_swept_twice_is_an_error() -> None:
    with pytest.raises(ConfigError, match="swept twice"):
        grid([parse_axis("alloc:root.a.weight=1,2"), parse_axis("alloc:root.a.weight=3")])


# -- the command ---------------------------------------------------------------------------------


def sweep(tmp_path: Path, *args: str) -> tuple[int, str, Path]:
    out = tmp_path / "sweep"
    result = runner.invoke(app, ["sweep", str(SEED), "-o", str(out), *args])
    return result.exit_code, result.output, out


def rows_of(out: Path) -> list[dict[str, str]]:
    with (out / "sweep.csv").open(newline="") as f:
        return list(csv.DictReader(f))


def test_a_sweep_writes_each_variant_and_one_row_per_variant(tmp_path: Path) -> None:
    code, output, out = sweep(tmp_path, "-q", "--jobs", "1",
                              "--set", "site:yarn.scheduler.fair.preemption=true,false",
                              "--focus", "root.tenant3")
    assert code == 0, output
    rows = rows_of(out)
    assert [r["site:yarn.scheduler.fair.preemption"] for r in rows] == ["true", "false"]
    for row in rows:
        summary = json.loads((out / row["variant"] / "summary.json").read_text())
        assert summary["scenario"]["overrides"] == [
            f"site:yarn.scheduler.fair.preemption={row['site:yarn.scheduler.fair.preemption']}"]
        tenant3 = summary["queues"]["root.tenant3"]
        assert int(row["root.tenant3:am-wait-p95-ms"]) == tenant3["am-wait-ms"]["p95"]
        assert int(row["root.tenant3:short-of-threshold-ms"]) == (
            tenant3["time-short-of-fair-share-threshold-ms"])
        hours = summary["counts"]["preempted-container-ms"] / 3_600_000
        assert float(row["preempted-container-hours"]) == pytest.approx(hours, abs=1e-4)
    assert float(rows[1]["preempted-container-hours"]) == 0.0  # preemption off
    assert pq.read_table(out / "sweep.parquet").num_rows == 2
    assert "root.tenant1:am-wait-p95-ms" not in rows[0]  # only the focus queue


def test_the_default_focus_is_every_leaf_with_apps(tmp_path: Path) -> None:
    code, output, out = sweep(tmp_path, "-q", "--jobs", "1",
                              "--set", "alloc:root.tenant3.weight=1")
    assert code == 0, output
    queues = sorted({c.split(":")[0] for c in rows_of(out)[0] if c.startswith("root.")})
    assert queues == ["root.tenant1", "root.tenant2", "root.tenant3"]


def test_a_variant_with_a_bad_value_fails_alone(tmp_path: Path) -> None:
    code, output, out = sweep(tmp_path, "--jobs", "1",
                              "--set", "alloc:root.tenant3.weight=1,heavy,2")
    assert code == 1, output
    rows = rows_of(out)
    assert [r["status"] for r in rows] == ["ok", "failed", "ok"]
    assert rows[1]["error"] == ('--set alloc:root.tenant3.weight=heavy: root.tenant3: <weight> '
                                'must be a number, got "heavy"')
    assert not (out / rows[1]["variant"]).exists()
    assert (out / rows[2]["variant"] / "summary.json").exists()
    assert f"variant {rows[1]['variant']}: --set alloc:root.tenant3.weight=heavy" in output


def test_when_every_variant_is_wrong_nothing_runs_or_is_written(tmp_path: Path) -> None:
    code, output, out = sweep(tmp_path, "--set", "alloc:root.tenant9.weight=1,2")
    assert code == 2
    assert output.splitlines()[0].startswith(
        "--set alloc:root.tenant9.weight=1: queue root.tenant9 is not in the allocation file")
    assert not out.exists()


def test_a_malformed_option_is_exit_2(tmp_path: Path) -> None:
    code, output, out = sweep(tmp_path, "--set", "root.a.weight=1,2")
    assert code == 2
    assert output.startswith("--set root.a.weight=1,2: expected alloc:KEY=VALUE")
    assert not out.exists()


def test_every_backend_writes_the_same_bytes(tmp_path: Path) -> None:
    """Serially in this process, on a local process pool, and on a Dask cluster on loopback:
    each variant's events.jsonl and summary.json byte for byte, and sweep.csv."""
    from distributed import LocalCluster

    args = ["-q", "--set", "alloc:root.tenant3.fairSharePreemptionTimeout=5,30",
            "--set", "site:yarn.scheduler.fair.waitTimeBeforeKill=0,15000"]
    outs = {}
    for backend, extra in (("serial", ["--jobs", "1"]), ("pool", ["--jobs", "2"])):
        code, output, outs[backend] = sweep(tmp_path / backend, *args, *extra)
        assert code == 0, output
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        code, output, outs["dask"] = sweep(tmp_path / "dask", *args,
                                           "--scheduler", cluster.scheduler_address)
    assert code == 0, output
    variants = [r["variant"] for r in rows_of(outs["serial"])]
    assert len(variants) == 4
    for name in ("sweep.csv", *(f"{v}/{f}" for v in variants
                                for f in ("events.jsonl", "summary.json", "timeline.csv"))):
        serial = (outs["serial"] / name).read_bytes()
        assert (outs["pool"] / name).read_bytes() == serial, name
        assert (outs["dask"] / name).read_bytes() == serial, name


def test_an_unreachable_scheduler_is_exit_2(tmp_path: Path) -> None:
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):  # default: 30 s
        code, output, out = sweep(tmp_path, "--set", "alloc:root.tenant3.weight=1,2",
                                  "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2, output
    assert output.startswith("--scheduler tcp://127.0.0.1:9: ")
    assert not out.exists()
