"""Runs ``fairshare`` with a sampling profiler beside it, for bench/serve_load.py's
``--sample-stacks``: every 5 ms each thread's stack is read (``sys._current_frames``) and
counted by thread name, by the innermost function (self) and by every function on it
(total), so that where a live server's time goes is seen across all its threads (the engine
loop, the request threadpool, the event loop, the pages' sampler) at a small cost. The counts
are written as JSON to OUT when the process exits.

    python bench/stack_sampler.py OUT serve fair-scheduler.xml --nodes 5000x64g/32 ...
"""

from __future__ import annotations

import atexit
import json
import sys
import threading
import time
from collections import Counter
from types import FrameType

INTERVAL_S = 0.005


def _where(frame: FrameType) -> str:
    code = frame.f_code
    path = code.co_filename
    short = path.split("site-packages/")[-1].split("src/")[-1]
    return f"{short}:{code.co_firstlineno}:{code.co_name}"


def main() -> None:
    out, args = sys.argv[1], sys.argv[2:]
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    threads: Counter[str] = Counter()
    samples = [0]
    stop = threading.Event()

    def sample() -> None:
        me = threading.get_ident()
        while not stop.wait(INTERVAL_S):
            names = {t.ident: t.name for t in threading.enumerate()}
            samples[0] += 1
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                top = _where(frame)
                if top.endswith((":wait", ":select", ":_wait_for_tstate_lock", ":get",
                                 ":poll", ":accept")):
                    continue  # idle
                name = names.get(ident, "?")
                name = "pool" if name.startswith(("AnyIO", "asyncio_")) else name
                threads[name] += 1
                own[f"{name} {top}"] += 1
                seen = set()
                f: FrameType | None = frame
                while f is not None:
                    where = f"{name} {_where(f)}"
                    if where not in seen:
                        seen.add(where)
                        total[where] += 1
                    f = f.f_back

    def dump() -> None:
        stop.set()
        with open(out, "w", encoding="utf-8") as f:
            json.dump({"interval_s": INTERVAL_S, "samples": samples[0],
                       "busy_by_thread": threads.most_common(),
                       "self": own.most_common(80), "total": total.most_common(150)}, f,
                      indent=1)

    threading.Thread(target=sample, name="stack-sampler", daemon=True).start()
    atexit.register(dump)
    sys.argv = ["fairshare", *args]
    started = time.monotonic()
    from fairshare.cli.main import main as fairshare_main
    try:
        fairshare_main()
    finally:
        print(f"sampled {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
