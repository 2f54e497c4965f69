"""``--cluster``: every notation gives the same cluster, and no text makes it fail other than
with a ClusterSizeError (the command turns that into ``--cluster: …``, exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fairshare.cli.cluster import ClusterSizeError, parse_cluster
from fairshare.resources.vector import DEFAULT_TYPES, LONG_MAX, ResourceTypes


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


@given(nodes=st.integers(1, 1000), mb=st.integers(0, 2**31 - 1), vcores=st.integers(0, 2**31 - 1),
       spelling=st.sampled_from(["{m} mb, {v} vcores", "{v} vcores, {m} mb", "{m}mb,{v}vcores",
                                 "{m} MB, {v} VCores", "{m} mb {v} vcores"]))
def test_yarns_own_form_is_the_named_form(nodes: int, mb: int, vcores: int,
                                          spelling: str) -> None:
    # FairSchedulerConfiguration.parseResourceConfigValue's older form: MB and vcores in either
    # order, any case, the comma optional; a node count multiplies it as it does the others
    text = spelling.format(m=mb, v=vcores)
    assert parse_cluster(text, DEFAULT_TYPES) == parse_cluster(
        f"memory-mb={mb},vcores={vcores}", DEFAULT_TYPES)
    assert parse_cluster(f"{nodes}x{text}", DEFAULT_TYPES) == parse_cluster(
        f"memory-mb={nodes * mb},vcores={nodes * vcores}", DEFAULT_TYPES)


def test_yarns_form_refuses_percentages_and_custom_types() -> None:
    with pytest.raises(ClusterSizeError, match="a percentage, a share of a cluster"):
        parse_cluster("50% memory, 50% cpu", DEFAULT_TYPES)
    gpu = ResourceTypes(("memory-mb", "vcores", "yarn.io/gpu"))
    with pytest.raises(ClusterSizeError, match=r"gives no yarn\.io/gpu"):
        parse_cluster("65536 mb, 32 vcores", gpu)
    with pytest.raises(ClusterSizeError, match=r"Cannot parse resource values"):
        parse_cluster("65536 mb", DEFAULT_TYPES)


def test_lint_takes_yarns_form() -> None:
    from typer.testing import CliRunner

    from fairshare.cli.main import app
    fixtures = Path(__file__).resolve().parents[1] / "config" / "lint_fixtures"
    result = CliRunner().invoke(app, ["lint", str(fixtures / "shares.xml"), "--cluster",
                                      "40960 mb, 40 vcores", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "min-above-fair-share" in result.stdout
