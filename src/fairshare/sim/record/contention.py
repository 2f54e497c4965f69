"""When a queue is *in contention* and when it is *short of its fair-share threshold*: the two
tests behind the Preemption Tuning numbers, for a simulated run
(:mod:`fairshare.sim.record.recorder`) and for a watched ResourceManager
(:mod:`fairshare.web.history`) alike — one implementation.

Cloudera Manager's Preemption Tuning report averages steady share, instantaneous share and
allocation over the samples *during contention*: those in which the queue had pending
containers. A simulation knows the pending asks themselves; an RM's answer gives
``pendingContainers``; either is a pending amount per sample, and a queue is in contention
where any of it is above zero.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]
# defaultFairSharePreemptionThreshold's default (docs/semantics.md §1.3.1)
DEFAULT_FAIR_SHARE_THRESHOLD = 0.5


def in_contention(pending: Matrix) -> Mask:
    """Per row (a queue in one sample): any pending amount above zero (columns: MB and vcores
    asked for, or the RM's pending containers)."""
    return np.asarray((pending > 0).any(axis=1), dtype=np.bool_)


def short_of_threshold(usage: Matrix, share: Matrix, thresholds: npt.NDArray[np.float64]
                       ) -> Mask:
    """Per row: usage below threshold × instantaneous fair share in memory or vcores (columns
    0 and 1 of both) — the test of fair-share starvation (``FSLeafQueue.isStarvedForFairShare``,
    docs/semantics.md §4.2), made on the queue's own numbers whether or not preemption is on.
    Under ``fair`` the vcore share is 0, so only memory can fall short."""
    short = np.zeros(len(usage), dtype=np.bool_)
    for column in (0, 1):
        short |= usage[:, column] < thresholds * share[:, column]
    return short


def threshold_of(configured: float) -> float:
    """The fair-share threshold a queue is measured against: its effective one; without an
    allocation file YARN leaves it unset (never starved), and then the file default is used."""
    return DEFAULT_FAIR_SHARE_THRESHOLD if configured < 0 else configured
