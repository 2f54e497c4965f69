"""The RM's hash-map order of apps and nodes against the recorded 3.4.2 answers, whose ids
and order are the real RM's (tests/watch/recorded/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairshare.server.rest.yarn_order import (
    application_id_hash,
    hash_map_order,
    node_id_hash,
    string_hash,
)

RECORDED = Path(__file__).resolve().parents[2] / "watch" / "recorded"


def test_string_hash_is_javas() -> None:
    # "hello".hashCode() and "".hashCode(), as Java computes them
    assert string_hash("hello") == 99162322
    assert string_hash("") == 0


@pytest.mark.parametrize("case", ["fair-churn", "fair-preempted", "fair-preempted-later",
                                  "capacity"])
def test_apps_come_in_the_recorded_order(case: str) -> None:
    listed = [a["id"] for a in json.loads((RECORDED / case / "apps.json").read_text())
              ["apps"]["app"]]
    by_submission = sorted(listed)

    def key(app_id: str) -> int:
        _, ts, n = app_id.split("_")
        return application_id_hash(int(ts), int(n))

    assert hash_map_order(by_submission, key) == listed


@pytest.mark.parametrize("case", ["fair-churn", "fair-preempted", "capacity"])
def test_nodes_come_in_the_recorded_order(case: str) -> None:
    listed = [n["id"] for n in json.loads((RECORDED / case / "nodes.json").read_text())
              ["nodes"]["node"]]

    def key(node_id: str) -> int:
        host, port = node_id.split(":")
        return node_id_hash(host, int(port))

    assert hash_map_order(sorted(listed), key) == listed


def test_the_table_doubles_at_three_quarters() -> None:
    # 12 keys fill a 16-bin table to its sizeCtl: they are spread over 32 bins
    def by_16(n: int) -> int:
        return n

    keys = list(range(12))
    assert hash_map_order([k * 16 for k in keys[:11]], by_16) == [k * 16 for k in keys[:11]]
    order = hash_map_order([k * 16 for k in keys], by_16)
    assert order == [k * 16 for k in keys if k % 2 == 0] + [k * 16 for k in keys if k % 2]
