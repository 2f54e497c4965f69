"""``--cluster``: every notation gives the same cluster, and no text makes it fail other than
with a ClusterSizeError (the command turns that into ``--cluster: …``, exit 2)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from fairshare.cli.cluster import ClusterSizeError, parse_cluster
from fairshare.resources.vector import DEFAULT_TYPES, LONG_MAX


@given(nodes=st.integers(1, 10_000), gb=st.integers(0, 4096), vcores=st.integers(0, 1024))
def test_the_short_form_is_the_named_form_times_the_nodes(nodes: int, gb: int,
                                                         vcores: int) -> None:
    short = parse_cluster(f"{nodes}x{gb}g/{vcores}", DEFAULT_TYPES)
    named = parse_cluster(f"memory-mb={nodes * gb * 1024},vcores={nodes * vcores}",
                          DEFAULT_TYPES)
    assert short == named
    assert short.memory == nodes * gb * 1024


@given(st.text(alphabet=st.sampled_from("0123456789x×*/=,.gGmMtTbi -memory-mbvcores"),
               max_size=40))
@example("memory-mb=" + "9" * 400 + ",vcores=1")  # the fuzz suite's: float() overflowed
@example("9" * 400 + "t/1")
def test_any_text_is_a_cluster_or_a_cluster_size_error(text: str) -> None:
    try:
        cluster = parse_cluster(text, DEFAULT_TYPES)
    except ClusterSizeError:
        return
    assert all(0 <= value <= LONG_MAX for value in cluster.values)
