"""The ``fairshare`` command: exact lines and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
SEED = str(ROOT / "examples" / "seed-three-tenants" / "fair-scheduler.xml")
runner = CliRunner()


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_validate_seed_example() -> None:
    result = runner.invoke(app, ["validate", SEED])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "Placement rules (generated from yarn-site):" in lines
    assert "  1. specified (create=true)" in lines
    assert "  2. user (create=true)" in lines
    assert lines[-1] == "OK: the ResourceManager would accept this configuration."
    tenant2 = next(line for line in lines if line.strip().startswith("tenant2"))
    assert tenant2.split() == ["tenant2", "2", "drf", "<", "80%", "for", "5s", "off", "yes"]


def test_validate_reports_every_error_with_file_and_line(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.xml", """<?xml version="1.0"?>
<allocations>
  <queue name="a">
    <weight>heavy</weight>
  </queue>
  <queue name="x.y"/>
  <defaultQueueSchedulingPolicy>fifo</defaultQueueSchedulingPolicy>
</allocations>
""")
    result = runner.invoke(app, ["validate", bad])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f'{bad}:4: root.a: <weight> must be a number, got "heavy"',
        f"{bad}:6: queue name (x.y) shouldn't contain period (a <queue> under root)",
        f"{bad}:7: Bad fair scheduler config file: defaultQueueSchedulingPolicy or "
        "defaultQueueSchedulingMode can't be FIFO.",
    ]


def test_validate_missing_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.xml")
    result = runner.invoke(app, ["validate", missing])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{missing}: cannot read file")


def test_validate_malformed_xml(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.xml", "<allocations>\n  <queue name='a'>\n</allocations>\n")
    result = runner.invoke(app, ["validate", bad])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{bad}:3: malformed XML")


def test_validate_shows_placement_rules_of_the_file(tmp_path: Path) -> None:
    xml = write(tmp_path, "p.xml", """<allocations>
  <queuePlacementPolicy>
    <rule name="specified" create="false"/>
    <rule name="user" create="false"><rule name="primaryGroup"/></rule>
    <rule name="default" queue="batch"/>
  </queuePlacementPolicy>
</allocations>""")
    result = runner.invoke(app, ["validate", xml])
    assert result.exit_code == 0, result.output
    assert "Placement rules (from the allocation file):" in result.stdout
    assert "  2. user (create=false) under primaryGroup (create=true)" in result.stdout
    assert "  3. default (create=true, queue=batch)" in result.stdout


def test_validate_bad_site_file(tmp_path: Path) -> None:
    site = write(tmp_path, "yarn-site.xml", """<configuration>
  <property><name>yarn.scheduler.minimum-allocation-mb</name><value>-5</value></property>
