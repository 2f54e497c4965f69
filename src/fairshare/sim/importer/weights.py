"""Queue weights read back from a dump's steady fair shares (docs/import.md, "What is guessed").

The REST API does not show weights, but a parent's steady fair share is cut among its
children by ComputeFairShares (docs/semantics.md §2.3): each child gets ``w · R`` for one ratio
``R``, held between its min and max share, truncated to a whole number. So among the children
whose share is held by neither bound, the shares are in the ratio of the weights. That ratio
fixes the weights up to one common factor, which changes no share (``R`` absorbs it): the
factor is chosen to give the smallest such child weight 1, or whole numbers when the ratios are
simple fractions (1 : 1.5 is written 2 : 3). A child held at its min or max share shows nothing
of its weight in the steady shares; the instantaneous cut, among the active siblings only, may
show it (:func:`_from_instantaneous`); else it keeps YARN's default 1, and says so.

Only memory is read, except under a ``drf`` parent, whose cut also writes vcores: a child held
by a bound in memory may be free in vcores, and is read there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fairshare.sim.importer.dump import DumpQueue

MAX_DENOMINATOR = 12  # 1 : 1.5 → 2 : 3, 1 : 1.25 → 4 : 5; past 12 a ratio is written as is
DEFAULT_WEIGHT = 1.0
_EPS = 1e-7  # relative: float32 weights widened to double (docs/semantics.md §2.3)


@dataclass(frozen=True)
class WeightGuess:
    weight: float
    why: str
    read: bool  # True: read from the shares; False: YARN's default, nothing to read it from


def guess_weights(children: Sequence[DumpQueue], drf_parent: bool) -> dict[str, WeightGuess]:
    """Each child's weight, by full queue name."""
    if any(c.steady_fair is None for c in children):
        return {c.name: WeightGuess(DEFAULT_WEIGHT, "weight left at YARN's default 1: the dump "
                                    "has no steadyFairResources to compare the siblings' shares",
                                    False) for c in children}
    types = (0, 1) if drf_parent else (0,)
    held = {c.name: [_held(c, t) for t in (0, 1)] for c in children}
    free = [c for c in children if held[c.name][0] is None and _steady(c, 0) > 0]
    found: dict[str, WeightGuess] = {}
    if len(free) >= 2:
        found.update(_ratios(free, 0))
    elif drf_parent:
        free_v = [c for c in children if held[c.name][1] is None and _steady(c, 1) > 0]
        if len(free_v) >= 2:
            found.update(_ratios(free_v, 1))
    ratio = _unit_ratio(children, found) if len(free) >= 2 else (
        float(_steady(free[0], 0)) if len(free) == 1 else None)
    found.update(_from_instantaneous([c for c in children if held[c.name][0] != "zero"],
                                     found))
    if not free:
        ratio = _ratio_all_held(children, found)
    for c in children:
        if c.name in found:
            continue
        why = held[c.name][0] or next((h for t in types if (h := held[c.name][t])), None)
        if why == "zero":
            found[c.name] = WeightGuess(0.0, "weight guessed 0: its steady fair share is 0 "
                                        "though it has neither a min share nor a max share of "
                                        "0, which only a weight of 0 gives", True)
        elif why is None and len(free) == 1:
            found[c.name] = WeightGuess(DEFAULT_WEIGHT, "weight left at YARN's default 1: the "
                                        "only sibling held by no min or max share, it gets "
                                        "what they leave whatever its weight", False)
        else:
            found[c.name] = _bounded(c, why, ratio if held[c.name][0] else None)
    return found


def _unit_ratio(children: Sequence[DumpQueue], found: dict[str, WeightGuess]) -> float | None:
    """YARN's R of the steady memory cut (share = weight × R), from a child read from it."""
    read = [c for c in children if c.name in found and found[c.name].weight > 0]
    if not read:
        return None
    c = min(read, key=lambda c: (_steady(c, 0), c.name))
    return _steady(c, 0) / found[c.name].weight


