"""Apps held not runnable are drawn on their queue's chart (report/held.py)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.report.events import load_events
from fairshare.report.held import HeldApps, held_below
from tests.report.conftest import invoke_report, parse
from tests.sim import waiting_scenarios as w

runner = CliRunner()


def test_the_held_span_runs_from_not_runnable_to_promotion(tmp_path: Path) -> None:
    """MAX_RUNNING_APPS: a2 is held from its submission at 0 to a1's end at 32 s."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(w.MAX_RUNNING_APPS)
    out = tmp_path / "out"
    assert runner.invoke(app, ["simulate", str(scenario), "-q", "-o", str(out)]).exit_code == 0
    events = load_events(out, 63_000)
    assert dict(events.held) == {"root.a": ((0, 32_000),)}
    assert held_below(events.held, "root") == ((0, 32_000),)
    assert held_below(events.held, "root.b") == ()
    code, _, _ = invoke_report(str(out), "-q")
    assert code == 0
    page = parse(out / "report.html")
    [article] = page.xpath("//article[@data-queue='root.a']")
    assert "apps held not runnable (1)" in article.text_content()
    [other] = page.xpath("//article[@data-queue='root.b']")
    assert "apps held not runnable" not in other.text_content()


def test_an_app_still_held_at_the_end_is_held_to_the_end() -> None:
    held = HeldApps()
    held.take({"type": "app-not-runnable", "app": "x", "queue": "root.q", "t": 5})
    held.take({"type": "app-not-runnable", "app": "y", "queue": "root.q", "t": 7})
    held.take({"type": "app-finished", "app": "y", "queue": "root.q", "t": 9})
    held.take({"type": "app-runnable", "app": "z", "queue": "root.q", "t": 9})
    assert held.close(100) == {"root.q": ((5, 100), (7, 9))}
