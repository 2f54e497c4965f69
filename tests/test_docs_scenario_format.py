"""docs/scenario-format.md, the scenario reference that ships with the project, against the code.

* Every ```yaml example runs: a complete scenario (it has ``version:``) as it is; a fragment
  wrapped as the page says — a list of steps continues the overview (the page's first complete
  example), a request is asked for by its app ``a1``, top-level keys get a small cluster. Each
  must parse and run with ``fairshare run`` with exit 0 (every ``expect`` in it holds).
* Every key of every model of the scenario schema, every step, every snapshot field and every
  matcher is written on the page as `` `key` ``, so a key added without its documentation fails.
* Every link of the page to a section (its own, or another docs page's) names a heading that
  exists, and no docs page points outside the repository or cites sections of a document users
  do not have.

The files the examples name (``fair-scheduler.xml``, ``jobs.json``, …) are written here, small.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.sim.parse import scenario_schema, timed_spec
from fairshare.sim.parse.expect import MATCHER_KEYS, SNAPSHOT_FIELDS, SUBJECT_SECTIONS
from fairshare.sim.parse.scenario import STEP_KINDS, parse_scenario_text
from fairshare.sim.parse.scenario_schema import RequestModel, ScenarioModel, SchemaModel

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGE = DOCS / "scenario-format.md"
TEXT = PAGE.read_text(encoding="utf-8")

FILES = {
    "fair-scheduler.xml": '<allocations><queue name="a"/><queue name="b"/></allocations>\n',
    "yarn-site.xml": "<configuration><property><name>yarn.scheduler.fair.preemption</name>"
                     "<value>false</value></property></configuration>\n",
    "jobs.json": json.dumps({"job.start.ms": 0, "job.queue.name": "default", "job.id": "job_1",
                             "job.user": "alice", "job.tasks": [
                                 {"count": 2, "container.duration.ms": 5000,
                                  "container.memory-mb": 1024, "container.vcores": 1}]}) + "\n",
    "topology.json": json.dumps({"rack": "default-rack",
                                 "nodes": [{"node": "node1"}, {"node": "node2"}]}) + "\n",
    "synth.json": json.dumps({"num_jobs": 2, "workloads": [{
        "workload_name": "w", "workload_weight": 1, "queue_name": "default",
        "time_distribution": [{"time": 0, "weight": 1}],
        "job_classes": [{"class_name": "c", "class_weight": 1, "tasks": [
            {"count": {"val": 2}, "time": {"val": 5}, "max_memory": {"val": 1024},
             "max_vcores": {"val": 1}}]}]}]}) + "\n",
    "apps.csv": "app,at-ms,queue,user,count,memory-mb,vcores,duration-ms\n"
                "etl-1,0,etl,alice,2,1024,1,5000\n",
}
SMALL_CLUSTER = {"nodes": [{"count": 2, "prefix": "n", "memory-mb": 8192, "vcores": 8}]}
RUN = {"until-ms": 600_000}

runner = CliRunner()


def yaml_blocks() -> list[tuple[int, str]]:
    """(line, text) of every ```yaml block of the page."""
    return [(TEXT.count("\n", 0, m.start()) + 2, m.group(1))
            for m in re.finditer(r"^```yaml\n(.*?)^```$", TEXT, re.M | re.S)]


def is_complete(block: str) -> bool:
    return re.search(r"^version:", block, re.M) is not None


def overview() -> dict[str, Any]:
    first = next(block for _, block in yaml_blocks() if is_complete(block))
    loaded: dict[str, Any] = yaml.safe_load(first)
    return loaded


def keys_of(model: type[SchemaModel]) -> set[str]:
    return {field.alias or name for name, field in model.model_fields.items()}


def wrapped(block: str) -> str:
    """The scenario a fragment runs in, as JSON text (JSON is YAML)."""
    fragment = yaml.safe_load(block)
    if isinstance(fragment, list):  # steps: they continue the overview
        base = overview()
        return json.dumps({**base, "steps": [*base["steps"], *fragment]})
    assert isinstance(fragment, dict), f"a fragment is a list of steps or a map: {block!r}"
    if set(fragment) <= keys_of(RequestModel) | {"yarn.io/gpu"}:
        base = overview()
        ask = {"request": {"app": "a1", "requests": [fragment]}}
        return json.dumps({**base, "steps": [*base["steps"], ask]})
    unknown = set(fragment) - keys_of(ScenarioModel)
    assert not unknown, f"not top-level keys, a request or steps: {sorted(unknown)}"
    scenario = {"version": 1, "cluster": SMALL_CLUSTER, **fragment}
    if "workload" in scenario:
        scenario.setdefault("run", RUN)
    return json.dumps(scenario)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_the_page_has_examples_of_both_kinds() -> None:
    blocks = [block for _, block in yaml_blocks()]
    assert sum(map(is_complete, blocks)) >= 2
    assert sum(not is_complete(block) for block in blocks) >= 20
    assert "submit" in overview()["steps"][0]


@pytest.mark.parametrize(("line", "block"), yaml_blocks(),
                         ids=[f"line-{line}" for line, _ in yaml_blocks()])
def test_every_example_parses_and_runs(folder: Path, line: int, block: str) -> None:
    text = block if is_complete(block) else wrapped(block)
    parse_scenario_text(text, f"scenario-format.md:{line}", folder)  # raises on any problem
    path = folder / "example.yaml"
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["run", str(path), "--quiet"])
    assert result.exit_code == 0, f"line {line}: {result.output}"


def test_a_failing_expectation_in_a_fragment_would_be_caught(folder: Path) -> None:
    """The wrapping is not vacuous: a fragment that does not hold after the overview fails."""
    path = folder / "example.yaml"
    path.write_text(wrapped("- expect: {app: b1, live-containers: 3}"), encoding="utf-8")
    assert runner.invoke(app, ["run", str(path), "--quiet"]).exit_code == 1


def test_the_same_example_twice_gives_the_same_files(folder: Path) -> None:
    """"Determinism": the page's complete examples, run twice, write identical outputs."""
    examples = [block for _, block in yaml_blocks() if is_complete(block)]
    for index, block in enumerate(examples):
        path = folder / f"example{index}.yaml"
        path.write_text(block, encoding="utf-8")
        runs = [folder / f"out{index}-{n}" for n in (1, 2)]
        for out in runs:
            result = runner.invoke(app, ["run", str(path), "--quiet", "-o", str(out)])
            assert result.exit_code == 0, result.output
        names = sorted(p.name for p in runs[0].iterdir() if p.suffix != ".parquet")
        assert "events.jsonl" in names
        for name in names:
            assert (runs[0] / name).read_bytes() == (runs[1] / name).read_bytes(), name


def schema_models() -> list[type[SchemaModel]]:
    """Every model of the scenario's keys: the schema's, and the timed changes' own."""
    return [cls for module in (scenario_schema, timed_spec)
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, SchemaModel) and cls.__module__ == module.__name__]


def documented_names() -> set[str]:
    keys = {key for model in schema_models() for key in keys_of(model)}
    fields = {field for section in SNAPSHOT_FIELDS.values() for field in section}
    return keys | set(STEP_KINDS) | fields | set(MATCHER_KEYS) | set(SUBJECT_SECTIONS)


def test_every_key_step_field_and_matcher_is_documented() -> None:
    missing = sorted(name for name in documented_names() if f"`{name}`" not in TEXT)
    assert not missing, f"docs/scenario-format.md does not mention {missing}"


def test_the_names_checked_include_every_kind_of_key() -> None:
    """The walk above finds the schema's models (not just a few): spot checks of each kind."""
    names = documented_names()
    assert {"site-file", "snapshot-every-ms", "relax-locality", "which", "sls-nodes", "prefix",
            "resize-node", "earmarked", "approx", "tol", "start-ms", "decommission-node",
            "set"} <= names
    assert len(schema_models()) >= 20


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#+ (.*)$", page.read_text(encoding="utf-8"), re.M)
    return {slug(heading) for heading in headings}


def test_links_name_existing_pages_and_sections() -> None:
    for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]+))?\)", TEXT):
        page = PAGE if not target else (DOCS / target)
        assert page.is_file(), f"link to a missing page: {target}"
        if anchor:
            assert anchor in anchors(page), f"no section #{anchor} in {page.name}"


SEMANTICS = DOCS / "semantics.md"
# "docs/semantics.md §2.3", "semantics.md §3.6.2", and within semantics.md itself "§2.3"
SECTION = re.compile(r"§(\d+(?:\.\d+)*)")


def semantics_sections() -> set[str]:
    """The numbers of docs/semantics.md's headings ("### 2.3 …" → "2.3")."""
    headings = re.findall(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", SEMANTICS.read_text(encoding="utf-8"),
                          re.MULTILINE)
    return set(headings)


def test_docs_point_inside_the_repository_and_cite_only_their_own_sections() -> None:
    """A § is a section of docs/semantics.md, named as such outside it, and exists there."""
    sections = semantics_sections()
    assert {"2.3", "3.6.2", "5.4"} <= sections  # the headings are read as intended
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        assert "shared/spec" not in text, page.name
        for m in SECTION.finditer(text):
            cited = m.group(1).rstrip(".")
            where = f"{page.name}: §{cited}"
            if page != SEMANTICS:
                assert text[:m.start()].endswith("semantics.md "), \
                    f"{where} is not a section of docs/semantics.md"
            assert cited in sections, f"{where}: docs/semantics.md has no such section"
