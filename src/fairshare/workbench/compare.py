"""``fairshare compare OUT_A OUT_B``: what changed between two runs, biggest changes first.

Reads each run's ``summary.json`` (docs/outputs.md) — nothing else — and pairs every number in
it: the cluster's and the counts, each queue's, each app's (a nested number is named by its
path in the file: ``am-wait-ms.p95``, ``during-contention.usage.memory-mb``). The summaries are
read and checked by :mod:`fairshare.sim.record.summary_read`; the numbers are walked in their
JSON form, so that every field the model has is compared without a list of them here. A
change is ``b − a``, and relative to ``a`` when ``a`` is not 0. Changes are ordered by how big
they are relative to where they started (a change from 0 counts as the biggest), then by their
size, then by name: a fixed order, so the same two runs always compare the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.sim.record.outputs import SUMMARY
from fairshare.sim.record.summary_model import ScenarioEntry, Summary, as_json
from fairshare.sim.record.summary_read import load_summary as read_model

__all__ = ["Change", "Comparison", "compare", "is_ratio", "load_summary"]



@dataclass(frozen=True, slots=True)
class Change:
    kind: str  # "cluster", "counts", "queue", "app"
    name: str  # the queue or app; "" for the cluster and the counts
    metric: str  # "am-wait-ms.p95"
    a: float | None  # None: no number on that side (null, or not there)
    b: float | None

    @property
    def delta(self) -> float | None:
        return None if self.a is None or self.b is None else self.b - self.a

    @property
    def relative(self) -> float | None:
        """``(b − a) / |a|``; None when ``a`` is 0 or a side has no number."""
        delta, a = self.delta, self.a
        return None if delta is None or not a else delta / abs(a)


@dataclass(frozen=True, slots=True)
class Comparison:
    scenarios: tuple[ScenarioEntry, ScenarioEntry]  # each summary's
    changes: tuple[Change, ...]  # biggest first; unchanged numbers left out
    unchanged: int
    only_in: tuple[tuple[str, ...], tuple[str, ...]]  # "queue root.x", "app a1" on one side


def load_summary(outdir: Path) -> Summary:
    """A run's ``summary.json``; a directory without one (a scripted run, not a run at all)
    or a file that is not a summary is a :class:`ConfigError` naming it."""
    if not outdir.is_dir():
        raise ConfigError("not a directory (give a run's output directory, its -o)", str(outdir))
    if not (outdir / SUMMARY).exists():
        raise ConfigError("no summary.json here: only a simulation (a scenario with a "
                          "workload) writes one", str(outdir))
    return read_model(outdir)


def compare(summary_a: Summary, summary_b: Summary, *, queues: Sequence[str] = (),
            apps: Sequence[str] = ()) -> Comparison:
    """Every number of two summaries, paired; with ``queues`` or ``apps``, only theirs
    (:func:`_wanted`)."""
    a, b = as_json(summary_a), as_json(summary_b)
    queues = [_queue_name(a, b, q) for q in queues]
    _check_names(a, b, queues, apps)
    changes: list[Change] = []
    unchanged = 0
    for kind, name, left, right in _entities(a, b):
        if not _wanted(kind, name, queues=queues, apps=apps):
            continue
        numbers_a, numbers_b = dict(_numbers(left)), dict(_numbers(right))
        for metric in [*numbers_a, *(m for m in numbers_b if m not in numbers_a)]:
            change = Change(kind, name, metric, numbers_a.get(metric), numbers_b.get(metric))
            if change.a == change.b:
                unchanged += 1
            else:
                changes.append(change)
    changes.sort(key=_size)
    only = tuple(tuple(x for x in _only(this, other)
                       if _wanted(*x.split(" ", 1), queues=queues, apps=apps))
                 for this, other in ((a, b), (b, a)))
    return Comparison((summary_a.scenario, summary_b.scenario), tuple(changes), unchanged,
                      (only[0], only[1]))


def _queue_name(a: Mapping[str, Any], b: Mapping[str, Any], name: str) -> str:
    """``tenant3`` for ``root.tenant3`` when only the latter is a queue: YARN's full names
    start with root, and an admin often leaves it off."""
    full = f"root.{name}"
    if name not in a["queues"] and name not in b["queues"] and (
            full in a["queues"] or full in b["queues"]):
        return full
    return name


def _check_names(a: Mapping[str, Any], b: Mapping[str, Any], queues: Sequence[str],
                 apps: Sequence[str]) -> None:
    """A --queue or --app that neither run has is a :class:`ConfigError` listing those there
    are (a mistyped name must not read as "nothing changed")."""
    for key, option, names in (("queues", "--queue", queues), ("apps", "--app", apps)):
        known = {*a[key], *b[key]}
        for name in names:
            if name not in known:
                listed = ", ".join(sorted(known)[:20]) + (", …" if len(known) > 20 else "")
                raise ConfigError(f"{name}: no {key[:-1]} of that name in either run (there "
                                  f"are: {listed or 'none'})", option)


def _wanted(kind: str, name: str, *, queues: Sequence[str], apps: Sequence[str]) -> bool:
    """Whether the selection keeps an entity: everything without one; else the queues given
    with those below them, and the apps given (not the cluster's numbers, nor the counts)."""
    if not queues and not apps:
        return True
    if kind == "queue":
        return any(name == q or name.startswith(q + ".") for q in queues)
    return kind == "app" and name in apps


def is_ratio(metric: str) -> bool:
    """A ratio, not an amount, whatever resource its path ends with:
    ``usage-to-fair-share.memory-mb``, ``utilization.vcores``, ``idle-tail.utilization-without
    .memory-mb``, ``during-contention…`` never (amounts)."""
    return any(part.startswith(("utilization", "usage-to-")) for part in metric.split("."))


def _only(this: Mapping[str, Any], other: Mapping[str, Any]) -> tuple[str, ...]:
    """Queues and apps ``this`` summary has and ``other`` has not."""
    return tuple(f"{kind} {name}" for kind, key in (("queue", "queues"), ("app", "apps"))
                 for name in this[key] if name not in other[key])


def _entities(a: Mapping[str, Any], b: Mapping[str, Any]
              ) -> Iterator[tuple[str, str, Any, Any]]:
    """(kind, name, a's entry, b's entry) for what both sides have, in a's order."""
    yield "cluster", "", a["cluster"], b["cluster"]
    yield "counts", "", a["counts"], b["counts"]
    for kind, key in (("queue", "queues"), ("app", "apps")):
        for name, entry in a[key].items():
            if name in b[key]:
                yield kind, name, entry, b[key][name]


def _numbers(value: Any, path: str = "") -> Iterator[tuple[str, float | None]]:
    """Every number (or null) of a nested entry, by its dotted path; text and booleans are no
    numbers (a state that changed shows in the numbers that follow from it)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _numbers(item, f"{path}.{key}" if path else str(key))
    elif value is None:
        yield path, None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield path, float(value)


def _size(change: Change) -> tuple[float, float, str, str, str]:
    relative, delta = change.relative, change.delta
    # a number on one side only, or a change from 0: as big as a change gets
    scale = math.inf if relative is None else abs(relative)
    return (-scale, -abs(delta or 0.0), change.kind, change.name, change.metric)
