"""Scenario files (docs/scenario-format.md): what parses into what, and every
mistake reported at its line.

Documents are written inline; the expected line numbers and messages are counted and written by
hand (line 1 is the first line of the text).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairshare.config.errors import ConfigError, ConfigErrors, all_errors
from fairshare.sim.parse.scenario import load_scenario, parse_scenario_text
from fairshare.sim.parse.specs import NodeSpec, WorkloadApp
from fairshare.sim.parse.steps import (
    AddNodeStep,
    AdvanceStep,
    ExpectStep,
    FinishStep,
    HeartbeatStep,
    KillStep,
    MoveStep,
    ReleaseStep,
    ReloadStep,
    RemoveNodeStep,
    RequestSpec,
    RequestStep,
    ResizeNodeStep,
    RunSpec,
    Scenario,
    SnapshotStep,
    SubmitStep,
    UpdateStep,
)

HERE = Path(__file__).resolve().parent


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """A scenario directory with the files the good scenarios name."""
    (tmp_path / "fs.xml").write_text("<allocations/>")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "yarn-site.xml").write_text("<configuration/>")
    (tmp_path / "new.xml").write_text("<allocations/>")
    return tmp_path


def parse(text: str, base_dir: Path = HERE) -> Scenario:
    return parse_scenario_text(text, "s.yaml", base_dir)


def errors(text: str, base_dir: Path = HERE) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse(text, base_dir)
    return [str(e) for e in all_errors(info.value)]


# ---- good scenarios ----------------------------------------------------------------------------

FULL = """\
version: 1
name: three tenants
description: preemption demo
seed: 42
site:
  yarn.scheduler.fair.preemption: true
  yarn.scheduler.fair.preemption.cluster-utilization-threshold: 0.80
  yarn.resourcemanager.nodemanagers.heartbeat-interval-ms: 500
site-file: conf/yarn-site.xml
allocations-file: fs.xml
cluster:
  nodes:
    - {name: big, memory-mb: 16384, vcores: 16, yarn.io/gpu: 4}
    - {count: 3, prefix: w, rack: /r2, memory-mb: 4096, vcores: 4}
groups:
  alice: [eng, ops]
  bob: []
clock: {start-ms: 1000}
steps:
  - add-node: {name: extra, rack: /r3, memory-mb: 2048, vcores: 2}
  - submit:
      app: a1
      queue: root.tenant1
      user: alice
      am: {memory-mb: 2048}
      requests:
        - {count: 4, memory-mb: 3072, vcores: 2, priority: 20, locality: w1,
           relax-locality: false, duration-ms: 60000}
        - {yarn.io/gpu: 1}
  - request: {app: a1, requests: [{count: 2}]}
  - update: {}
  - heartbeat: {node: '*', times: 3}
  - advance: {ms: 15000}
  - release: {app: a1, count: 2, which: oldest}
  - resize-node: {name: w2, memory-mb: 8192, vcores: 8}
  - move: {app: a1, queue: root.tenant2}
  - reload: {allocations-file: new.xml}
  - reload: {allocations: "<allocations/>"}
  - snapshot: {label: after reload}
  - expect: {app: a1, queue: root.tenant2, usage: {memory-mb: {at-least: 3072}}}
  - expect: {node: w1, earmarked: {a1: {memory-mb: 4096}}}
  - expect: {queue: root.tenant3, fair-share: {memory-mb: 6144}}
  - expect: {cluster: true, utilization: {approx: 0.5, tol: 0.01}}
  - finish: {app: a1}
  - kill: {app: a2}
  - remove-node: {name: big}
workload:
  apps: [{id: etl-1, at-ms: 0}]
