"""Resource helpers with YARN's exact edge cases (docs/semantics.md §0.2)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshare.resources.vector import (
    DEFAULT_TYPES,
    INT_MAX,
    LONG_MAX,
    LONG_MIN,
    Resource,
    ResourceTypes,
    add,
    componentwise_max,
    componentwise_min,
    fits_in,
    float32,
    is_none,
    java_div,
    java_long,
    multiply,
    multiply_and_round_up,
    normalize,
    res,
    subtract,
    subtract_non_negative,
)

GPU = ResourceTypes.with_custom(["yarn.io/gpu"])


def test_none_and_unbounded_cover_every_type() -> None:
    assert GPU.none().values == (0, 0, 0)
    assert GPU.unbounded().values == (LONG_MAX, LONG_MAX, LONG_MAX)


@pytest.mark.parametrize(
    ("vector", "expected"),
    [
        pytest.param(res(0, 0), True, id="all zero is none"),
        pytest.param(res(0, 1), False, id="vcores alone make it not none"),
        pytest.param(res(0, 0, 1), False, id="a custom type alone makes it not none"),
        pytest.param(res(0, 0, 0), True, id="all zero with a custom type is none"),
    ],
)
def test_is_none_looks_at_every_component(vector: Resource, expected: bool) -> None:
    assert is_none(vector) is expected


def test_add_and_subtract_are_componentwise_and_may_go_negative() -> None:
    assert add(res(1, 2, 3), res(10, 20, 30)) == res(11, 22, 33)
    assert subtract(res(1, 2, 3), res(10, 20, 30)) == res(-9, -18, -27)


def test_add_saturates_at_long_max() -> None:
    assert add(res(LONG_MAX, 1), res(5, 1)) == res(LONG_MAX, 2)
    assert subtract(res(LONG_MIN, 0), res(1, 0)).memory == LONG_MIN


def test_subtract_non_negative_clamps_only_memory_and_vcores() -> None:
    assert subtract_non_negative(res(1, 1, 1), res(5, 5, 5)) == res(0, 0, -4)


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        pytest.param(0.5, res(512, 1), id="3 vcores times 0.5 truncates to 1"),
        pytest.param(-0.5, res(-512, -1), id="truncation is toward zero for negatives"),
        pytest.param(1e300, res(LONG_MAX, LONG_MAX), id="overflow saturates like the long cast"),
        pytest.param(math.nan, res(0, 0), id="NaN casts to 0"),
    ],
)
def test_multiply_truncates(k: float, expected: Resource) -> None:
    assert multiply(res(1024, 3), k) == expected


def test_multiply_and_round_up_uses_ceil() -> None:
    assert multiply_and_round_up(res(1024, 3), 0.5) == res(512, 2)
    assert multiply_and_round_up(res(1025, 3), -0.5) == res(-512, -1)


def test_am_limit_example_depends_on_float32() -> None:
    # §0.2 / §8.2: ceil(10240 MB × 0.1f) = 1025, with a double 0.1 it would be 1024.
    assert multiply_and_round_up(res(10240, 0), float32(0.1)).memory == 1025
    assert multiply_and_round_up(res(10240, 0), 0.1).memory == 1024


# values either side of the long range, so sums and differences saturate both ways
_LONGISH = st.integers(min_value=LONG_MIN, max_value=LONG_MAX) | st.sampled_from(
    [LONG_MAX, LONG_MIN, LONG_MAX - 1, LONG_MIN + 1, 0, -1, 1])


def _clamped(value: int) -> int:
    return max(LONG_MIN, min(LONG_MAX, value))


@given(st.integers(min_value=2, max_value=3).flatmap(
    lambda n: st.tuples(st.lists(_LONGISH, min_size=n, max_size=n),
                        st.lists(_LONGISH, min_size=n, max_size=n))))
def test_add_subtract_fits_in_agree_with_python_integers(pair: tuple[list[int], list[int]]
                                                        ) -> None:
    # two components take an unrolled path, three the general one: both must saturate alike
    a, b = Resource(tuple(pair[0])), Resource(tuple(pair[1]))
    assert add(a, b).values == tuple(_clamped(x + y) for x, y in zip(*pair, strict=True))
    assert subtract(a, b).values == tuple(_clamped(x - y) for x, y in zip(*pair, strict=True))
    assert fits_in(a, b) == all(x <= y for x, y in zip(*pair, strict=True))


def test_mismatched_lengths_are_refused() -> None:
    for operation in (add, subtract, fits_in):
        with pytest.raises(ValueError):
            operation(res(1, 2), res(1, 2, 3))


def test_fits_in_requires_every_component() -> None:
    assert fits_in(res(1, 1, 0), res(1, 1, 0))
    assert not fits_in(res(1, 1, 1), res(100, 100, 0))
    assert not fits_in(res(1, 2), res(100, 1))


def test_componentwise_min_max() -> None:
    assert componentwise_min(res(1, 9, 5), res(3, 2, 5)) == res(1, 2, 5)
    assert componentwise_max(res(1, 9, 5), res(3, 2, 5)) == res(3, 9, 5)


def test_vcores_int_view_saturates_at_int_max() -> None:
    big = res(0, 2**40)
    assert big.vcores == 2**40
    assert big.vcores_int == INT_MAX


def test_java_long_cast() -> None:
    assert java_long(2.9) == 2
    assert java_long(-2.9) == -2
    assert java_long(1e19) == LONG_MAX
    assert java_long(-1e19) == LONG_MIN
    assert java_long(math.nan) == 0


def test_java_division_by_zero() -> None:
    assert java_div(1.0, 0.0) == math.inf
    assert java_div(-1.0, 0.0) == -math.inf
    assert math.isnan(java_div(0.0, 0.0))


def test_float32_rounding() -> None:
    assert float32(0.8) == 0.800000011920929
    assert float32(0.1) == 0.10000000149011612
    assert float32(1e39) == math.inf


def test_types_of_builds_by_name_and_rejects_unknown() -> None:
    assert GPU.of({"yarn.io/gpu": 2}, memory_mb=1024) == res(1024, 0, 2)
    with pytest.raises(KeyError):
        DEFAULT_TYPES.of({"yarn.io/gpu": 1})


def test_types_must_start_with_memory_and_vcores() -> None:
    with pytest.raises(ValueError):
        ResourceTypes(("vcores", "memory-mb"))


@pytest.mark.parametrize(
    ("ask", "expected"),
    [
        pytest.param(res(100, 0), res(1024, 1), id="below the minimum goes up to it"),
        pytest.param(res(1500, 2), res(2048, 2), id="rounded up to the increment"),
        pytest.param(res(9000, 9), res(8192, 4), id="capped at the maximum"),
    ],
)
def test_normalize(ask: Resource, expected: Resource) -> None:
    # §1.1 defaults: min 1024/1, max 8192/4, increment 1024/1
    assert normalize(ask, res(1024, 1), res(8192, 4), res(1024, 1)) == expected


def test_normalize_zero_step_means_no_rounding() -> None:
    assert normalize(res(10, 10, 3), res(0, 0, 0), res(99, 99, 99), res(0, 0, 0)) == res(
        10, 10, 3
    )


def test_hadoop_normalize_vectors() -> None:
    # Hadoop's TestResourceCalculator.testNormalize (dominant calculator: every component)
    assert normalize(res(1111, 2), res(1024, 1), res(8192, 8), res(1024, 4)) == res(2048, 4)
    assert normalize(res(512, 0), res(2048, 2), res(8192, 8), res(1024, 1)) == res(2048, 2)
    assert normalize(res(9216, 9), res(2048, 2), res(8192, 8), res(1024, 1)) == res(8192, 8)
