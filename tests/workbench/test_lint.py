"""workbench.lint: min shares against the steady fair shares of a cluster, numbers by hand."""

from __future__ import annotations

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import SiteConfig
from fairshare.core.model.tree import build_queue_tree
from fairshare.resources.vector import Resource
from fairshare.workbench.lint import cluster_findings

CLUSTER = Resource((40960, 40))


def findings(xml: str) -> list[tuple[int | None, str, str]]:
    config = parse_allocations_text(xml, "fs.xml")
    tree = build_queue_tree(config, SiteConfig.default().resource_types)
    return [(f.line, f.code, f.message) for f in cluster_findings(tree, SiteConfig.default(),
                                                                   CLUSTER)]


def test_children_above_a_parent_that_sets_no_min_share() -> None:
    # a and b split 40,960 MB evenly (default has weight 0): a has 20,480 MB, and its
    # children's min shares add up to 24,576 MB, 120 % of it.
    found = findings("""<allocations>
  <queue name="a">
    <queue name="x"><minResources>12288 mb, 0 vcores</minResources></queue>
    <queue name="y"><minResources>12288 mb, 0 vcores</minResources></queue>
  </queue>
  <queue name="b"/>
  <queue name="default"><weight>0</weight></queue>
</allocations>""")
    assert found[0] == (2, "min-shares-above-parent",
                        "the min shares of root.a's children add up to 24,576 MB (120 %), more "
                        "than root.a's steady fair share, 20,480 MB")
    # each child's weight share is half of a's 20,480 MB
    assert [(line, code) for line, code, _ in found[1:]] == [
        (3, "min-above-fair-share"), (4, "min-above-fair-share")]
    assert "10,240 MB" in found[1][2]


def test_drf_compares_every_resource() -> None:
    # drf at root: vcores are shared too; a's weight gives it 20 of 40 vcores, its min asks 30.
    found = findings("""<allocations>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
  <queue name="a"><minResources>memory-mb=0, vcores=30</minResources></queue>
  <queue name="b"/>
  <queue name="default"><weight>0</weight></queue>
</allocations>""")
    assert found == [(3, "min-above-fair-share",
                      "root.a: min share 30 vcores is above the steady fair share its weight "
                      "gives it, 20 vcores")]


def test_min_shares_within_weight_shares_have_no_finding() -> None:
    assert findings("""<allocations>
  <queue name="a"><minResources>8192 mb, 4 vcores</minResources></queue>
  <queue name="b"/>
</allocations>""") == []
