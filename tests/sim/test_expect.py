"""The expectation matcher on hand-written snapshot entries, and the snapshot field list."""

from __future__ import annotations

from typing import Any

import pytest

from fairshare.sim.parse.expect import SNAPSHOT_FIELDS, Kind, Mismatch, check, validate_expectation

APP: dict[str, Any] = {
    "queue": "root.a",
    "user": "alice",
    "state": "running",
    "runnable": True,
    "am-running": True,
    "usage": {"memory-mb": 2048, "vcores": 2, "yarn.io/gpu": 0},
    "live-containers": 2,
    "fairshare-starvation": {"memory-mb": 0, "vcores": 0},
    "rejection-reason": None,
}
CLUSTER: dict[str, Any] = {"utilization": 0.5, "apps-running": 3, "allocated": {"memory-mb": 8192,
                                                                                "vcores": 4}}
NODE: dict[str, Any] = {
    "rack": "/default-rack",
    "earmarked": {"starving": {"memory-mb": 4096, "vcores": 1}},
    "reserved-by": None,
}


@pytest.mark.parametrize(
    ("fields", "actual"),
    [
        pytest.param({"live-containers": 2}, APP, id="an exact number"),
        pytest.param({"live-containers": 2.0}, APP, id="an int equals the same float"),
        pytest.param({"usage": {"memory-mb": {"at-least": 2048}}}, APP, id="at-least, boundary"),
        pytest.param({"usage": {"memory-mb": {"at-most": 4096}}}, APP, id="at-most"),
        pytest.param({"apps-running": {"at-least": 1, "at-most": 3}}, CLUSTER, id="a range"),
        pytest.param({"utilization": {"approx": 0.75, "tol": 0.25}}, CLUSTER,
                     id="approx within tolerance, boundary"),
        pytest.param({"usage": {"memory-mb": 2048}}, APP, id="a resource compares only the keys "
                                                             "given"),
        pytest.param({"usage": {"yarn.io/gpu": 0}}, APP, id="a custom resource type"),
        pytest.param({"state": "running", "queue": "root.a"}, APP, id="strings"),
        pytest.param({"runnable": True}, APP, id="a boolean"),
        pytest.param({"rejection-reason": None}, APP, id="null matches null"),
        pytest.param({"earmarked": {"starving": {"memory-mb": 4096}}}, NODE,
                     id="a nested map compares only the keys given"),
        pytest.param({"earmarked": {"starving": {"vcores": {"at-most": 1}}}}, NODE,
                     id="a matcher inside a nested map"),
        pytest.param({}, APP, id="no fields"),
    ],
)
def test_matching_fields_give_no_mismatch(fields: dict[str, Any], actual: dict[str, Any]) -> None:
    assert check(fields, actual) == []


@pytest.mark.parametrize(
    ("fields", "actual", "expected"),
    [
        pytest.param({"live-containers": 3}, APP,
                     [Mismatch("live-containers", 3, 2)], id="a different number"),
        pytest.param({"usage": {"memory-mb": {"at-least": 3072}}}, APP,
                     [Mismatch("usage.memory-mb", {"at-least": 3072}, 2048)], id="below at-least"),
        pytest.param({"usage": {"vcores": {"at-most": 1}}}, APP,
                     [Mismatch("usage.vcores", {"at-most": 1}, 2)], id="above at-most"),
        pytest.param({"apps-running": {"at-least": 4, "at-most": 9}}, CLUSTER,
                     [Mismatch("apps-running", {"at-least": 4, "at-most": 9}, 3)],
                     id="outside a range"),
        pytest.param({"utilization": {"approx": 0.6, "tol": 0.05}}, CLUSTER,
                     [Mismatch("utilization", {"approx": 0.6, "tol": 0.05}, 0.5)],
                     id="approx outside tolerance"),
        pytest.param({"state": "finished"}, APP, [Mismatch("state", "finished", "running")],
                     id="a different string"),
        pytest.param({"runnable": 1}, APP, [Mismatch("runnable", 1, True)],
                     id="a number never equals a boolean"),
        pytest.param({"live-containers": True}, {"live-containers": 1},
                     [Mismatch("live-containers", True, 1)], id="a boolean never equals a number"),
        pytest.param({"reserved-by": "a1"}, NODE, [Mismatch("reserved-by", "a1", None)],
                     id="a name where there is null"),
        pytest.param({"live-containers": {"at-least": 1}}, {"live-containers": None},
                     [Mismatch("live-containers", {"at-least": 1}, None)],
                     id="a matcher against a non-number"),
        pytest.param({"usage": {"memory-mb": 1}}, {"usage": 5},
                     [Mismatch("usage", {"memory-mb": 1}, 5)], id="a map against a number"),
        pytest.param({"demand": {"memory-mb": 1}}, APP,
                     [Mismatch("demand", {"memory-mb": 1}, None, absent=True)],
                     id="a field the snapshot lacks"),
        pytest.param({"usage": {"yarn.io/fpga": 1}}, APP,
                     [Mismatch("usage.yarn.io/fpga", 1, None, absent=True)],
                     id="a resource type the snapshot lacks"),
        pytest.param({"earmarked": {"other": {"memory-mb": 1024}}}, NODE,
                     [Mismatch("earmarked.other", {"memory-mb": 1024}, None, absent=True)],
                     id="an app without an earmark"),
        pytest.param({"earmarked": {"starving": {"memory-mb": 2048, "vcores": 1}}}, NODE,
                     [Mismatch("earmarked.starving.memory-mb", 2048, 4096)],
                     id="a wrong amount in a nested map"),
        pytest.param({"usage": {"memory-mb": 1, "vcores": 1}, "state": "killed"}, APP,
                     [Mismatch("usage.memory-mb", 1, 2048), Mismatch("usage.vcores", 1, 2),
                      Mismatch("state", "killed", "running")],
                     id="every mismatch, in the order written"),
    ],
)
def test_mismatches(fields: dict[str, Any], actual: dict[str, Any],
                    expected: list[Mismatch]) -> None:
    assert check(fields, actual) == expected


