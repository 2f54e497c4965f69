"""From a mutant to command runs: the case directory, the command line, OUTDIR.

A *task* is one mutated input (or one generated scenario); it becomes one or more *cases*, each
a command run in a fresh directory. A case directory is a copy of the example folder with the
mutated file in place (or a path replaced by a directory, a FIFO, a symlink to /dev/zero, …),
plus, for ``run``/``simulate``, an OUTDIR that is either absent or holds a previous run's files
and a marker (which must survive byte for byte if the run fails).

Everything is derived from ``(seed, index)``: :func:`mutant_task` gives the same task on every
machine, so a worker can build it and the reporter can rebuild it for a reproducer.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path

from fuzz import corpus, mutators
from fuzz.corpus import Corpus, Folder

CLUSTER = "memory-mb=24576,vcores=12"
PREVIOUS_MARKER = "MARKER-previous-run.txt"
OUTPUT_NAMES = ("events.jsonl", "snapshots.json", "timeline.csv", "timeline.parquet",
                "summary.json")


@dataclass(frozen=True)
class Entry:
    """One path of a case directory."""

    kind: str  # file | dir | fifo | symlink | sparse | copy
    data: bytes = b""
    target: str = ""  # symlink target, or the file a "copy" entry copies
    size: int = 0  # sparse files

    @property
    def special(self) -> bool:
        return self.kind in ("fifo", "symlink", "sparse")


@dataclass(frozen=True)
class Case:
    id: str
    command: str  # validate | shares | run | simulate | import
    argv: tuple[str, ...]  # "{CASE}" stands for the case directory's absolute path
    files: dict[str, Entry]
    outdir: str | None = None  # as given to -o, relative to the case directory
    previous: tuple[str, ...] = ()  # files of a previous run put in OUTDIR beforehand
    workload: bool | None = None  # True: the run must write the simulation's outputs
    hint: str = ""  # what was done to the input, in a few words (groups hangs and such)
    env: dict[str, str] | None = None  # a run with another environment (a subprocess)


@dataclass(frozen=True)
class Task:
    id: str
    kind: str  # baseline | mutant | scenario
    target: str  # what was mutated: "sls-trace/jobs.json", "path", "options", …
    description: str
    cases: tuple[Case, ...]
    meta: dict[str, object] = field(default_factory=dict)


def _folder_files(folder: Folder, prefix: str) -> dict[str, Entry]:
    return {prefix + name: Entry("file", data) for name, data in folder.files.items()}


def _previous_outputs(baseline: Path | None, key: str, outdir: str,
                      rng: random.Random) -> dict[str, Entry]:
    """A previous run's files in OUTDIR: the example's own outputs when the baseline ran."""
    files: dict[str, Entry] = {}
    source = baseline / key if baseline is not None else None
    if source is not None and source.is_dir():
        for path in sorted(source.iterdir()):
            if path.is_file():
                files[f"{outdir}/{path.name}"] = Entry("copy", target=str(path))
    if not files:
        files[f"{outdir}/events.jsonl"] = Entry("file", b'{"t":0,"type":"old-run","seq":1}\n')
        files[f"{outdir}/snapshots.json"] = Entry("file", b"[]\n")
    files[f"{outdir}/{PREVIOUS_MARKER}"] = Entry(
        "file", f"left by a previous run ({rng.random()!r})\n".encode())
    files[f"{outdir}/keep/notes.txt"] = Entry("file", b"a user's own file in OUTDIR\n")
    return files


def _outdir(rng: random.Random, baseline: Path | None, key: str
            ) -> tuple[str | None, dict[str, Entry]]:
    roll = rng.random()
    if roll < 0.45:
        return "out", {}
    if roll < 0.85:
        return "out", _previous_outputs(baseline, key, "out", rng)
    if roll < 0.92:
        return "deep/er/out", {}
    return None, {}


def _run_case(case_id: str, command: str, scenario_arg: str, files: dict[str, Entry],
              rng: random.Random, baseline: Path | None, key: str, workload: bool | None,
              hint: str) -> Case:
    outdir, previous = _outdir(rng, baseline, key)
    argv = [command, scenario_arg]
    if outdir is not None:
        argv += ["-o", outdir]
    if rng.random() < 0.25:
        argv.append("--quiet")
    if rng.random() < 0.15:
        argv.append("--fixed-interval")
    return Case(case_id, command, tuple(argv), {**files, **previous}, outdir,
                tuple(previous), workload if command == "run" else True, hint)


def _import_case(case_id: str, prefix: str, files: dict[str, Entry], rng: random.Random,
                 hint: str) -> Case:
    """``fairshare import`` of the dump folder (at ``prefix``) into OUTDIR, which may hold a
    user's file (it must survive), sometimes with ``--site``."""
    files = dict(files)
    outdir = "out" if rng.random() < 0.8 else "deep/er/out"
    previous: tuple[str, ...] = ()
    if rng.random() < 0.3:
        files[f"{outdir}/notes.txt"] = Entry("file", b"a user's own file in OUTDIR\n")
        previous = (f"{outdir}/notes.txt",)
    argv = ["import", prefix.rstrip("/") or ".", "-o", outdir]
    if rng.random() < 0.3:
        files["yarn-site.xml"] = Entry("file", corpus.SITE_XML.encode())
        argv += ["--site", "yarn-site.xml"]
    if rng.random() < 0.2:
        argv += ["--remaining-ms", str(rng.choice([0, 1, 60_000]))]
    return Case(case_id, "import", tuple(argv), files, outdir, previous, None, hint)