</configuration>""")
    result = runner.invoke(app, ["validate", SEED, "--site", site])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{site}:2: ")


def seed_json(*args: str) -> dict[str, dict[str, object]]:
    result = runner.invoke(
        app, ["shares", SEED, "--cluster", "memory-mb=24576,vcores=12", "--json", *args]
    )
    assert result.exit_code == 0, result.output
    queues: dict[str, dict[str, object]] = json.loads(result.stdout)["queues"]
    return queues


def test_shares_json_seed_example_two_tenants_active() -> None:
    queues = seed_json("--active", "root.tenant1,root.tenant2")
    # seed article: steady 25/50/25 %; instantaneous one third / two thirds / 0
    assert queues["root.tenant1"]["steady-fair-share"] == {"memory-mb": 6144, "vcores": 3}
    assert queues["root.tenant2"]["steady-fair-share"] == {"memory-mb": 12288, "vcores": 6}
    assert queues["root.tenant3"]["steady-fair-share"] == {"memory-mb": 6144, "vcores": 3}
    assert queues["root.tenant1"]["fair-share"] == {"memory-mb": 8192, "vcores": 4}
    assert queues["root.tenant2"]["fair-share"] == {"memory-mb": 16384, "vcores": 8}
    assert queues["root.tenant3"]["fair-share"] == {"memory-mb": 0, "vcores": 0}
    assert queues["root.tenant2"]["weight"] == 2.0
    assert queues["root.tenant2"]["policy"] == "drf"
    assert queues["root.tenant2"]["min-share"] == {"memory-mb": 0, "vcores": 0}
    assert queues["root.tenant2"]["max-share"] == {
        "memory-mb": 2**63 - 1, "vcores": 2**63 - 1
    }


def test_shares_json_all_leaves_active_by_default() -> None:
    queues = seed_json()
    # default has weight 0 → fixed at its min (0); tenants split 1:2:1 → 6144/12288/6144
    assert queues["root.tenant1"]["fair-share"] == {"memory-mb": 6144, "vcores": 3}
    assert queues["root.default"]["fair-share"] == {"memory-mb": 0, "vcores": 0}


def test_shares_accepts_short_queue_names() -> None:
    queues = seed_json("--active", "tenant3")
    assert queues["root.tenant3"]["fair-share"] == {"memory-mb": 24576, "vcores": 12}


def test_shares_table() -> None:
    result = runner.invoke(
        app, ["shares", SEED, "--cluster", "memory-mb=24576,vcores=12", "--active",
              "root.tenant1,root.tenant2"]
    )
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines() if line.strip()}
    assert rows["tenant1"] == ["tenant1", "*", "1", "drf", "6,144", "3", "25.0", "8,192", "4",
                               "33.3"]
    assert rows["tenant3"] == ["tenant3", "1", "drf", "6,144", "3", "25.0", "0", "0", "0.0"]


def test_shares_custom_resource_types(tmp_path: Path) -> None:
    site = write(tmp_path, "yarn-site.xml", """<configuration>
  <property><name>yarn.resource-types</name><value>yarn.io/gpu</value></property>
</configuration>""")
    xml = write(tmp_path, "fs.xml", """<allocations>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
  <queue name="default"><weight>0</weight></queue>
  <queue name="ml"><weight>3</weight></queue>
  <queue name="etl"/>
</allocations>""")
    result = runner.invoke(app, ["shares", xml, "--site", site, "--json", "--cluster",
                                 "memory-mb=40000,vcores=40,yarn.io/gpu=8"])
    assert result.exit_code == 0, result.output
    queues = json.loads(result.stdout)["queues"]
    assert queues["root.ml"]["fair-share"] == {"memory-mb": 30000, "vcores": 30, "yarn.io/gpu": 6}
    assert queues["root.etl"]["fair-share"] == {"memory-mb": 10000, "vcores": 10, "yarn.io/gpu": 2}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--cluster", "lots"], "--cluster: 'lots': give memory/vcores, e.g. "
                     "10x64g/16, 640g/160 or memory-mb=655360,vcores=160", id="bad cluster"),
        pytest.param(["--cluster", "50%"], "--cluster: '50%': give memory/vcores, e.g. "
                     "10x64g/16, 640g/160 or memory-mb=655360,vcores=160", id="percent cluster"),
        pytest.param(["--cluster", "memory-mb=8192"], "--cluster: 'memory-mb=8192' gives no "
                     "vcores: every resource type must be given (a missing one would be 0, and "
                     "YARN could place nothing that asks for it); e.g. 10x64g/16, 640g/160 or "
                     "memory-mb=655360,vcores=160", id="missing vcores is not 0"),
        pytest.param(["--cluster", "8q/4"], "--cluster: memory '8q': give a number with an "
                     "optional unit m, g or t (binary: 1g = 1024 MB), e.g. 64g", id="bad unit"),
        pytest.param(["--cluster", "0x8g/4"], "--cluster: '0x8g/4': a cluster of 0 nodes has "
                     "nothing to share", id="no nodes"),
        pytest.param(["--cluster", "memory-mb=99999999999999999999999999999,vcores=1"],
                     "--cluster: 'memory-mb=99999999999999999999999999999,vcores=1': the "
                     "cluster's memory-mb is more than YARN's largest amount "
                     "(9,223,372,036,854,775,807, a Java long)", id="memory beyond a long"),
        pytest.param(["--cluster", "3x4611686018427387904/1"],
                     "--cluster: '3x4611686018427387904/1': the cluster's memory-mb is more than "
                     "YARN's largest amount (9,223,372,036,854,775,807, a Java long)",
                     id="nodes times a node beyond a long"),
        pytest.param(["--cluster", "1.5m/1"], "--cluster: memory '1.5m' is not a whole number "
                     "of MB", id="fractional MB"),
        pytest.param(["--cluster", "8g/4,gpu=1"], "--cluster: unknown resource type 'gpu' (this "
                     "configuration has memory-mb, vcores)", id="unknown type"),
        pytest.param(["--cluster", "memory-mb=1,vcores=1", "--active", "root"],
                     "--active: root is not a leaf queue of this configuration and YARN would "
                     "not create it: root is not a leaf queue", id="parent is not a leaf"),
    ],
)
def test_shares_bad_arguments(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["shares", SEED, *args])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [message]


def test_validate_lists_queues_yarn_cannot_create(tmp_path: Path) -> None:
    xml = write(tmp_path, "p.xml", """<allocations>
  <queue name="a"><schedulingPolicy>drf</schedulingPolicy></queue>
