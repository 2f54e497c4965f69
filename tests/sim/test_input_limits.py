"""Hostile and broken input to the scenario and trace readers: never a traceback, never a hang,
and limits that hold *while* reading (docs/workloads.md, "Limits").

Expected lines and messages are worked out from the inputs written here (line 1 is the first
line of each file); the limits are made small with monkeypatch where counting to the real one
would only make the test slow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fairshare.config.errors import ConfigError, all_errors
from fairshare.sim.parse import jsontext, yaml_lines
from fairshare.sim.parse.scenario import load_scenario, parse_scenario_text
from fairshare.sim.parse.yaml_lines import MAX_DEPTH, load_yaml
from fairshare.sim.sources import (
    SlsSettings,
    csv_source,
    load_csv,
    load_sls_jobs,
    load_sls_topology,
    load_synth,
    sls,
)

ROOT = Path(__file__).resolve().parents[2]
V = "version: 1\n"
SETTINGS = SlsSettings()


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def messages(error: ConfigError) -> list[str]:
    return [str(e) for e in all_errors(error)]


def scenario_errors(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_scenario(write(tmp_path, "s.yaml", text))
    return messages(info.value)


def yaml_error(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_yaml(text, "s.yaml")
    return str(info.value)


def fifo(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


def measured(code: str, *args: str) -> tuple[str, float, float]:
    """Run ``code`` in a fresh interpreter: its output, seconds taken and peak RSS in MB."""
    probe = textwrap.dedent("""\
        import resource, sys, time
        began = time.perf_counter()
        {code}
        print(f"@@ {{time.perf_counter() - began}} "
              f"{{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}")
    """).format(code=textwrap.dedent(code).strip())
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True,
                          timeout=300, check=True)
    out, _, tail = done.stdout.rpartition("@@ ")
    seconds, rss = (float(x) for x in tail.split())
    return out.strip(), seconds, rss


# ---- limits checked while reading the scenario ----------------------------------------------


def test_values_are_counted_as_they_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """With at most 100 values: the map (1), the list x (2), item k is value k + 3 on line
    k + 2, so the 101st value is item 98 on line 100 — reported there, before the parser
    reaches the broken line at the end."""
    monkeypatch.setattr(yaml_lines, "MAX_VALUES", 100)
    text = "x:\n" + "- 0\n" * 200 + "- [unclosed\n"
    assert yaml_error(text) == "s.yaml:100: more than 100 values (after expanding aliases)"


def test_an_alias_counts_what_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """The root map (1), a and its ten zeros (11), the list b (1): 13 values; each alias adds
    the 11 of a, so the 8th makes 13 + 88 = 101 > 100 — on line 2 + 8 = 10."""
    monkeypatch.setattr(yaml_lines, "MAX_VALUES", 100)
    text = "a: &a [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\nb:\n" + "- *a\n" * 20
    assert yaml_error(text) == "s.yaml:10: more than 100 values (after expanding aliases)"


def test_a_billion_laughs_fails_at_once() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    began = time.monotonic()
    message = yaml_error("\n".join(lines))
    assert time.monotonic() - began < 5
    # a0..a5 hold 11 + 111 + 1,111 + … + 1,111,111 values: a5 alone passes the million
    assert message == "s.yaml:6: more than 1000000 values (after expanding aliases)"


def test_nesting_is_checked_as_it_is_read() -> None:
    """The root list is at depth 0, so the list opened at depth 65 is the first too deep, on
    the line after 65 '[' lines; the broken rest is never reached."""
    text = "[\n" * (MAX_DEPTH + 1) + "[\n" + "}}}"
    assert yaml_error(text) == (
        f"s.yaml:{MAX_DEPTH + 2}: values nested more than {MAX_DEPTH} levels deep")


def test_an_alias_cannot_nest_deeper_than_the_limit() -> None:
    """&a is 40 nested lists: 39 levels below its outermost one. b's 29 lists put the alias at
    depth 30 (the root map is depth 0), so its innermost list would be at 30 + 39 = 69."""
    deep = "[" * 40 + "]" * 40
    text = f"a: &a {deep}\nb: " + "[" * 29 + "*a" + "]" * 29 + "\n"
    assert yaml_error(text) == f"s.yaml:2: values nested more than {MAX_DEPTH} levels deep"


def test_a_scenario_just_under_the_size_limit_is_refused_fast_and_small(tmp_path: Path) -> None:
    """A flow list of ~8 million zeros, just under MAX_SCENARIO_BYTES: the values limit stops it
    after the first million; once PyYAML needed minutes and gigabytes for it."""
    path = tmp_path / "big.yaml"
    count = (yaml_lines.MAX_SCENARIO_BYTES - 40) // 2
    path.write_text(V + "x: [" + "0," * (count - 1) + "0]\n")
    assert path.stat().st_size <= yaml_lines.MAX_SCENARIO_BYTES
    out, seconds, rss = measured("""
        from pathlib import Path
        from fairshare.config.errors import ConfigError
        from fairshare.sim.parse.scenario import load_scenario
        try:
            load_scenario(Path(sys.argv[1]))
        except ConfigError as error:
            print(error)
    """, str(path))
    assert out == f"{path}:2: more than 1000000 values (after expanding aliases)"
    assert seconds < 60
    assert rss < 1024


def test_a_large_inline_workload_loads_in_seconds(tmp_path: Path) -> None:
    """100,000 apps of 8 values each (800,000 values, 9.6 MB)."""
    path = tmp_path / "apps.yaml"
    with path.open("w") as out:
        out.write(V + "cluster:\n  nodes:\n    - {count: 10, prefix: n, memory-mb: 65536, "
                  "vcores: 32}\nrun: {until-ms: 100000000}\nworkload:\n  apps:\n")
        for i in range(100_000):
            out.write(f"    - {{id: app-{i}, at-ms: {i}, queue: q{i % 20}, "
                      f"tasks: [{{count: {1 + i % 40}, duration-ms: 60000}}]}}\n")
    out_text, seconds, rss = measured("""
        from pathlib import Path
        from fairshare.sim.parse.scenario import load_scenario
        s = load_scenario(Path(sys.argv[1]))
        last = s.workload[-1]
        print(len(s.workload), last.id, last.line, last.tasks[0].count)
    """, str(path))
    # seven lines before the first app (version … apps:), so app i is on line 8 + i; the last,
    # i = 99,999, has count 1 + 99,999 % 40 = 40
    assert out_text == f"100000 app-99999 {8 + 99_999} 40"
    assert seconds < 60
    assert rss < 1024


# ---- special files ---------------------------------------------------------------------------


def test_a_scenario_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    path = fifo(tmp_path, "f.yaml")
    done = subprocess.run([sys.executable, "-m", "fairshare", "run", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == f"{path}: cannot read file: not a regular file (a FIFO)"


@pytest.mark.parametrize(("name", "reason"), [
    pytest.param("/dev/zero", "not a regular file (a character device)", id="/dev/zero"),
    pytest.param("", "is a directory", id="a directory"),
])
def test_a_scenario_path_that_is_not_a_regular_file(tmp_path: Path, name: str,
                                                    reason: str) -> None:
    path = Path(name) if name else tmp_path
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    assert str(info.value) == f"{path}: cannot read file: {reason}"


FILE_KEYS = [
    # (the scenario, with {path} for the file; the line of the key naming it, its path)
    ("site-file: {path}\n", 2, "site-file"),
    ("allocations-file: {path}\n", 2, "allocations-file"),
    ("steps:\n  - reload: {{allocations-file: {path}}}\n", 3, "steps[0].reload.allocations-file"),
    ("run: {{until-ms: 1000}}\nworkload:\n  sls: {path}\n", 4, "workload.sls"),
    ("run: {{until-ms: 1000}}\nworkload:\n  sls-nodes: {path}\n", 4, "workload.sls-nodes"),
    ("run: {{until-ms: 1000}}\nworkload:\n  synth: {path}\n", 4, "workload.synth"),
    ("run: {{until-ms: 1000}}\nworkload:\n  csv: {path}\n", 4, "workload.csv"),
]


@pytest.mark.parametrize(("body", "line", "key"), FILE_KEYS, ids=[k for _, _, k in FILE_KEYS])
def test_a_file_named_by_a_scenario_must_be_a_regular_file(tmp_path: Path, body: str, line: int,
                                                           key: str) -> None:
    pipe = fifo(tmp_path, "pipe")
    cases = [(pipe, "not a regular file (a FIFO)"),
             (Path("/dev/zero"), "not a regular file (a character device)"),
             (tmp_path, "is a directory"),
             (tmp_path / "missing", "file not found")]
    for path, reason in cases:
        errors = scenario_errors(tmp_path, V + body.format(path=path))
        assert errors == [f"{tmp_path / 's.yaml'}:{line}: {key}: {reason}: {path}"], path


# ---- text that UTF-8 cannot hold ------------------------------------------------------------


def test_a_lone_surrogate_escape_in_yaml_is_refused_at_its_line(tmp_path: Path) -> None:
    errors = scenario_errors(tmp_path, V + 'name: "bad \\ud800"\n')
    assert errors == [f"{tmp_path / 's.yaml'}:2: name: contains a lone surrogate \\ud800, which "
                      "cannot be written as UTF-8 (a \\u escape of half of a UTF-16 pair)"]


def test_a_lone_surrogate_in_a_key_is_refused(tmp_path: Path) -> None:
    errors = scenario_errors(tmp_path, V + 'site:\n  a: 1\n  "b\\udc00": 2\n')
    assert errors == [f"{tmp_path / 's.yaml'}:4: site: a key contains a lone surrogate \\udc00, "
                      "which cannot be written as UTF-8 (a \\u escape of half of a UTF-16 pair)"]


def test_two_high_surrogates_are_not_a_pair() -> None:
    assert yaml_error('a: "\\ud83d\\ud83d"') == (
        "s.yaml:1: a: contains a lone surrogate \\ud83d, which cannot be written as UTF-8 "
        "(a \\u escape of half of a UTF-16 pair)")


def test_a_surrogate_pair_is_one_character() -> None:
    scenario = parse_scenario_text(V + 'name: "\\ud83d\\ude00 \\uD83D\\uDE01"\n', "s.yaml", ROOT)
    assert scenario.name == "\U0001F600 \U0001F601"


def test_a_json_scenario_with_escaped_emoji_loads() -> None:
    text = json.dumps({"version": 1, "name": "fête \U0001F600"})  # ensure_ascii: \ud83d\ude00
    assert "\\ud83d\\ude00" in text
    assert parse_scenario_text(text, "s.json", ROOT).name == "fête \U0001F600"


@pytest.mark.parametrize("text", [
    pytest.param("name: C:\\ud800\\x\n", id="plain"),
    pytest.param("name: 'C:\\ud800'\n", id="single-quoted"),
    pytest.param("name: |\n  C:\\ud800\n", id="literal block"),
    pytest.param('name: "C:\\\\ud800"\n', id="an escaped backslash"),
])
def test_backslash_u_outside_an_escape_is_plain_text(text: str) -> None:
    """Only a double-quoted scalar has escapes: elsewhere the six characters are text. Even
    when the file also holds a real escape pair (hidden from libyaml and brought back)."""
    scenario = parse_scenario_text(V + text + 'description: "\\ud83d\\ude00"\n', "s.yaml", ROOT)
    assert scenario.name.rstrip("\n") == ("C:\\ud800\\x" if "x" in text else "C:\\ud800")
    assert scenario.description == "\U0001F600"


def test_a_file_using_every_placeholder_block_still_joins_pairs() -> None:
    """Characters of every 2048-character block of the BMP leave no placeholder for the
    surrogates: then PyYAML's own parser reads the file, with the same result."""
    used = "".join(chr(base + 1) for base in range(0x0800, 0x10000, 0x800)
                   if not 0xD800 <= base < 0xE000)
    scenario = parse_scenario_text(V + f'description: "{used}"\nname: "\\ud83d\\ude00"\n',
                                   "s.yaml", ROOT)
    assert (scenario.name, scenario.description) == ("\U0001F600", used)