def _layout(rng: random.Random) -> str:
    """Where the example folder sits in the case directory: "" (cwd), "ex/", or absolute."""
    roll = rng.random()
    return "" if roll < 0.6 else "ex/" if roll < 0.9 else "{CASE}/ex/"


def _storage(prefix: str) -> str:
    return prefix.replace("{CASE}/", "")


def _shares_argv(alloc_arg: str, rng: random.Random, folder_leaves: list[str]) -> list[str]:
    argv = ["shares", alloc_arg, "--cluster", CLUSTER]
    if folder_leaves and rng.random() < 0.5:
        chosen = rng.sample(folder_leaves, rng.randint(1, len(folder_leaves)))
        argv += ["--active", ",".join(chosen)]
    if rng.random() < 0.5:
        argv.append("--json")
    return argv


_LEAVES = {  # leaf queues of the example allocation files, for --active
    "seed-three-tenants": ["root.tenant1", "root.tenant2", "tenant3"],
    "fuzz-site-file": ["root.tenant1", "tenant2"],
    "sls-trace": ["root.sls_queue_1", "sls_queue_2"],
}


def _hint(ops: tuple[str, ...]) -> str:
    return "+".join(op.split(" ")[0].rstrip(":") for op in ops)


# -- mutants of one file --------------------------------------------------------------------------


def _file_mutant(c: Corpus, seed_file: corpus.SeedFile, rng: random.Random, task_id: str,
                 baseline: Path | None) -> Task:
    folder = c.folders[seed_file.folder]
    mutation = mutators.mutate(seed_file.kind, seed_file.data, rng)
    prefix = _layout(rng)
    store = _storage(prefix)
    files = _folder_files(folder, store)
    files[store + seed_file.name] = Entry("file", mutation.data)
    for name, data in mutation.extra_files.items():
        files[store + name] = Entry("file", data)
    hint = f"{seed_file.kind}:{_hint(mutation.ops)}"
    cases: list[Case] = []
    n = 0

    def next_id() -> str:
        nonlocal n
        n += 1
        return f"{task_id}.{n}"

    def runs(scenario: str) -> None:
        key = f"{folder.name}/{scenario}"
        workload = folder.workload.get(scenario)
        if seed_file.kind == corpus.SCENARIO:
            workload = None  # the mutant may have lost or gained its workload
        commands = ["run"] + (["simulate"] if rng.random() < 0.4 else [])
        for command in commands:
            cases.append(_run_case(next_id(), command, prefix + scenario, files, rng, baseline,
                                   key, workload, hint))

    if seed_file.kind == corpus.DUMP:
        cases.append(_import_case(next_id(), prefix, files, rng, hint))
    elif seed_file.kind == corpus.SCENARIO:
        runs(seed_file.name)
    elif seed_file.kind in (corpus.ALLOC, corpus.SITE):
        alloc = seed_file.name if seed_file.kind == corpus.ALLOC else "fair-scheduler.xml"
        site = ["--site", prefix + "yarn-site.xml"] if "yarn-site.xml" in folder.files else []
        leaves = _LEAVES.get(folder.name, [])
        cases.append(Case(next_id(), "validate", ("validate", prefix + alloc, *site), files,
                          hint=hint))
        shares = _shares_argv(prefix + alloc, rng, leaves)
        cases.append(Case(next_id(), "shares", (*shares, *site), files, hint=hint))
        users = folder.references.get(seed_file.name, [])
        if users and rng.random() < 0.7:
            runs(rng.choice(users))
    else:
        users = folder.references.get(seed_file.name, [])
        if users:
            runs(rng.choice(users))
    description = f"{seed_file.label}: " + "; ".join(mutation.ops)
    return Task(task_id, "mutant", seed_file.label, description, tuple(cases),
                {"ops": list(mutation.ops)})