</allocations>""")
    result = runner.invoke(app, ["validate", xml])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    i = lines.index("Configured queues YARN cannot create (applications cannot run in them):")
    assert lines[i + 1] == "  root.a: root.a cannot be created: policy drf is not allowed under " \
        "fair root"


def test_validate_shows_warnings_next_to_errors_in_file_order(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.xml", """<allocations>
  <queue name="a"><weight>heavy</weight></queue>
  <queue name="b"><maxResource>8192 mb, 4 vcores</maxResource></queue>
</allocations>""")
    result = runner.invoke(app, ["validate", bad])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f'{bad}:2: root.a: <weight> must be a number, got "heavy"',
        f"{bad}:3: warning: root.b: <maxResource> is not a queue setting; YARN silently "
        "ignores it; did you mean <maxResources>? AllocationFileQueueParser skips it without a "
        "word, so the setting meant keeps its inherited or default value",
    ]


def test_validate_says_whether_preemption_is_on(tmp_path: Path) -> None:
    off = runner.invoke(app, ["validate", SEED])
    assert ("Preemption: off (yarn.scheduler.fair.preemption=false): starvation is never "
            "checked and nothing is preempted.") in off.stdout.splitlines()
    site = write(tmp_path, "yarn-site.xml", """<configuration>
  <property><name>yarn.scheduler.fair.preemption</name><value>true</value></property>
  <property><name>yarn.scheduler.fair.waitTimeBeforeKill</name><value>10000</value></property>
</configuration>""")
    on = runner.invoke(app, ["validate", SEED, "--site", site])
    assert ("Preemption: on. Starvation is checked while cluster utilization is above 80%; "
            "victims are killed 10s after they are chosen.") in on.stdout.splitlines()


def test_validate_starvation_column_edge_values(tmp_path: Path) -> None:
    xml = write(tmp_path, "e.xml", """<allocations>
  <queue name="now"><fairSharePreemptionTimeout>0</fairSharePreemptionTimeout>
    <fairSharePreemptionThreshold>0.5</fairSharePreemptionThreshold></queue>
  <queue name="never"><fairSharePreemptionThreshold>0</fairSharePreemptionThreshold>
    <fairSharePreemptionTimeout>5</fairSharePreemptionTimeout></queue>
</allocations>""")
    result = runner.invoke(app, ["validate", xml])
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    assert "< 50% at once" in rows["now"]
    assert rows["never"].split()[3] == "off"  # threshold 0: nothing is ever below 0 × share


def test_shares_json_marks_ancestors_of_active_leaves_active() -> None:
    queues = seed_json("--active", "tenant1")
    assert queues["root"]["active"] is True
    assert queues["root.tenant1"]["active"] is True
    assert queues["root.tenant2"]["active"] is False


def test_shares_json_stays_valid_with_a_nan_weight(tmp_path: Path) -> None:
    xml = write(tmp_path, "n.xml", """<allocations>
  <queue name="odd"><weight>NaN</weight></queue>
  <queue name="b"/>