def test_a_lone_surrogate_in_an_sls_trace_is_located(tmp_path: Path) -> None:
    trace = ('{"job.id": "a", "job.tasks": [{"duration.ms": 1}]}\n'
             '{"job.id": "b",\n "job.user": "x\\udfff",\n "job.tasks": [{"duration.ms": 1}]}\n')
    with pytest.raises(ConfigError) as info:
        load_sls_jobs(write(tmp_path, "jobs.json", trace), SETTINGS, "jobs.json")
    assert messages(info.value) == [
        "jobs.json:3: job.user: contains a lone surrogate \\udfff, which cannot be written as "
        "UTF-8 (a \\u escape of half of a UTF-16 pair)"]


def test_an_escaped_emoji_in_an_sls_trace_loads(tmp_path: Path) -> None:
    trace = '{"job.id": "\\ud83d\\ude00", "job.tasks": [{"duration.ms": 1}]}'
    loaded = load_sls_jobs(write(tmp_path, "jobs.json", trace), SETTINGS, "jobs.json")
    assert [app.id for app in loaded.apps] == ["\U0001F600"]


def test_a_lone_surrogate_in_a_topology_file_is_located(tmp_path: Path) -> None:
    topology = '{"rack": "r",\n "nodes": [{"node": "n1"},\n  {"node": "n\\ud800"}]}\n'
    with pytest.raises(ConfigError) as info:
        load_sls_topology(write(tmp_path, "nodes.json", topology), SETTINGS, "nodes.json")
    assert messages(info.value) == [
        "nodes.json:3: nodes[1].node: contains a lone surrogate \\ud800, which cannot be "
        "written as UTF-8 (a \\u escape of half of a UTF-16 pair)"]


