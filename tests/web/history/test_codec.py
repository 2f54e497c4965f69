"""The blobs give back exactly what was packed — whole, or the rows asked for — and the
raw samples' differences from the previous sample undo exactly (int64 wrap-around
included), thresholds bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fairshare.web.history import codec, raw

INT64 = hnp.from_dtype(np.dtype(np.int64))


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(0, 600), widths=st.lists(st.integers(1, 5), min_size=1, max_size=3),
       data=st.data())
def test_a_blob_gives_back_its_matrices_and_any_rows_of_them(
        rows: int, widths: list[int], data: st.DataObject) -> None:
    matrices = [data.draw(hnp.arrays(np.int64, (rows, w), elements=INT64)) for w in widths]
    blob = codec.pack(matrices)
    for got, want in zip(codec.unpack(blob), matrices, strict=True):
        assert got.dtype == np.int64 and np.array_equal(got, want)
    first = data.draw(st.integers(0, rows))
    end = data.draw(st.integers(first, rows))
    for got, want in zip(codec.unpack(blob, (first, end)), matrices, strict=True):
        assert np.array_equal(got, want[first:end])


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(1, 300))
def test_a_difference_from_the_previous_sample_undoes_exactly(data: st.DataObject,
                                                               n: int) -> None:
    before = data.draw(hnp.arrays(np.int64, (n, 23), elements=INT64))
    after = data.draw(hnp.arrays(np.int64, (n, 23), elements=INT64))
    floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
    t0 = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)), np.float64)
    t1 = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)), np.float64)
    base = raw.Raw(0, 1, 1, None, before, t0)
    values, thresholds = raw.decode(raw.encode(after, t1, base), base)
    assert np.array_equal(values, after)
    assert thresholds.tobytes() == t1.tobytes()
    first = data.draw(st.integers(0, n - 1))
    part = raw.Raw(0, 1, 1, None, before[first:first + 1], t0[first:first + 1])
    values, thresholds = raw.decode(raw.encode(after, t1, base), part, (first, first + 1))
    assert np.array_equal(values, after[first:first + 1])


@given(st.dictionaries(st.text(min_size=1, max_size=20), st.text(max_size=200), max_size=6))
def test_a_checkpoints_answers_come_back_as_they_went_in(answers: dict[str, str]) -> None:
    from fairshare.web.history.codec import pack_answers, unpack_answers

    assert unpack_answers(pack_answers(answers)) == answers
