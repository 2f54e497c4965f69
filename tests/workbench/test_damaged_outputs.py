"""The tools that read a run — explain, compare, report — given a damaged run: every answer is
an answer (exit 0) or one located line (exit 2), never a traceback, and a refused report
writes nothing. The damage is random (hypothesis): a key removed or given another kind of
value in a line of ``events.jsonl`` or in ``summary.json``, a line dropped, cut short or
doubled, text in place of a row of ``timeline.csv``."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairshare.cli.main import app
from tests.workbench.test_explain import runner, simulate

RANDOM = "FAIRSHARE_PROPERTY_RANDOM"  # set: fresh cases; unset: the same cases every run
ODD_VALUES = (None, "x", "", -1, 0, 1.5, 1e308, True, [], {}, [1], {"memory-mb": "x"})


@pytest.fixture(scope="module")
def seed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulate(tmp_path_factory.mktemp("damaged") / "seed")


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path in a JSON value (objects and lists, leaves included)."""
    found = [here] if here else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*here, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:3]):
            found += _paths(inner, (*here, index))
    return found


def _damage_json(doc: Any, draw: Callable[..., Any]) -> tuple[Any, str]:
    path = draw(st.sampled_from(_paths(doc)))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[path[-1]]
        return doc, f"{path} removed"
    parent[path[-1]] = draw(st.sampled_from(ODD_VALUES))
    return doc, f"{path} = {parent[path[-1]]!r}"


@st.composite
def damage(draw: Callable[..., Any]) -> Callable[[Path], str]:
    target = draw(st.sampled_from(["events-value", "events-line", "summary", "timeline"]))

    def apply(out: Path) -> str:
        """Damages the run in ``out``; says how."""
        if target == "summary":
            doc, said = _damage_json(json.loads((out / "summary.json").read_text()), draw)
            (out / "summary.json").write_text(json.dumps(doc))
            return f"summary.json: {said}"
        name = "timeline.csv" if target == "timeline" else "events.jsonl"
        lines = (out / name).read_text().splitlines()
        i = draw(st.integers(0, len(lines) - 1))
        if target == "events-value":
            doc, said = _damage_json(json.loads(lines[i]), draw)
            lines[i] = json.dumps(doc)
        else:
            how = draw(st.sampled_from(["drop", "cut", "double", "text"]))
            if how == "drop":
                del lines[i]
            elif how == "cut":
                lines[i] = lines[i][: draw(st.integers(0, max(len(lines[i]) - 1, 0)))]
            elif how == "double":
                lines.insert(i, lines[i])
            else:
                lines[i] = draw(st.sampled_from(["oops", "{}", "[]", "1,2,3", "\x00"]))
            said = how
        (out / name).write_text("\n".join(lines) + "\n")
        return f"{name} line {i + 1}: {said}"

    return apply


COMMANDS: dict[str, Callable[[Path, Path, Path], list[str]]] = {
    "explain-app": lambda out, seed, tmp: ["explain", str(out), "--app", "adhoc"],
    "explain-queue": lambda out, seed, tmp: ["explain", str(out), "--queue", "root.tenant3"],
    "explain-container": lambda out, seed, tmp: [
        "explain", str(out), "--container", "container_etl_01_000002", "--json"],
    "compare": lambda out, seed, tmp: ["compare", str(seed), str(out), "--json"],
    "report": lambda out, seed, tmp: ["report", str(out), "-o", str(tmp / "page.html"), "-q"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@settings(max_examples=25, deadline=None, derandomize=not os.environ.get(RANDOM),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_run_is_answered_or_refused_at_its_place(
        command: str, seed_run: Path, tmp_path: Path, data: st.DataObject) -> None:
    case = tmp_path / f"case{len(list(tmp_path.iterdir()))}"
    out, page = case / "out", case / "page"
    shutil.copytree(seed_run, out)
    page.mkdir()
    said = data.draw(damage())(out)
    result = runner.invoke(app, COMMANDS[command](out, seed_run, page))
    assert result.exit_code in (0, 2), (said, result.output, repr(result.exception))
    if result.exit_code == 2:
        [line] = result.output.strip().splitlines()
        assert line.startswith(str(out)), line  # located: the damaged file (and line)
        assert list(page.iterdir()) == []  # a refused report writes nothing
