"""``fairshare lint`` (and the same findings in ``validate``) on configuration files of the shapes
admins write: exact ``file:line``, severity, code and exit code, in text and JSON.

The fixtures are under tests/config/lint_fixtures/. Expected shares are worked by hand from
YARN's fair-share rule (weights split what is left once min shares are given).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app

FIXTURES = Path(__file__).resolve().parents[1] / "config" / "lint_fixtures"
CLUSTER = ["--cluster", "memory-mb=40960,vcores=40"]
runner = CliRunner()


def fixture(name: str) -> str:
    return str(FIXTURES / name)


def lint_json(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = runner.invoke(app, ["lint", *args, "--format", "json"])
    return result.exit_code, json.loads(result.stdout)


def located(findings: list[dict[str, object]]) -> list[tuple[str, object, object, object]]:
    """(file name, line, severity, code) of each finding, in the order printed."""
    return [(Path(str(f["file"])).name, f["line"], f["severity"], f["code"]) for f in findings]


def test_hadoops_own_example_with_zero_vcores_is_an_error() -> None:
    code, findings = lint_json(fixture("hadoop-doc-example.xml"))
    assert code == 1
    assert located(findings) == [
        ("hadoop-doc-example.xml", 6, "error", "zero-max-share"),
        ("hadoop-doc-example.xml", 20, "error", "zero-max-share"),
    ]
    assert findings[1]["message"] == (
        '<queueMaxResourcesDefault> "40000 mb,0vcores" gives a max share of 0 vcores')
    assert "FairScheduler.addApplication rejects every application" in str(
        findings[1]["consequence"])
    assert "memory-mb=40000" in str(findings[1]["fix"])


def test_json_findings_have_the_stable_keys() -> None:
    _, findings = lint_json(fixture("clamped.xml"))
    assert findings
    for finding in findings:
        assert list(finding) == ["severity", "file", "line", "code", "message", "consequence",
                                 "fix"]
        assert finding["severity"] in ("error", "warning", "info")


def test_clamped_and_misread_values() -> None:
    code, findings = lint_json(fixture("clamped.xml"))
    assert code == 1  # the negative queueMaxAMShareDefault
    assert located(findings) == [
        ("clamped.xml", 4, "error", "max-am-share-negative"),
        ("clamped.xml", 5, "warning", "threshold-clamped"),
        ("clamped.xml", 8, "warning", "threshold-clamped"),
        ("clamped.xml", 9, "warning", "max-am-share-clamped"),
        ("clamped.xml", 10, "warning", "allow-preemption-text"),
        ("clamped.xml", 13, "warning", "min-share-percentage"),
    ]  # maxAMShare -1 (line 15) turns the check off; the minSharePreemptionTimeout (line 14)
    # applies to no min share (the percentage gives none), so it has no note
    by_line = {f["line"]: f for f in findings}
    assert "clamps it to 1.0" in str(by_line[8]["consequence"])
    assert "0.8 for 80 %" in str(by_line[8]["fix"])
    assert "anything but true means false" in str(by_line[10]["consequence"])


def test_site_file_findings() -> None:
    code, findings = lint_json(fixture("no-timeouts.xml"), "--site",
                               fixture("yarn-site-preemption.xml"))
    assert code == 1
    # the real yarn.resourcemanager.scheduler.* keys (address.rm1, client.thread-count) pass
    assert located(findings) == [
        ("yarn-site-preemption.xml", 15, "warning", "preemption-never"),
        ("yarn-site-preemption.xml", 19, "error", "utilization-threshold"),
        ("yarn-site-preemption.xml", 23, "warning", "unknown-site-key"),
    ]
    assert "did you mean yarn.scheduler.fair.waitTimeBeforeKill?" in str(findings[2]["message"])
    assert "preemption can never start" in str(findings[1]["consequence"])


def test_min_share_above_weight_share_names_the_shrunk_siblings() -> None:
    code, findings = lint_json(fixture("shares.xml"), *CLUSTER)
    assert code == 0
    [finding] = findings
    assert (finding["line"], finding["code"]) == (4, "min-above-fair-share")
    # 40,960 MB over weights prod 1, dev 3 (no root.default: Hadoop 3.4 does not create it at
    # start): 10,240 MB a weight; prod's min of 20,480 MB leaves 20,480 MB for dev alone.
    assert finding["message"] == ("root.prod: min share 20,480 MB is above the steady fair "
                                  "share its weight gives it, 10,240 MB")
    assert str(finding["consequence"]).endswith("root.dev 30,720 MB → 20,480 MB")


def test_min_shares_adding_up_to_more_than_the_cluster() -> None:
    _, findings = lint_json(fixture("overcommitted.xml"), *CLUSTER)
    first = findings[0]
    assert (first["line"], first["code"]) == (4, "min-shares-above-parent")
    assert first["message"] == ("the min shares of root's children add up to 49,152 MB "
                                "(120 %), more than the cluster, 40,960 MB")


def test_min_share_behind_a_non_preemptable_queue() -> None:
    _, findings = lint_json(fixture("non-preemptable.xml"), "--site",
                            fixture("yarn-site-preemption.xml"), *CLUSTER)
    [finding] = [f for f in findings if f["code"] == "min-share-behind-non-preemptable"]
    assert finding["line"] == 4
    assert finding["message"] == (
        "non-preemptable queues (root.production) may hold 40,960 MB, 40 vcores, leaving 0 MB, "
        "0 vcores: less than the other queues' min shares, 8,192 MB, 4 vcores")


def test_no_cluster_no_cluster_findings() -> None:
    assert lint_json(fixture("shares.xml")) == (0, [])


def test_clean_file_text() -> None:
    result = runner.invoke(app, ["lint", fixture("clean.xml"), *CLUSTER])
    assert (result.exit_code, result.stdout) == (0, "No findings.\n")


def test_text_output_shape() -> None:
    result = runner.invoke(app, ["lint", fixture("min-above-max.xml")])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == (
        f"{fixture('min-above-max.xml')}:3: warning: root.etl: minResources 8192 MB, 2 vcores "
        "do not fit in maxResources 4096 MB, 8 vcores [min-above-max]")
    assert lines[1].startswith("    in YARN: YARN only logs this")
    assert lines[2].startswith("    fix: ")
    assert lines[-1] == "0 errors, 1 warning, 0 info."


def test_min_above_max_is_stated_the_same_way_by_every_command() -> None:
    path = fixture("min-above-max.xml")
    statement = ("so the min wins and the max share is 8192 MB, 8 vcores")
    outputs = [runner.invoke(app, ["lint", path]).stdout,
               runner.invoke(app, ["validate", path]).stdout,
               runner.invoke(app, ["shares", path, *CLUSTER]).stderr]
    assert all(statement in output for output in outputs)
    # validate's table shows the max share YARN applies, as shares does
    validate = runner.invoke(app, ["validate", path]).stdout
    etl = next(line for line in validate.splitlines() if line.strip().startswith("etl"))
    assert "8,192 MB, 8 vc" in etl


def test_unreachable_placement_rules_are_invalid_with_the_fix() -> None:
    result = runner.invoke(app, ["lint", fixture("unreachable-rules.xml")])
    assert result.exit_code == 2
    assert result.stderr == (
        f"{fixture('unreachable-rules.xml')}:6: Rules after rule 2 in queue placement policy can "
        "never be reached: rule 'user' always places the application (create is true), so move "
        "the rules after it before it, or remove them, or give it create=\"false\" so that it "
        "places only into existing queues\n")


def test_validate_prints_findings_in_line_order_before_its_verdict() -> None:
    result = runner.invoke(app, ["validate", fixture("clamped.xml")])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    finding = re.compile(re.escape(fixture("clamped.xml")) + r":(\d+): ")
    heads = [line for line in lines if finding.match(line)]
    assert [int(finding.match(line)[1]) for line in heads] == [4, 5, 8, 9, 10, 13]
    assert lines.index(heads[-1]) < len(lines) - 1
    assert lines[-1].startswith("The ResourceManager would accept this configuration, but 1 "
                                "finding above is an error")


def test_validate_ok_comes_last_after_warnings() -> None:
    result = runner.invoke(app, ["validate", fixture("min-above-max.xml")])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[-1] == "OK: the ResourceManager would accept this configuration."
    assert any("[min-above-max]" in line for line in lines[:-1])


@pytest.mark.parametrize("command", [["lint"], ["validate"], ["shares", *CLUSTER]])
def test_a_site_file_given_as_the_allocation_file(command: list[str]) -> None:
    site = fixture("yarn-site-preemption.xml")
    result = runner.invoke(app, [command[0], site, *command[1:]])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"{site}:2: Bad fair scheduler config file: top-level element not <allocations>. This "
        "is a Hadoop site file")


@pytest.mark.parametrize("command", [["lint"], ["validate"], ["shares", *CLUSTER]])
def test_an_allocation_file_given_as_the_site_file(command: list[str]) -> None:
    allocations = fixture("clean.xml")
    result = runner.invoke(app, [command[0], allocations, "--site", allocations, *command[1:]])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"{allocations}:2: this is a Fair Scheduler allocation file (top-level <allocations>")


def test_a_scenario_whose_site_file_is_an_allocation_file(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(
        f"version: 1\nname: swapped\nsite-file: {fixture('clean.xml')}\n"
        f"allocations-file: {fixture('clean.xml')}\n"
        "cluster:\n  nodes:\n    - {count: 1, prefix: n, memory-mb: 8192, vcores: 4}\n"
        "steps:\n  - update: {}\n", encoding="utf-8")
    result = runner.invoke(app, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "this is a Fair Scheduler allocation file" in result.stderr
    assert not (tmp_path / "out").exists()


def test_bad_cluster_and_format_are_usage_errors() -> None:
    result = runner.invoke(app, ["lint", fixture("clean.xml"), "--cluster", "lots"])
    assert result.exit_code == 2
    assert result.stderr.startswith("--cluster: ")
    assert runner.invoke(app, ["lint", fixture("clean.xml"), "--format", "xml"]).exit_code == 2


def test_missing_allocation_file() -> None:
    result = runner.invoke(app, ["lint", fixture("nothing-here.xml")])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{fixture('nothing-here.xml')}: ")


def test_validate_with_a_cluster_lists_the_cluster_findings_before_its_verdict() -> None:
    # 3 × 16 GB of min shares on a 40 GB cluster: 120 % (48 / 40), the same finding as lint's
    result = runner.invoke(app, ["validate", fixture("overcommitted.xml"), *CLUSTER])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    finding = next(i for i, line in enumerate(lines) if "[min-shares-above-parent]" in line)
    assert lines[finding].endswith("the min shares of root's children add up to 49,152 MB "
                                   "(120 %), more than the cluster, 40,960 MB "
                                   "[min-shares-above-parent]")
    assert lines[-1] == "OK: the ResourceManager would accept this configuration."
    assert finding < len(lines) - 1
    without = runner.invoke(app, ["validate", fixture("overcommitted.xml")])
    assert "[min-shares-above-parent]" not in without.stdout


def test_a_hadoop1_file_is_one_finding_that_says_so() -> None:
    code, findings = lint_json(fixture("hadoop1-pools.xml"))
    assert code == 0
    # one finding for the six Hadoop 1 elements, none per element; the timeouts (lines 8, 16)
    # apply to no min share (the pools have none), so they have no min-share note either
    assert located(findings) == [("hadoop1-pools.xml", 5, "warning", "hadoop1-allocation-file")]
    [finding] = findings
    assert finding["message"] == (
        "a Hadoop 1 (MR1) allocation file: YARN ignores its <minMaps>, <minReduces>, "
        "<maxRunningJobs>, <poolMaxJobsDefault> and <userMaxJobsDefault> (6 elements, lines 5, "
        "6, 7, 12, 14, 15)")
    assert "<minMaps> and <minReduces> → <minResources>" in str(finding["fix"])
    assert "<poolMaxJobsDefault> → <queueMaxAppsDefault>" in str(finding["fix"])


def test_a_queue_closed_on_purpose_is_a_note_and_validate_passes() -> None:
    code, findings = lint_json(fixture("closed-default.xml"))
    assert code == 0
    # the default timeout applies: root.online has a min share and sets no timeout of its own
    assert located(findings) == [
        ("closed-default.xml", 5, "info", "min-share-starvation"),
        ("closed-default.xml", 7, "info", "closed-queue"),
    ]
    assert str(findings[1]["message"]).endswith(
        "with weight 0 and maxRunningApps 0: a closed queue")
    result = runner.invoke(app, ["validate", fixture("closed-default.xml")])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == (
        "OK: the ResourceManager would accept this configuration.")


def test_a_zero_max_share_no_placement_rule_reaches_is_a_closed_queue() -> None:
    code, findings = lint_json(fixture("closed-unreached.xml"))
    assert code == 0
    assert located(findings) == [("closed-unreached.xml", 11, "info", "closed-queue")]
    assert "with no placement rule that places applications in it" in str(findings[0]["message"])


def test_the_same_zero_max_share_is_an_error_when_a_rule_reaches_it(tmp_path: Path) -> None:
    text = Path(fixture("closed-unreached.xml")).read_text(encoding="utf-8")
    reached = tmp_path / "reached.xml"
    reached.write_text(text.replace('<rule name="primaryGroup" create="false"/>',
                                    '<rule name="specified"/>'), encoding="utf-8")
    code, findings = lint_json(str(reached))
    assert (code, [(f["line"], f["severity"], f["code"]) for f in findings]) == (
        1, [(11, "error", "zero-max-share")])


def test_placement_rules_inside_root_say_which_rules_replace_them() -> None:
    _, findings = lint_json(fixture("placement-in-root.xml"))
    assert located(findings) == [
        ("placement-in-root.xml", 14, "warning", "placement-policy-in-queue")]
    [finding] = findings
    # no top-level policy: YARN's generated rules with yarn-site's defaults (docs/semantics.md
    # §1.5.4): specified, then user
    assert "generates the rules from yarn.scheduler.fair.user-as-default-queue" in str(
        finding["consequence"])
    assert ": specified, then user, and the rules written here are never used" in str(
        finding["consequence"])
    assert "directly under <allocations>" in str(finding["fix"])
    # with user-as-default-queue and allow-undeclared-pools false, the generated rules differ
    _, with_site = lint_json(fixture("placement-in-root.xml"), "--site",
                             fixture("yarn-site-placement.xml"))
    assert "specified (existing queues only), then default (root.default)," in str(
        with_site[0]["consequence"])


def test_yarn_site_placement_keys_the_files_rules_override() -> None:
    code, findings = lint_json(fixture("closed-unreached.xml"), "--site",
                               fixture("yarn-site-placement.xml"))
    assert code == 0
    assert located(findings) == [
        ("closed-unreached.xml", 11, "info", "closed-queue"),
        ("yarn-site-placement.xml", 4, "warning", "site-placement-overridden"),
        ("yarn-site-placement.xml", 8, "warning", "site-placement-overridden"),
    ]
    assert findings[2]["message"] == (
        "yarn.scheduler.fair.allow-undeclared-pools=false has no effect: the allocation file "
        "has placement rules of its own")
    assert str(findings[2]["consequence"]).endswith(
        "the file's rules are in force: primaryGroup (existing queues only), then default "
        "(root.dev.eng)")
    # without rules of its own in the file, the keys build the rules: nothing to report
    _, generated = lint_json(fixture("clean.xml"), "--site", fixture("yarn-site-placement.xml"))
    assert generated == []


def conf_dir(tmp_path: Path, allocations: str | None, site: str | None,
             name: str = "fair-scheduler.xml") -> Path:
    """A Hadoop configuration directory with copies of the fixtures named as YARN names them."""
    if allocations is not None:
        (tmp_path / name).write_bytes(Path(fixture(allocations)).read_bytes())
    if site is not None:
        (tmp_path / "yarn-site.xml").write_bytes(Path(fixture(site)).read_bytes())
    return tmp_path


@pytest.mark.parametrize("command", ["lint", "validate"])
def test_a_configuration_directory_is_read_as_its_two_files(tmp_path: Path, command: str) -> None:
    directory = conf_dir(tmp_path, "closed-unreached.xml", "yarn-site-placement.xml")
    given = runner.invoke(app, [command, str(directory)])
    files = runner.invoke(app, [command, str(directory / "fair-scheduler.xml"), "--site",
                                str(directory / "yarn-site.xml")])
    assert given.exit_code == files.exit_code == 0
    assert given.stdout == files.stdout
    assert "[site-placement-overridden]" in given.stdout  # the yarn-site.xml was read


def test_a_directory_without_the_files_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr == (f"{tmp_path}: a directory with neither fair-scheduler.xml nor "
                             "yarn-site.xml in it: give the allocation file, or the directory "
                             "that holds it\n")
    conf_dir(tmp_path, None, "yarn-site-placement.xml")
    result = runner.invoke(app, ["lint", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"{tmp_path}: no allocation file {tmp_path / 'fair-scheduler.xml'} in it")


def test_a_directory_whose_yarn_site_names_another_allocation_file(tmp_path: Path) -> None:
    conf_dir(tmp_path, "closed-default.xml", None, name="pools.xml")
    (tmp_path / "yarn-site.xml").write_text(
        "<configuration><property><name>yarn.scheduler.fair.allocation.file</name>"
        "<value>pools.xml</value></property></configuration>", encoding="utf-8")
    code, findings = lint_json(str(tmp_path))
    assert code == 0
    assert {Path(str(f["file"])).name for f in findings} == {"pools.xml"}
    (tmp_path / "yarn-site.xml").write_text(
        "<configuration><property><name>yarn.scheduler.fair.allocation.file</name>"
        "<value>hdfs:///etc/fair-scheduler.xml</value></property></configuration>",
        encoding="utf-8")
    result = runner.invoke(app, ["lint", str(tmp_path)])
    assert result.exit_code == 2
    assert "is hdfs:///etc/fair-scheduler.xml, not a local file" in result.stderr


def test_upper_case_policies_and_yarns_cluster_form_give_no_false_alarm() -> None:
    # DRF/FIFO as the REST API writes them; etl's min share (8 GB, 4 vcores) is below the share
    # its weight gives it on 64 GB, 32 vcores (root.default and root.etl split it evenly)
    result = runner.invoke(app, ["lint", fixture("root-drf-upper-case.xml"), "--cluster",
                                 "65536 mb, 32 vcores"])
    assert (result.exit_code, result.stdout) == (0, "No findings.\n")
    validate = runner.invoke(app, ["validate", fixture("root-drf-upper-case.xml")])
    assert validate.exit_code == 0
    etl = next(line for line in validate.stdout.splitlines() if line.strip().startswith("etl"))
    assert " fifo " in f" {etl} "
