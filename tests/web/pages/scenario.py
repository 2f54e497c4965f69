"""One worked example for the pages: the ``basic`` dump as the latest sample (Tuesday
2023-11-14 22:20 UTC), and ten minutes of history for it made by hand, with the numbers the
tests expect written next to where they come from.

root.etl over the window (600 s, 120 samples of 5 s):
* whole window: used 8,192 MB / 4 vcores, steady 8,192 MB / 8 vcores, instantaneous
  8,192 MB / 8 vcores, demand 12,288 MB;
* in contention 300 s (60 samples): used 6,144 MB / 3 vcores, instantaneous 8,192 MB /
  8 vcores, steady 8,192 MB / 8 vcores → usage ÷ instantaneous share 75 % mem, 38 % vcores
  (3 ÷ 8 = 0.375 → "38%"); pending 6 and allocated 2 containers → pending ratio 6 ÷ 8 = 75 %;
* share of the window in contention 300 ÷ 600 = 50 %; short of threshold 120 s = 2 m 00 s (20 %).
Apps of root.etl (started at S = T − 500 s):
* app 0001: launched S + 2 s, first container S + 7 s, finished S + 60 s;
* app 0005: started S + 10 s, launched + 4 s, first container + 12 s, finished + 100 s,
  4 containers preempted (two events: 3 and 1), 3,686,400 MB·s lost = 1.00 GB·h;
* app 0006: started S + 20 s, launched + 1 s, running, no container beyond its AM yet.
AM waits [2 s, 4 s, 1 s]: nearest-rank p50 = 2nd of 3 = 2.0 s, p95 = 3rd = 4.0 s, max 4.0 s;
first-container waits [7 s, 12 s]: p50 7.0 s, p95 12.0 s; turnaround [60 s, 100 s]:
p50 1 m 00 s, p95 1 m 40 s.
"""

from __future__ import annotations

from fairshare.web.history.model import AppRecord, Preemption, QueueTally, Series
from fairshare.web.pages.source import ShownSettings
from fairshare.web.sample import QUEUE_COLUMNS
from tests.web.dumps import sample_of
from tests.web.pages.fakes import FakeHistory, FakeSource, Found

T = 1_700_000_400_000
WINDOW_MS = 600_000
CONTENTION_MS = 300_000
S = T - 500_000


def tally(name: str, weight_ms: int, contention_ms: int, short_ms: int,
          averages: dict[str, int], during: dict[str, int]) -> QueueTally:
    """A tally whose averages are the given ones (Σ value × ms = average × time)."""
    sums = {c: averages.get(c, 0) * weight_ms for c in QUEUE_COLUMNS}
    csums = {c: during.get(c, 0) * contention_ms for c in QUEUE_COLUMNS}
    return QueueTally(name, weight_ms // 5000, weight_ms, contention_ms // 5000, contention_ms,
                      short_ms, sums, csums, dict.fromkeys(QUEUE_COLUMNS, 0),
                      dict.fromkeys(QUEUE_COLUMNS, 0))


ETL_WHOLE = {"used_mb": 8192, "used_vcores": 4, "steady_fair_share_mb": 8192,
             "steady_fair_share_vcores": 8, "fair_share_mb": 8192, "fair_share_vcores": 8,
             "demand_mb": 12288, "demand_vcores": 6}
ETL_DURING = {"used_mb": 6144, "used_vcores": 3, "steady_fair_share_mb": 8192,
              "steady_fair_share_vcores": 8, "fair_share_mb": 8192, "fair_share_vcores": 8,
              "demand_mb": 12288, "demand_vcores": 6, "pending_containers": 6,
              "allocated_containers": 2}
NAMES = ["root", "root.default", "root.analytics", "root.analytics.reports",
         "root.analytics.adhoc", "root.etl"]


