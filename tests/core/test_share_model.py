"""The batched fair-share path gives exactly the reference results (spec §2.3–§2.7)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshare.config.model import AllocationConfig, PolicyName, QueueConfig
from fairshare.core.fairshare import AppShareInput, FairShares, compute_instantaneous_fair_shares
from fairshare.core.fast_shares import java_long_array, sat_multiply, sat_segment_sum
from fairshare.core.share_model import ShareModel
from fairshare.core.tree import build_queue_tree
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import (
    DEFAULT_TYPES,
    LONG_MAX,
    ResourceTypes,
    float32,
    java_long,
    res,
)
from tests.core.builders import apps, queue, tree

# Ordinary weights plus every awkward float YARN can be given (float32-rounded by the parser).
WEIGHTS = [0.0, 0.1, 0.5, 1.0, 1.0, 2.0, 3.3]
ODD_WEIGHTS = [-1.0, -0.0, float("nan"), float("inf"), 1e-40, 1e-30, 1e30]
MINS = [0, 0, 10, 3000, 2**40, 2**62, LONG_MAX]
MAXES = [0, 1, 5000, 60000, 2**62, LONG_MAX]


@st.composite
def configs(draw: st.DrawFn) -> AllocationConfig:
    n_types = 2  # three types are covered by test_three_resource_types_match_reference
    queues: list[QueueConfig] = []

    def children(prefix: str, depth: int) -> None:
        for i in range(draw(st.integers(1, 4))):
            name = f"{prefix}.q{i}"
            is_parent = depth < 3 and draw(st.booleans())
            policies = [PolicyName.DRF, PolicyName.FAIR]
            if not is_parent:
                policies.append(PolicyName.FIFO)
            max_res = draw(st.sampled_from(["none", "abs", "pct"]))
            max_share = None
            if max_res == "abs":
                vals = draw(st.lists(st.sampled_from(MAXES), min_size=n_types, max_size=n_types))
                max_share = ConfigurableResource(absolute=res(*vals))
            elif max_res == "pct":
                pcts = draw(st.lists(st.sampled_from([0.0, 0.333, 0.5, 1.0, 2.0]),
                                     min_size=n_types, max_size=n_types))
                max_share = ConfigurableResource(percentages=tuple(pcts))
            mins = draw(st.lists(st.sampled_from(MINS), min_size=n_types, max_size=n_types))
            weight = draw(st.sampled_from(WEIGHTS + ODD_WEIGHTS))
            queues.append(QueueConfig(
                name, is_parent, weight=float32(weight),
                min_resources=res(*mins), max_resources=max_share,
                scheduling_policy=draw(st.sampled_from(policies)),
            ))
            if is_parent:
                children(name, depth + 1)

    children("root", 1)
    return AllocationConfig(queues=tuple(queues), default_scheduling_policy=PolicyName.DRF,
                            has_file=True)


@settings(max_examples=150, deadline=None)
@given(configs(), st.data())
def test_batched_path_matches_reference(config: AllocationConfig, data: st.DataObject) -> None:
    t = build_queue_tree(config, DEFAULT_TYPES)
    runnable: dict[str, list[AppShareInput]] = {}
    for leaf in t.leaves():
        n = data.draw(st.integers(0, 4))
        runnable[leaf.name] = [
            AppShareInput(f"{leaf.name}/{k}", data.draw(st.integers(0, 3)),
                          float32(data.draw(st.sampled_from(WEIGHTS + ODD_WEIGHTS))))
            for k in range(n)
        ]
    cluster = res(data.draw(st.sampled_from([0, 1000, 200_000, 2**62, LONG_MAX])),
                  data.draw(st.sampled_from([0, 7, 200, LONG_MAX])))
    previous = FairShares(
        {q.name: res(data.draw(st.integers(0, 9)), data.draw(st.integers(0, 9))) for q in t},
        {a.app_id: res(7, 7) for apps_ in runnable.values() for a in apps_},
    )
    expected = compute_instantaneous_fair_shares(t, cluster, runnable, previous)
    actual = ShareModel(t, runnable).compute(cluster, previous).to_fair_shares()
    assert actual == expected


def test_three_resource_types_match_reference() -> None:
    gpu = ResourceTypes.with_custom(["yarn.io/gpu"])
    t = tree(
        queue("root.a", weight=2, min_share=res(0, 0, 1)),
        queue("root.b", max_share=res(10**6, 10**6, 1)),
        queue("root.c", policy="fair"),
        queue("root.default", min_share=res(0, 0, 0)),
        default_policy="drf",
        types=gpu,
    )
    runnable = {"root.a": apps("a1", "a2"), "root.b": apps("b1"), "root.c": apps("c1", "c2")}
    cluster = res(30000, 30, 7)
    expected = compute_instantaneous_fair_shares(t, cluster, runnable)
    assert ShareModel(t, runnable).compute(cluster).to_fair_shares() == expected
    assert expected.queues["root.b"].values[2] == 1  # capped by its max of 1 GPU


def test_java_long_array_matches_scalar_cast() -> None:
    xs = [float("nan"), float("inf"), -float("inf"), 1e19, -1e19, 2.7, -2.7, 0.0, 4.5e15]
    assert java_long_array(np.array(xs)).tolist() == [java_long(x) for x in xs]


def test_saturating_segment_sums() -> None:
    values = np.array([LONG_MAX, 1, 5, 7, 2**62, 2**62, 2**62], dtype=np.int64)
    starts = np.array([0, 2, 4], dtype=np.int64)
    assert sat_segment_sum(values, starts).tolist() == [LONG_MAX, 12, LONG_MAX]
    exact = np.array([2**61, 2**61, 2**61], dtype=np.int64)  # 3·2^61 < 2^63: no saturation
    assert sat_segment_sum(exact, np.array([0], dtype=np.int64)).tolist() == [3 * 2**61]


def test_saturating_multiply() -> None:
    counts = np.array([3, 2, 5], dtype=np.int64)
    values = np.array([2**61, 2**62, 7], dtype=np.int64)
    assert sat_multiply(counts, values).tolist() == [3 * 2**61, LONG_MAX, 35]