def test_a_lone_surrogate_in_a_synth_file_is_located(tmp_path: Path) -> None:
    synth = json.loads((ROOT / "examples/synth-workload/synth.json").read_text())
    synth["description"] = "PLACEHOLDER"
    text = json.dumps(synth, indent=2).replace('"PLACEHOLDER"', '"\\ud800"')
    line = 1 + text[: text.index("\\ud800")].count("\n")
    with pytest.raises(ConfigError) as info:
        load_synth(write(tmp_path, "synth.json", text), 1, SETTINGS, "synth.json")
    assert messages(info.value) == [
        f"synth.json:{line}: description: contains a lone surrogate \\ud800, which cannot be "
        "written as UTF-8 (a \\u escape of half of a UTF-16 pair)"]


def test_a_csv_cell_with_an_encoded_surrogate_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "apps.csv"
    path.write_bytes(b"app,duration-ms\na,1\nb\xed\xa0\x80,1\n")
    with pytest.raises(ConfigError) as info:
        load_csv(path, "apps.csv")
    assert str(info.value) == "apps.csv:3: file is not UTF-8 text"


# ---- other hostile YAML ------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("a: !!int ''\n", "s.yaml:1: cannot read the value ''", id="an empty !!int"),
    pytest.param("a: !!float ''\n", "s.yaml:1: cannot read the value ''", id="an empty !!float"),
    pytest.param("a: !!bool maybe\n", "s.yaml:1: cannot read the value 'maybe'",
                 id="a !!bool that is none"),
    pytest.param("a: " + "9" * 5000 + "\n",
                 "s.yaml:1: cannot read the value: a number of 5,000 characters (at most 4,300)",
                 id="5000 digits"),
    pytest.param("a: 0x" + "f" * 10000 + "\n",
                 "s.yaml:1: cannot read the value: a number of 10,002 characters (at most "
                 "4,300)", id="10000 hex digits"),
    pytest.param("a: 1" + ":59" * 3000 + "\n",
                 "s.yaml:1: cannot read the value: a number of 9,001 characters (at most "
                 "4,300)", id="a sexagesimal of 3000 parts"),
    pytest.param("a: !!binary aGk=\n", "s.yaml:1: unsupported YAML tag '!!binary'",
                 id="binary"),
    pytest.param("a: !!set {x}\n", "s.yaml:1: unsupported YAML tag '!!set'", id="a set"),
    pytest.param("? [a]\n: 1\n", "s.yaml:1: a key must be plain text, not a list or a map",
                 id="a list as a key"),
    pytest.param("a: &x 1\nb: &x 2\n",
                 "s.yaml:2: invalid YAML: found duplicate anchor 'x' (first at line 1)",
                 id="a duplicate anchor"),
    pytest.param("a: 1\n---\nb: 2\n",
                 "s.yaml:2: invalid YAML: a second document (a scenario is one YAML document)",
                 id="two documents"),
    pytest.param("a: {<<: [1, 2]}\n",
                 "s.yaml:1: a merge key '<<' takes a map or a list of maps, got a list",
                 id="a merge of numbers"),
    pytest.param("a: *nowhere\n", "s.yaml:1: invalid YAML: found undefined alias 'nowhere'",
                 id="an undefined alias"),
])
def test_hostile_yaml_is_a_located_error(text: str, expected: str) -> None:
    assert yaml_error(text) == expected


