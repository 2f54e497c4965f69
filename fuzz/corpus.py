"""The seed corpus: every file of ``examples/``, its kind, and who references it.

Each example folder is a scenario (or several) plus the files they name (``allocations-file``,
``site-file``, ``workload.sls`` / ``sls-nodes`` / ``synth`` / ``csv``). A mutant of a
referenced file is tested by copying its folder and replacing that one file, so the corpus
keeps, for every file, the scenarios that read it. One more folder is made up here: the seed
tenants with a ``yarn-site.xml`` (``site-file``), so that ``--site`` and site files are fuzzed
too (no example ships one). And the ResourceManager dumps of ``tests/importer/dumps`` are
folders too (``dump-<name>``), whose JSON files ``fairshare import`` reads.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

SCENARIO, ALLOC, SITE, SLS, TOPOLOGY, SYNTH, CSV, DUMP = (
    "scenario", "alloc", "site", "sls", "topology", "synth", "csv", "dump")
DUMP_PREFIX = "dump-"  # a folder that is a dump: scheduler.json, nodes.json, apps.json

_REFERENCE_KINDS = {  # scenario key path -> kind of the referenced file
    ("allocations-file",): ALLOC,
    ("site-file",): SITE,
    ("workload", "sls"): SLS,
    ("workload", "sls-nodes"): TOPOLOGY,
    ("workload", "synth"): SYNTH,
    ("workload", "csv"): CSV,
}

SITE_XML = """<?xml version="1.0"?>
<!-- A yarn-site.xml for the seed tenants (made up by the fuzz suite: no example ships one). -->
<configuration>
  <property>
    <name>yarn.scheduler.fair.preemption</name>
    <value>true</value>
  </property>
  <property>
    <name>yarn.scheduler.fair.preemption.cluster-utilization-threshold</name>
    <value>0.8</value>
  </property>
  <property>
    <name>yarn.scheduler.fair.waitTimeBeforeKill</name>
    <value>15000</value>
  </property>
  <property>
    <name>yarn.scheduler.fair.assignmultiple</name>
    <value>true</value>
  </property>
  <property>
    <name>yarn.scheduler.minimum-allocation-mb</name>
    <value>512</value>
  </property>
  <property>
    <name>yarn.resource-types</name>
    <value>yarn.io/gpu</value>
  </property>
  <property>
    <name>yarn.resourcemanager.nodemanagers.heartbeat-interval-ms</name>
    <value>1000</value>
  </property>
</configuration>
"""

SITE_SCENARIO = """# The seed tenants with their yarn-site.xml (made up by the fuzz suite).
version: 1
name: seed tenants with a site file
seed: 3
site-file: yarn-site.xml
site:
  yarn.scheduler.fair.dynamic.max.assign: false
allocations-file: fair-scheduler.xml
cluster:
  nodes:
    - {count: 3, prefix: node, memory-mb: 8192, vcores: 4, yarn.io/gpu: 2}
workload:
  apps:
    - {id: etl, at-ms: 0, queue: root.tenant1, user: alice, am: {memory-mb: 1024, vcores: 1},
       tasks: [{count: 12, memory-mb: 2048, vcores: 1, duration-ms: 60000}]}
    - {id: gpu, at-ms: 5000, queue: root.tenant3, user: carol,
       tasks: [{count: 2, memory-mb: 1024, vcores: 1, yarn.io/gpu: 1, duration-ms: 30000}]}
run: {until-ms: 120000, snapshot-every-ms: 5000}
"""


@dataclass(frozen=True)
class SeedFile:
    folder: str  # the example folder's name
    name: str  # the file's name inside it
    kind: str
    data: bytes

    @property
    def label(self) -> str:
        return f"{self.folder}/{self.name}"


@dataclass
class Folder:
    name: str
    files: dict[str, bytes]
    scenarios: list[str] = field(default_factory=list)  # scenario file names
    dump: bool = False  # a ResourceManager dump, read by ``fairshare import``
    references: dict[str, list[str]] = field(default_factory=dict)  # file -> scenarios naming it
    workload: dict[str, bool] = field(default_factory=dict)  # scenario -> has a workload


@dataclass
class Corpus:
    folders: dict[str, Folder]
    seeds: list[SeedFile]

    def seed(self, label: str) -> SeedFile:
        return next(s for s in self.seeds if s.label == label)


def load(examples: Path) -> Corpus:
    folders: dict[str, Folder] = {}
    for path in sorted(p for p in examples.iterdir() if p.is_dir()):
        files = {f.name: f.read_bytes() for f in sorted(path.iterdir()) if f.is_file()}
        folders[path.name] = Folder(path.name, files)
    _add_site_folder(folders)
    _add_dump_folders(folders, examples.parent / "tests" / "importer" / "dumps")
    seeds: list[SeedFile] = []
    for folder in folders.values():
        kinds = {name: DUMP for name in folder.files} if folder.dump else _analyse(folder)
        seeds += [SeedFile(folder.name, name, kinds[name], data)
                  for name, data in folder.files.items()]
    return Corpus(folders, seeds)


def _add_site_folder(folders: dict[str, Folder]) -> None:
    seed = folders.get("seed-three-tenants")
    if seed is None or "fair-scheduler.xml" not in seed.files:
        return
    folders["fuzz-site-file"] = Folder("fuzz-site-file", {
        "fair-scheduler.xml": seed.files["fair-scheduler.xml"],
        "yarn-site.xml": SITE_XML.encode(),
        "scenario.yaml": SITE_SCENARIO.encode(),
    })


def _add_dump_folders(folders: dict[str, Folder], dumps: Path) -> None:
    if not dumps.is_dir():
        return
    for path in sorted(p for p in dumps.iterdir() if p.is_dir()):
        files = {f.relative_to(path).as_posix(): f.read_bytes()
                 for f in sorted(path.rglob("*.json")) if f.is_file()}
        folders[DUMP_PREFIX + path.name] = Folder(DUMP_PREFIX + path.name, files, dump=True)


def _analyse(folder: Folder) -> dict[str, str]:
    kinds: dict[str, str] = {}
    for name, data in folder.files.items():
        if not name.endswith((".yaml", ".yml")):
            continue
        kinds[name] = SCENARIO
        folder.scenarios.append(name)
        doc = _yaml(data)
        folder.workload[name] = isinstance(doc, dict) and doc.get("workload") is not None
        for keys, kind in _REFERENCE_KINDS.items():
            ref = _get(doc, keys)
            if isinstance(ref, str) and ref in folder.files:
                kinds.setdefault(ref, kind)
                folder.references.setdefault(ref, []).append(name)
    for name, data in folder.files.items():
        kinds.setdefault(name, _guess(name, data))
    return kinds


def _yaml(data: bytes) -> Any:
    try:
        return yaml.safe_load(data)
    except yaml.YAMLError:
        return None


def _get(doc: Any, keys: Iterable[str]) -> Any:
    for key in keys:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(key)
    return doc


def _guess(name: str, data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    if name.endswith(".xml"):
        return SITE if "<configuration" in text else ALLOC
    if name.endswith(".csv"):
        return CSV
    if "num_jobs" in text or "workloads" in text:
        return SYNTH
    if '"rack"' in text:
        return TOPOLOGY
    return SLS