@pytest.mark.parametrize(
    ("mismatch", "text"),
    [
        (Mismatch("usage.memory-mb", {"at-least": 3072}, 2048),
         "usage.memory-mb: expected at least 3072, got 2048"),
        (Mismatch("usage.vcores", {"at-most": 1}, 2), "usage.vcores: expected at most 1, got 2"),
        (Mismatch("n", {"at-least": 1, "at-most": 3}, 5),
         "n: expected at least 1 and at most 3, got 5"),
        (Mismatch("utilization", {"approx": 0.6, "tol": 0.05}, 0.5),
         "utilization: expected 0.6 ± 0.05, got 0.5"),
        (Mismatch("state", "finished", "running"), "state: expected 'finished', got 'running'"),
        (Mismatch("runnable", True, None), "runnable: expected true, got null"),
        (Mismatch("earmarked.b", {"memory-mb": 1024}, None, absent=True),
         "earmarked.b: expected {memory-mb: 1024}, but it is absent"),
        (Mismatch("usage", {"memory-mb": {"at-least": 1}}, 5),
         "usage: expected {memory-mb: at least 1}, got 5"),
    ],
)
def test_describe(mismatch: Mismatch, text: str) -> None:
    assert mismatch.describe() == text


def test_snapshot_fields_include_the_contracts() -> None:
    contract = {
        "cluster": {"capacity", "allocated", "reserved", "utilization", "apps-submitted",
                    "apps-running", "apps-pending", "apps-completed", "containers-allocated"},
        "queues": {"type", "policy", "weight", "preemptable", "dynamic", "steady-fair-share",
                   "fair-share", "min-share", "max-share", "usage", "demand", "reserved",
                   "am-usage", "max-am-share", "max-am-share-fraction", "num-active-apps",
                   "num-pending-apps", "num-runnable-apps", "num-non-runnable-apps",
                   "containers-preempted", "min-share-starved-since-ms"},
        "apps": {"queue", "user", "state", "runnable", "am-running", "usage", "demand",
                 "fair-share", "live-containers", "reserved-containers", "fairshare-starvation",
                 "minshare-starvation", "starved", "to-be-preempted", "preempted-containers",
                 "preempted-am-containers", "rejection-reason"},
        "nodes": {"rack", "capacity", "allocated", "unallocated", "containers", "am-containers",
                  "reserved-by", "earmarked"},
    }
    for section, fields in contract.items():
        assert fields <= set(SNAPSHOT_FIELDS[section]), section
    assert SNAPSHOT_FIELDS["nodes"]["earmarked"] is Kind.RESOURCES_BY_APP
    assert SNAPSHOT_FIELDS["queues"]["fair-share"] is Kind.RESOURCE


def test_validated_fields_feed_check() -> None:
    expectation, problems = validate_expectation(
        {"app": "a1", "usage": {"memory-mb": {"at-least": 1024}}, "state": "running"})
    assert problems == []
    assert expectation is not None
    assert (expectation.subject_kind, expectation.subject) == ("app", "a1")
    assert check(expectation.fields, APP) == []
