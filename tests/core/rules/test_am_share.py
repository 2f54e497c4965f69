"""The maxAMShare check (docs/semantics.md §3.6.4, vector of §8.2)."""

from __future__ import annotations

import pytest

from fairshare.core.rules.am_share import (
    LeafAmView,
    am_check_disabled,
    can_run_app_am,
    max_am_resource,
)
from fairshare.resources.vector import LONG_MAX, Resource, float32, multiply_and_round_up, res

UNBOUNDED = res(LONG_MAX, LONG_MAX)
AVAILABLE = res(20_480, 12)


def leaf(
    *,
    fair_share: Resource = res(10_240, 0),
    max_share: Resource = UNBOUNDED,
    am_usage: Resource = res(0, 0),
    share: float = 0.5,
) -> LeafAmView:
    return LeafAmView(fair_share, max_share, am_usage, float32(share))


def test_am_limit_vector_uses_float32_share() -> None:
    # §8.2: ceil(10240 × 0.1f) = ceil(1024.0000153) = 1025 MB
    limit = max_am_resource(res(10_240, 0), UNBOUNDED, AVAILABLE, float32(0.1))
    assert limit.memory == 1025
    assert multiply_and_round_up(res(10_240, 0), 0.1).memory == 1024  # what a double would give


@pytest.mark.parametrize(
    ("fair_share", "max_share", "expected"),
    [
        pytest.param(res(10_240, 0), UNBOUNDED, res(5120, 6), id="zero vcores: cluster available"),
        pytest.param(res(10_240, 0), res(LONG_MAX, 4), res(5120, 2), id="zero vcores: max share"),
        pytest.param(res(0, 3), res(8192, 8), res(4096, 2), id="zero memory: max share"),
        pytest.param(res(0, 3), UNBOUNDED, res(10_240, 2), id="zero memory: cluster available"),
        pytest.param(res(2048, 3), res(1, 1), res(1024, 2), id="non-zero components kept"),
    ],
)
def test_zero_components_are_filled_before_rounding_up(
    fair_share: Resource, max_share: Resource, expected: Resource
) -> None:
    # YARN-5077 / YARN-9323: min(root available, max share) replaces a zero component
    assert max_am_resource(fair_share, max_share, AVAILABLE, float32(0.5)) == expected


def test_custom_types_are_filled_too() -> None:
    limit = max_am_resource(res(10_240, 2, 0), res(LONG_MAX, LONG_MAX, 4), res(0, 0, 8), 0.5)
    assert limit == res(5120, 1, 2)  # custom: ceil(min(8, 4) × 0.5)


def test_unbounded_max_vcores_go_through_the_int_view() -> None:
    huge = res(10_240, 0)
    available = res(0, 2**40)  # only reachable through the long; getVirtualCores saturates
    assert max_am_resource(huge, UNBOUNDED, available, 1.0).vcores == 2**31 - 1


@pytest.mark.parametrize(
    ("share", "disabled"),
    [
        pytest.param(-1.0, True, id="-1 disables"),
        pytest.param(-1.00005, True, id="within 1e-4 of -1"),
        pytest.param(-1.0002, False, id="beyond 1e-4"),
        pytest.param(0.5, False, id="a share"),
    ],
)
def test_minus_one_tolerance(share: float, disabled: bool) -> None:
    assert am_check_disabled(float32(share)) is disabled


def test_can_run_app_am_against_the_rounded_up_limit() -> None:
    q = leaf(share=0.1, am_usage=res(1024, 1))
    assert can_run_app_am(q, res(1, 0), AVAILABLE) is True  # 1025 ≤ 1025
    assert can_run_app_am(q, res(2, 0), AVAILABLE) is False


def test_can_run_app_am_tests_every_component() -> None:
    # fair policy: vcore limit = ceil(min(12, unbounded) × 0.5) = 6
    q = leaf(am_usage=res(1024, 5))
    assert can_run_app_am(q, res(1024, 1), AVAILABLE) is True
    assert can_run_app_am(q, res(1024, 2), AVAILABLE) is False


def test_disabled_check_admits_anything() -> None:
    q = leaf(share=-1.0, am_usage=res(10**9, 10**6))
    assert can_run_app_am(q, res(10**9, 10**6), AVAILABLE) is True
