"""The one reader of an RM's answers (web/answers.py): what a watcher's poll reads from a fake
RM over HTTP and what ``sample_of`` reads from the same texts are one sample; a bad answer is
the same located error either way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairshare.watch.client import RMClient
from fairshare.watch.poll import PollError, poll
from fairshare.web.answers import AnswerError, sample_of
from tests.watch.fake_rm import FakeRM, serving

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = [*sorted(p for p in (ROOT / "tests/watch/recorded").iterdir()
                   if p.is_dir() and p.name.startswith("fair")),
           *sorted((ROOT / "tests/importer/dumps").iterdir())]
NOW = 1_800_000_000_000


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_a_poll_and_sample_of_read_the_same_sample(folder: Path) -> None:
    with serving(FakeRM.from_folder(folder)) as fake, \
            RMClient([fake.url], sleep=lambda s: None) as client:
        result = poll(client, lambda: NOW, None)
    # every answer the poll was given, read again without the HTTP
    assert set(result.answers) == {"scheduler.json", "info.json", "apps.json",
                                   "finished-apps.json", "nodes.json", "metrics.json"}
    assert sample_of(result.answers, rm=result.sample.rm, time_ms=NOW) == result.sample


def answers(folder: Path) -> dict[str, str]:
    texts = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.json")
             if p.name in ("scheduler.json", "apps.json", "nodes.json")}
    texts["info.json"] = json.dumps({"clusterInfo": {"id": 1, "resourceManagerVersion": "3.4.2"}})
    texts["metrics.json"] = json.dumps({"clusterMetrics": {"appsSubmitted": 4}})
    return texts


def test_a_capacity_scheduler_is_told_as_such() -> None:
    texts = answers(ROOT / "docs/files/import/cs-dump")
    with pytest.raises(AnswerError) as caught:
        sample_of(texts, rm="http://rm:8088", time_ms=NOW)
    assert caught.value.kind == "capacity-scheduler"
    assert caught.value.endpoint == "/ws/v1/cluster/scheduler"
    assert "http://rm:8088/ws/v1/cluster/scheduler" in caught.value.message
    assert PollError is AnswerError  # a poll's errors are the reader's


def test_a_bad_field_and_a_page_are_located() -> None:
    texts = answers(ROOT / "docs/files/import/dump")  # an app's allocatedMB is "9G"
    with pytest.raises(AnswerError) as caught:
        sample_of(texts, rm="http://rm:8088", time_ms=NOW)
    assert caught.value.kind == "bad-field" and "allocatedMB" in caught.value.message
    texts = answers(ROOT / "tests/importer/dumps/basic")
    texts["nodes.json"] = "<html><head><title>Login required</title></head></html>"
    with pytest.raises(AnswerError) as caught:
        sample_of(texts, rm="http://rm:8088", time_ms=NOW)
    assert (caught.value.kind, caught.value.endpoint) == ("not-json", "/ws/v1/cluster/nodes")
    assert caught.value.message == ("http://rm:8088/ws/v1/cluster/nodes: the RM answered HTML, "
                                    "not JSON (an error page, or a proxy's or a login page?): "
                                    "Login required")