def test_a_float_too_large_is_infinity_and_refused_where_an_integer_is_wanted(
        tmp_path: Path) -> None:
    errors = scenario_errors(tmp_path, V + "seed: 1.0e+400\n")
    assert errors == [f"{tmp_path / 's.yaml'}:2: seed: must be an integer, got .inf"]


def test_a_bom_and_crlf_lines_change_nothing(tmp_path: Path) -> None:
    text = V + "name: x\nsteps:\n  - advance: {ms: 5}\n"
    plain = load_scenario(write(tmp_path, "a.yaml", text))
    path = tmp_path / "b.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    crlf = load_scenario(path)
    assert (crlf.name, crlf.steps) == (plain.name, plain.steps)
    assert crlf.steps[0].line == 4


@pytest.mark.parametrize(("text", "line"), [
    pytest.param("", 1, id="empty"),
    pytest.param(V + "steps:\n  - advance: {ms: 5", 3, id="truncated in a flow map"),
    pytest.param(V + 'name: "open', 2, id="truncated in a string"),
])
def test_empty_and_truncated_scenarios_are_located(tmp_path: Path, text: str, line: int) -> None:
    [message] = scenario_errors(tmp_path, text)
    assert message.startswith(f"{tmp_path / 's.yaml'}:{line}: ")