def record(id_: str, queue: str, started: int, launched: int, first: int | None,
           finished: int, **rest: int) -> AppRecord:
    return AppRecord(
        id=id_, cluster_id=1_700_000_000_000, user="alice", name=f"job {id_[-4:]}", queue=queue,
        state="FINISHED" if finished else "RUNNING", final_status="SUCCEEDED" if finished else "",
        started_ms=started, launched_ms=launched, finished_ms=finished, first_seen_ms=started,
        last_seen_ms=finished or T, first_container_ms=first, allocated=(0, 0),
        pending_containers=0, running_containers=0, am_preempted=rest.get("am_preempted", 0),
        preempted=rest.get("preempted", 0), preempted_resources=(0, 0), memory_seconds=0,
        vcore_seconds=0, preempted_memory_seconds=rest.get("lost_mb_s", 0),
        preempted_vcore_seconds=rest.get("lost_vcore_s", 0), diagnostics="")


def etl_series() -> Series:
    times = tuple(range(T - WINDOW_MS, T + 1, 5000))
    half = len(times) // 2
    used = tuple(6144.0 if i < half else 8192.0 for i in range(len(times)))
    averages = {"used_mb": used, "used_vcores": tuple(u / 2048 for u in used),
                "fair_share_mb": (8192.0,) * len(times), "fair_share_vcores": (8.0,) * len(times),
                "steady_fair_share_mb": (8192.0,) * len(times),
                "steady_fair_share_vcores": (8.0,) * len(times),
                "demand_mb": (12288.0,) * len(times), "demand_vcores": (6.0,) * len(times),
                "max_share_mb": (16384.0,) * len(times), "max_share_vcores": (16.0,) * len(times),
                "pending_containers": tuple(6.0 if i < half else 0.0 for i in range(len(times)))}
    short = tuple(i < 24 for i in range(len(times)))  # 24 points of 5 s: 120 s
    return Series("root.etl", 0, times, averages, {}, {}, short)


def history() -> FakeHistory:
    zero: dict[str, int] = {}
    tallies = [tally(n, WINDOW_MS, 0, 0, zero, zero) for n in NAMES]
    tallies[NAMES.index("root.etl")] = tally("root.etl", WINDOW_MS, CONTENTION_MS, 120_000,
                                             ETL_WHOLE, ETL_DURING)
    records = [
        record("application_1700000000000_0001", "root.etl", S, S + 2000, S + 7000, S + 60_000),
        record("application_1700000000000_0005", "root.etl", S + 10_000, S + 14_000,
               S + 22_000, S + 110_000, preempted=4, lost_mb_s=3_686_400, lost_vcore_s=1800),
        record("application_1700000000000_0006", "root.etl", S + 20_000, S + 21_000, None, 0),
        record("application_1700000000000_0002", "root.analytics.adhoc", S, S + 3000,
               S + 5000, 0)]
    taken = [Preemption(S + 50_000, "application_1700000000000_0005", "root.etl", 3, 0, 6144, 3),
             Preemption(S + 80_000, "application_1700000000000_0005", "root.etl", 1, 0, 2048, 1)]
    return FakeHistory(NAMES, tallies, {"root.etl": etl_series()}, records, taken, last=T)


FINDINGS = [
    Found("root.etl", None, "fair-share-starved",
          "below 0.5 × its fair share for 6 m 20 s; fairSharePreemptionTimeout unset, so "
          "nothing will ever be preempted for it", "fairSharePreemptionTimeout",
          "set fairSharePreemptionTimeout on root.etl (e.g. 60 s)"),
    Found("root.analytics.reports", "application_1700000000000_0003", "max-am-share",
          "maxAMShare reached", "maxAMShare", "raise maxAMShare of root.analytics.reports")]
SETTINGS = {"root.etl": ShownSettings(2.0, "drf", None, None, 0.5),
            "root.analytics.adhoc": ShownSettings(1.0, "fair", 60_000, None, 0.8)}


def source(sample_folder: str = "basic") -> FakeSource:
    return FakeSource(sample_of(sample_folder, T), history(), FINDINGS, SETTINGS)


APP_IDS = ("application_1700000000000_0001", "application_1700000000000_0005",
           "application_1700000000000_0003")  # in the sample only / stored / sample only