# -- paths replaced by something else -------------------------------------------------------------

SPECIALS = ["dir", "dir-with-file", "fifo", "dev-zero", "dev-null", "empty", "missing",
            "sparse", "symlink-loop", "dangling-symlink", "symlink-to-dir"]


def special_entry(kind: str, name: str) -> dict[str, Entry]:
    """The entries that make ``name`` a ``kind`` of path instead of a file."""
    if kind == "dir":
        return {name: Entry("dir")}
    if kind == "dir-with-file":
        return {f"{name}/inner.txt": Entry("file", b"not the file you wanted\n")}
    if kind == "fifo":
        return {name: Entry("fifo")}
    if kind == "dev-zero":
        return {name: Entry("symlink", target="/dev/zero")}
    if kind == "dev-null":
        return {name: Entry("symlink", target="/dev/null")}
    if kind == "empty":
        return {name: Entry("file", b"")}
    if kind == "missing":
        return {}
    if kind == "sparse":
        return {name: Entry("sparse", size=6 * 1024**3)}
    if kind == "symlink-loop":
        return {name: Entry("symlink", target=Path(name).name)}
    if kind == "dangling-symlink":
        return {name: Entry("symlink", target="nowhere/at/all")}
    if kind == "symlink-to-dir":
        return {name: Entry("symlink", target=".")}
    raise ValueError(kind)


def _replace(files: dict[str, Entry], name: str, kind: str) -> dict[str, Entry]:
    out = {k: v for k, v in files.items() if k != name}
    out.update(special_entry(kind, name))
    return out


