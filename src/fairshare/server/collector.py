"""The cyclic garbage collector of ``fairshare serve``, on a schedule of the server's own.

Almost everything a server allocates is freed by its reference count (frozen views, texts,
tuples): at 5,000 NodeManagers and 100 clients the resident memory stays flat for minutes
with the cyclic collector off altogether (bench/serve_load.py, docs/benchmarks.md). CPython
runs the collector by allocation counts, with the GIL held, and at that size a young
collection took 32 ms (median; 85 ms at worst) every 5 s, each a stop of every request
then in flight: enough of them to be the reads' 99th percentile. So the server turns the
automatic collections off and collects on a clock instead: the young generations every
``young_every_s`` (cycles are born young, and are found there), everything every
``full_every`` of those. A pause is then longer but rare, and the percentiles of the
requests see almost none of them.
"""

from __future__ import annotations

import gc
import threading

YOUNG_EVERY_S = 30.0  # wall seconds between two collections of the young generations
FULL_EVERY = 20  # every this many, a full one (10 minutes)


class PacedCollector:
    """The collector off by allocation counts, on by a clock of its own thread.

    :meth:`start` collects once, moves what was built to start out of the collector's sight
    (``gc.freeze``: the engine, the nodes, the modules, walked by no later collection) and
    turns the automatic collections off; a thread then calls :meth:`step` every
    ``young_every_s``. :meth:`stop` ends the thread and gives the collector back as it was.
    """

    def __init__(self, young_every_s: float = YOUNG_EVERY_S, full_every: int = FULL_EVERY):
        if young_every_s <= 0 or full_every < 1:
            raise ValueError("the collector's interval must be positive, and full_every ≥ 1")
        self.young_every_s, self.full_every = young_every_s, full_every
        self.steps = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._was_enabled = True

    def step(self) -> int:
        """One scheduled collection: generation 1 (with 0), or every ``full_every``-th
        step generation 2 (everything not frozen); the generation collected."""
        self.steps += 1
        generation = 2 if self.steps % self.full_every == 0 else 1
        gc.collect(generation)
        return generation

    def start(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.collect()
        gc.freeze()
        gc.disable()
        self._thread = threading.Thread(target=self._run, name="fairshare-collector",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.young_every_s):
            self.step()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        gc.unfreeze()
        if self._was_enabled:
            gc.enable()