def _ratio_all_held(children: Sequence[DumpQueue], found: dict[str, WeightGuess]
                    ) -> float | None:
    """An R for a steady memory cut in which every child is held by a bound, so no child fixes
    it. Any R at which each child stays on its bound's side gives the same shares: w × R up to
    the share for one held at its min, from it for one held at its max. Weights of 1 all round
    hold when no max share is above a min share; else (shares 20,000 at a min and 30,000 at a
    max: R ≤ 20,000 and R ≥ 30,000) some weight must leave 1, and the R taken is the one
    moving the fewest, the smallest of those — raising a weight to hold a max share rather
    than lowering one below 1. A weight already read must hold where it is."""
    bounds = [(c, c.name in found, found[c.name].weight if c.name in found else DEFAULT_WEIGHT,
               _at_min(c)) for c in children if _held(c, 0) not in (None, "zero")]
    bounds = [b for b in bounds if b[2] > 0]
    if not bounds:
        return None

    def cost(ratio: float) -> tuple[int, int, float]:
        """(read weights it would move, weights it moves, R): the smallest is taken."""
        off = [(read, (w * ratio > _steady(c, 0) * (1 + 1e-9)) if at_min
                else (w * ratio < _steady(c, 0) * (1 - 1e-9))) for c, read, w, at_min in bounds]
        return (sum(r and o for r, o in off), sum(o for _, o in off), ratio)
    return min((_steady(c, 0) / w for c, _, w, _ in bounds), key=cost)


def _at_min(q: DumpQueue) -> bool:
    """Whether ``q``'s steady memory share is held at its min share (else at its max)."""
    return bool(q.min_resources and q.min_resources[0] and _steady(q, 0) <= q.min_resources[0])


def _bounded(q: DumpQueue, why: str | None, ratio: float | None) -> WeightGuess:
    """A child held by a bound: YARN's default 1 if it keeps the child held at ``ratio``
    (the cut's R), else the weight nearest 1 that does — any weight on that side of the bound
    gives the same steady shares, which the self-check compares."""
    reason = (f"its steady fair share is {why}" if why else
              "no sibling's steady fair share to compare it with")
    default = WeightGuess(DEFAULT_WEIGHT, f"weight left at YARN's default 1: {reason}, so the "
                          "steady shares do not show its weight", False)
    if ratio is None or not ratio or why is None:
        return default
    share = _steady(q, 0)
    limit = share / ratio  # the weight at which w × R meets the bound
    at_min = _at_min(q)
    if (at_min and limit >= 1) or (not at_min and limit <= 1):
        return default
    # on the bound's side: down for a min share (a weight of 0 gets exactly its min share,
    # docs/semantics.md §2.3), up for a max share
    weight = (math.floor(limit * 100) / 100 or math.floor(limit * 10_000) / 10_000
              if at_min else float(math.ceil(limit - 1e-9)))
    side = "up to" if at_min else "from"
    return WeightGuess(weight, f"weight guessed {weight:g}: {reason}, which any weight {side} "
                       f"{limit:.4g} gives (YARN's default 1 would not hold it there)", True)


def _from_instantaneous(children: Sequence[DumpQueue], found: dict[str, WeightGuess]
                        ) -> dict[str, WeightGuess]:
    """Weights the steady shares do not show, from the instantaneous ones (memory): only the
    active siblings take part in that cut (docs/semantics.md §2.4), so a child held at its min
    share in the steady cut may be free of it there. Read against a sibling whose weight the
    steady shares gave and which is free in this cut too; else in the ratio of such children."""
    unread = [c for c in children if c.name not in found and _free_now(c)]
    anchors = [c for c in children if c.name in found and found[c.name].read
               and found[c.name].weight > 0 and _free_now(c)]
    if not unread or (not anchors and len(unread) < 2):
        return {}
    if not anchors:
        guessed = _ratios(unread, 0, _fair)
        return {name: WeightGuess(g.weight, g.why.replace("steady fair share",
                                                          "instantaneous fair share"), True)
                for name, g in guessed.items()}
    anchor = min(anchors, key=lambda c: (_fair(c, 0), c.name))
    base, unit_weight = _fair(anchor, 0), found[anchor.name].weight
    out = {}
    for c in unread:
        held = _held(c, 0)
        why = (f"its steady fair share is {held}, which shows nothing of its weight" if held
               else "the steady shares do not show its weight")
        exact = unit_weight * _fair(c, 0) / base
        slack = exact * (2 / base + 2 / _fair(c, 0))
        weight = float(round(exact)) if abs(exact - round(exact)) <= slack else round(exact, 4)
        out[c.name] = WeightGuess(weight, (
            f"weight guessed from the instantaneous fair share ({_fair(c, 0):,} MB) against "
            f"{anchor.name}'s ({base:,} MB, weight {unit_weight:g}): {why}"), True)
    return out