def _path_mutant(c: Corpus, rng: random.Random, task_id: str, baseline: Path | None) -> Task:
    kind = rng.choice(SPECIALS)
    folders = [f for f in c.folders.values() if f.scenarios]
    folder = rng.choice(folders)
    files = _folder_files(folder, "")
    scenario = rng.choice(folder.scenarios)
    key = f"{folder.name}/{scenario}"
    what = rng.choice(["scenario", "referenced", "alloc-arg", "site-arg", "outdir", "literal"])
    referenced = list(folder.references)
    if what == "referenced" and not referenced:
        what = "scenario"
    if what == "site-arg" and "yarn-site.xml" not in folder.files:
        what = "alloc-arg"
    allocs = [n for n in folder.files if n.endswith(".xml") and n != "yarn-site.xml"]
    if what == "alloc-arg" and not allocs:
        what = "scenario"
    hint = f"path:{what}:{kind}"
    case_id = f"{task_id}.1"
    if what in ("scenario", "referenced"):
        name = scenario if what == "scenario" else rng.choice(referenced)
        files = _replace(files, name, kind)
        users = folder.references.get(name, [scenario])
        run_scenario = scenario if what == "scenario" else rng.choice(users)
        command = "run" if rng.random() < 0.7 else "simulate"
        case = _run_case(case_id, command, run_scenario, files, rng, baseline, key,
                         None, hint)
        return Task(task_id, "mutant", "path", f"{folder.name}/{name} is a {kind}; {command}",
                    (case,))
    if what in ("alloc-arg", "site-arg"):
        alloc = rng.choice(allocs)
        name = alloc if what == "alloc-arg" else "yarn-site.xml"
        files = _replace(files, name, kind)
        site = ["--site", "yarn-site.xml"] if "yarn-site.xml" in folder.files else []
        if rng.random() < 0.5:
            argv: tuple[str, ...] = ("validate", alloc, *site)
        else:
            argv = ("shares", alloc, "--cluster", CLUSTER, *site)
        return Task(task_id, "mutant", "path", f"{folder.name}/{name} is a {kind}; {argv[0]}",
                    (Case(case_id, argv[0], argv, files, hint=hint),))
    if what == "literal":
        path = rng.choice(["/dev/zero", "/dev/null", "/", "/proc/self/mem", "", ".", "-",
                           "/nonexistent/x.yaml", "x" * 5000, "a\x01b.yaml"])
        command = rng.choice(["validate", "shares", "run", "simulate"])
        if command == "shares":
            argv = ("shares", path, "--cluster", CLUSTER)
        elif command == "validate":
            argv = ("validate", allocs[0], "--site", path) if allocs and rng.random() < 0.3 \
                else ("validate", path)
        else:
            argv = (command, path, "-o", "out")
        return Task(task_id, "mutant", "path", f"literal path {path[:40]!r}; {command}",
                    (Case(case_id, command, argv, files, outdir="out" if command in (
                        "run", "simulate") else None, hint=f"path:literal:{command}"),))
    # OUTDIR itself is odd
    odd = rng.choice(["file", "fifo", "symlink-to-dir", "dev-null", "in-a-file", "dot",
                      "empty-string", "dir-with-file", "nested-missing"])
    outdir = {"in-a-file": "blocker/out", "dot": ".", "empty-string": "",
              "nested-missing": "a/b/c/d/out"}.get(odd, "out")
    if odd == "file":
        files["out"] = Entry("file", b"a regular file where OUTDIR should go\n")
    elif odd == "fifo":
        files["out"] = Entry("fifo")
    elif odd == "symlink-to-dir":
        files["real-out/kept.txt"] = Entry("file", b"kept\n")
        files["out"] = Entry("symlink", target="real-out")
    elif odd == "dev-null":
        files["out"] = Entry("symlink", target="/dev/null")
    elif odd == "in-a-file":
        files["blocker"] = Entry("file", b"a file, not a directory\n")
    elif odd == "dir-with-file":
        files["out/precious.txt"] = Entry("file", b"precious\n")
    command = "run" if rng.random() < 0.7 else "simulate"
    argv = (command, scenario, "-o", outdir)
    previous = tuple(k for k in files if k.startswith(("out/", "real-out/")))
    case = Case(case_id, command, argv, files, outdir, previous,
                folder.workload.get(scenario) if command == "run" else True,
                f"outdir:{odd}")
    return Task(task_id, "mutant", "path", f"{folder.name}/{scenario}: OUTDIR is {odd}", (case,))


# -- hostile option values ------------------------------------------------------------------------

CLUSTERS = [
    "", "=", "memory-mb", "memory-mb=", "memory-mb=-1,vcores=1", "memory-mb=nan,vcores=1",
    "memory-mb=1e400,vcores=12", "memory-mb=9223372036854775808,vcores=1",
    "memory-mb=9223372036854775807,vcores=2147483647", "memory-mb=0,vcores=0", "vcores=12",
    "memory-mb=24576,vcores=12,yarn.io/gpu=2", "memory-mb=24576,vcores=12,[bold]=1",
    "memory-mb=24576 vcores=12", "24576 mb, 12 vcores", "50%", "memory-mb=50%",
    "memory-mb=24576,memory-mb=1", "名前=1", "memory-mb=1,vcores=1", "memory-mb=１２",
    "memory-mb=0x10", " memory-mb = 10 , vcores = 1 ", ",,,", "memory-mb=24576,vcores=12,",
    "memory-mb=" + "9" * 5000, "memory-mb=1" + ",x=1" * 2000, "[/x]=1", "memory-mb=\x00",
]
ACTIVES = ["", ",", "root", "root.", "nope", "tenant1,tenant1", "root.tenant1,nope", "[/x]",
           "a\nb", "tenant1, tenant2", ".", "root.default", "*", "root.tenant1," * 3000,
           "\ud800", "[bold]tenant1"]


