"""``--set`` overrides: parsed, written into the allocation document or the site properties,
and checked by the same code as the file's own values, located at the option."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairshare.config.allocation import allocation_text, parse_allocations_text
from fairshare.config.errors import ConfigError, all_errors
from fairshare.config.overrides import Override, parse_override, site_overrides
from fairshare.config.yarnsite import SITE_KEY_PREFIXES, known_site_keys, load_site

FILE = """<allocations>
  <defaultFairSharePreemptionThreshold>0.8</defaultFairSharePreemptionThreshold>
  <queue name="tenant1"><weight>1</weight></queue>
  <queue name="tenant2">
    <weight>2</weight>
    <queue name="batch"><maxRunningApps>3</maxRunningApps></queue>
  </queue>
</allocations>
"""


def alloc(*texts: str, file: str = FILE) -> dict[str, object]:
    config = parse_allocations_text(file, "fs.xml", overrides=[parse_override(t) for t in texts])
    return {q.name: q for q in config.queues} | {"": config}


def problems(*texts: str, file: str = FILE) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_allocations_text(file, "fs.xml", overrides=[parse_override(t) for t in texts])
    return [str(e) for e in all_errors(info.value)]


# -- the option's form -------------------------------------------------------------------------


def test_an_override_is_scope_key_and_everything_after_the_first_equals_sign() -> None:
    assert parse_override("alloc:root.a.aclSubmitApps=u1 g=1") == Override(
        "alloc", "root.a.aclSubmitApps", "u1 g=1")
    assert parse_override("site:yarn.scheduler.fair.preemption=") == Override(
        "site", "yarn.scheduler.fair.preemption", "")


@pytest.mark.parametrize(("text", "message"), [
    ("root.a.weight=2", "--set root.a.weight=2: expected alloc:KEY=VALUE or site:KEY=VALUE"),
    ("yarn:x=1", "--set yarn:x=1: expected alloc:KEY=VALUE or site:KEY=VALUE"),
    ("alloc:root.a.weight", "--set alloc:root.a.weight: expected alloc:KEY=VALUE"),
    ("site:=true", "--set site:=true: expected site:KEY=VALUE"),
])
def test_a_malformed_override_names_the_option(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_override(text)
    assert str(info.value).startswith(message)


# -- the allocation file -----------------------------------------------------------------------


def test_a_queue_setting_replaces_the_files_value() -> None:
    queues = alloc("alloc:root.tenant2.weight=5", "alloc:root.tenant2.batch.maxRunningApps=7")
    assert queues["root.tenant2"].weight == 5.0  # type: ignore[attr-defined]
    assert queues["root.tenant2.batch"].max_running_apps == 7  # type: ignore[attr-defined]
    assert queues["root.tenant1"].weight == 1.0  # type: ignore[attr-defined]


def test_a_setting_the_queue_lacks_is_added_to_it() -> None:
    queues = alloc("alloc:root.tenant1.fairSharePreemptionTimeout=15")
    assert queues["root.tenant1"].fair_share_preemption_timeout_ms == 15_000  # type: ignore[attr-defined]


def test_top_level_elements_are_replaced_or_added() -> None:
    config = alloc("alloc:defaultFairSharePreemptionThreshold=0.9",
                   "alloc:defaultMinSharePreemptionTimeout=30")[""]
    assert config.default_fair_share_preemption_threshold == pytest.approx(0.9)  # type: ignore[attr-defined]
    assert config.default_min_share_preemption_timeout_ms == 30_000  # type: ignore[attr-defined]


def test_the_later_of_two_overrides_of_one_setting_wins() -> None:
    queues = alloc("alloc:root.tenant1.weight=3", "alloc:root.tenant1.weight=4")
    assert queues["root.tenant1"].weight == 4.0  # type: ignore[attr-defined]


def test_a_setting_given_twice_in_the_file_is_overridden_where_yarn_reads_it() -> None:
    """YARN keeps the last of two <weight> elements; the override must replace that one."""
    file = FILE.replace("<weight>1</weight>", "<weight>1</weight><weight>6</weight>")
    assert alloc(file=file)["root.tenant1"].weight == 6.0  # type: ignore[attr-defined]
    assert alloc("alloc:root.tenant1.weight=2", file=file)["root.tenant1"].weight == 2.0  # type: ignore[attr-defined]


def test_queues_under_an_explicit_root_element_are_found() -> None:
    file = ('<allocations><queue name="root"><weight>1</weight>'
            '<queue name="a"><weight>1</weight></queue></queue></allocations>')
    queues = alloc("alloc:root.a.weight=3", "alloc:root.allowPreemptionFrom=false", file=file)
    assert queues["root.a"].weight == 3.0  # type: ignore[attr-defined]
    assert queues["root"].allow_preemption_from is False  # type: ignore[attr-defined]


def test_a_bad_value_gets_the_files_own_message_located_at_the_option() -> None:
    in_file = problems(file=FILE.replace("<weight>2</weight>", "<weight>abc</weight>"))
    assert len(in_file) == 1 and in_file[0].startswith("fs.xml:5: ")
    message = in_file[0].removeprefix("fs.xml:5: ")
    assert problems("alloc:root.tenant2.weight=abc") == [
        f"--set alloc:root.tenant2.weight=abc: {message}"]


def test_a_value_yarn_rejects_on_a_parent_is_rejected_when_set_there() -> None:
    """maxAMShare is leaf-only (YARN-10528): the file's own rule, at the option."""
    [message] = problems("alloc:root.tenant2.maxAMShare=0.5")
    assert message.startswith("--set alloc:root.tenant2.maxAMShare=0.5: The configuration "
                              "settings for root.tenant2 are invalid.")