run: {until-ms: 600000, snapshot-every-ms: 5000, heartbeat-interval-ms: 250}
"""


def test_a_full_scenario_parses_into_plain_data(base: Path) -> None:
    s = parse(FULL, base)
    assert (s.name, s.description, s.seed, s.source) == ("three tenants", "preemption demo", 42,
                                                         "s.yaml")
    assert s.site == {
        "yarn.scheduler.fair.preemption": "true",
        "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "0.80",
        "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": "500",
    }
    assert s.site_file == (base / "conf" / "yarn-site.xml").resolve()
    assert s.allocations_file == (base / "fs.xml").resolve()
    assert s.allocations_text is None
    assert s.nodes == (
        NodeSpec("big", "/default-rack", {"memory-mb": 16384, "vcores": 16, "yarn.io/gpu": 4}, 13),
        NodeSpec("w1", "/r2", {"memory-mb": 4096, "vcores": 4}, 14),
        NodeSpec("w2", "/r2", {"memory-mb": 4096, "vcores": 4}, 14),
        NodeSpec("w3", "/r2", {"memory-mb": 4096, "vcores": 4}, 14),
    )
    assert s.groups == {"alice": ("eng", "ops"), "bob": ()}
    assert s.start_ms == 1000
    assert s.workload == (WorkloadApp("etl-1", 0, "default", "nobody", None, (), 48),)
    assert s.run == RunSpec(until_ms=600000, snapshot_every_ms=5000, heartbeat_interval_ms=250)
    gpu = {"memory-mb": 1024, "vcores": 1, "yarn.io/gpu": 1}
    assert s.steps == (
        AddNodeStep(line=20, node=NodeSpec("extra", "/r3", {"memory-mb": 2048, "vcores": 2}, 20)),
        SubmitStep(
            line=21, app="a1", queue="root.tenant1", user="alice",
            am={"memory-mb": 2048, "vcores": 1},
            requests=(
                RequestSpec(4, {"memory-mb": 3072, "vcores": 2}, priority=20, locality="w1",
                            relax_locality=False, duration_ms=60000),
                RequestSpec(1, gpu, priority=1, locality="*", relax_locality=True),
            ),
        ),
        RequestStep(line=30, app="a1",
                    requests=(RequestSpec(2, {"memory-mb": 1024, "vcores": 1}),)),
        UpdateStep(line=31),
        HeartbeatStep(line=32, node="*", times=3),
        AdvanceStep(line=33, ms=15000),
        ReleaseStep(line=34, app="a1", count=2, which="oldest"),
        ResizeNodeStep(line=35, name="w2", resources={"memory-mb": 8192, "vcores": 8}),
        MoveStep(line=36, app="a1", queue="root.tenant2"),
        ReloadStep(line=37, allocations_file=(base / "new.xml").resolve()),
        ReloadStep(line=38, allocations_text="<allocations/>"),
        SnapshotStep(line=39, label="after reload"),
        ExpectStep(line=40, subject_kind="app", subject="a1",
                   fields={"queue": "root.tenant2", "usage": {"memory-mb": {"at-least": 3072}}}),
        ExpectStep(line=41, subject_kind="node", subject="w1",
                   fields={"earmarked": {"a1": {"memory-mb": 4096}}}),
        ExpectStep(line=42, subject_kind="queue", subject="root.tenant3",
                   fields={"fair-share": {"memory-mb": 6144}}),
        ExpectStep(line=43, subject_kind="cluster", subject=None,
                   fields={"utilization": {"approx": 0.5, "tol": 0.01}}),
        FinishStep(line=44, app="a1"),
        KillStep(line=45, app="a2"),
        RemoveNodeStep(line=46, name="big"),
    )


def test_defaults_of_a_minimal_scenario() -> None:
    s = parse_scenario_text("version: 1\n", "dir/minimal.yaml", HERE)
    assert s == Scenario(
        name="minimal", description="", seed=0, site={}, site_file=None, allocations_text=None,
        allocations_file=None, nodes=(), groups={}, start_ms=0, steps=(), workload=None,
        run=RunSpec(until_ms=None, snapshot_every_ms=1000, heartbeat_interval_ms=None),
        source="dir/minimal.yaml",
    )


def test_step_defaults() -> None:
    s = parse(
        "version: 1\n"
        "steps:\n"
        "  - submit: {app: a}\n"  # 3
        "  - request: {app: a, requests: [{}]}\n"  # 4
        "  - heartbeat: {node: n1}\n"  # 5
        "  - release: {app: a}\n"  # 6
        "  - snapshot: {}\n"  # 7
    )
    assert s.steps == (
        SubmitStep(line=3, app="a", queue="default", user="nobody", am=None, requests=()),
        RequestStep(line=4, app="a", requests=(
            RequestSpec(1, {"memory-mb": 1024, "vcores": 1}, 1, "*", True, None),)),
        HeartbeatStep(line=5, node="n1", times=1),
        ReleaseStep(line=6, app="a", count=1, which="newest"),
        SnapshotStep(line=7, label=None),
    )


def test_a_step_without_arguments_may_be_a_bare_name_or_null() -> None:
    s = parse("version: 1\nsteps:\n  - update\n  - update:\n  - snapshot\n")
    assert s.steps == (UpdateStep(line=3), UpdateStep(line=4), SnapshotStep(line=5, label=None))


def test_json_is_accepted() -> None:
    doc = {"version": 1, "cluster": {"nodes": [{"name": "n1", "memory-mb": 1, "vcores": 1}]},
           "steps": [{"advance": {"ms": 5}}]}
    s = parse(json.dumps(doc))
    assert s.nodes == (NodeSpec("n1", "/default-rack", {"memory-mb": 1, "vcores": 1}, 1),)
    assert s.steps == (AdvanceStep(line=1, ms=5),)


def test_inline_allocations_and_numbers_as_names() -> None:
    s = parse("version: 1\nname: 2024\nallocations: |\n  <allocations/>\n"
              "steps:\n  - submit: {app: 7, user: 1}\n")
    assert s.name == "2024"
    assert s.allocations_text == "<allocations/>\n"
    assert s.steps == (SubmitStep(line=6, app="7", user="1"),)


def test_site_values_are_kept_as_written() -> None:
    s = parse("version: 1\nsite:\n  a: True\n  b: 5\n  c: 1e3\n  d: '0.8'\n  e: yes\n")
    assert s.site == {"a": "True", "b": "5", "c": "1e3", "d": "0.8", "e": "yes"}


def test_anchors_and_merge_keys() -> None:
    s = parse(
        "version: 1\n"
        "cluster:\n"
        "  nodes:\n"
        "    - &small {name: s1, memory-mb: 1024, vcores: 1}\n"  # 4
        "    - {<<: *small, name: s2, vcores: 2}\n"  # 5
    )
    assert s.nodes == (
        NodeSpec("s1", "/default-rack", {"memory-mb": 1024, "vcores": 1}, 4),
        NodeSpec("s2", "/default-rack", {"memory-mb": 1024, "vcores": 2}, 5),
    )


def test_expect_field_names_normalised() -> None:
    s = parse("version: 1\nsteps:\n  - expect: {app: 3, queue: 5, state: null, runnable: true}\n")
    assert s.steps == (ExpectStep(line=3, subject_kind="app", subject="3",
                                  fields={"queue": "5", "state": None, "runnable": True}),)


def test_subject_priority_app_then_node_then_queue() -> None:
    s = parse("version: 1\nsteps:\n  - expect: {queue: root.a, app: a1}\n")
    # 'queue' is a field of the app subject here
    assert s.steps == (ExpectStep(line=3, subject_kind="app", subject="a1",
                                  fields={"queue": "root.a"}),)


def test_load_scenario_resolves_paths_against_the_file(base: Path) -> None:
    path = base / "conf" / "s.yaml"
    path.write_text("version: 1\nallocations-file: ../fs.xml\nsite-file: yarn-site.xml\n")
    s = load_scenario(path)
    assert s.allocations_file == (base / "fs.xml").resolve()
    assert s.site_file == (base / "conf" / "yarn-site.xml").resolve()
    assert s.source == str(path)
    assert s.name == "s"


def test_load_scenario_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    assert str(info.value) == f"{path}: cannot read file: No such file or directory"


def test_load_scenario_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"version: 1\nname: caf\xe9\n")
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    assert str(info.value) == f"{path}:2: file is not UTF-8 text"


# ---- mistakes, each at its line ----------------------------------------------------------------

V = "version: 1\n"
STEPS = V + "steps:\n"  # a step written after this is on line 3

BAD: list[Any] = [
    pytest.param("version: 2\n", ["s.yaml:1: version: must be 1 (the only version so far), got 2"],
                 id="a version other than 1 is refused"),
    pytest.param("name: x\n", ["s.yaml:1: missing required key 'version'"],
                 id="the version is required"),
    pytest.param(V + "stepz: []\n", ["s.yaml:2: unknown key 'stepz' (did you mean 'steps'?)"],
                 id="a misspelt top-level key gets a suggestion"),
    pytest.param(V + "colour: red\n", ["s.yaml:2: unknown key 'colour'"],
                 id="an unknown top-level key without a near miss gets no suggestion"),
    pytest.param(STEPS + "  - sumbit: {app: a}\n",
                 ["s.yaml:3: steps[0]: unknown step 'sumbit' (did you mean 'submit'?)"],
                 id="an unknown step name gets a suggestion"),
    pytest.param(STEPS + "  - update: {}\n    advance: {ms: 1}\n",
                 ["s.yaml:3: steps[0]: a step has exactly one key, its kind; got 'update', "
                  "'advance'"],
                 id="a step with two keys is refused"),
    pytest.param(STEPS + "  - {}\n",
                 ["s.yaml:3: steps[0]: a step has exactly one key, its kind; got none"],
                 id="an empty step is refused"),
    pytest.param(V + "steps: [5]\n",
                 ["s.yaml:2: steps[0]: a step is a one-key map like 'advance: {ms: 1000}', got 5"],
                 id="a step that is a number is refused"),
    pytest.param(V + "steps: {update: {}}\n", ["s.yaml:2: steps: must be a list, got a map"],
                 id="steps must be a list"),
    pytest.param(V + "cluster:\n  nodes:\n    - name: n1\n      memory-mb: lots\n      vcores: 2\n",
                 ["s.yaml:5: cluster.nodes[0].memory-mb: must be a non-negative integer, "
                  "got 'lots'"],
                 id="text where a node needs an integer"),
    pytest.param(V + "name: off\n",
                 ["s.yaml:2: name: must be a string, got false: YAML reads an unquoted no, off, "
                  "false as a boolean; quote the text if that is what you meant, e.g. 'off'"],
                 id="a name YAML reads as a boolean gets a hint to quote it"),
    pytest.param(V + "seed: 1.5\n", ["s.yaml:2: seed: must be an integer, got 1.5"],
                 id="a float is not an integer"),
    pytest.param(STEPS + "  - advance: {ms: true}\n",
                 ["s.yaml:3: steps[0].advance.ms: must be a non-negative integer, got true"],
                 id="a boolean is not an integer"),
    pytest.param(V + "clock: {start-ms: -1}\n",
                 ["s.yaml:2: clock.start-ms: must be a non-negative integer, got -1"],
                 id="a negative start time is refused"),
    pytest.param(STEPS + "  - advance: {ms: -5}\n",
                 ["s.yaml:3: steps[0].advance.ms: must be a non-negative integer, got -5"],
                 id="advancing by negative milliseconds is refused"),
    pytest.param(V + "run: {snapshot-every-ms: 0}\n",
                 ["s.yaml:2: run.snapshot-every-ms: must be a positive integer, got 0"],
                 id="a zero snapshot interval is refused"),
    pytest.param(STEPS + "  - request: {app: a, requests: [{relax-locality: no way}]}\n",
                 ["s.yaml:3: steps[0].request.requests[0].relax-locality: must be true or false, "
                  "got 'no way'"],
                 id="text where a boolean is needed"),
    pytest.param(STEPS + "  - request:\n      app: a\n      requests:\n        - memory: 2048\n",
                 ["s.yaml:6: steps[0].request.requests[0]: unknown key 'memory' "
                  "(did you mean 'memory-mb'?)"],
                 id="a misspelt resource name is not taken for a custom resource type"),
    pytest.param(STEPS + "  - add-node: {name: n, memory-mb: 1, vcores: 1, yarn.io/gpu: -1}\n",
                 ["s.yaml:3: steps[0].add-node.yarn.io/gpu: must be a non-negative integer, "
                  "got -1"],
                 id="a custom resource amount must be a non-negative integer"),
    pytest.param(STEPS + "  - submit: {app: a, quue: root.x}\n",
                 ["s.yaml:3: steps[0].submit: unknown key 'quue' (did you mean 'queue'?)"],
                 id="a misspelt submit argument gets a suggestion"),
    pytest.param(STEPS + "  - finish: {}\n", ["s.yaml:3: steps[0].finish: missing required key "
                                             "'app'"],
                 id="a missing required argument is named"),
    pytest.param(V + "cluster:\n  nodes:\n    - {name: n1}\n",
                 ["s.yaml:4: cluster.nodes[0]: missing required key 'memory-mb'",
                  "s.yaml:4: cluster.nodes[0]: missing required key 'vcores'"],
                 id="a node must give its memory and vcores"),
    pytest.param(V + "cluster:\n  nodes:\n    - {name: n1, rack: r1, memory-mb: 1, vcores: 1}\n",
                 ["s.yaml:4: cluster.nodes[0].rack: must start with '/' (like /default-rack), "
                  "got 'r1'"],
                 id="a rack must start with a slash"),
    pytest.param(V + "cluster:\n  nodes:\n    - {count: 2, memory-mb: 1, vcores: 1}\n",
                 ["s.yaml:4: cluster.nodes[0]: a node template needs 'prefix' too"],
                 id="a node template needs a prefix"),
    pytest.param(V + "cluster:\n  nodes:\n"
                 "    - {count: 3, prefix: n, memory-mb: 1, vcores: 1}\n"
                 "    - {name: m, memory-mb: 1, vcores: 1}\n"
                 "    - {name: n2, memory-mb: 1, vcores: 1}\n",
                 ["s.yaml:6: cluster.nodes[2]: duplicate node name 'n2' (first at line 4)"],
                 id="a node name that a template already made is a duplicate"),
    pytest.param(V + "site-file: missing.xml\n",
                 [f"s.yaml:2: site-file: file not found: {HERE / 'missing.xml'}"],
                 id="a missing site file is refused"),
    pytest.param(V + "allocations-file: .\n",
                 [f"s.yaml:2: allocations-file: is a directory: {HERE}"],
                 id="an allocations file that is a directory is refused"),
    pytest.param(V + "allocations: '<allocations/>'\nallocations-file: test_scenario.py\n",
                 ["s.yaml:3: allocations-file: give either 'allocations' or 'allocations-file', "
                  "not both"],
                 id="inline allocations and an allocations file together are refused"),
    pytest.param(STEPS + "  - reload: {}\n",
                 ["s.yaml:3: steps[0].reload: give exactly one of 'allocations' and "
                  "'allocations-file'"],
                 id="a reload needs new allocations"),
    pytest.param(STEPS + "  - reload: {allocations-file: gone.xml}\n",
                 [f"s.yaml:3: steps[0].reload.allocations-file: file not found: "
                  f"{HERE / 'gone.xml'}"],
                 id="a reload from a missing file is refused"),
    pytest.param(STEPS + "  - heartbeat: {node: n1, times: 0}\n",
                 ["s.yaml:3: steps[0].heartbeat.times: must be a positive integer, got 0"],
                 id="zero heartbeats are refused"),
    pytest.param(STEPS + "  - release: {app: a, which: neweest}\n",
                 ["s.yaml:3: steps[0].release.which: must be newest, oldest or am, got 'neweest' "
                  "(did you mean 'newest'?)"],
                 id="release picks newest oldest or am"),
    pytest.param(STEPS + "  - expect: {app: a, usage: {memory-mb: {at-leest: 3}}}\n",
                 ["s.yaml:3: steps[0].expect.usage.memory-mb: unknown matcher 'at-leest' "
                  "(did you mean 'at-least'?)"],
                 id="a misspelt matcher gets a suggestion"),
    pytest.param(STEPS + "  - expect: {cluster: true, utilization: {approx: 0.5}}\n",
                 ["s.yaml:3: steps[0].expect.utilization: 'approx' and 'tol' go together: "
                  "{approx: x, tol: t}"],
                 id="approx needs a tolerance"),
    pytest.param(STEPS + "  - expect: {cluster: true, utilization: {approx: 1, tol: -1}}\n",
                 ["s.yaml:3: steps[0].expect.utilization.tol: must be a non-negative number, "
                  "got -1"],
                 id="a negative tolerance is refused"),
    pytest.param(STEPS + "  - expect: {queue: root.a, usage: {at-least: 3}}\n",
                 ["s.yaml:3: steps[0].expect.usage.at-least: a resource is compared type by type, "
                  "e.g. {memory-mb: {at-least: ...}}, not {at-least: ...}"],
                 id="a whole resource cannot be given a matcher"),
    pytest.param(STEPS + "  - expect: {queue: root.a, weight: heavy}\n",
                 ["s.yaml:3: steps[0].expect.weight: must be a number or a matcher like "
                  "{at-least: 3}, got 'heavy'"],
                 id="a number field given text"),
    pytest.param(STEPS + "  - expect: {app: a, stat: running}\n",
                 ["s.yaml:3: steps[0].expect: unknown app field 'stat' (did you mean 'state'?)"],
                 id="an unknown expect field gets a suggestion"),
    pytest.param(STEPS + "  - expect: {node: n1, queue: root.a}\n",
                 ["s.yaml:3: steps[0].expect: unknown node field 'queue'"],
                 id="a field of another kind of subject is refused"),
    pytest.param(STEPS + "  - expect: {state: running}\n",
                 ["s.yaml:3: steps[0].expect: needs a subject: 'app', 'node', 'queue' or "
                  "'cluster: true'"],
                 id="an expectation needs a subject"),
    pytest.param(STEPS + "  - expect: {cluster: false}\n",
                 ["s.yaml:3: steps[0].expect.cluster: must be true, got false"],
                 id="cluster false is not a subject"),
    pytest.param(STEPS + "  - expect: {app: a, state: runing}\n",
                 ["s.yaml:3: steps[0].expect.state: unknown state 'runing' "
                  "(did you mean 'running'?)"],
                 id="an app state outside the contract's list"),
    pytest.param(V + "groups: {alice: eng}\n",
                 ["s.yaml:2: groups.alice: must be a list, got 'eng'"],
                 id="groups are lists"),
    pytest.param(V + "site:\n  a.b: [1]\n",
                 ["s.yaml:3: site.a.b: must be a single value (text, number or boolean), "
                  "got a list"],
                 id="a site property is a single value"),
    pytest.param(V + "seed: 1\nseed: 2\n", ["s.yaml:3: duplicate key 'seed' (first at line 2)"],
                 id="a duplicate key is refused"),
    pytest.param("", ["s.yaml:1: the file is empty"], id="an empty file"),
    pytest.param("- version: 1\n",
                 ["s.yaml:1: a scenario is a map of keys like 'version: 1', got a list"],
                 id="a scenario that is a list"),
    pytest.param(STEPS + "\t- update\n",
                 ["s.yaml:3: invalid YAML: a tab character: YAML indents with spaces only"],
                 id="tabs are refused"),
    pytest.param(V + "name: !!python/object:os.system ls\n",
                 ["s.yaml:2: unsupported YAML tag '!!python/object:os.system'"],
                 id="python tags are refused"),
    pytest.param(V + "x: &a [*a]\n", ["s.yaml:2: an alias refers to a value that contains it"],
                 id="a recursive alias is refused"),
]


@pytest.mark.parametrize(("text", "expected"), BAD)
def test_mistakes_are_reported_at_their_line(text: str, expected: list[str]) -> None:
    assert errors(text) == expected


@pytest.mark.parametrize(
    ("text", "line"),
    [
        pytest.param(V + "steps: [\n", 3, id="an unclosed bracket"),
        pytest.param(V + "name: 'open\n", 3, id="an unclosed quote"),
        pytest.param(V + "a: b: c\n", 2, id="a colon inside a plain value"),
        pytest.param(V + "steps:\n  - update\n   - x: 1\n", 4, id="a misindented item"),
    ],
)
def test_yaml_syntax_errors_are_located(text: str, line: int) -> None:
    (message,) = errors(text)
    assert message.startswith(f"s.yaml:{line}: invalid YAML: ")


def test_every_mistake_is_reported_at_once_sorted_by_line() -> None:
    text = (
        "version: 1\n"
        "steps:\n"
        "  - advance: {ms: -1}\n"  # 3
        "  - finish: {ap: a}\n"  # 4
        "cluster:\n"
        "  nodes:\n"
        "    - {name: n1, memory-mb: 1, vcores: x}\n"  # 7
        "seed: nope\n"  # 8
        "colour: red\n"  # 9
    )
    with pytest.raises(ConfigErrors) as info:
        parse(text)
    assert str(info.value) == "\n".join([
        "s.yaml:3: steps[0].advance.ms: must be a non-negative integer, got -1",
        "s.yaml:4: steps[1].finish: missing required key 'app'",
        "s.yaml:4: steps[1].finish: unknown key 'ap' (did you mean 'app'?)",
        "s.yaml:7: cluster.nodes[0].vcores: must be a non-negative integer, got 'x'",
        "s.yaml:8: seed: must be an integer, got 'nope'",
        "s.yaml:9: unknown key 'colour'",
    ])


def test_a_billion_laughs_fails_fast() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    (message,) = errors("\n".join(lines))
    assert message.endswith("more than 1000000 values (after expanding aliases)")


# ---- nothing but ConfigError, whatever the input -----------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_a_scenario_or_config_errors(text: str) -> None:
    with contextlib.suppress(ConfigError):
        parse(text)


KEYS = [
    "version", "name", "seed", "site", "site-file", "allocations", "allocations-file", "cluster",
    "nodes", "groups", "clock", "start-ms", "steps", "workload", "run", "until-ms", "count",
    "prefix", "rack", "memory-mb", "vcores", "yarn.io/gpu", "add-node", "submit", "request",
    "requests", "update", "heartbeat", "advance", "ms", "release", "which", "reload", "expect",
    "app", "node", "queue", "cluster", "usage", "earmarked", "at-least", "approx", "tol",
    "state", "times", "am", "locality", "relax-locality", "priority", "duration-ms", "label",
]
SCALARS = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
           | st.floats(allow_nan=True) | st.sampled_from(["*", "n1", ".", "", "newest", "x.xml"]))
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner,
                                                                max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(KEYS), DOCUMENTS, max_size=6), st.booleans())
def test_any_document_gives_a_scenario_or_config_errors(doc: dict[str, Any], v1: bool) -> None:
    if v1:
        doc["version"] = 1
    try:
        parse(yaml.safe_dump(doc))
    except ConfigError as error:
        assert all(e.line is not None for e in all_errors(error))
