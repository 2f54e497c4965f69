"""``explain`` in causal order (issue 30, item 9) and what it lists (item 8): statements at
one instant follow the events' order, none is told twice, a starvation capped by demand says
so, a promotion names the app that left; ``--app`` lists its containers; an unknown name gets
"did you mean" and the names there are."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from tests.sim import waiting_scenarios as w
from tests.workbench.test_explain import events_of, explain, simulate

runner = CliRunner()


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulate(tmp_path_factory.mktemp("seed") / "out")


def scenario_run(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return simulate(tmp_path / "out", path)


def test_at_one_instant_the_events_order_is_kept_and_nothing_is_told_twice(seed: Path) -> None:
    """At 80 s the victim is killed (its container-preempted) and then adhoc's AM is placed on
    the freed space; at 90 s the two victims are warned before the round reports the third
    container it could not find; at 105 s the first task takes one earmarked container, and
    one more is placed: the first task is not told again as an earmarked placement."""
    statements = explain(seed, "--app", "adhoc")["statements"]
    firsts = [(s["t"], min(s["seq"])) for s in statements if s["t"] is not None and s["seq"]]
    assert firsts == sorted(firsts)
    texts = [s["text"] for s in statements]
    assert len(texts) == len(set(texts))
    cited = [seq for s in statements if not s["text"].startswith("Its containers")
             for seq in s["seq"]]
    placements = {seq for seq, e in events_of(seed).items()
                  if e["type"] == "container-allocated" and e["app"] == "adhoc"}
    assert all(cited.count(seq) == 1 for seq in placements if seq in cited)
    at_80 = [t for s, t in zip(statements, texts, strict=True) if s["t"] == 80_000]
    assert at_80[0].startswith("1 of them killed") and at_80[1].startswith("Its AM container")
    at_105 = [t for s, t in zip(statements, texts, strict=True) if s["t"] == 105_000]
    assert at_105[-1] == "1 more container(s) placed for it on the earmarked space."


def test_a_starvation_capped_by_demand_says_so(tmp_path: Path) -> None:
    """PREEMPTED at 15 s: a1 asks for its 1 GB AM only; 0.8 × its 2 GB share is 1,638 MB,
    more than its 1 GB demand, so it is starved for 1,024 MB (demand − usage 0). At 40 s its
    demand is 2 GB: starved for 1,638 − 1,024 = 614 MB, not capped."""
    out = scenario_run(tmp_path, w.PREEMPTED)
    starved = [s for s in explain(out, "--app", "a1")["statements"]
               if s["text"].startswith("Found fair-share starved")]
    assert starved[0]["t"] == 15_000
    assert "the amount is capped by its demand (memory 1,024 MB)" in starved[0]["text"]
    assert all("capped" not in s["text"] for s in starved[1:])


def test_a_promotion_names_the_app_that_left(tmp_path: Path) -> None:
    out = scenario_run(tmp_path, w.MAX_RUNNING_APPS)
    statements = explain(out, "--app", "a2")["statements"]
    promoted = next(s for s in statements if s["text"].startswith("Made runnable"))
    finished = next(e for e in events_of(out).values()
                    if e["type"] == "app-finished" and e["app"] == "a1")
    assert promoted["t"] == 32_000 and finished["seq"] in promoted["seq"]
    assert promoted["text"] == ("Made runnable when a1 left (finished): the limit that held it "
                                "had room again.")
    assert not any("utilization gate" in s["text"] for s in statements)


def test_an_app_lists_its_containers(seed: Path) -> None:
    placed = [e["container"] + (" (AM)" if e["am"] else "") for e in events_of(seed).values()
              if e["type"] == "container-allocated" and e["app"] == "adhoc"]
    last = explain(seed, "--app", "adhoc")["statements"][-1]
    assert last["text"] == f"Its containers ({len(placed)}): {', '.join(placed)}."


def test_an_unknown_queue_gets_the_closest_and_the_list(seed: Path) -> None:
    """root.tenant1…3 are each one letter from root.tenant4; difflib breaks the tie by the
    greater name: root.tenant3."""
    result = runner.invoke(app, ["explain", str(seed), "--queue", "root.tenant4"])
    assert result.exit_code == 2
    assert result.output.strip() == (
        "--queue root.tenant4: no queue root.tenant4 in this run; did you mean root.tenant3? "
        "The run's queues: root, root.default, root.tenant1, root.tenant2, root.tenant3.")
    far = runner.invoke(app, ["explain", str(seed), "--app", "zzz"])
    assert far.output.strip() == ("--app zzz: no app zzz in this run. The run's apps: etl, "
                                  "reports, adhoc.")