@pytest.mark.parametrize(("text", "message"), [
    ("alloc:root.tenantt1.weight=2",
     "--set alloc:root.tenantt1.weight=2: queue root.tenantt1 is not in the allocation file (it "
     "defines root.tenant1, root.tenant2, root.tenant2.batch); did you mean root.tenant1?"),
    ("alloc:root.tenant1.wieght=2",
     "--set alloc:root.tenant1.wieght=2: <wieght> is not a setting of queue root.tenant1 that "
     "--set can change; did you mean <weight>?"),
    ("alloc:defaultFairSharePreemptionTreshold=0.9",
     "--set alloc:defaultFairSharePreemptionTreshold=0.9: <defaultFairSharePreemptionTreshold> "
     "is not a top-level element that --set can change; did you mean "
     "<defaultFairSharePreemptionThreshold>?"),
    ("alloc:queue=x", "--set alloc:queue=x: <queue> is not a top-level element that --set can "
     "change"),
])
def test_unknown_queues_and_elements_are_errors_with_a_suggestion(text: str, message: str
                                                                  ) -> None:
    assert problems(text) == [message]


# -- yarn-site ---------------------------------------------------------------------------------


def site(*texts: str) -> object:
    values, where = site_overrides([parse_override(t) for t in texts], known_site_keys(),
                                   SITE_KEY_PREFIXES)
    return load_site(None, values, override_locations=where)


def test_site_overrides_set_properties() -> None:
    config = site("site:yarn.scheduler.fair.preemption=true",
                  "site:yarn.scheduler.fair.waitTimeBeforeKill=0",
                  "site:yarn.scheduler.fair.am.preemption.root.a=false")
    assert config.preemption is True  # type: ignore[attr-defined]
    assert config.wait_time_before_kill_ms == 0  # type: ignore[attr-defined]
    assert config.am_preemption_for("root.a") is False  # type: ignore[attr-defined]


def test_a_site_property_fairshare_does_not_read_is_an_error_with_a_suggestion() -> None:
    with pytest.raises(ConfigError) as info:
        site("site:yarn.scheduler.fair.preemtion=false")
    assert str(info.value) == (
        "--set site:yarn.scheduler.fair.preemtion=false: yarn.scheduler.fair.preemtion is not "
        "a property fairshare reads, so setting it would change nothing; did you mean "
        "yarn.scheduler.fair.preemption?")


def test_a_bad_site_value_is_located_at_the_option() -> None:
    with pytest.raises(ConfigError) as info:
        # read only when preemption runs: YARN's preemption thread parses it
        site("site:yarn.scheduler.fair.preemption=true",
             "site:yarn.scheduler.fair.waitTimeBeforeKill=soon")
    [error] = all_errors(info.value)
    assert (error.file, error.line) == (
        "--set site:yarn.scheduler.fair.waitTimeBeforeKill=soon", None)
    assert "soon" in error.message


def test_known_site_keys_are_the_ones_the_reader_looks_up() -> None:
    keys = known_site_keys()
    assert {"yarn.scheduler.fair.preemption", "yarn.scheduler.minimum-allocation-mb",
            "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms",
            "yarn.scheduler.fair.preemption.cluster-utilization-threshold"} <= keys
    assert "yarn.nodemanager.resource.memory-mb" not in keys


def test_the_file_a_resource_manager_would_read_has_the_overrides_written_in(
        tmp_path: Path) -> None:
    text = "<allocations><queue name='a'><weight>1</weight></queue><queue name='b'/></allocations>"
    overrides = [parse_override("alloc:root.a.weight=3"),
                 parse_override("alloc:root.b.maxRunningApps=2")]
    written = allocation_text(text, None, overrides)
    config = parse_allocations_text(written, "w.xml")
    assert [(q.name, q.weight, q.max_running_apps) for q in config.queues] == [
        ("root.a", 3.0, None), ("root.b", None, 2)]
    path = tmp_path / "fair-scheduler.xml"
    path.write_text(text, encoding="utf-8")
    assert allocation_text(None, path, overrides) == written
    assert allocation_text(text, None) == text  # nothing to write: the text as it is
    assert allocation_text("<allocations><oops", None, overrides) == "<allocations><oops"