def argable(text: str) -> str:
    """``text`` as a real command line can carry it: no NUL, and bytes that are not UTF-8
    as Python decodes them (surrogate escapes), not as lone surrogates."""
    text = text.replace("\x00", "")
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        return os.fsdecode(text.encode("utf-8", "surrogatepass"))
    return text


def _options_mutant(c: Corpus, rng: random.Random, task_id: str) -> Task:
    folder = rng.choice([f for f in c.folders.values()
                         if any(n.endswith(".xml") and n != "yarn-site.xml" for n in f.files)])
    alloc = next(n for n in folder.files if n.endswith(".xml") and n != "yarn-site.xml")
    files = _folder_files(folder, "")
    cluster = rng.choice(CLUSTERS + mutators.NAMES[:8]) if rng.random() < 0.7 else CLUSTER
    argv = ["shares", alloc, "--cluster", argable(cluster)]
    if rng.random() < 0.6 or cluster == CLUSTER:
        argv += ["--active", argable(rng.choice(ACTIVES + mutators.NAMES))]
    if rng.random() < 0.5:
        argv.append("--json")
    shown = " ".join(repr(a)[:40] for a in argv[2:])
    return Task(task_id, "mutant", "options", f"{folder.name}: shares {shown}",
                (Case(f"{task_id}.1", "shares", tuple(argv), files, hint="options:shares"),))


# -- the task of an index -------------------------------------------------------------------------


def cycle(c: Corpus) -> list[str]:
    """The targets mutants go round: every file once, paths three times, options once."""
    return [s.label for s in c.seeds] + ["path", "path", "path", "options"]


def mutant_task(c: Corpus, seed: int, index: int, baseline: Path | None) -> Task:
    rng = random.Random(f"fairshare-fuzz:{seed}:mutant:{index}")
    targets = cycle(c)
    target = targets[index % len(targets)]
    task_id = f"m{index:05d}"
    if target == "path":
        return _path_mutant(c, rng, task_id, baseline)
    if target == "options":
        return _options_mutant(c, rng, task_id)
    return _file_mutant(c, c.seed(target), rng, task_id, baseline)


def baseline_tasks(c: Corpus) -> list[Task]:
    """Every example unmutated, under every command that reads it: all must pass."""
    tasks = []
    for folder in c.folders.values():
        files = _folder_files(folder, "")
        cases: list[Case] = []
        if folder.dump:
            cases.append(Case(f"b-{folder.name}.1", "import", ("import", ".", "-o", "out"),
                              files, "out", (), None, f"baseline:{folder.name}"))
        for name in folder.files:
            if name.endswith(".xml") and name != "yarn-site.xml":
                site = ("--site", "yarn-site.xml") if "yarn-site.xml" in folder.files else ()
                cases.append(Case(f"b-{folder.name}.{len(cases) + 1}", "validate",
                                  ("validate", name, *site), files))
                cases.append(Case(f"b-{folder.name}.{len(cases) + 1}", "shares",
                                  ("shares", name, "--cluster", CLUSTER, "--json", *site), files))
        for scenario in folder.scenarios:
            workload = folder.workload.get(scenario)
            commands = ["run", "simulate"] if workload else ["run"]
            for command in commands:
                cases.append(Case(f"b-{folder.name}.{len(cases) + 1}", command,
                                  (command, scenario, "-o", "out"), files, "out", (),
                                  workload if command == "run" else True,
                                  f"baseline:{scenario}"))
        tasks.append(Task(f"b-{folder.name}", "baseline", folder.name,
                          f"{folder.name}: unmutated", tuple(cases)))
    return tasks
