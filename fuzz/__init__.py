"""The fuzz suite of ``fairshare``: hostile and broken input, random valid scenarios.

``python -m fuzz`` (``make fuzz``) mutates every file of ``examples/`` and runs every command on
the mutants under a time and memory limit; it also generates random valid scenarios and checks
the run's outputs against the scheduler's invariants and for determinism. docs/reliability.md
says what is checked and how to read the results.

Modules:

* :mod:`fuzz.corpus` — the example files and which scenario references which file;
* :mod:`fuzz.mutators` — deterministic mutation operators (text, YAML, JSON, XML, CSV);
* :mod:`fuzz.cases` — mutants turned into command runs (the case directory, argv, OUTDIR);
* :mod:`fuzz.runner` — running one command: a fork server or a real subprocess, with limits;
* :mod:`fuzz.checks` — the contract every run must keep (exit codes, locations, outputs);
* :mod:`fuzz.scengen` — random valid scenarios; :mod:`fuzz.invariants` — what their outputs
  must satisfy;
* :mod:`fuzz.worker` — what a worker process does with a task; :mod:`fuzz.report` — failure
  classes, reproducers, the final table; :mod:`fuzz.main` — the command line.

Nothing here imports the scheduler's internals: the only entry point used is the CLI
(``fairshare.cli.main.main``), in a forked child or a subprocess.
"""