</allocations>""")
    result = runner.invoke(app, ["shares", xml, "--cluster", "memory-mb=1000,vcores=1",
                                 "--json"])
    assert result.exit_code == 0, result.output
    def strict(name: str) -> None:
        raise AssertionError(f"{name} in JSON output")

    queues = json.loads(result.stdout, parse_constant=strict)  # no bare NaN
    assert queues["queues"]["root.odd"]["weight"] is None  # docs/outputs.md: not finite → null
    # a NaN weight takes nothing; root.b, the only other queue, gets all 1000 MB (fair policy)
    assert queues["queues"]["root.odd"]["fair-share"]["memory-mb"] == 0
    assert queues["queues"]["root.b"]["fair-share"]["memory-mb"] == 1000
    assert "NaN" in result.stderr  # the warning still reaches the user, on stderr


@pytest.mark.parametrize(
    "cluster",
    ["3x8g/4", "24g/12", "24576/12", "24GB/12", "0.0234375t/12", "memory-mb=24g,vcores=12",
     "3 x memory-mb=8192, vcores=4", "3×8Gi/4"],
)
def test_cluster_sizes_in_every_form_give_the_same_shares(cluster: str) -> None:
    # 3 nodes of 8 GB / 4 vcores is the seed's 24,576 MB / 12 vcores cluster in any notation
    result = runner.invoke(app, ["shares", SEED, "--cluster", cluster, "--json"])
    assert result.exit_code == 0, result.output
    root = json.loads(result.stdout)["queues"]["root"]
    assert root["fair-share"] == {"memory-mb": 24576, "vcores": 12}


def test_active_queue_that_placement_creates_counts_and_is_named(tmp_path: Path) -> None:
    # The seed file has no placement rules: YARN generates specified and user, both creating
    # queues, so an app for root.adhoc gets a dynamic leaf with weight 1 beside the three tenants
    # (weights 1, 2, 1; default 0). Two active leaves of weight 1: half the cluster each.
    result = runner.invoke(app, ["shares", SEED, "--cluster", "24g/12", "--json",
                                 "--active", "tenant1,adhoc"])
    assert result.exit_code == 0, result.output
    queues = json.loads(result.stdout)["queues"]
    assert queues["root.adhoc"]["fair-share"] == {"memory-mb": 12288, "vcores": 6}
    assert queues["root.tenant1"]["fair-share"] == {"memory-mb": 12288, "vcores": 6}
    # steady shares now count the new queue: weights 1 + 2 + 1 + 1 = 5 over 24,576 MB (to
    # within the 1 MB that the bisection of ComputeFairShares leaves)
    assert abs(queues["root.tenant2"]["steady-fair-share"]["memory-mb"] - 24576 * 2 / 5) < 1
    assert "root.adhoc is not in the allocation file" in result.stderr
    assert "specified (create=true)" in result.stderr


def test_active_queue_refused_when_no_rule_creates_queues(tmp_path: Path) -> None:
    xml = write(tmp_path, "fs.xml", """<allocations><queue name="a"/>
<queuePlacementPolicy><rule name="specified" create="false"/><rule name="default"/>
</queuePlacementPolicy></allocations>""")
    result = runner.invoke(app, ["shares", xml, "--cluster", "8g/4", "--active", "a,b"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "--active: root.b is not a leaf queue of this configuration and YARN would not create "
        'it: no placement rule creates queues (each has create="false")'
    ]


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.startswith("fairshare 0.1.0 ")


def test_shares_counts_a_repeated_active_queue_once() -> None:
    result = runner.invoke(app, ["shares", SEED, "--cluster", "memory-mb=24576,vcores=12",
                                 "--active", "tenant1,tenant1"])
    assert result.exit_code == 0, result.output
    assert "1 active leaf queue (*)" in result.stdout.splitlines()[0]