def test_a_tab_is_named_whichever_parser_reads_the_file() -> None:
    assert yaml_error(V + "steps:\n\t- update\n") == (
        "s.yaml:3: invalid YAML: a tab character: YAML indents with spaces only")


def test_a_control_character_is_located_after_non_ascii_text() -> None:
    # libyaml counts bytes: 'é' is two of them, the line must still be 2
    assert yaml_error("é: 1\nb: \x01\n") == (
        "s.yaml:2: invalid YAML: character #x0001 is not allowed")


def test_running_out_of_memory_while_parsing_is_a_config_error(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def exhausted(*args: object) -> None:
        raise MemoryError

    monkeypatch.setattr(yaml_lines._Builder, "values", exhausted)
    path = write(tmp_path, "s.yaml", V)
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    assert str(info.value) == f"{path}: too large to load in memory"


# ---- traces: limits before decoding, hostile JSON and CSV --------------------------------------


def sls_errors(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_sls_jobs(write(tmp_path, "jobs.json", text), SETTINGS, "jobs.json")
    return messages(info.value)


def test_too_many_json_containers_are_refused_before_decoding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 1 job object + 1 tasks list + 9 task objects + the '{' that breaks the end of the file
    # (never reached) = 12 '{' and '[' > 10
    monkeypatch.setattr(jsontext, "MAX_JSON_CONTAINERS", 10)
    tasks = ", ".join(['{"duration.ms": 1}'] * 9)
    assert sls_errors(tmp_path, '{"job.tasks": [' + tasks + "]}{") == [
        "jobs.json: too large: more than 10 JSON objects and arrays (12 '{' and '[')"]


def test_too_many_json_values_are_refused_before_decoding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 4 containers (the job, its tasks, the task, x) + 29 commas (1 before "x", 28 between
    # the zeros) + 1 = 34 > 30; the job is not even closed
    monkeypatch.setattr(jsontext, "MAX_JSON_VALUES", 30)
    text = '{"job.tasks": [{"duration.ms": 1}], "x": [' + ", ".join(["0"] * 29) + "]"
    assert sls_errors(tmp_path, text) == [
        "jobs.json: too large: more than 30 JSON values (34 ',', '{' and '[')"]


def test_a_trace_over_the_size_limit_is_refused_unread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsontext, "MAX_TRACE_BYTES", 64)
    assert sls_errors(tmp_path, " " * 65) == [
        "jobs.json: file is too large (the limit is 64 bytes)"]


def test_a_trace_whose_text_is_wide_in_memory_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One character beyond U+FFFF makes Python keep every character in 4 bytes."""
    monkeypatch.setattr(jsontext, "MAX_TRACE_TEXT", 300)
    # 12 + 4 (the emoji) + 9 + 73 + 2 = 100 bytes of UTF-8, up to 400 in memory
    text = '{"job.id": "\U0001F600", "x": "' + "a" * 73 + '"}'
    assert len(text.encode()) == 100
    assert sls_errors(tmp_path, text) == [
        "jobs.json: too large to load in memory: 100 bytes of text with characters that "
        "Python stores in 4 bytes each (at most 300 bytes)"]


def test_job_count_copies_stop_at_the_app_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sls, "MAX_APPS", 10)
    text = ('{"job.count": 6, "job.tasks": [{"duration.ms": 1}]}\n'
            '{"job.count": 5,\n "job.tasks": [{"duration.ms": 1}]}\n')
    assert sls_errors(tmp_path, text) == [
        "jobs.json:2: job #2: job.count: the trace has more than 10 apps (job.count copies "
        "included)"]


def test_trace_hosts_stop_at_the_node_limit(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sls, "MAX_NODES", 2)
    tasks = ",\n".join(f'{{"container.host": "/r/h{i}", "duration.ms": 1}}' for i in range(3))
    assert sls_errors(tmp_path, '{"job.tasks": [\n' + tasks + "]}") == [
        "jobs.json:4: job #1: job.tasks[2].container.host: the trace names more than 2 nodes"]


@pytest.mark.parametrize(("value", "message"), [
    pytest.param("NaN", "jobs.json:1: invalid JSON: NaN is not a JSON value (column 1)",
                 id="NaN"),
    pytest.param("-Infinity", "jobs.json:1: invalid JSON: -Infinity is not a JSON value "
                              "(column 1)", id="-Infinity"),
    pytest.param("1e400", "jobs.json:1: job #1: job.tasks[0].duration.ms: must be a 32-bit "
                          "integer, got .inf", id="1e400"),
    pytest.param("1" + "0" * 400, "jobs.json:1: job #1: job.tasks[0].duration.ms: must be a "
                                  "32-bit integer, got a very large number", id="10**400"),
    pytest.param("9" * 5000, "jobs.json:1: invalid JSON: number too long (column 1)",
                 id="5000 digits"),
])
def test_hostile_json_numbers_are_located(tmp_path: Path, value: str, message: str) -> None:
    assert sls_errors(tmp_path, '{"job.tasks": [{"duration.ms": ' + value + "}]}") == [message]


def test_deep_json_nesting_is_a_located_error(tmp_path: Path) -> None:
    text = '{"job.tasks": [{"duration.ms": 1}]}\n' + "[" * 100_000 + "]" * 100_000
    [message] = sls_errors(tmp_path, text)
    assert message.startswith("jobs.json:2: invalid JSON: values nested too deeply")


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param('{"job.tasks": [{"duration.ms": 1}', [
        "jobs.json:1: invalid JSON: expecting ',' delimiter (column 34)"], id="truncated"),
    pytest.param("\ufeff{\r\n\"job.tasks\":\r\n [{\"count\": \"x\", \"duration.ms\": 1}]}", [
        "jobs.json:3: job #1: job.tasks[0].count: must be a 32-bit integer, got 'x'"],
        id="a BOM and CRLF lines"),
])
def test_broken_traces_are_located(tmp_path: Path, text: str, expected: list[str]) -> None:
    assert sls_errors(tmp_path, text) == expected


def test_an_empty_trace_has_no_apps(tmp_path: Path) -> None:
    loaded = load_sls_jobs(write(tmp_path, "jobs.json", ""), SETTINGS, "jobs.json")
    assert (loaded.apps, loaded.nodes) == ((), ())


def test_a_bad_job_in_a_large_trace_is_located_without_decoding_it_again(
        tmp_path: Path) -> None:
    """200,000 tasks in one job, the bad one last: its line is found by skipping the others."""
    tasks = ",\n".join(['{"duration.ms": 1}'] * 199_999 + ['{"duration.ms": 0}'])
    began = time.monotonic()
    errors = sls_errors(tmp_path, '{"job.tasks": [\n' + tasks + "]}")
    assert time.monotonic() - began < 30
    assert errors == ["jobs.json:200001: job #1: job.tasks[199999].duration.ms: a task must "
                      "last: must be positive, got 0"]


def test_a_long_job_id_is_cut_in_messages(tmp_path: Path) -> None:
    job_id = "j" * 1000
    [message] = sls_errors(tmp_path, '{"job.id": "' + job_id + '", "job.tasks": []}')
    assert message.startswith("jobs.json:1: job #1 (" + "j" * 59 + "…): job.tasks: ")


def test_running_out_of_memory_while_decoding_a_trace_is_a_config_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Exhausted:
        def raw_decode(self, text: str, pos: int) -> None:
            raise MemoryError

    monkeypatch.setattr(jsontext, "_DECODER", Exhausted())
    assert sls_errors(tmp_path, '{"job.tasks": [{"duration.ms": 1}]}') == [
        "jobs.json: too large to load in memory"]


def test_csv_rows_stop_at_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The header is row 1, a (line 3) row 2, b (line 5) row 3: the comment and the empty line
    are not rows. With at most 3 rows, c (line 6) is refused."""
    monkeypatch.setattr(csv_source, "MAX_ROWS", 3)
    text = "app,duration-ms\n# c\na,1\n\nb,1\nc,1\nd,1\n"
    with pytest.raises(ConfigError) as info:
        load_csv(write(tmp_path, "apps.csv", text), "apps.csv")
    assert messages(info.value) == ["apps.csv:6: more than 3 rows (task groups)"]


def test_csv_lines_end_as_a_file_opened_with_newline_empty_says(tmp_path: Path) -> None:
    """\\n, \\r\\n and \\r end lines; a quoted cell may hold a line end; a form feed does not
    end a line."""
    text = 'app,duration-ms,queue\r\na,1,"q\nr"\rb,2,x\x0cy\n'
    apps = load_csv(write(tmp_path, "apps.csv", text), "apps.csv")
    assert [(a.id, a.queue, a.line) for a in apps] == [("a", "q\nr", 2), ("b", "x\x0cy", 4)]


def test_a_bad_csv_number_is_located(tmp_path: Path) -> None:
    text = "app,duration-ms,count\na,1,2\nb,1," + "9" * 30 + "\n"
    with pytest.raises(ConfigError) as info:
        load_csv(write(tmp_path, "apps.csv", text), "apps.csv")
    assert messages(info.value) == [
        "apps.csv:3: count: must be an integer from 1 to 2147483647, got "
        "'999999999999999999999999999999'"]


# ---- real use still works ----------------------------------------------------------------------


@pytest.mark.parametrize("example", sorted(p.name for p in (ROOT / "examples").iterdir()))
def test_every_example_still_loads(example: str) -> None:
    paths = sorted((ROOT / "examples" / example).glob("*.yaml"))
    assert paths
    for path in paths:
        assert load_scenario(path).name


def test_a_trace_of_300000_tasks_loads(tmp_path: Path) -> None:
    task = ('{{"container.host": "/r{r}/n{n}", "container.start.ms": {s}, '
            '"container.end.ms": {e}, "container.priority": 20, "container.type": "map"}}')
    with (tmp_path / "jobs.json").open("w") as out:
        for job in range(300):
            tasks = ",\n ".join(task.format(r=i % 5, n=i % 50, s=i, e=i + 1000 * (1 + i % 3))
                                for i in range(1000))
            out.write(f'{{"job.id": "j{job}", "job.start.ms": {job}, "job.tasks": [{tasks}]}}\n')
    trace = load_sls_jobs(tmp_path / "jobs.json", SETTINGS, "jobs.json")
    assert len(trace.apps) == 300
    assert sum(t.count for a in trace.apps for t in a.tasks) == 300_000
    assert len(trace.nodes) == 50  # n0..n49, each first seen on rack r(i % 5)
