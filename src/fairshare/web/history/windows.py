"""Which stored units answer a window: buckets of the coarsest resolution that fits, finer
buckets and raw samples at the edges.

A unit — a raw sample or a bucket — belongs to a window when its *start* lies in it, as a
sample's interval belongs to the sample's time (so a window's edges are exact to one unit).
A window is covered coarsest first: a bucket is taken when it lies wholly inside the window
and, under a weekday/hour filter, wholly inside one local hour (1-h buckets are UTC hours,
so they fit any zone whose offset is whole hours; a zone offset by 30 or 45 minutes needs
the minute tier); what is left goes to the next finer resolution, the rest to raw samples.
Where no finer data is left (retention), a bucket sticking out of the window's end or across
a local hour is taken whole, counted by its start: the window is then rounded to it.
A unit is counted when the filter holds at its start (``Window.timezone``, via zoneinfo).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fairshare.web.history.model import Window

HOUR_MS = 3_600_000
Span = tuple[int, int]


def zone_of(window: Window) -> ZoneInfo:
    try:
        return ZoneInfo(window.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"Window.timezone: unknown time zone {window.timezone!r} "
                         "(an IANA name such as 'Europe/Paris')") from None


class Filter:
    """Cloudera's filters: days of the week (0 = Monday) and hours of the day, local time."""

    def __init__(self, window: Window) -> None:
        self.weekdays, self.hours = window.weekdays, window.hours
        self.zone = zone_of(window)
        self.active = self.weekdays is not None or self.hours is not None

    def _local(self, ms: int) -> datetime:
        return datetime.fromtimestamp(ms / 1000, UTC).astimezone(self.zone)

    def holds(self, ms: int) -> bool:
        if not self.active:
            return True
        local = self._local(ms)
        return ((self.weekdays is None or local.weekday() in self.weekdays)
                and (self.hours is None or local.hour in self.hours))

    def uniform(self, start: int, width: int) -> bool:
        """Whether the filter says the same at every instant of [start, start + width)."""
        if not self.active:
            return True
        first, last = self._local(start), self._local(start + width - 1)
        if self.hours is None:
            return first.date() == last.date()
        return (width <= HOUR_MS and first.date() == last.date()
                and first.hour == last.hour)


def cover(window: Window, widths: Sequence[int],
          starts_of: Callable[[int, int, int], list[int]],
          has_raw: Callable[[int, int], bool]) -> tuple[list[tuple[int, int]], list[Span]]:
    """The buckets (width, start) that answer ``window``, and the spans left for raw
    samples. ``widths``: the tiers, coarsest first; ``starts_of(width, start, end)``: the
    starts of the stored buckets of that width with start in [start, end); ``has_raw``:
    whether raw samples start in [start, end)."""
    check = Filter(window)
    holes: list[Span] = [(window.start_ms, window.end_ms)] if window.end_ms > window.start_ms \
        else []
    chosen: list[tuple[int, int]] = []
    deferred: list[tuple[int, int]] = []
    for width in widths:
        if not holes:
            break
        found = starts_of(width, window.start_ms, window.end_ms)
        taken: list[Span] = []
        for start in found:
            hole = _hole_of(holes, start)
            if hole is None:
                continue
            if start + width <= hole[1] and check.uniform(start, width):
                chosen.append((width, start))
                taken.append((start, start + width))
            else:
                deferred.append((width, start))
        holes = _subtract(holes, taken)
    spans = holes
    # a deferred bucket is taken whole when nothing finer is inside it (deferred come
    # coarsest first, so one taken here is never finer than a later one)
    finer = {w: sorted(s for v, s in chosen if v < w) for w in widths}
    for width, start in deferred:
        end = min(start + width, window.end_ms)
        if _inside(finer[width], start, end) or _covering(chosen, start, width):
            continue
        if any(s < end and start < e and has_raw(max(s, start), min(e, end))
               for s, e in spans):
            continue
        chosen.append((width, start))
        spans = _subtract(spans, [(start, start + width)])
    return chosen, spans


def _inside(starts: list[int], start: int, end: int) -> bool:
    """Whether one of the sorted ``starts`` is in [start, end)."""
    at = bisect_left(starts, start)
    return at < len(starts) and starts[at] < end


def _covering(chosen: list[tuple[int, int]], start: int, width: int) -> bool:
    return any(s <= start < s + w for w, s in chosen if w > width)


def _hole_of(holes: list[Span], start: int) -> Span | None:
    for hole in holes:
        if hole[0] <= start < hole[1]:
            return hole
    return None


def _subtract(holes: list[Span], taken: list[Span]) -> list[Span]:
    """``holes`` less the ``taken`` spans (each inside one hole)."""
    if not taken:
        return holes
    out: list[Span] = []
    taken = sorted(taken)
    for lo, hi in holes:
        at = lo
        for s, e in taken:
            if e <= lo or s >= hi:
                continue
            if s > at:
                out.append((at, s))
            at = max(at, e)
        if at < hi:
            out.append((at, hi))
    return out
