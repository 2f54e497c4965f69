"""yarn-site settings (docs/semantics.md §1.1) and their init-time validation (§1.7).

Expected values come from the tables of §1.1 or are worked out by hand; float32 values are
written as exact fractions (e.g. float32(0.8) = 13421773 / 2**24).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshare.config.errors import ConfigError, ConfigErrors, all_errors
from fairshare.config.yarnsite import FAIR_SCHEDULER_CLASS, SiteConfig, load_site, read_site_xml
from fairshare.resources.vector import LONG_MAX, ResourceTypes, res

F = "yarn.scheduler.fair."
F32_08 = 13421773 / 2**24  # float32(0.8)
F32_005 = 13421773 / 2**28  # float32(0.05)


def site(tmp_path: Path, *props: tuple[str, str] | str) -> Path:
    """A yarn-site.xml with one property per line: the i-th (from 0) is on line i + 2."""
    lines = ["<configuration>"]
    for p in props:
        if isinstance(p, str):
            lines.append(p)
        else:
            name, value = p
            lines.append(f"<property><name>{name}</name><value>{escape(value)}</value></property>")
    path = tmp_path / "yarn-site.xml"
    path.write_text("\n".join([*lines, "</configuration>"]))
    return path


def load(tmp_path: Path, *props: tuple[str, str] | str) -> SiteConfig:
    return load_site(site(tmp_path, *props), source="yarn-site.xml")


DEFAULTS = {
    "allocation_file": "fair-scheduler.xml",
    "user_as_default_queue": True,
    "allow_undeclared_pools": True,
    "preemption": False,
    "preemption_cluster_utilization_threshold": F32_08,
    "am_preemption": True,
    "wait_time_before_kill_ms": 15000,
    "wait_time_before_next_starvation_check_ms": 10000,
    "assign_multiple": False,
    "dynamic_max_assign": True,
    "max_assign": -1,
    "size_based_weight": False,
    "locality_threshold_node": -1.0,
    "locality_threshold_rack": -1.0,
    "update_interval_ms": 500,
    "reservable_nodes": F32_005,
    "continuous_scheduling_enabled": False,
    "continuous_scheduling_sleep_ms": 5,
    "locality_delay_node_ms": -1,
    "locality_delay_rack_ms": -1,
    "migration_mode": False,
    "no_terminal_rule_check": False,
    "scheduler_class": None,
    "minimum_allocation": res(1024, 1),
    "maximum_allocation": res(8192, 4),
    "increment_allocation": res(1024, 1),
    "reservation_threshold_increment_multiple": 2.0,
    "include_port_in_node_name": False,
    "nm_heartbeat_interval_ms": 1000,
    "scheduling_wait_ms": 10000,
    "recovery_enabled": False,
    "work_preserving_recovery": True,
    "max_completed_apps": 1000,
    "state_store_max_completed_apps": 1000,
    "resource_types": ResourceTypes(),
    "warnings": (),
    # derived
    "reservation_threshold": res(2048, 2),  # 2 × the 1024 MB / 1 vcore increment
    "delay_scheduling_enabled": False,  # both thresholds are -1
}


@pytest.mark.parametrize(("name", "expected"), DEFAULTS.items(), ids=DEFAULTS.keys())
def test_defaults_match_the_spec_table(name: str, expected: object) -> None:
    assert getattr(SiteConfig.default(), name) == expected


def test_the_dataclass_defaults_are_yarns_defaults(tmp_path: Path) -> None:
    assert SiteConfig.default() == SiteConfig() == load(tmp_path)


# (key, text, field, expected)
KEYS: dict[str, tuple[str, str, str, object]] = {
    "allocation file": (F + "allocation.file", "/etc/hadoop/fs.xml", "allocation_file",
                        "/etc/hadoop/fs.xml"),
    "allocation file on hdfs": (F + "allocation.file", "HDFS://nn/fs.xml", "allocation_file",
                                "HDFS://nn/fs.xml"),
    "user as default queue": (F + "user-as-default-queue", "false", "user_as_default_queue", False),
    "undeclared pools": (F + "allow-undeclared-pools", "FALSE", "allow_undeclared_pools", False),
    "preemption, trimmed": (F + "preemption", "  True\n", "preemption", True),
    "utilization threshold": (F + "preemption.cluster-utilization-threshold", "0.5",
                              "preemption_cluster_utilization_threshold", 0.5),
    "global AM preemption": (F + "am.preemption", "false", "am_preemption", False),
    "wait before kill": (F + "waitTimeBeforeKill", "30000", "wait_time_before_kill_ms", 30000),
    "next starvation check": (F + "waitTimeBeforeNextStarvationCheck", "5000",
                              "wait_time_before_next_starvation_check_ms", 5000),
    "assign multiple": (F + "assignmultiple", "true", "assign_multiple", True),
    "dynamic max assign": (F + "dynamic.max.assign", "false", "dynamic_max_assign", False),
    "max assign": (F + "max.assign", "3", "max_assign", 3),
    "size-based weight": (F + "sizebasedweight", "true", "size_based_weight", True),
    "node threshold is float32": (F + "locality.threshold.node", "0.2",
                                  "locality_threshold_node", 13421773 / 2**26),
    "node threshold above 1 is clamped": (F + "locality.threshold.node", "2.5",
                                          "locality_threshold_node", 1.0),
    "rack threshold": (F + "locality.threshold.rack", "0.5", "locality_threshold_rack", 0.5),
    "update interval in hex": (F + "update-interval-ms", "0x3E8", "update_interval_ms", 1000),
    "reservable nodes": (F + "reservable-nodes", "0.25", "reservable_nodes", 0.25),
    "continuous scheduling": (F + "continuous-scheduling-enabled", "true",
                              "continuous_scheduling_enabled", True),
    "continuous scheduling sleep": (F + "continuous-scheduling-sleep-ms", "10",
                                    "continuous_scheduling_sleep_ms", 10),
    "node delay, negative hex": (F + "locality-delay-node-ms", "-0x10",
                                 "locality_delay_node_ms", -16),
    "rack delay, a long": (F + "locality-delay-rack-ms", "4000000000",
                           "locality_delay_rack_ms", 4_000_000_000),
    "migration mode": (F + "migration.mode", "true", "migration_mode", True),
    "no-terminal-rule check needs migration mode": (F + "no-terminal-rule.check", "true",
                                                    "no_terminal_rule_check", False),
    "scheduler class": ("yarn.resourcemanager.scheduler.class", f" {FAIR_SCHEDULER_CLASS} ",
                        "scheduler_class", FAIR_SCHEDULER_CLASS),
    "minimum memory": ("yarn.scheduler.minimum-allocation-mb", "512", "minimum_allocation",
                       res(512, 1)),
    "minimum vcores": ("yarn.scheduler.minimum-allocation-vcores", "0", "minimum_allocation",
                       res(1024, 0)),
    "maximum memory": ("yarn.scheduler.maximum-allocation-mb", "16384", "maximum_allocation",
                       res(16384, 4)),
    "maximum vcores": ("yarn.scheduler.maximum-allocation-vcores", "32", "maximum_allocation",
                       res(8192, 32)),
    "legacy memory increment": ("yarn.scheduler.increment-allocation-mb", "512",
                                "increment_allocation", res(512, 1)),
    "legacy vcores increment": ("yarn.scheduler.increment-allocation-vcores", "2",
                                "increment_allocation", res(1024, 2)),
    "memory increment without unit": ("yarn.resource-types.memory-mb.increment-allocation", "256",
                                       "increment_allocation", res(256, 1)),
    "memory increment in Gi": ("yarn.resource-types.memory-mb.increment-allocation", "1 Gi",
                               "increment_allocation", res(1024, 1)),
    "memory increment in decimal G truncates": (
        "yarn.resource-types.memory-mb.increment-allocation", "1G", "increment_allocation",
        res(953, 1)),  # 10**9 / 2**20 = 953.67
    "vcores increment in k": ("yarn.resource-types.vcores.increment-allocation", "1k",
                              "increment_allocation", res(1024, 1000)),
    "vcores increment keeps the low 32 bits": (
        "yarn.resource-types.vcores.increment-allocation", "4294967297", "increment_allocation",
        res(1024, 1)),  # 2**32 + 1 → intValue() 1
    "reservation multiple": ("yarn.scheduler.reservation-threshold.increment-multiple", "1.5",
                             "reservation_threshold_increment_multiple", 1.5),
    "port in node name": ("yarn.scheduler.include-port-in-node-name", "true",
                          "include_port_in_node_name", True),
    "NM heartbeat": ("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "3000",
                     "nm_heartbeat_interval_ms", 3000),
    "work-preserving wait": ("yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms",
                             "0", "scheduling_wait_ms", 0),
}  # fmt: skip


@pytest.mark.parametrize(("key", "text", "name", "expected"), KEYS.values(), ids=KEYS.keys())
def test_each_key_is_read(tmp_path: Path, key: str, text: str, name: str, expected: object) -> None:
    config = load(tmp_path, (key, text))
    assert getattr(config, name) == expected
    assert config.warnings == ()


def test_no_terminal_rule_check_in_migration_mode(tmp_path: Path) -> None:
    config = load(tmp_path, (F + "migration.mode", "true"), (F + "no-terminal-rule.check", "true"))
    assert config.no_terminal_rule_check is True


def test_thresholds_both_set_enable_delay_scheduling(tmp_path: Path) -> None:
    config = load(tmp_path, (F + "locality.threshold.node", "0.2"),
                  (F + "locality.threshold.rack", "0"))  # fmt: skip
    assert config.delay_scheduling_enabled is True


def test_reservation_threshold_truncates(tmp_path: Path) -> None:
    # 1536 × 1.5 = 2304; 3 × 1.5 = 4.5 → 4.
    config = load(
        tmp_path,
        ("yarn.scheduler.increment-allocation-mb", "1536"),
        ("yarn.scheduler.increment-allocation-vcores", "3"),
        ("yarn.scheduler.reservation-threshold.increment-multiple", "1.5"),
    )
    assert config.reservation_threshold == res(2304, 4)


def test_am_preemption_per_queue_wins_over_the_global_switch(tmp_path: Path) -> None:
    config = load(tmp_path, (F + "am.preemption", "false"), (F + "am.preemption.root.a", "true"))
    assert (config.am_preemption_for("root.a"), config.am_preemption_for("root.b")) == (True, False)
    assert dict(config.am_preemption_per_queue) == {"root.a": True}


def test_an_unparsable_per_queue_am_flag_means_true_not_the_global(tmp_path: Path) -> None:
    config = load(tmp_path, (F + "am.preemption", "false"), (F + "am.preemption.root.a", "maybe"))
    assert config.am_preemption_for("root.a") is True
    assert [(w.line, w.message, w.consequence) for w in config.warnings] == [
        (3, f"{F}am.preemption.root.a='maybe' is neither true nor false",
         "Configuration.getBoolean falls back to the default, true")
    ]  # fmt: skip


def test_custom_resource_types(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        ("yarn.resource-types", " yarn.io/gpu , fpga,"),
        ("yarn.resource-types.yarn.io/gpu.increment-allocation", "2"),
    )
    assert config.resource_types == ResourceTypes.with_custom(["yarn.io/gpu", "fpga"])
    assert config.minimum_allocation == res(1024, 1, 0, 0)
    assert config.maximum_allocation == res(8192, 4, LONG_MAX, LONG_MAX)
    assert config.increment_allocation == res(1024, 1, 2, 0)  # no increment: no rounding


def test_the_new_increment_key_overrides_the_legacy_one(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        ("yarn.scheduler.increment-allocation-mb", "7"),
        ("yarn.resource-types.memory-mb.increment-allocation", "13"),
    )
    assert config.increment_allocation == res(13, 1)
    assert [(w.line, w.message) for w in config.warnings] == [
        (3, "Configuration yarn.resource-types.memory-mb.increment-allocation=13 is overriding "
            "the yarn.scheduler.increment-allocation-mb=7 property")
    ]  # fmt: skip


WARNINGS = {
    "a removed key": (
        (F + "preemptionInterval", "5000"),
        f"{F}preemptionInterval was removed by YARN-6163 with the old preemption code: it has "
        "no effect"),
    "the removed event log": (
        (F + "event-log-enabled", "true"),
        f"{F}event-log-enabled was removed by YARN-7524 with the event log: it has no "
        "effect"),
    "a misspelt key": (
        (F + "assignmultple", "true"),
        f"{F}assignmultple is not a property YARN reads; did you mean {F}assignmultiple?: it "
        f"has no effect, so {F}assignmultiple keeps its value or default"),
    "an unknown key": (
        (F + "zzz", "1"), f"{F}zzz is not a property YARN reads: it has no effect"),
    "a misspelt scheduler key": (
        ("yarn.resourcemanager.scheduler.clas", "x"),
        "yarn.resourcemanager.scheduler.clas is not a property YARN reads; did you mean "
        "yarn.resourcemanager.scheduler.class?: it has no effect, so "
        "yarn.resourcemanager.scheduler.class keeps its value or default"),
    "a boolean that is neither true nor false": (
        (F + "preemption", "yes"),
        f"{F}preemption='yes' is neither true nor false: Configuration.getBoolean falls back "
        "to the default, false"),
    "a negative update interval": (
        (F + "update-interval-ms", "-1"),
        f"{F}update-interval-ms=-1 is invalid: YARN logs a warning and uses the default, "
        "500 ms"),
    "a zero update interval": (
        (F + "update-interval-ms", "0"),
        f"{F}update-interval-ms=0: no update thread: AbstractYarnScheduler starts the update "
        "thread only for a positive interval, so fair shares are never recomputed"),
    "an unreadable preemption setting with preemption off": (
        (F + "waitTimeBeforeKill", "soon"),
        f"{F}waitTimeBeforeKill='soon' is not an int: YARN reads it only when preemption runs, "
        "so the default applies"),
}  # fmt: skip


@pytest.mark.parametrize(("prop", "message"), WARNINGS.values(), ids=WARNINGS.keys())
def test_warnings(tmp_path: Path, prop: tuple[str, str], message: str) -> None:
    warnings = load(tmp_path, prop).warnings
    shown = [(w.file, w.line, f"{w.message}: {w.consequence}" if w.consequence else w.message)
             for w in warnings]
    assert shown == [("yarn-site.xml", 2, message)]


def test_negative_update_interval_falls_back_to_500(tmp_path: Path) -> None:
    assert load(tmp_path, (F + "update-interval-ms", "-1")).update_interval_ms == 500


def test_a_boolean_neither_true_nor_false_keeps_the_default(tmp_path: Path) -> None:
    assert load(tmp_path, (F + "user-as-default-queue", "no")).user_as_default_queue is True


ERRORS = {
    "negative minimum memory": (
        [("yarn.scheduler.minimum-allocation-mb", "-1")], 2,
        "Invalid resource scheduler memory allocation configuration: "
        "yarn.scheduler.minimum-allocation-mb=-1, yarn.scheduler.maximum-allocation-mb=8192. "
        "Both values must be >= 0 and the maximum must be >= the minimum."),
    "minimum above maximum is reported at the minimum": (
        [("yarn.scheduler.maximum-allocation-mb", "2048"),
         ("yarn.scheduler.minimum-allocation-mb", "4096")], 3,
        "Invalid resource scheduler memory allocation configuration: "
        "yarn.scheduler.minimum-allocation-mb=4096, yarn.scheduler.maximum-allocation-mb=2048. "
        "Both values must be >= 0 and the maximum must be >= the minimum."),
    "a maximum below the default minimum is reported at the maximum": (
        [("yarn.scheduler.maximum-allocation-mb", "512")], 2,
        "Invalid resource scheduler memory allocation configuration: "
        "yarn.scheduler.minimum-allocation-mb=1024, yarn.scheduler.maximum-allocation-mb=512. "
        "Both values must be >= 0 and the maximum must be >= the minimum."),
    "minimum vcores above maximum": (
        [("yarn.scheduler.minimum-allocation-vcores", "5")], 2,
        "Invalid resource scheduler vcores allocation configuration: "
        "yarn.scheduler.minimum-allocation-vcores=5, yarn.scheduler.maximum-allocation-vcores=4. "
        "Both values must be >= 0 and the maximum must be >= the minimum."),
    "zero memory increment": (
        [("yarn.scheduler.increment-allocation-mb", "0")], 2,
        "Invalid resource scheduler memory allocation configuration: "
        "yarn.scheduler.increment-allocation-mb=0. Values must be greater than 0."),
    "negative vcores increment": (
        [("yarn.scheduler.increment-allocation-vcores", "-1")], 2,
        "Invalid resource scheduler vcores allocation configuration: "
        "yarn.scheduler.increment-allocation-vcores=-1. Values must be greater than 0."),
    "zero increment through the new key names the new key": (
        [("yarn.resource-types.memory-mb.increment-allocation", "0")], 2,
        "Invalid resource scheduler memory allocation configuration: "
        "yarn.resource-types.memory-mb.increment-allocation=0. Values must be greater than 0."),
    "an increment not in value [unit] form": (
        [("yarn.resource-types.memory-mb.increment-allocation", "1.5 Gi")], 2,
        'Property yarn.resource-types.memory-mb.increment-allocation is not in "value [unit]" '
        "format: 1.5 Gi"),
    "an increment with blanks around it": (
        [("yarn.resource-types.vcores.increment-allocation", " 2")], 2,
        'Property yarn.resource-types.vcores.increment-allocation is not in "value [unit]" '
        "format:  2"),
    "an unknown unit": (
        [("yarn.resource-types.memory-mb.increment-allocation", "1 Xi")], 2,
        "yarn.resource-types.memory-mb.increment-allocation=1 Xi: Unknown unit 'Xi'. Known units "
        "are [p, n, u, m, , k, M, G, T, P, Ki, Mi, Gi, Ti, Pi]"),
    "a unit conversion overflow": (
        [("yarn.resource-types.memory-mb.increment-allocation", "9223372036854775807 Pi")], 2,
        "yarn.resource-types.memory-mb.increment-allocation=9223372036854775807 Pi: Converting "
        "9223372036854775807 from 'Pi' to 'Mi' will result in an overflow of Long"),
    "an unsupported allocation file scheme": (
        [(F + "allocation.file", "ftp://host/fair-scheduler.xml")], 2,
        "Allocation file ftp://host/fair-scheduler.xml uses an unsupported filesystem (scheme "
        "'ftp'; supported: hdfs, file, s3a, viewfs)"),
    "another scheduler": (
        [("yarn.resourcemanager.scheduler.class",
          "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler")], 2,
        "yarn.resourcemanager.scheduler.class=org.apache.hadoop.yarn.server.resourcemanager."
        f"scheduler.capacity.CapacityScheduler: only the Fair Scheduler ({FAIR_SCHEDULER_CLASS}) "
        "is modelled"),
    "a non-number where an int goes": (
        [(F + "max.assign", "many")], 2, f"{F}max.assign='many' is not an int"),
    "an int beyond 32 bits": (
        [(F + "max.assign", "0xFFFFFFFF")], 2, f"{F}max.assign='0xFFFFFFFF' is not an int"),
    "a decimal where a long goes": (
        [(F + "update-interval-ms", "500.0")], 2, f"{F}update-interval-ms='500.0' is not a long"),
    "a non-number where a float goes": (
        [(F + "reservable-nodes", "5%")], 2, f"{F}reservable-nodes='5%' is not a float"),
    "an unreadable preemption setting with preemption on": (
        [(F + "preemption", "true"), (F + "preemption.cluster-utilization-threshold", "high")], 3,
        f"{F}preemption.cluster-utilization-threshold='high' is not a float"),
    "memory-mb as a custom resource type": (
        [("yarn.resource-types", "memory-mb")], 2,
        "yarn.resource-types: Attempt to re-define mandatory resource 'memory-mb'."),
    "a resource type named twice": (
        [("yarn.resource-types", "gpu,gpu")], 2,
        "yarn.resource-types: Error in config, key 'gpu' specified twice"),
    "an invalid resource type name": (
        [("yarn.resource-types", "1gpu")], 2, "yarn.resource-types: '1gpu' is not a valid resource "
        "name"),
    "an empty resource type name": (
        [("yarn.resource-types", "a,,b")], 2,
        "yarn.resource-types: Incomplete configuration for resource type ''"),
}  # fmt: skip


@pytest.mark.parametrize(("props", "line", "message"), ERRORS.values(), ids=ERRORS.keys())
def test_errors_are_located(
    tmp_path: Path, props: list[tuple[str, str]], line: int, message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, *props)
    assert not isinstance(info.value, ConfigErrors)
    assert (info.value.file, info.value.line, info.value.message) == (
        "yarn-site.xml",
        line,
        message,
    )
    assert str(info.value) == f"yarn-site.xml:{line}: {message}"


def test_all_errors_are_reported_together(tmp_path: Path) -> None:
    with pytest.raises(ConfigErrors) as info:
        load(
            tmp_path,
            (F + "max.assign", "x"),
            ("yarn.scheduler.increment-allocation-mb", "0"),
            (F + "allocation.file", "gopher:fs.xml"),
        )
    assert sorted(e.line or 0 for e in all_errors(info.value)) == [2, 3, 4]


def test_a_too_deep_substitution_is_an_error_where_yarn_reads_it(tmp_path: Path) -> None:
    chain = [(f"v{i}", f"${{v{i + 1}}}") for i in range(25)] + [("v25", "3")]
    with pytest.raises(ConfigError) as info:
        load(tmp_path, *chain, (F + "max.assign", "${v0}"))
    assert info.value.line == 28
    assert info.value.message.startswith(f"{F}max.assign: Variable substitution depth too large")


def test_a_too_deep_substitution_elsewhere_is_left_alone(tmp_path: Path) -> None:
    chain = [(f"v{i}", f"${{v{i + 1}}}") for i in range(25)] + [("v25", "3")]
    assert load(tmp_path, *chain).raw["v0"] == "${v1}"


def test_substitution_feeds_the_getters(tmp_path: Path) -> None:
    config = load(tmp_path, ("my.assign", "4"), (F + "max.assign", "${my.assign}"))
    assert config.max_assign == 4
    assert config.raw[F + "max.assign"] == "4"


def test_an_environment_default_applies_as_the_variable_is_unset(tmp_path: Path) -> None:
    value = "${env.HADOOP_CONF_DIR:-/etc/hadoop}/fair-scheduler.xml"
    config = load(tmp_path, (F + "allocation.file", value))
    assert config.allocation_file == "/etc/hadoop/fair-scheduler.xml"


def test_a_long_value_is_echoed_shortened(tmp_path: Path) -> None:
    [warning] = load(tmp_path, (F + "assignmultiple", "x" * 10_000)).warnings
    assert warning.message == f"{F}assignmultiple='{'x' * 39}…' is neither true nor false"


def test_a_final_value_survives_a_later_file_entry(tmp_path: Path) -> None:
    final = f"<property><name>{F}max.assign</name><value>2</value><final>true</final></property>"
    config = load(tmp_path, final, (F + "max.assign", "9"))
    assert config.max_assign == 2
    assert [w.line for w in config.warnings] == [3]


def test_overrides_win_over_the_file_even_when_final(tmp_path: Path) -> None:
    final = f"<property><name>{F}max.assign</name><value>2</value><final>true</final></property>"
    config = load_site(site(tmp_path, final), {F + "max.assign": 5, F + "preemption": True})
    assert (config.max_assign, config.preemption) == (5, True)


OVERRIDES: dict[str, tuple[str, object, str, object]] = {
    "a bool": (F + "sizebasedweight", True, "size_based_weight", True),
    "an int": (F + "waitTimeBeforeKill", 1000, "wait_time_before_kill_ms", 1000),
    "a float is float32-rounded": (F + "preemption.cluster-utilization-threshold", 0.8,
                                   "preemption_cluster_utilization_threshold", F32_08),
    "a str": (F + "allocation.file", "other.xml", "allocation_file", "other.xml"),
}  # fmt: skip


@pytest.mark.parametrize(("key", "value", "name", "expected"), OVERRIDES.values(),
                         ids=OVERRIDES.keys())  # fmt: skip
def test_override_values(key: str, value: object, name: str, expected: object) -> None:
    assert getattr(load_site(overrides={key: value}), name) == expected


def test_overrides_substitute_from_the_file(tmp_path: Path) -> None:
    config = load_site(site(tmp_path, ("base", "fs")), {F + "allocation.file": "/etc/${base}.xml"})
    assert config.allocation_file == "/etc/fs.xml"


def test_an_override_of_another_type_is_an_error() -> None:
    with pytest.raises(ConfigError) as info:
        load_site(overrides={F + "max.assign": [1]})
    assert str(info.value) == f"<overrides>: override {F}max.assign: a list is not a bool, int, " \
        "float or str"  # fmt: skip


def test_an_override_error_has_no_line() -> None:
    with pytest.raises(ConfigError) as info:
        load_site(overrides={F + "max.assign": 1.5})
    assert (info.value.file, info.value.line) == ("<overrides>", None)
    assert info.value.message == f"{F}max.assign='1.5' is not an int"


def test_an_absurdly_large_integer_override_is_an_error() -> None:
    with pytest.raises(ConfigError, match="far too large"):
        load_site(overrides={F + "max.assign": 10**5000})


def test_an_empty_allocation_file_override_is_an_error() -> None:
    with pytest.raises(ConfigError, match="Can not create a Path from an empty string"):
        load_site(overrides={F + "allocation.file": ""})


def test_read_site_xml_is_reexported(tmp_path: Path) -> None:
    path = site(tmp_path, ("a", "${b}"), ("b", "1"))
    assert read_site_xml(path) == {"a": ("1", 2), "b": ("1", 3)}


def test_the_file_name_defaults_to_the_path(tmp_path: Path) -> None:
    path = site(tmp_path, (F + "max.assign", "x"))
    with pytest.raises(ConfigError) as info:
        load_site(path)
    assert info.value.file == str(path)


VALUES = st.one_of(
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(),
    st.text(st.sampled_from(list("0123456789xX-+.eEfdpP ${}aNIn"))),
    st.none(),
    st.lists(st.integers(), max_size=2),
)
KEYS_TO_TRY = st.one_of(
    st.sampled_from(sorted({key for key, *_ in KEYS.values()} | {F + "preemption", "base"})),
    st.text(max_size=30),
)


@given(st.dictionaries(KEYS_TO_TRY, VALUES, max_size=6))
def test_any_overrides_raise_only_config_errors(overrides: dict[str, Any]) -> None:
    try:
        config = load_site(overrides=overrides)
    except ConfigError:
        return
    assert isinstance(config, SiteConfig)


@pytest.mark.parametrize(("memory", "store", "expected"), [
    (None, None, (1000, 1000)),
    ("7", None, (7, 7)),  # the state store's limit is the memory's by default
    ("5", "3", (5, 3)),
    ("5", "10", (5, 5)),  # RMAppManager: never more in the store than in memory
    (None, "10", (1000, 10)),
])
def test_max_completed_applications_in_memory_and_in_the_state_store(
        memory: str | None, store: str | None, expected: tuple[int, int]) -> None:
    properties = {}
    if memory is not None:
        properties["yarn.resourcemanager.max-completed-applications"] = memory
    if store is not None:
        properties["yarn.resourcemanager.state-store.max-completed-applications"] = store
    site = load_site(None, properties)
    assert (site.max_completed_apps, site.state_store_max_completed_apps) == expected
