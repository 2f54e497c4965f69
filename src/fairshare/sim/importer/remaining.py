"""How much longer an imported running task runs: drawn from a stated, seeded distribution.

The dump says what runs, not for how long. Giving every running task the same remaining time
would end them all at one instant, which no cluster does; so each running task (and each AM of
an app with no task left) gets a remaining time drawn, in the scenario's order, from one of:

* ``uniform`` (the CLI's default): between 1 ms and twice the mean. This is what a snapshot
  taken at a random moment sees of tasks that all last twice the mean: each is equally likely
  to be anywhere in its run.
* ``exponential``: of the given mean (at least 1 ms), for tasks whose lengths vary widely — the
  time left does not depend on how long a task has run already.
* ``fixed``: the mean itself for every task (what the import did before the distributions).

The draws come from Python's ``random.Random`` seeded with ``seed``, reading only its uniform
``random()`` (whose sequence is the same on every platform and Python version), so one dump,
distribution, mean and seed give a byte-identical scenario.
"""

from __future__ import annotations

import math
import random

DISTRIBUTIONS = ("uniform", "exponential", "fixed")


class RemainingTimes:
    """Successive remaining times, in ms."""

    def __init__(self, distribution: str, mean_ms: int, seed: int) -> None:
        if distribution not in DISTRIBUTIONS:
            raise ValueError(f"unknown distribution {distribution!r}")
        self.distribution, self.mean_ms, self.seed = distribution, mean_ms, seed
        self._rng = random.Random(seed)

    def draw(self) -> int:
        if self.distribution == "fixed" or self.mean_ms == 0:
            return self.mean_ms
        u = self._rng.random()  # in [0, 1)
        if self.distribution == "uniform":
            return 1 + math.floor(u * 2 * self.mean_ms)  # 1 … 2 × mean
        return max(1, round(-self.mean_ms * math.log(1.0 - u)))

    def describe(self) -> str:
        """The distribution in words, for the terminal and the scenario's header."""
        if self.distribution == "fixed":
            return f"{self.mean_ms:,} ms for every running task (fixed)"
        if self.distribution == "uniform":
            return (f"uniform between 1 and {2 * self.mean_ms:,} ms (mean {self.mean_ms:,} ms), "
                    f"seed {self.seed}")
        return f"exponential with mean {self.mean_ms:,} ms, seed {self.seed}"
