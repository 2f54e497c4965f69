"""Which queues get a chart: all of a small tree; of a big one, the leaves that starved, were
preempted or were short of their threshold, then the busiest — and the page says which were
left out."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from fairshare.report import build_report
from fairshare.report.choose import MAX_CHARTED, choose_queues
from fairshare.report.summary import QueueSummary
from fairshare.sim.record.summary_model import MaybePair, Percentiles
from tests.report.conftest import parse

ZERO = MaybePair(0.0, 0.0)
NO_WAITS = Percentiles(None, None, None, 0, 0)


def queue(name: str, *, leaf: bool = True, starved: int = 0, preempted: int = 0,
          short: int = 0, usage: float = 0.0) -> QueueSummary:
    return QueueSummary(
        name=name, leaf=leaf, usage=MaybePair(usage, 0.0), steady=ZERO, fair=ZERO, demand=ZERO,
        usage_to_steady=ZERO, usage_to_fair=ZERO, starved_ms=starved, short_ms=short,
        contention_ms=0, contention={}, waits={}, preempted_from=preempted, preempted_for=0)


def big_tree(parents: int = 20, leaves: int = 50) -> list[QueueSummary]:
    found = [queue("root", leaf=False)]
    for p in range(parents):
        found.append(queue(f"root.p{p}", leaf=False, starved=10**9, preempted=10**6))
        found += [queue(f"root.p{p}.l{x}") for x in range(leaves)]
    return found


def test_a_small_tree_is_charted_whole_in_tree_order() -> None:
    queues = [queue("root", leaf=False), queue("root.a"), queue("root.b", leaf=False),
              queue("root.b.c")]
    choice = choose_queues(queues)
    assert [c.queue.name for c in choice.charted] == ["root.a", "root.b", "root.b.c"]
    assert choice.left_out == () and choice.whole_tree


def test_a_big_tree_charts_twelve_leaves_taking_turns_between_the_rankings() -> None:
    queues = big_tree()
    by_name = {q.name: i for i, q in enumerate(queues)}

    def set_(name: str, **values: int) -> None:
        queues[by_name[name]] = replace(queues[by_name[name]], **values)

    for rank, leaf in enumerate(["root.p0.l1", "root.p3.l7", "root.p9.l9", "root.p5.l0"]):
        set_(leaf, starved_ms=1000 * (10 - rank))
    for rank, leaf in enumerate(["root.p1.l1", "root.p0.l1", "root.p8.l8"]):
        set_(leaf, preempted_from=100 - rank)
    for rank, leaf in enumerate(["root.p2.l2", "root.p7.l3"]):
        set_(leaf, short_ms=500 - rank)
    for rank in range(20):
        set_(f"root.p19.l{rank}", usage=replace(queues[0].usage, memory_mb=1000.0 - rank))
    choice = choose_queues(queues)
    reasons = {c.queue.name: c.reason.split(" (")[0] for c in choice.charted}
    assert len(choice.charted) == MAX_CHARTED
    # round 1: p0.l1 (most starved), p1.l1 (most preempted: p0.l1 is taken), p2.l2 (short);
    # round 2: p3.l7, p0.l1 again (taken), p7.l3; round 3: p9.l9, p8.l8; round 4: p5.l0;
    # then the three busiest fill the twelve
    assert reasons == {
        "root.p0.l1": "most starved", "root.p1.l1": "most preempted",
        "root.p2.l2": "longest short of its fair-share threshold",
        "root.p3.l7": "most starved", "root.p7.l3": "longest short of its fair-share threshold",
        "root.p9.l9": "most starved", "root.p8.l8": "most preempted",
        "root.p5.l0": "most starved", "root.p19.l0": "busiest", "root.p19.l1": "busiest",
        "root.p19.l2": "busiest", "root.p19.l3": "busiest"}
    assert [c.queue.name for c in choice.charted] == sorted(
        reasons, key=lambda n: by_name[n])  # tree order
    assert all(c.queue.leaf for c in choice.charted)  # parents would win every ranking
    assert len(choice.left_out) == 1020 - MAX_CHARTED and not choice.whole_tree


def test_nothing_to_show_charts_fewer() -> None:
    choice = choose_queues(big_tree(2, 10))
    assert choice.charted == () and len(choice.left_out) == 22


@pytest.fixture(scope="module")
def big_tree_page(big_tree_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_report(big_tree_run, tmp_path_factory.mktemp("big") / "report.html")[0]


def test_the_page_charts_the_interesting_leaves_and_lists_the_rest(big_tree_page: Path,
                                                                   big_tree_run: Path) -> None:
    summary = json.loads((big_tree_run / "summary.json").read_text())["queues"]
    names = [n for n in summary if n != "root"]
    leaves = [n for n in names if not any(o.startswith(n + ".") for o in names)]
    interesting = [n for n in leaves if summary[n]["time-starved-ms"]
                   or summary[n]["containers-preempted-from"]
                   or summary[n]["containers-preempted-for"]
                   or summary[n]["time-short-of-fair-share-threshold-ms"]
                   or summary[n]["usage"]["memory-mb"]]
    assert 0 < len(interesting) <= MAX_CHARTED  # the scenario is made so
    doc = parse(big_tree_page)
    charted = doc.xpath("//section[@id='queues']//article/@data-queue")
    assert charted == interesting
    left_out = doc.xpath("//section[@id='queues']//details")[0].text_content()
    assert f"{len(names) - len(charted)} queues left out" in left_out
    for name in names:
        assert (name in left_out) == (name not in charted)
    # the tuning table still has every queue
    assert len(doc.xpath("//table[@class='tuning']//tr[@data-queue]")) == len(summary)
