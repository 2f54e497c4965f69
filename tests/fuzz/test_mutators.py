"""The fuzz suite's mutators and case builders: deterministic, and doing what they say."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest
import yaml

from fuzz import cases, corpus, mutators

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def seeds() -> corpus.Corpus:
    return corpus.load(EXAMPLES)


def test_corpus_covers_every_example_file_and_knows_references(seeds: corpus.Corpus) -> None:
    labels = {s.label for s in seeds.seeds}
    for path in EXAMPLES.rglob("*"):
        if path.is_file():
            assert f"{path.parent.name}/{path.name}" in labels
    sls = seeds.folders["sls-trace"]
    assert sls.references["jobs.json"] == ["scenario.yaml"]
    assert seeds.seed("sls-trace/topology.json").kind == corpus.TOPOLOGY
    assert seeds.seed("csv-workload/apps.csv").kind == corpus.CSV
    assert seeds.seed("fuzz-site-file/yarn-site.xml").kind == corpus.SITE


def test_mutate_is_deterministic_and_changes_the_input(seeds: corpus.Corpus) -> None:
    for seed in seeds.seeds:
        changed = 0
        for i in range(6):
            a = mutators.mutate(seed.kind, seed.data, random.Random(f"t:{i}"))
            b = mutators.mutate(seed.kind, seed.data, random.Random(f"t:{i}"))
            assert a == b
            assert a.ops and all(a.ops)
            changed += a.data != seed.data
        assert changed >= 5, seed.label


def test_generic_operators() -> None:
    rng = random.Random(1)
    data = b"version: 1\nname: x\nseed: 5\n"
    out = mutators._truncate(data, rng)
    assert len(out.data) < len(data) and data.startswith(out.data)
    assert mutators._line_endings(b"a\nb\n", random.Random(0)).data in (
        b"a\r\nb\r\n", b"a\rb\r") or b"\r" in mutators._line_endings(b"a\nb\n", rng).data
    numbers = {mutators._number_token(data, random.Random(i)).data for i in range(40)}
    assert any(b"nan" in d.lower() or b"inf" in d.lower() for d in numbers)
    with pytest.raises(mutators.Skip):
        mutators._truncate(b"x", rng)


def test_yaml_bombs_and_tags_reach_the_text() -> None:
    data = b"version: 1\nname: x\nsteps:\n- update: {}\n"
    seen = ""
    for i in range(300):
        op = mutators._yaml_tree if i % 2 else mutators._yaml_text
        try:
            seen += op(data, random.Random(i)).data.decode("utf-8", "replace")
        except mutators.Skip:
            continue
    assert "*a, *a" in seen or "*b, *b" in seen  # an alias bomb
    assert "!!python/object/apply:os.system" in seen
    assert "[" * 50 in seen or "{a: " * 50 in seen  # deep nesting


def test_walk_does_not_expand_alias_bombs() -> None:
    bomb = yaml.safe_load("x: " + mutators._ALIAS_BOMBS[0])
    start = time.monotonic()
    nodes = mutators._walk(bomb)
    assert len(nodes) < 200 and time.monotonic() - start < 1


def test_xml_entities_bring_their_secret_file() -> None:
    data = EXAMPLES.joinpath("seed-three-tenants", "fair-scheduler.xml").read_bytes()
    found = {}
    for i in range(60):
        out = mutators._xml_entities(data, random.Random(i))
        found[out.detail] = out
    external = found.get("xml.entities external-secret")
    assert external is not None
    assert b'SYSTEM "secret.txt"' in external.data and b"&x;" in external.data
    assert mutators.SECRET_TOKEN.encode() in external.extra[mutators.SECRET_NAME]


def test_json_mutants_keep_the_stream_shape_or_say_otherwise() -> None:
    data = EXAMPLES.joinpath("sls-trace", "jobs.json").read_bytes()
    out = mutators._json_tree(data, random.Random(3))
    assert out.detail.startswith("json.")
    assert out.detail.endswith(("(stream-pretty)", "(stream-compact)", "(array)"))


def test_argable_gives_what_a_command_line_can_carry() -> None:
    assert cases.argable("a\x00b") == "ab"
    escaped = cases.argable("\ud800")
    assert os.fsencode(escaped) == "\ud800".encode("utf-8", "surrogatepass")


def test_mutant_tasks_are_reproducible_and_cover_the_cycle(seeds: corpus.Corpus) -> None:
    targets = cases.cycle(seeds)
    tasks = [cases.mutant_task(seeds, 7, i, None) for i in range(len(targets))]
    assert [t.target for t in tasks] == targets
    again = cases.mutant_task(seeds, 7, 3, None)
    assert again == tasks[3]
    for task in tasks:
        assert task.cases, task.description
        for case in task.cases:
            assert case.command in ("validate", "shares", "run", "simulate", "import")
            assert case.argv[0] == case.command
            if case.outdir is not None:
                assert "-o" in case.argv
            for name in case.previous:
                assert case.outdir is not None and name.startswith(case.outdir + "/")


def test_special_paths() -> None:
    assert cases.special_entry("fifo", "s.yaml")["s.yaml"].kind == "fifo"
    assert cases.special_entry("dev-zero", "x")["x"].target == "/dev/zero"
    assert cases.special_entry("missing", "x") == {}
    assert cases.special_entry("sparse", "x")["x"].size > 2**32


def test_structured_json_numbers_are_written_as_json_tokens() -> None:
    raw = mutators._Raw()
    tree = {"a": raw("9" * 10)}
    text = raw.splice(json.dumps(tree), quoted=True)
    assert text == '{"a": 9999999999}'


def test_dumps_are_fuzzed_through_import(seeds: corpus.Corpus) -> None:
    dump = seeds.folders["dump-spark"]
    assert dump.dump and set(dump.files) == {"apps.json", "nodes.json", "scheduler.json"}
    assert {s.kind for s in seeds.seeds if s.folder == "dump-spark"} == {corpus.DUMP}
    assert "containers/application_1700000000000_0001.json" in seeds.folders["dump-listed"].files
    seed = seeds.seed("dump-spark/apps.json")
    details = {mutators.mutate(corpus.DUMP, seed.data, random.Random(i)).ops[0].split(" ")[0]
               for i in range(40)}
    assert "dump.values" in details
    index = cases.cycle(seeds).index("dump-spark/apps.json")
    (case,) = cases.mutant_task(seeds, 1, index, None).cases
    assert case.command == "import" and case.argv[2:4] == ("-o", case.outdir)
    (base,) = next(t for t in cases.baseline_tasks(seeds) if t.target == "dump-spark").cases
    assert base.argv == ("import", ".", "-o", "out")
