"""Record real ResourceManager answers for tests/watch/recorded (issue 32).

Starts rmharness (Hadoop's own RM, rmharness/README.md), waits for the moments below, and saves
each REST answer verbatim (the body bytes as served, uncompressed: the request asks for
``Accept-Encoding: identity``) with a sidecar ``<name>.meta.json`` holding the status, the
response headers in order (repeats kept) and when it was taken. It also saves the harness's
events up to the capture (``events.jsonl``): what the RM really did (ids of the apps, of the
containers allocated and preempted), for tests to check a recorder against.

    PYTHONPATH=src /work/main/.venv/bin/python rmharness/capture.py [--out tests/watch/recorded]

Cases: ``fair-preempted`` (FairScheduler, contention script, just after the first
preemptions, containers still pending), ``fair-preempted-later`` (the same RM 5 s later),
``fair-churn`` (the churn script: apps finished and running in three queues),
``capacity`` (a CapacityScheduler RM running the contention script).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rm_tests.harness import CONTENTION_XML, Event, Harness

ENDPOINTS = ("info", "scheduler", "apps", "nodes", "metrics")
HEADERS = {"Accept": "application/json", "Accept-Encoding": "identity"}


def fetch_all(base_url: str, case_dir: Path, endpoints: tuple[str, ...]) -> dict[str, Any]:
    """GETs each endpoint once and writes body + sidecar; returns the parsed bodies."""
    case_dir.mkdir(parents=True, exist_ok=True)
    parsed: dict[str, Any] = {}
    with httpx.Client(base_url=base_url, headers=HEADERS, timeout=10.0) as client:
        for name in endpoints:
            path = f"/ws/v1/cluster/{name}"
            taken = time.time()
            resp = client.get(path)
            (case_dir / f"{name}.json").write_bytes(resp.content)
            meta = {
                "method": "GET",
                "path": path,
                "request_headers": HEADERS,
                "status": resp.status_code,
                "reason": resp.reason_phrase,
                "headers": [[k, v] for k, v in resp.headers.multi_items()],
                "taken_at_ms": int(taken * 1000),
                "elapsed_ms": round(resp.elapsed.total_seconds() * 1000, 1),
            }
            (case_dir / f"{name}.meta.json").write_text(json.dumps(meta, indent=2) + "\n")
            parsed[name] = resp.json() if resp.status_code == 200 else None
    return parsed


def capture(harness: Harness, case_dir: Path) -> dict[str, Any]:
    """The events seen *before* the first GET (so each happened before the answers), then
    the answers."""
    before = list(harness.events)
    bodies = fetch_all(harness.base_url, case_dir, ENDPOINTS)
    with (case_dir / "events.jsonl").open("w") as out:
        for event in before:
            out.write(json.dumps(event) + "\n")
    return bodies


def save_case(case_dir: Path, argv: list[str], note: str) -> None:
    root = str(Path(__file__).resolve().parent.parent) + "/"
    info = {"harness_args": [a.replace(root, "") for a in argv], "note": note}
    (case_dir / "case.json").write_text(json.dumps(info, indent=2) + "\n")


def count(events: list[Event], kind: str) -> int:
    return sum(1 for e in events if e.get("event") == kind)


def capture_fair(out: Path, log_dir: Path) -> None:
    argv = ["--allocations", str(CONTENTION_XML), "--script", "contention"]
    harness = Harness.start(*argv, stderr_path=log_dir / "capture-fair.log")
    try:
        # the first preemption frees room for root.b's AM; the next ones (for root.b's
        # 2048 MB asks) come after FSPreemptionThread's delay before the next starvation
        # check (kill wait + 4 heartbeats + 1 s): capture in between
        harness.wait_for(lambda ev: count(ev, "preempted") >= 1, 60, "preemption")
        harness.wait_for(lambda ev: count(ev, "am_registered") >= 2, 30, "second AM")
        first = out / "fair-preempted"
        bodies = capture(harness, first)
        pending = bodies["metrics"]["clusterMetrics"]["containersPending"]
        if pending <= 0:
            raise SystemExit(f"capture: expected pending containers, /metrics says {pending}")
        save_case(first, argv, "FairScheduler, built-in contention script: after the first "
                  "preemptions of root.a containers for root.b, with containers pending")
        time.sleep(5)
        later = out / "fair-preempted-later"
        capture(harness, later)
        save_case(later, argv, "the same RM as fair-preempted, about 5 s later")
    finally:
        harness.stop()


def capture_churn(out: Path, log_dir: Path) -> None:
    argv = ["--allocations", str(CONTENTION_XML), "--script", "churn"]
    harness = Harness.start(*argv, stderr_path=log_dir / "capture-churn.log")
    try:
        # bob-1 and bob-2 finished, bob-3 and carol-1 running, alice preempted
        harness.wait_for(lambda ev: count(ev, "app_finished") >= 2, 90, "two finished apps")
        case = out / "fair-churn"
        capture(harness, case)
        save_case(case, argv, "FairScheduler, built-in churn script: two of root.b's short apps "
                  "FINISHED, a third and root.c.c1's app running, root.a preempted")
    finally:
        harness.stop()


def capture_capacity(out: Path, log_dir: Path) -> None:
    argv = ["--scheduler", "capacity", "--script", "contention"]
    harness = Harness.start(*argv, stderr_path=log_dir / "capture-capacity.log")
    try:
        # without a preemption monitor root.b's AM waits: the cluster is full of root.a
        harness.wait_for(lambda ev: count(ev, "app_submitted") >= 2, 60, "second app")
        time.sleep(2)
        case = out / "capacity"
        capture(harness, case)
        save_case(case, argv, "CapacityScheduler (root.a, root.b at 50 % each, max 100 %), "
                  "the contention script; no preemption monitor, so root.b's AM is still pending")
    finally:
        harness.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent.parent / "tests/watch/recorded")
    parser.add_argument("--logs", type=Path, default=Path("/tmp"))
    args = parser.parse_args()
    capture_fair(args.out, args.logs)
    capture_churn(args.out, args.logs)
    capture_capacity(args.out, args.logs)
    print(f"captured into {args.out}")


if __name__ == "__main__":
    main()
