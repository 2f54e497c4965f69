"""config.lint: the cluster-independent findings, on small allocation and yarn-site texts."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.lint import value_finding
from fairshare.config.lint.checks import configuration_findings
from fairshare.config.model import AllocationConfig, ConfigWarning
from fairshare.config.yarnsite import SiteConfig, load_site


def queue_findings(body: str) -> list[tuple[int | None, str, str]]:
    xml = f"<allocations>\n<queue name='a' type='parent'>\n{body}\n</queue>\n</allocations>"
    config = parse_allocations_text(xml, "fs.xml")
    return [(w.line, w.severity, w.code) for w in config.warnings]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<maxResources>vcores=0, memory-mb=1024</maxResources>", "zero-max-share"),
        ("<maxResources>0 mb, 8 vcores</maxResources>", "zero-max-share"),
        ("<maxResources>50% memory, 0% cpu</maxResources>", "zero-max-share"),
        ("<maxChildResources>4096 mb, 0 vcores</maxChildResources>", "zero-max-share"),
        # vcores left out: Long.MAX_VALUE narrowed to an int is -1, raised to the min share, 0
        ("<maxResources>memory-mb=40000</maxResources>", "zero-max-share"),
    ],
)
def test_a_max_share_with_nothing_of_memory_or_vcores_is_an_error(body: str, expected: str) -> None:
    assert queue_findings(body) == [(3, "error", expected)]


@pytest.mark.parametrize(
    "body",
    [
        "<maxResources>vcores=8</maxResources>",  # memory left out: unbounded
        "<maxResources>50%</maxResources>",
        "<fairSharePreemptionThreshold>0.5</fairSharePreemptionThreshold>",
        "<fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>",
        "<allowPreemptionFrom>FALSE</allowPreemptionFrom>",
        "<allowPreemptionFrom> true </allowPreemptionFrom>",
        "<fairSharePreemptionTimeout>30</fairSharePreemptionTimeout>",
    ],
)
def test_ordinary_values_have_no_finding(body: str) -> None:
    assert queue_findings(body) == []


def test_leaf_values() -> None:
    config = parse_allocations_text(
        "<allocations>\n<queue name='a'>\n<maxAMShare>-1.0</maxAMShare>\n</queue>\n"
        "<queue name='b'>\n<maxAMShare>-0.1</maxAMShare>\n<allowPreemptionFrom>1"
        "</allowPreemptionFrom>\n</queue>\n</allocations>", "fs.xml")
    assert [(w.line, w.severity, w.code) for w in config.warnings] == [
        (6, "error", "max-am-share-negative"),
        (7, "warning", "allow-preemption-text"),
    ]


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6))
def test_a_threshold_has_a_finding_exactly_when_yarn_clamps_it(value: float) -> None:
    finding = value_finding("fairSharePreemptionThreshold", repr(value), value)
    assert (finding is not None) == (value < 0 or value > 1)


def site(tmp_path: Path, *props: tuple[str, str]) -> SiteConfig:
    body = "".join(f"<property><name>{k}</name><value>{v}</value></property>\n" for k, v in props)
    path = tmp_path / "yarn-site.xml"
    path.write_text(f"<configuration>\n{body}</configuration>", encoding="utf-8")
    return load_site(path)


def codes(findings: list[ConfigWarning]) -> list[tuple[int | None, str, str]]:
    return [(f.line, f.severity, f.code) for f in findings]


NO_TIMEOUTS = parse_allocations_text("<allocations><queue name='a'/></allocations>", "fs.xml")
PREEMPTION = ("yarn.scheduler.fair.preemption", "true")


def test_preemption_without_any_timeout(tmp_path: Path) -> None:
    found = configuration_findings(site(tmp_path, PREEMPTION), NO_TIMEOUTS)
    assert codes(found) == [(2, "warning", "preemption-never")]


def test_preemption_without_an_allocation_file(tmp_path: Path) -> None:
    [finding] = configuration_findings(site(tmp_path, PREEMPTION), AllocationConfig())
    assert finding.code == "preemption-never"
    assert "no allocation file" in finding.consequence


@pytest.mark.parametrize(
    "allocations",
    [
        "<allocations><queue name='a'><minSharePreemptionTimeout>5</minSharePreemptionTimeout>"
        "<minResources>1024 mb, 1 vcores</minResources></queue></allocations>",
        "<allocations><defaultFairSharePreemptionTimeout>5</defaultFairSharePreemptionTimeout>"
        "</allocations>",
    ],
)
def test_any_timeout_lets_preemption_happen(tmp_path: Path, allocations: str) -> None:
    config = parse_allocations_text(allocations, "fs.xml")
    found = configuration_findings(site(tmp_path, PREEMPTION), config)
    assert "preemption-never" not in [f.code for f in found]


def test_preemption_off_or_migration_mode_has_no_preemption_finding(tmp_path: Path) -> None:
    assert configuration_findings(site(tmp_path), NO_TIMEOUTS) == []
    migration = site(tmp_path, PREEMPTION, ("yarn.scheduler.fair.migration.mode", "true"))
    assert configuration_findings(migration, NO_TIMEOUTS) == []


UTILIZATION = "yarn.scheduler.fair.preemption.cluster-utilization-threshold"
TIMEOUT = parse_allocations_text(
    "<allocations><defaultFairSharePreemptionTimeout>5</defaultFairSharePreemptionTimeout>"
    "</allocations>", "fs.xml")


@pytest.mark.parametrize(
    ("value", "preemption", "expected"),
    [
        ("80", True, [(3, "error", "utilization-threshold")]),
        ("1.0", True, [(3, "error", "utilization-threshold")]),  # strict <: never above 1
        ("NaN", True, [(3, "error", "utilization-threshold")]),
        ("80", False, [(3, "warning", "utilization-threshold")]),
        ("-0.1", True, [(3, "warning", "utilization-threshold")]),
        ("0.95", True, []),
        ("0", True, []),
    ],
)
def test_utilization_threshold(tmp_path: Path, value: str, preemption: bool,
                               expected: list[tuple[int, str, str]]) -> None:
    on = ("yarn.scheduler.fair.preemption", "true" if preemption else "false")
    found = configuration_findings(site(tmp_path, on, (UTILIZATION, value)), TIMEOUT)
    assert codes(found) == expected


@pytest.mark.parametrize(
    "key",
    [
        "yarn.resourcemanager.scheduler.monitor.enable",
        "yarn.resourcemanager.scheduler.monitor.policies",
        "yarn.resourcemanager.scheduler.address.rm2",
        "yarn.scheduler.fair.am.preemption.root.a",
        "yarn.scheduler.fair.locality-delay-node-ms",
    ],
)
def test_real_yarn_keys_are_not_flagged(tmp_path: Path, key: str) -> None:
    assert [w.code for w in site(tmp_path, (key, "1")).warnings
            if w.code == "unknown-site-key"] == []


def test_findings_are_ordered_allocation_file_first_then_by_line(tmp_path: Path) -> None:
    config = parse_allocations_text(
        "<allocations>\n<queue name='b'>\n<maxAMShare>2</maxAMShare>\n</queue>\n"
        "<queue name='a'>\n<weight>Infinity</weight>\n</queue>\n"
        "<queueMaxAppsDefault>-1</queueMaxAppsDefault>\n</allocations>", "fs.xml")
    found = configuration_findings(
        site(tmp_path, ("yarn.scheduler.fair.zzz", "1"), (UTILIZATION, "-1")), config)
    assert [(Path(f.file or "").name, f.line) for f in found] == [
        ("fs.xml", 3), ("fs.xml", 6), ("fs.xml", 8), ("yarn-site.xml", 2), ("yarn-site.xml", 3)]


@pytest.mark.parametrize(
    "body",
    [
        "<maxResources>4096 mb, 0 vcores</maxResources>\n<minResources>1024 mb, 1 vcores"
        "</minResources>",
        "<minResources>1024 mb, 1 vcores</minResources>\n<maxResources>4096 mb, 0 vcores"
        "</maxResources>",
    ],
)
def test_a_min_share_lifts_a_zero_in_the_max_share(body: str) -> None:
    # FSQueue.getMaxShare: componentwiseMax(max, min), so the AM's vcore fits; what remains
    # is the max below the min
    assert queue_findings(body) == [(2, "warning", "min-above-max")]


def test_a_zero_max_share_the_min_share_does_not_lift() -> None:
    body = ("<minResources>1024 mb, 0 vcores</minResources>\n"
            "<maxResources>4096 mb, 0 vcores</maxResources>")
    assert queue_findings(body) == [(4, "error", "zero-max-share")]


def starvation_lines(allocations: str) -> list[int | None]:
    config = parse_allocations_text(allocations, "fs.xml")
    found = configuration_findings(SiteConfig.default(), config)
    return [f.line for f in found if f.code == "min-share-starvation"]


@pytest.mark.parametrize(
    ("allocations", "expected"),
    [
        # a timeout on a queue with a min share: the note applies
        ("<allocations>\n<queue name='a'>\n<minResources>1024 mb, 1 vcores</minResources>\n"
         "<minSharePreemptionTimeout>60</minSharePreemptionTimeout>\n</queue>\n</allocations>",
         [4]),
        # no min share anywhere: neither the queue's timeout nor the default applies
        ("<allocations>\n<defaultMinSharePreemptionTimeout>60</defaultMinSharePreemptionTimeout>"
         "\n<queue name='a'>\n<minSharePreemptionTimeout>60</minSharePreemptionTimeout>\n"
         "</queue>\n</allocations>", []),
        # a parent's timeout applies to the leaf with a min share below it that sets none
        ("<allocations>\n<queue name='p'>\n<minSharePreemptionTimeout>60"
         "</minSharePreemptionTimeout>\n<queue name='a'>\n<minResources>1024 mb, 1 vcores"
         "</minResources>\n</queue>\n</queue>\n</allocations>", [3]),
        # every leaf with a min share sets its own timeout: the default applies to none
        ("<allocations>\n<defaultMinSharePreemptionTimeout>60</defaultMinSharePreemptionTimeout>"
         "\n<queue name='a'>\n<minResources>1024 mb, 1 vcores</minResources>\n"
         "<minSharePreemptionTimeout>30</minSharePreemptionTimeout>\n</queue>\n<queue name='b'/>"
         "\n</allocations>", [5]),
        # a parent's min share is not starvation's: only leaves are checked (FSLeafQueue)
        ("<allocations>\n<queue name='p'>\n<minResources>1024 mb, 1 vcores</minResources>\n"
         "<minSharePreemptionTimeout>60</minSharePreemptionTimeout>\n<queue name='a'/>\n"
         "</queue>\n</allocations>", []),
    ],
)
def test_the_min_share_note_appears_only_where_a_min_share_takes_the_timeout(
        allocations: str, expected: list[int]) -> None:
    assert starvation_lines(allocations) == expected


@pytest.mark.parametrize(
    ("settings", "closed"),
    [
        ("<maxRunningApps>0</maxRunningApps>", True),
        ("<weight>0</weight>", True),
        ("<weight>0.5</weight>", False),
        ("<maxRunningApps>1</maxRunningApps>", False),
    ],
)
def test_a_zero_max_share_with_a_closing_setting_is_a_closed_queue(settings: str,
                                                                    closed: bool) -> None:
    config = parse_allocations_text(
        f"<allocations>\n<queue name='a'>\n<maxResources>0 mb, 0 vcores</maxResources>\n"
        f"{settings}\n</queue>\n</allocations>", "fs.xml")
    [finding] = configuration_findings(SiteConfig.default(), config)
    expected = ("info", "closed-queue") if closed else ("error", "zero-max-share")
    assert (finding.severity, finding.code) == expected


def test_a_parents_closing_setting_closes_the_queues_below_it() -> None:
    config = parse_allocations_text(
        "<allocations>\n<queue name='p'>\n<maxRunningApps>0</maxRunningApps>\n"
        "<queue name='a'>\n<maxResources>0 mb, 0 vcores</maxResources>\n</queue>\n</queue>\n"
        "</allocations>", "fs.xml")
    [finding] = configuration_findings(SiteConfig.default(), config)
    assert finding.code == "closed-queue"
    assert "with root.p's maxRunningApps 0" in finding.message
    assert "raise root.p's maxRunningApps above 0" in finding.fix


@pytest.mark.parametrize(
    ("rules", "queue", "reached"),
    [
        ("<rule name='specified'/><rule name='reject'/>", "root.x.y", True),
        ("<rule name='reject'/>", "root.x", False),
        ("<rule name='default' queue='a.b'/>", "root.a.b", True),
        ("<rule name='default' queue='a.b'/>", "root.a", True),  # its parent holds the app
        ("<rule name='default' queue='a.b'/>", "root.a.c", False),
        ("<rule name='user'/>", "root.anyone", True),
        ("<rule name='user'/>", "root.p.anyone", False),
        ("<rule name='nestedUserQueue'><rule name='primaryGroup'/></rule>", "root.g.u", True),
        ("<rule name='nestedUserQueue'><rule name='default' queue='users'/></rule>",
         "root.users.u", True),
        ("<rule name='nestedUserQueue'><rule name='default' queue='users'/></rule>",
         "root.other.u", False),
    ],
)
def test_which_queues_placement_rules_reach(rules: str, queue: str, reached: bool) -> None:
    from fairshare.config.lint.placement import reachable

    config = parse_allocations_text(
        f"<allocations><queuePlacementPolicy>{rules}</queuePlacementPolicy></allocations>",
        "fs.xml")
    assert config.placement_policy is not None
    assert reachable(config.placement_policy, queue) is reached


# Every reader warning an allocation or yarn-site file can give, one shape each.
WARNING_SHAPES = [
    "<allocations><maxResource>1 mb, 1 vcores</maxResource></allocations>",
    "<allocations><userMaxAppsDefault>1</userMaxAppsDefault>"
    "<userMaxAppsDefault>2</userMaxAppsDefault></allocations>",
    "<allocations><user><maxRunningApps>1</maxRunningApps></user></allocations>",
    "<allocations><user name='u'><maxApps>1</maxApps></user></allocations>",
    "<allocations><defaultQueueSchedulingPolicy>org.apache.hadoop.yarn.server.resourcemanager"
    ".scheduler.fair.policies.FifoPolicy</defaultQueueSchedulingPolicy></allocations>",
    "<allocations><queue name='a'><wieght>1</wieght></queue></allocations>",
    "<allocations><queue name='Root'><queue name='a'/></queue></allocations>",
    "<allocations><queue name='a'/><queue name='a'/></allocations>",
    "<allocations><queue name='p'><queue name='c'><schedulingPolicy>drf</schedulingPolicy>"
    "</queue></queue></allocations>",
    "<allocations><queue name='f' type='parent'><schedulingPolicy>fifo</schedulingPolicy>"
    "</queue></allocations>",
    "<allocations><queue name='root'><schedulingPolicy>fifo</schedulingPolicy></queue>"
    "</allocations>",
    "<allocations><defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>"
    "<queue name='p' type='parent'><schedulingPolicy>fair</schedulingPolicy></queue>"
    "</allocations>",
    "<allocations><queuePlacementPolicy> </queuePlacementPolicy></allocations>",
    "<allocations><queuePlacementPolicy><rule name='nestedUserQueue'>"
    "<rule name='secondaryGroupExistingQueue'/><rule name='primaryGroup'/></rule>"
    "</queuePlacementPolicy></allocations>",
    "<allocations><queuePlacementPolicy><rule name='nestedUserQueue'><rule name='primaryGroup'>"
    "<rule name='user'/></rule></rule></queuePlacementPolicy></allocations>",
    "<allocations><queuePlacementPolicy><rule name='default' queue=' a'/>"
    "</queuePlacementPolicy></allocations>",
    "<allocations><queue name='root'><queuePlacementPolicy><rule name='default'/>"
    "</queuePlacementPolicy></queue></allocations>",
    "<allocations><pool name='p'><maxMaps>1</maxMaps></pool></allocations>",
]
SITE_SHAPES = [
    ("yarn.scheduler.fair.preemption", "yes"),
    ("yarn.scheduler.fair.update-interval-ms", "-1"),
    ("yarn.scheduler.fair.update-interval-ms", "0"),
    ("yarn.scheduler.fair.waitTimeBeforeKill", "soon"),
    ("yarn.scheduler.fair.preemptionInterval", "1000"),
    ("yarn.scheduler.fair.zzz", "1"),
    ("yarn.scheduler.fair.user-as-default-queue", "false"),
]


@pytest.mark.parametrize("allocations", WARNING_SHAPES)
def test_every_allocation_file_finding_has_a_consequence_and_a_fix(allocations: str) -> None:
    found = configuration_findings(SiteConfig.default(),
                                   parse_allocations_text(allocations, "fs.xml"))
    assert found
    assert [(f.message, f.consequence != "", f.fix != "") for f in found] == [
        (f.message, True, True) for f in found]


@pytest.mark.parametrize("prop", SITE_SHAPES)
def test_every_site_finding_has_a_consequence_and_a_fix(tmp_path: Path,
                                                        prop: tuple[str, str]) -> None:
    rules = parse_allocations_text("<allocations><queuePlacementPolicy><rule name='default'/>"
                                   "</queuePlacementPolicy></allocations>", "fs.xml")
    found = configuration_findings(site(tmp_path, prop), rules)
    assert found
    assert [(f.message, f.consequence != "", f.fix != "") for f in found] == [
        (f.message, True, True) for f in found]


def test_a_min_share_timeout_without_a_min_share_does_not_make_preemption_possible(
        tmp_path: Path) -> None:
    # a Hadoop 1 habit: min-share timeouts, no min shares, so nothing ever starves
    config = parse_allocations_text(
        "<allocations>\n<defaultMinSharePreemptionTimeout>60</defaultMinSharePreemptionTimeout>"
        "\n<queue name='a'><minSharePreemptionTimeout>30</minSharePreemptionTimeout></queue>\n"
        "</allocations>", "fs.xml")
    found = configuration_findings(site(tmp_path, PREEMPTION), config)
    assert codes(found) == [(2, "warning", "preemption-never")]
