"""``fairshare sweep``: one scenario run under every combination of ``--set`` values.

``--set alloc:root.tenant3.fairSharePreemptionTimeout=5,15,60 --set site:…waitTimeBeforeKill=0,
15000`` is a grid of 3 × 2 variants (the cartesian product, the first option varying slowest).
Each variant is an ordinary run with those overrides (:mod:`fairshare.config.overrides`), its
full outputs in ``OUTDIR/<variant>/``; what the sweep reports of it comes from its
``summary.json`` (:mod:`fairshare.workbench.rows`), never from the engine.

Variants run on any :class:`concurrent.futures.Executor`: in this process one after the other,
on a local process pool, or on a Dask cluster (its client's executor). A run is deterministic,
so the outputs are the same bytes whichever runs them and in whatever order they finish; the
rows are put back in grid order.
"""

from __future__ import annotations

import itertools
import multiprocessing
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from fairshare.config.errors import ConfigError, all_errors
from fairshare.config.overrides import Override, parse_override
from fairshare.core import EngineError
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.record.summary_model import Summary
from fairshare.sim.run.scripted import run_scenario

__all__ = ["Axis", "SerialExecutor", "Variant", "VariantJob", "VariantOutcome", "executor",
           "grid", "parse_axis", "run_variant", "run_variants"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Axis:
    """One ``--set SCOPE:KEY=V1,V2,…`` of a sweep: a setting and the values it takes."""

    key: str  # "alloc:root.tenant3.weight"
    overrides: tuple[Override, ...]


def parse_axis(text: str) -> Axis:
    """``SCOPE:KEY=V1,V2,…``; values are split at ``;`` when the list has one (resource values
    hold commas: ``maxResources=1024 mb, 1 vcores;2048 mb, 2 vcores``), else at ``,``. Values are
    taken as written (no trimming: the file's parser trims what YARN trims)."""
    single = parse_override(text)
    separator = ";" if ";" in single.value else ","
    values = single.value.split(separator)
    if any(value == "" for value in values):
        raise ConfigError(f"an empty value in the list (values are separated by "
                          f"'{separator}')", single.where)
    return Axis(f"{single.scope}:{single.key}",
                tuple(Override(single.scope, single.key, value) for value in values))


@dataclass(frozen=True, slots=True)
class Variant:
    """One point of the grid: its directory name and its overrides, one per axis."""

    name: str
    overrides: tuple[Override, ...]


def grid(axes: Sequence[Axis]) -> list[Variant]:
    """The cartesian product of the axes, the first varying slowest. A setting given twice is
    an error (which value would win is the order, not what was meant)."""
    seen: set[str] = set()
    for axis in axes:
        if axis.key in seen:
            raise ConfigError(f"{axis.key} is swept twice; give all its values in one --set",
                              axis.overrides[0].where)
        seen.add(axis.key)
    points = list(itertools.product(*(axis.overrides for axis in axes)))
    width = len(str(len(points)))
    return [Variant(f"{i:0{width}d}-{_label(point)}", point)
            for i, point in enumerate(points, start=1)]


_UNSAFE = re.compile(r"[^A-Za-z0-9._=+-]+")


def _label(overrides: Sequence[Override]) -> str:
    """``tenant3.weight=2_waitTimeBeforeKill=0``: the queue and element (or property), each
    character a file name should not hold replaced; the number in front keeps names unique."""
    parts = []
    for o in overrides:
        key = ".".join(o.key.split(".")[-2:]) if o.scope == "alloc" else o.key.split(".")[-1]
        parts.append(_UNSAFE.sub("_", f"{key}={o.value}"))
    return "_".join(parts)[:100] or "as-is"


# -- running the variants -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VariantJob:
    """What a worker needs to run one variant: plain data, so it pickles to any executor."""

    scenario: str  # the scenario file's path
    variant: Variant
    outdir: str
    event_driven: bool = True


@dataclass(frozen=True, slots=True)
class VariantOutcome:
    name: str
    summary: Summary | None  # the run's summary.json; None when it failed
    error: str | None  # every problem, one per line, as the CLI would print them
    seconds: float  # wall time of the run (reported, never written to an output)


def run_variant(job: VariantJob) -> VariantOutcome:
    """Run one variant into ``job.outdir`` (all or nothing, as any run). Problems with it are
    returned, not raised: the other variants go on."""
    began = time.perf_counter()
    try:
        spec = replace(load_scenario(Path(job.scenario)), overrides=job.variant.overrides)
        result = run_scenario(spec, Path(job.outdir), event_driven=job.event_driven)
    except ConfigError as e:
        return VariantOutcome(job.variant.name, None,
                              "\n".join(str(x) for x in all_errors(e)), time.perf_counter() - began)
    except (EngineError, OSError) as e:
        return VariantOutcome(job.variant.name, None, str(e), time.perf_counter() - began)
    return VariantOutcome(job.variant.name, result.summary, None, time.perf_counter() - began)


def run_variants(jobs: Sequence[VariantJob], pool: Executor,
                 done: Callable[[VariantOutcome], None] = lambda _: None,
                 ) -> list[VariantOutcome]:
    """Every job submitted to ``pool`` at once (the pool queues them); ``done`` hears of each
    as it finishes; the outcomes come back in the jobs' order."""
    futures: dict[Future[VariantOutcome], int] = {
        pool.submit(run_variant, job): i for i, job in enumerate(jobs)}
    outcomes: dict[int, VariantOutcome] = {}
    pending = set(futures)
    while pending:
        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in sorted(finished, key=futures.__getitem__):
            outcome = future.result()
            outcomes[futures[future]] = outcome
            done(outcome)
    return [outcomes[i] for i in range(len(jobs))]


class SerialExecutor(Executor):
    """Runs each call at once, in this process: ``--jobs 1``, and the reference the parallel
    backends are checked against."""

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        future: Future[_T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as e:  # handed to whoever reads the future, as a pool does
            future.set_exception(e)
        return future


@contextmanager
def executor(jobs: int, scheduler: str | None = None) -> Iterator[Executor]:
    """Where variants run: a Dask cluster (``tcp://host:port``; the variants' output directory
    must be reachable from its workers), ``jobs`` local processes, or this process."""
    if scheduler is not None:
        from distributed import Client  # imported only for a cluster: it takes a second

        with Client(scheduler) as client:  # type: ignore[no-untyped-call]
            yield client.get_executor()
        return
    if jobs <= 1:
        yield SerialExecutor()
        return
    with ProcessPoolExecutor(max_workers=jobs, mp_context=_context()) as pool:
        # A "fork" pool forks all its workers at its first task, before it starts its own
        # thread (CPython's ProcessPoolExecutor): start them now, before a progress bar does.
        pool.submit(int).result()
        yield pool


def _context() -> multiprocessing.context.BaseContext:
    """Workers forked from this process when it has no other thread (they start at once, the
    simulator already imported); else from a fork server that imported it once (forking a
    process with threads can deadlock the child; spawning imports again: a second each)."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context
