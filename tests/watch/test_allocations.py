"""AllocationWatch: reloads as AllocationFileLoaderService does (a changed file once it is 5 s old;
a bad one leaves the configuration in force), and each queue's effective threshold — the RM's
queues the file lacks inheriting theirs (FSQueue.updatePreemptionVariables)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fairshare.config.errors import ConfigError
from fairshare.watch.allocations import AllocationWatch, Failed, Reloaded, Unchanged

ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <defaultFairSharePreemptionThreshold>0.6</defaultFairSharePreemptionThreshold>
  <queue name="a">
    <fairSharePreemptionThreshold>0.8</fairSharePreemptionThreshold>
    <queue name="a1"/>
  </queue>
  <queue name="b"/>
</allocations>
"""
RM_QUEUES = ["root", "root.a", "root.a.a1", "root.a.dyn", "root.b", "root.users",
             "root.users.alice"]
LATER = 2_000_000_000_000  # long after any file's modification time


def write(path: Path, text: str, mtime_ms: int | None = None) -> None:
    path.write_text(text, encoding="utf-8")
    if mtime_ms is not None:
        os.utime(path, ns=(mtime_ms * 1_000_000, mtime_ms * 1_000_000))


@pytest.fixture
def file(tmp_path: Path) -> Path:
    path = tmp_path / "fair-scheduler.xml"
    write(path, ALLOCATIONS)
    return path


def test_thresholds_inherit_down_to_the_queues_the_file_lacks(file: Path) -> None:
    watch = AllocationWatch(file)
    got = watch.thresholds(RM_QUEUES)
    # root takes defaultFairSharePreemptionThreshold; a queue without its own takes its
    # parent's, whether the file names it (a1, b) or only the RM has it (dyn, users.alice)
    assert got == pytest.approx({"root": 0.6, "root.a": 0.8, "root.a.a1": 0.8,
                                 "root.a.dyn": 0.8, "root.b": 0.6, "root.users": 0.6,
                                 "root.users.alice": 0.6}, rel=1e-6)
    tree = watch.tree(RM_QUEUES)
    assert tree["root.users"].is_leaf is False and tree["root.users.alice"].is_leaf
    assert tree["root.a.dyn"].dynamic


def test_without_a_file_the_threshold_measured_against_is_half(tmp_path: Path) -> None:
    watch = AllocationWatch(None)
    assert watch.thresholds(["root", "root.x"]) == {"root": 0.5, "root.x": 0.5}
    assert watch.check(LATER) == Unchanged()
    assert watch.config.has_file is False


def test_an_unchanged_file_is_not_reloaded(file: Path) -> None:
    watch = AllocationWatch(file)
    assert watch.check(LATER) == Unchanged()


def test_a_changed_file_is_reloaded_once_five_seconds_old(file: Path) -> None:
    watch = AllocationWatch(file)
    written = 1_800_000_000_000
    write(file, ALLOCATIONS.replace("0.8", "0.9"), mtime_ms=written)
    assert watch.check(written + 4_999) == Unchanged(waiting=True)
    assert watch.thresholds(["root.a"]) == pytest.approx({"root.a": 0.8}, rel=1e-6)
    result = watch.check(written + 5_000)
    assert isinstance(result, Reloaded) and result.config is watch.config
    assert watch.thresholds(["root.a", "root.a.dyn"]) == pytest.approx(
        {"root.a": 0.9, "root.a.dyn": 0.9}, rel=1e-6)
    assert watch.check(written + 6_000) == Unchanged()


def test_a_change_that_keeps_size_and_mtime_is_seen_by_its_content(file: Path) -> None:
    watch = AllocationWatch(file)
    before = file.stat()
    write(file, ALLOCATIONS.replace("0.8", "0.7"))
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert file.stat().st_size == before.st_size
    assert isinstance(watch.check(LATER), Reloaded)
    assert watch.thresholds(["root.a"]) == pytest.approx({"root.a": 0.7}, rel=1e-6)


def test_a_bad_file_keeps_the_last_good_one_and_says_where(file: Path) -> None:
    watch = AllocationWatch(file)
    bad = ALLOCATIONS.replace("<queue name=\"b\"/>", "<queue name=\"b\">\n"
                              "    <weight>heavy</weight>\n  </queue>")
    write(file, bad)
    line = bad.splitlines().index("    <weight>heavy</weight>") + 1
    result = watch.check(LATER)
    assert isinstance(result, Failed) and not result.repeated
    assert result.message.startswith(f"{file}:{line}: ")
    assert "heavy" in result.message
    assert result.message.endswith("(the configuration loaded last stays in force, as the "
                                   "ResourceManager keeps it)")
    assert watch.thresholds(["root.a"]) == pytest.approx({"root.a": 0.8}, rel=1e-6)
    again = watch.check(LATER)
    assert isinstance(again, Failed) and again.repeated and again.message == result.message
    write(file, ALLOCATIONS.replace("0.8", "0.3"))
    assert isinstance(watch.check(LATER), Reloaded)
    assert watch.thresholds(["root.a"]) == pytest.approx({"root.a": 0.3}, rel=1e-6)


def test_malformed_xml_and_a_removed_file_fail_without_losing_the_config(file: Path) -> None:
    watch = AllocationWatch(file)
    write(file, "<allocations>\n  <queue name=\"a\">\n</allocations>\n")
    result = watch.check(LATER)
    assert isinstance(result, Failed) and result.message.startswith(f"{file}:")
    file.unlink()
    gone = watch.check(LATER)
    assert isinstance(gone, Failed) and gone.message.startswith(f"{file}: ")
    assert gone.message.endswith("the configuration loaded last stays in force")
    still = watch.check(LATER)
    assert isinstance(still, Failed) and still.repeated
    write(file, ALLOCATIONS)  # the file in force again: nothing to reload
    assert watch.check(LATER) == Unchanged()
    assert watch.thresholds(["root.a"]) == pytest.approx({"root.a": 0.8}, rel=1e-6)


def test_a_bad_file_at_start_is_refused_as_the_rm_refuses_to_start(tmp_path: Path) -> None:
    path = tmp_path / "bad.xml"
    write(path, "<allocation/>\n")
    with pytest.raises(ConfigError):
        AllocationWatch(path)


def test_the_site_gives_preemption_and_its_utilization_threshold(tmp_path: Path,
                                                                 file: Path) -> None:
    site = tmp_path / "yarn-site.xml"
    write(site, """<?xml version="1.0"?>
<configuration>
  <property><name>yarn.scheduler.fair.preemption</name><value>true</value></property>
  <property>
    <name>yarn.scheduler.fair.preemption.cluster-utilization-threshold</name>
    <value>0.7</value>
  </property>
</configuration>
""")
    watch = AllocationWatch(file, site)
    assert watch.preemption_enabled is True
    assert watch.utilization_threshold == pytest.approx(0.7, rel=1e-6)
    defaults = AllocationWatch(file)
    assert defaults.preemption_enabled is False  # yarn.scheduler.fair.preemption's default
    assert defaults.utilization_threshold == pytest.approx(0.8, rel=1e-6)
