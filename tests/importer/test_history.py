"""``workload from-apps``: an apps.json history as a CSV workload (numbers worked out by hand
from the fixture dump's apps; see the module doc of fairshare.sim.importer.history)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.history import history_of, write_csv
from fairshare.sim.sources import load_csv

APPS = Path(__file__).parent / "dumps" / "basic" / "apps.json"


def test_each_app_keeps_its_start_queue_user_and_memory_time(tmp_path: Path) -> None:
    history = history_of(APPS)
    rows = {a.id[-4:]: (a.at_ms, a.queue, a.user, a.am, a.tasks[0].count,
                        a.tasks[0].resources, a.tasks[0].duration_ms) for a in history.apps}
    one_gb = {"memory-mb": 1024, "vcores": 1}
    assert rows == {
        # finished: 307,200 MB·s over 60 s, less its AM's 1024 MB × 60 s → 4 tasks of 1 GB
        "0000": (0, "root.default", "dave", one_gb, 4, one_gb, 60_000),
        # running: 9216 MB over 5 containers → 1843 MB each; (2,457,600 − 1024 × 300) MB·s
        # over 300 s × 1843 MB → 3.89 → 4 tasks
        "0001": (99_500, "root.etl", "alice", one_gb, 4, {"memory-mb": 1843, "vcores": 1},
                 300_000),
        # 4096 MB over 3 → 1365 MB; (819,200 − 1024 × 200) / (200 × 1365) = 2.25 → 2
        "0002": (199_500, "root.analytics.adhoc", "bob", one_gb, 2,
                 {"memory-mb": 1365, "vcores": 1}, 200_000),
    }
    assert history.left_out == ["application_1700000000000_0003 (held nothing)"]


def test_the_csv_reads_back_as_the_same_workload(tmp_path: Path) -> None:
    history = history_of(APPS, container=(2048, 2))
    out = tmp_path / "apps.csv"
    write_csv(history, out)
    again = load_csv(out, str(out))
    assert [(a.id, a.at_ms, a.queue, a.user, a.am, a.tasks) for a in again] == [
        (a.id, a.at_ms, a.queue, a.user, a.am, a.tasks) for a in history.apps]
    assert history.apps[0].tasks[0].resources == {"memory-mb": 2048, "vcores": 2}


def test_a_malformed_history_is_located_and_nothing_is_written(tmp_path: Path) -> None:
    bad = tmp_path / "apps.json"
    app = {"id": "a", "user": "u", "queue": "q", "state": "FINISHED",
           "startedTime": "yesterday"}
    bad.write_text(json.dumps({"apps": {"app": [app]}}, indent=1))
    with pytest.raises(ConfigError) as e:
        history_of(bad)
    assert e.value.message.startswith("apps.app[0].startedTime: must be a non-negative")
    assert e.value.line == 9  # the line of "startedTime"
    with pytest.raises(ConfigError) as e:
        history_of(APPS.parent / "nodes.json")  # the wrong file
    assert e.value.message == "missing field 'apps'"


def test_nothing_to_replay_writes_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "apps.json"
    empty.write_text('{"apps": null}')
    out = tmp_path / "apps.csv"
    with pytest.raises(ConfigError) as e:
        write_csv(history_of(empty), out)
    assert "nothing to write" in str(e.value) and not out.exists()
