"""Apps held not runnable, for the queue charts: from ``app-not-runnable`` to the app's
``app-runnable`` (promoted when another app left or a reload raised the limit,
``MaxRunningAppsEnforcer``, docs/semantics.md §3.9) or its end (``app-finished``); one that
is still held runs to the end of the run. Read in the one pass over ``events.jsonl`` that
:mod:`fairshare.report.events` makes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairshare.core import record_reasons

NEEDLES = (b'"type":"app-not-runnable"', b'"type":"app-runnable"', b'"type":"app-finished"')
TYPES = frozenset({"app-not-runnable", "app-runnable", "app-finished"})

Span = tuple[int, int]


@dataclass
class HeldApps:
    """Per leaf queue, the spans its apps were held not runnable."""

    open: dict[str, tuple[str, int]] = field(default_factory=dict)  # app → leaf, since
    spans: dict[str, list[Span]] = field(default_factory=dict)

    def take(self, r: Mapping[str, Any]) -> None:
        app, t = str(r["app"]), r["t"]
        if not isinstance(t, int) or isinstance(t, bool):
            raise TypeError(f"expected a whole number, got {t!r:.40}")
        if r["type"] == "app-not-runnable":
            record_reasons(r)  # a limit this version names, or a ValueError naming the key
            self.open.setdefault(app, (str(r["queue"]), t))
            return
        held = self.open.pop(app, None)
        if held is not None:
            self.spans.setdefault(held[0], []).append((held[1], t))

    def close(self, end_ms: int | None) -> dict[str, tuple[Span, ...]]:
        """The spans by leaf, those still open ending at ``end_ms`` (the last time seen when
        it is None)."""
        last = max((s for spans in self.spans.values() for _, s in spans), default=0)
        end = last if end_ms is None else end_ms
        for leaf, since in sorted(self.open.values(), key=lambda held: held[1]):
            self.spans.setdefault(leaf, []).append((since, max(since, end)))
        return {leaf: tuple(sorted(spans)) for leaf, spans in self.spans.items()}


def held_below(held: Mapping[str, Sequence[Span]], queue: str) -> tuple[Span, ...]:
    """The spans of the queue's subtree (a parent: every leaf below it)."""
    return tuple(sorted(s for leaf, spans in held.items()
                        if leaf == queue or leaf.startswith(queue + ".") for s in spans))
