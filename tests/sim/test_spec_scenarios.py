"""Behaviours that are "easy to get wrong" (docs/semantics.md §8.3), one scripted scenario each.

Every ``tests/scenarios/*.yaml`` file states, in its comments, the rules of docs/semantics.md it
exercises and the hand arithmetic behind each expected number; here we only run it through the
library and require every ``expect`` step to hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run.scripted import run_scenario

SCENARIOS = sorted((Path(__file__).resolve().parents[1] / "scenarios").glob("*.yaml"))


def test_there_are_scenarios() -> None:
    assert SCENARIOS, "tests/scenarios/*.yaml is empty"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_spec_scenario(path: Path) -> None:
    scenario = load_scenario(path)
    result = run_scenario(scenario)
    assert result.expectations > 0, f"{path.name} asserts nothing"
    message = "\n".join(f.describe(scenario.source) for f in result.failures)
    assert not result.failures, f"{len(result.failures)} expectation(s) failed:\n{message}"
