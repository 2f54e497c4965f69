"""Float32 settings printed as Java prints them: the shortest decimal that reads back."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fairshare.resources.vector import float32, float32_decimal


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_the_shortest_decimal_is_numpys_and_reads_back_as_the_same_float32(x: float) -> None:
    value = float32(x)
    shown = float32_decimal(value)
    assert float32(shown) == value
    assert shown == float(str(np.float32(value)))  # numpy's shortest round-trip repr


def test_examples() -> None:
    assert float32_decimal(float32(0.8)) == 0.8
    assert float32(0.8) == 0.800000011920929  # what was printed before
    assert float32_decimal(float32(1e39)) == math.inf
    assert float32_decimal(0.1) == 0.1  # a double that is no float32 is left alone
    assert math.isnan(float32_decimal(math.nan))
