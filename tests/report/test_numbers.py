"""The report's numbers: a fair-policy queue's vcores are not "over share", one memory unit
per page, and tables that fit a 1,300-px window (checked in a browser in browser_tests/)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from fairshare.config.overrides import parse_override
from fairshare.report import build_report, units
from fairshare.report.summary import load_summary
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run.scripted import run_scenario
from tests.report.conftest import SEED, parse

LEAVES = ("root.default", "root.tenant1", "root.tenant2", "root.tenant3")


@pytest.fixture(scope="module")
def fair_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed with every queue's policy ``fair`` (the seed's file says drf)."""
    outdir = tmp_path_factory.mktemp("fair") / "out"
    spec = replace(load_scenario(SEED), overrides=(
        parse_override("alloc:defaultQueueSchedulingPolicy=fair"),))
    run_scenario(spec, outdir)
    return outdir


def test_a_fair_parent_gives_its_children_no_vcore_share(fair_run: Path,
                                                           seed_run: Path) -> None:
    fair, drf = load_summary(fair_run), load_summary(seed_run)
    assert [fair.has_vcore_share(fair.queue(q)) for q in ("root", *LEAVES)] == [
        True, False, False, False, False]
    assert all(drf.has_vcore_share(drf.queue(q)) for q in ("root", *LEAVES))
    # what the summary says: under fair, the leaves' vcore shares are 0 while they used vcores
    tenant1 = fair.queue("root.tenant1")
    assert tenant1.fair.vcores == 0 and (tenant1.usage.vcores or 0) > 4


def test_the_usage_bars_draw_a_fair_queues_vcores_grey_not_over(
        fair_run: Path, seed_run: Path, tmp_path: Path) -> None:
    page = build_report(fair_run, tmp_path / "fair.html")[0]
    bars = parse(page).xpath('//figure[@data-chart="usage-bars"]')[0]
    gids = set(bars.xpath(".//@id"))
    assert {f"usage-bars-no-share-{q}" for q in LEAVES} <= gids
    # nothing over its share: memory stays under the instantaneous share in this run
    assert "used over instantaneous fair share" not in "".join(bars.itertext())
    drf_page = build_report(seed_run, tmp_path / "drf.html")[0]
    assert not [g for g in parse(drf_page).xpath("//@id") if "no-share-" in g]
    # the caption explains grey only where the chart draws it
    drf_bars = parse(drf_page).xpath('//figure[@data-chart="usage-bars"]')[0]
    assert "Grey: vcores used by a queue that has no vcore share" in "".join(bars.itertext())
    assert "Grey:" not in "".join(drf_bars.itertext())


def test_a_summary_without_settings_falls_back_to_the_shares(seed_copy: Path) -> None:
    """A parent gone by the end (settings null): a queue whose vcore shares averaged 0 while
    its memory share did not has none."""
    path = seed_copy / "summary.json"
    doc = json.loads(path.read_text())
    doc["queues"]["root"]["settings"] = None
    doc["queues"]["root.tenant1"]["steady-fair-share"]["vcores"] = 0.0
    doc["queues"]["root.tenant1"]["fair-share"]["vcores"] = 0.0
    path.write_text(json.dumps(doc))
    run = load_summary(seed_copy)
    assert not run.has_vcore_share(run.queue("root.tenant1"))
    assert run.has_vcore_share(run.queue("root.tenant2"))  # drf shares with vcores
    assert run.has_vcore_share(run.queue("root.default"))  # no share at all: nothing to say


@pytest.mark.parametrize(("cluster_mb", "mb", "text"), [
    (24_576, 6_144, "6,144 MB"),
    (24_576, 0, "0 MB"),
    (1_048_576, 1_536, "1.5 GB"),  # a small leaf of a 1 TB cluster: GB like the root
    (1_048_576, 512, "0.5 GB"),
    (1_048_576, 20_480, "20 GB"),
    (1_048_576, 1_048_576, "1,024 GB"),
    (100_000, 99_999, "98 GB"),
])
def test_a_page_writes_memory_in_its_clusters_unit(cluster_mb: int, mb: int, text: str) -> None:
    with units.memory_unit_of(cluster_mb):
        assert units.memory(mb) == text
    assert units.memory(1_536) == "1,536 MB"  # outside a page: each value on its own


def test_the_tuning_table_keeps_one_memory_unit_per_column(big_tree_run: Path,
                                                           tmp_path: Path) -> None:
    """A 1,000-node cluster: root's shares are GB; so are the leaves' MB-sized ones."""
    path = big_tree_run / "summary.json"
    outdir = tmp_path / "out"
    outdir.mkdir()
    for f in big_tree_run.iterdir():
        if f.is_file():
            (outdir / f.name).write_bytes(f.read_bytes())
    doc = json.loads(path.read_text())
    doc["cluster"]["capacity"]["memory-mb"] = 8192 * 1000
    doc["queues"]["root"]["steady-fair-share"]["memory-mb"] = 8192 * 1000  # GB on its own
    (outdir / "summary.json").write_text(json.dumps(doc))
    page = build_report(outdir, outdir / "report.html")[0]
    cells = parse(page).xpath('//table[@class="tuning"]//td[@data-mb!=""]')
    assert cells
    memory_units = {c.text.split()[-1] for c in cells}  # "1.5 GB", then <br> and vcores
    assert memory_units == {"GB"}