def _free_now(q: DumpQueue) -> bool:
    """Whether ``q``'s instantaneous memory share is held by neither of its bounds (an
    inactive queue's is 0)."""
    if q.fair is None or q.fair[0] <= 0:
        return False
    low = q.min_resources[0] if q.min_resources else 0
    high = q.max_resources[0] if q.max_resources else None
    return not (low > 0 and q.fair[0] <= low) and not (high is not None and q.fair[0] >= high)


def _fair(q: DumpQueue, t: int) -> int:
    assert q.fair is not None
    return q.fair[t]


def _steady(q: DumpQueue, t: int) -> int:
    assert q.steady_fair is not None
    return q.steady_fair[t]


def _held(q: DumpQueue, t: int) -> str | None:
    """What holds ``q``'s steady share in type ``t``, if anything: a bound, or a zero weight."""
    share = _steady(q, t)
    low = q.min_resources[t] if q.min_resources else 0
    high = q.max_resources[t] if q.max_resources else None
    if low > 0 and share <= low:
        return f"its min share ({low:,} {_unit(t)})"
    if high is not None and share >= high:
        return f"its max share ({high:,} {_unit(t)})"
    if share == 0:
        return "zero"
    return None


def _ratios(free: Sequence[DumpQueue], t: int,
            share: Callable[[DumpQueue, int], int] | None = None) -> dict[str, WeightGuess]:
    """Weights in the ratio of the free children's shares in type ``t`` (steady ones unless
    ``share`` says which)."""
    of = share or _steady
    ref = min(free, key=lambda c: (of(c, t), c.name))
    base = of(ref, t)
    ratios = [of(c, t) / base for c in free]
    weights = _whole([of(c, t) for c in free])
    exact = weights is not None
    values: list[float] = [float(w) for w in weights] if weights else [round(r, 4)
                                                                         for r in ratios]
    unit = _unit(t)
    out = {}
    for c, w in zip(free, values, strict=True):
        how = "" if exact else "; not a simple ratio, written to 4 decimals"
        against = (", the smallest of the siblings held by no min or max share: the unit of "
                   "their weights" if c is ref else
                   f" against {ref.name}'s ({base:,} {unit}), the smallest held by no min or max "
                   "share")
        why = (f"weight guessed from the steady fair share ({of(c, t):,} {unit})"
               f"{against}{how}")
        out[c.name] = WeightGuess(float(w), why, True)
    return out


def _whole(shares: Sequence[int]) -> list[int] | None:
    """Whole-number weights giving these shares, with the smallest common factor (so the
    smallest is 1 when every ratio is whole), if a factor up to MAX_DENOMINATOR gives them.
    YARN's share is ``trunc(w × R)`` (docs/semantics.md §2.3), so weights ``W`` fit when one
    ``R`` puts every ``W × R`` in ``[s, s + 1)``: a share's truncation is read exactly, not as a
    slack on the ratio — against a small share, a slack lets a large one take the wrong whole
    number (146 : 366 : 10,257 is 2 : 5 : 140, not 141)."""
    base = min(shares)
    order = sorted(range(len(shares)), key=lambda i: (-shares[i], i))  # the tightest first
    for d in range(1, MAX_DENOMINATOR + 1):
        lo, hi = base / d, (base + 1) / d  # R, with the smallest share's weight d
        whole = [0] * len(shares)
        for i in order:
            s = shares[i]
            # W × R in [s, s + 1) for an R in [lo, hi): s / hi < W < (s + 1) / lo, widened
            # a little for float32 weights and double arithmetic
            first = math.floor(s / (hi * (1 + _EPS))) + 1
            last = math.ceil((s + 1) / (lo * (1 - _EPS))) - 1
            if first > last:
                break
            w = min(max(round(s * d / base), first), last)
            whole[i] = w
            lo, hi = max(lo, s / w), min(hi, (s + 1) / w)
            if lo >= hi * (1 + _EPS):
                break
        else:
            return whole
    return None


def _unit(t: int) -> str:
    return "MB" if t == 0 else "vcores"
