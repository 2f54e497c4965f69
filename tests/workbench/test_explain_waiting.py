"""``fairshare explain --queue`` and the report's advice name what held a queue (issue 30: on
a real cluster both sent the admin to tune preemption for a queue held by maxRunningApps)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from fairshare.cli.main import app
from tests.report.conftest import invoke_report, parse
from tests.sim import waiting_scenarios as w

runner = CliRunner()


def simulate(tmp_path: Path, text: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    scenario = tmp_path / "s.yaml"
    scenario.write_text(text)
    out = tmp_path / "out"
    result = runner.invoke(app, ["simulate", str(scenario), "-q", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def queue_texts(out: Path, queue: str = "root.a") -> list[dict[str, Any]]:
    result = runner.invoke(app, ["explain", str(out), "--queue", queue, "--json"])
    assert result.exit_code == 0, result.output
    statements: list[dict[str, Any]] = json.loads(result.output)["statements"]
    return statements


PREEMPTION_WORDS = ("more aggressive preemption is what", "shorten the timeout",
                    "fairSharePreemptionTimeout", "waitTimeBeforeKill", "turn preemption on")


def test_a_queue_held_by_max_running_apps_is_told_so_and_not_sent_to_preemption(
        tmp_path: Path) -> None:
    """a2 was held not runnable for 32 s of the 35 s its queue's apps waited
    (tests/sim/test_waiting.py works the times out): 91 %, with its app-not-runnable."""
    out = simulate(tmp_path, w.MAX_RUNNING_APPS)
    said = queue_texts(out)
    texts = [s["text"] for s in said]
    held = next(s for s in said if "maxRunningApps of root.a = 1" in s["text"]
                and s["text"].startswith("91%"))
    assert held["text"] == ("91% (32.0 s): held by the queue's maxRunningApps (apps held not "
                            "runnable) — maxRunningApps of root.a = 1.")
    events = {json.loads(x)["seq"]: json.loads(x)
              for x in (out / "events.jsonl").read_text().splitlines()}
    assert [events[s]["type"] for s in held["seq"]] == ["app-not-runnable"]
    advice = [t for t in texts if t.startswith("What would help")]
    assert advice == ["What would help (91% of the wait): raise the queue's maxRunningApps "
                      "(maxRunningApps of root.a = 1), or spread the apps over queues: its "
                      "apps were held not runnable, and preemption does not change that."]
    assert "More aggressive preemption would not have helped: what held the queue is above." \
        in texts
    assert not any(word in t for t in advice for word in PREEMPTION_WORDS)
    # the report: the same advice, and no preemption advice for root.a
    code, _, _ = invoke_report(str(out), "-q")
    assert code == 0
    [item] = parse(out / "report.html").xpath("//ul[@class='advice']/li[@data-queue='root.a']")
    assert (item.get("data-cause"), item.get("data-preemption")) == (
        "max-running-apps", "false")
    text = item.text_content()
    assert "91% the queue's maxRunningApps" in text and "maxRunningApps of root.a = 1" in text
    assert "More aggressive preemption would not have helped." in text
    assert not any(word in text for word in PREEMPTION_WORDS)


def test_preemption_is_advised_where_the_waiting_was_preemptions(tmp_path: Path) -> None:
    """PREEMPTED: 24 s of a round's waits and 22 s of a starvation under one container, of
    52 s (tests/sim/test_waiting.py)."""
    out = simulate(tmp_path, w.PREEMPTED)
    advice = [s["text"] for s in queue_texts(out) if s["text"].startswith("What would help")]
    assert advice == [
        "What would help (46% of the wait): shorten the waits around a round "
        "(waitTimeBeforeKill = 15.0 s, waitTimeBeforeNextStarvationCheck = 10.0 s): the queue "
        "waited between rounds.",
        "What would help (42% of the wait): raise the threshold towards 1 "
        "(fairSharePreemptionThreshold of root.a = 0.8): the starvation it allowed was less "
        "than one container, so no round could free one."]
    code, _, _ = invoke_report(str(out), "-q")
    assert code == 0
    [item] = parse(out / "report.html").xpath("//ul[@class='advice']/li[@data-queue='root.a']")
    assert item.get("data-preemption") == "true"


def test_each_limit_is_named_with_its_setting_and_value(tmp_path: Path) -> None:
    for i, (text, limit) in enumerate([
            (w.USER_MAX_APPS, "maxRunningApps of user u = 1"),
            (w.MAX_AM_SHARE, "maxAMShare of root.a = 0.15"),
            (w.MAX_SHARE, "maxResources of root.a = 2,048 MB, 8 vcores"),
            (w.MAX_CONTAINER_ALLOCATION, "maxContainerAllocation of root.a = 2,048 MB, 2 vcores"),
            (w.NON_PREEMPTABLE, "allowPreemptionFrom of the queues holding the cluster")]):
        out = simulate(tmp_path / str(i), text)
        texts = [s["text"] for s in queue_texts(out)]
        [first] = [t for t in texts if t.startswith("What would help")][:1]
        assert limit in first, (limit, texts)
        assert "More aggressive preemption would not have helped: what held the queue is " \
               "above." in texts


def test_a_summary_without_waiting_is_refused_naming_it(tmp_path: Path) -> None:
    """Schema 1 has ``waiting`` for every queue: one without is a damaged summary."""
    out = simulate(tmp_path, w.MAX_RUNNING_APPS)
    summary = json.loads((out / "summary.json").read_text())
    for q in summary["queues"].values():
        del q["waiting"]
    (out / "summary.json").write_text(json.dumps(summary))
    result = runner.invoke(app, ["explain", str(out), "--queue", "root.a"])
    assert result.exit_code == 2
    assert " ".join(result.output.split()) == (
        f"{out / 'summary.json'}: not a fairshare summary (docs/outputs.md): "
        "queues.root.waiting: missing")


def test_a_damaged_waiting_is_the_summarys_error(tmp_path: Path) -> None:
    out = simulate(tmp_path, w.MAX_RUNNING_APPS)
    summary = json.loads((out / "summary.json").read_text())
    summary["queues"]["root.a"]["waiting"] = {"app-ms": "soon", "causes": []}
    (out / "summary.json").write_text(json.dumps(summary))
    result = runner.invoke(app, ["explain", str(out), "--queue", "root.a"])
    assert result.exit_code == 2 and "summary.json" in result.output
    code, _, err = invoke_report(str(out), "-q")
    assert code == 2 and "waiting" in err
