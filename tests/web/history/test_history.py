"""The history store's contract (docs/watch.md, "History"), on SQLite here and on PostgreSQL
in postgres_tests/: schema by migration, restart-safety, intervals and their cap, the
contention and threshold tests, series, apps and nodes written on change, preemptions
found, checkpoints, retention."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, select, text

from fairshare.config.errors import ConfigError
from fairshare.web.history import schema
from fairshare.web.history.model import Retention, Window
from fairshare.web.history.store import History
from tests.web.history.synthetic import DUMPS, QUEUE_COLUMNS, dump_sample, flat_sample, with_apps

C = {name: i for i, name in enumerate(QUEUE_COLUMNS)}
T0 = 1_767_225_600_000  # 2026-01-01 00:00 UTC
MINUTE, HOUR, DAY = 60_000, 3_600_000, 86_400_000
ALL = Window(0, 2**62)


def values(**given: int) -> tuple[int, ...]:
    v = [0] * len(QUEUE_COLUMNS)
    for name, value in given.items():
        v[C[name]] = value
    return tuple(v)


def _count(history: History, table: str) -> int:
    with history.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(
            schema.metadata.tables[table])).scalar_one())


@pytest.fixture
def history(history_url: Callable[[], str]) -> History:  # type: ignore[misc]
    h = History.open(history_url(), poll_interval_ms=5_000)
    yield h
    h.close()


def test_opening_creates_the_newest_schema_and_reopening_changes_nothing(
        history_url: Callable[[], str]) -> None:
    url = history_url()
    for _ in range(2):
        h = History.open(url)
        with h.engine.connect() as connection:
            context = MigrationContext.configure(connection)
            assert context.get_current_revision() == "v0001"
            assert compare_metadata(context, schema.metadata) == []
        h.close()


def test_sqlite_is_in_wal_mode_with_normal_sync_on_every_connection(tmp_path: Path) -> None:
    h = History.open(str(tmp_path / "h.db"))
    try:
        if h.engine.dialect.name != "sqlite":
            return  # the PostgreSQL run shares this module
        for _ in range(2):
            with h.engine.connect() as connection:
                assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
                assert connection.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL
    finally:
        h.close()


def test_a_sample_stands_for_the_time_to_the_next_one_capped_at_twice_the_poll(
        history: History) -> None:
    """Polls at 0, 5, 10 s, then the watcher is down until 70 s: the 10-s sample counts
    10 s (2 × 5 s), not 60; the newest (70 s) is still open."""
    a = values(used_mb=1024, used_vcores=1)
    b = values(used_mb=3072, used_vcores=3)
    for t, v in ((0, a), (5_000, a), (10_000, b), (70_000, a)):
        assert history.add(flat_sample(T0 + t, [("x", v)], v), {})
    x = {q.name: q for q in history.tally(ALL)}["root.x"]
    assert (x.samples, x.weight_ms) == (3, 5_000 + 5_000 + 10_000)
    assert x.sums["used_mb"] == 1024 * 10_000 + 3072 * 10_000
    assert x.average("used_mb") == (1024 * 10_000 + 3072 * 10_000) / 20_000
    assert (x.minima["used_mb"], x.maxima["used_mb"]) == (1024, 3072)


def test_the_cap_follows_the_polls_when_no_interval_is_given(
        history_url: Callable[[], str]) -> None:
    """Gaps of 10 s, one of 100 s, one of 1 s: the median gap is 10 s, so the cap is 20 s."""
    h = History.open(history_url())
    try:
        v = values(used_mb=1)
        for t in (0, 10_000, 20_000, 30_000, 130_000, 131_000):
            h.add(flat_sample(T0 + t, [("x", v)], v), {})
        x = {q.name: q for q in h.tally(ALL)}["root.x"]
        assert x.weight_ms == 10_000 * 3 + 20_000 + 1_000  # the last gap: 1 s
    finally:
        h.close()


def test_contention_and_shortness_are_counted_with_the_thresholds_given(
        history: History) -> None:
    """Queue x: pending 2, used 3 GB of a 8 GB share. Threshold 0.5 → 4 GB: short.
    Threshold 0.25 → 2 GB: in contention, not short. Queue y: nothing pending: not in
    contention, whatever its usage."""
    x = values(pending_containers=2, used_mb=3072, used_vcores=8, fair_share_mb=8192,
               fair_share_vcores=8)
    y = values(used_mb=0, fair_share_mb=8192, fair_share_vcores=8)
    samples = [(0, 0.5), (5_000, 0.25), (10_000, 0.25)]
    for t, threshold in samples:
        history.add(flat_sample(T0 + t, [("x", x), ("y", y)], x),
                    {"root.x": threshold, "root.y": threshold})
    got = {q.name: q for q in history.tally(ALL)}
    assert (got["root.x"].contention_ms, got["root.x"].short_ms) == (10_000, 5_000)
    assert got["root.x"].contention_samples == 2
    assert got["root.x"].contention_average("used_mb") == 3072
    assert (got["root.y"].contention_ms, got["root.y"].short_ms) == (0, 0)
    assert got["root.y"].contention_average("used_mb") is None


def test_a_sample_stored_already_is_refused_and_changes_nothing(history: History) -> None:
    s = dump_sample("basic", T0)
    assert history.add(s, {})
    assert history.add(replace(s, time_ms=T0 + 5_000), {})
    size = history.size_bytes()
    counts = [_count(history, t) for t in ("sample", "app", "app_change", "node_change")]
    assert not history.add(s, {})
    assert not history.add(replace(s, time_ms=T0 + 5_000), {})
    assert not history.add(replace(s, time_ms=T0 + 1_000), {})  # older than the newest
    assert [_count(history, t) for t in ("sample", "app", "app_change", "node_change")] == counts
    assert history.size_bytes() == size
    assert history.last_time_ms() == T0 + 5_000


def test_a_reopened_history_resumes_the_open_interval(history_url: Callable[[], str]) -> None:
    """The same polls written in one session and across three give the same tallies."""
    polls = [(t, values(used_mb=t // 1000, pending_containers=t % 2)) for t in
             range(0, 200_000, 5_000)]
    one = History.open(history_url(), poll_interval_ms=5_000)
    for t, v in polls:
        one.add(flat_sample(T0 + t, [("x", v)], v), {})
    url = history_url()
    for part in (polls[:7], polls[7:8], polls[8:]):
        h = History.open(url, poll_interval_ms=5_000)
        for t, v in part:
            h.add(flat_sample(T0 + t, [("x", v)], v), {})
        h.close()
    again = History.open(url, poll_interval_ms=5_000)
    try:
        assert not again.add(flat_sample(T0 + polls[-1][0], [("x", polls[-1][1])],
                                         polls[-1][1]), {})
        assert again.tally(ALL) == one.tally(ALL)
        assert again.tally(ALL)[1].weight_ms == 195_000
    finally:
        one.close()
        again.close()


def test_queues_come_in_the_newest_trees_order_and_a_removed_queue_stays_in_tallies(
        history: History) -> None:
    v = values(used_mb=1)
    history.add(flat_sample(T0, [("b", v), ("gone", v)], v), {})
    history.add(flat_sample(T0 + 5_000, [("a", v), ("b", v)], v), {})
    history.add(flat_sample(T0 + 10_000, [("a", v), ("b", v)], v), {})
    assert history.queue_names() == ["root", "root.a", "root.b"]
    assert [q.name for q in history.tally(ALL)] == ["root", "root.a", "root.b", "root.gone"]


def test_the_fixture_dumps_are_stored_as_their_json_says(history: History) -> None:
    """Every queue's used and pending numbers, read back from the tally, are the dump's own
    (read here with json, not with the import's reader)."""
    for folder in sorted(p.name for p in DUMPS.iterdir()):
        h = history
        start = h.last_time_ms() or T0
        s = dump_sample(folder, start + DAY)
        h.add(s, {})
        h.add(replace(s, time_ms=start + DAY + 5_000), {})
        h.add(replace(s, time_ms=start + DAY + 10_000), {})
        data = json.loads((DUMPS / folder / "scheduler.json").read_text())
        queues = {}
        stack = [data["scheduler"]["schedulerInfo"]["rootQueue"]]
        while stack:
            q = stack.pop()
            queues[q["queueName"]] = q
            stack.extend((q.get("childQueues") or {}).get("queue", []))
        got = {q.name: q for q in h.tally(Window(start + DAY, start + DAY + 10_000))}
        assert set(got) == set(queues)
        for name, q in queues.items():
            assert got[name].weight_ms == 10_000
            assert got[name].sums["used_mb"] == q["usedResources"]["memory"] * 10_000
            assert got[name].sums["used_vcores"] == q["usedResources"]["vCores"] * 10_000
            pending = q.get("pendingContainers", 0)
            assert got[name].contention_ms == (10_000 if pending > 0 else 0), name


def test_series_pick_raw_samples_then_buckets_then_merged_buckets(
        history_url: Callable[[], str]) -> None:
    """One queue, used = 1 GB for a minute then 3 GB for a minute, polled every 5 s; a
    minute-bucket series averages each minute; a one-point series averages both: from the
    hour tier when there is one, from two minutes merged when minutes are the coarsest."""
    minutes_only = Retention(raw_ms=DAY, tiers=((MINUTE, DAY),))
    for retention, one_point in ((None, HOUR), (minutes_only, 2 * MINUTE)):
        history = History.open(history_url(), retention, poll_interval_ms=5_000)
        for k in range(25):
            used = 1024 if k < 12 else 3072
            v = values(used_mb=used, pending_containers=1, fair_share_mb=4096)
            history.add(flat_sample(T0 + 5_000 * k, [("x", v)], v), {"root.x": 0.5})
        raw = history.series("root.x", T0, T0 + 2 * MINUTE)
        assert raw.resolution_ms == 0 and len(raw.times_ms) == 24
        assert raw.averages["used_mb"][0] == 1024 and raw.short[:12] == (True,) * 12
        assert raw.short[12:] == (False,) * 12
        minutes = history.series("root.x", T0, T0 + 2 * MINUTE, max_points=2)
        assert minutes.resolution_ms == MINUTE and minutes.times_ms == (T0, T0 + MINUTE)
        assert minutes.averages["used_mb"] == (1024.0, 3072.0)
        assert minutes.short == (True, False)
        one = history.series("root.x", T0, T0 + 2 * MINUTE, max_points=1)
        assert one.resolution_ms == one_point and one.averages["used_mb"] == (2048.0,)
        assert (one.minima["used_mb"], one.maxima["used_mb"]) == ((1024,), (3072,))
        with pytest.raises(ValueError, match=r"root\.nope"):
            history.series("root.nope", T0, T0 + MINUTE)
        history.close()


def test_apps_are_written_when_they_change_and_kept_when_the_rm_forgets_them(
        history: History) -> None:
    s = dump_sample("basic", T0)
    apps = list(s.apps)
    for k in range(5):  # five quiet polls: one row per app
        history.add(with_apps(s, T0 + 5_000 * k, apps), {})
    assert _count(history, "app_change") == len(apps)
    busy = replace(apps[0], allocated=(apps[0].allocated[0] + 2048, apps[0].allocated[1] + 1),
                   running_containers=apps[0].running_containers + 1)
    history.add(with_apps(s, T0 + 25_000, [busy, *apps[1:]]), {})
    moved = history.app(busy.id)
    assert moved is not None and moved.allocated == busy.allocated  # the record follows
    assert _count(history, "app_change") == len(apps)  # but an allocation is no transition
    done = replace(apps[1], state="FINISHED", final_status="SUCCEEDED",
                   finished_ms=T0 + 26_000)
    history.add(with_apps(s, T0 + 27_000, [busy, done, *apps[2:]]), {})
    assert _count(history, "app_change") == len(apps) + 1
    history.add(with_apps(s, T0 + 30_000, [busy]), {})  # the RM forgot the others
    history.add(with_apps(s, T0 + 35_000, [busy]), {})
    gone = history.app(apps[1].id)
    assert gone is not None and gone.last_seen_ms == T0 + 27_000
    assert (gone.state, gone.finished_ms) == ("FINISHED", T0 + 26_000)
    assert gone.first_seen_ms == T0 and gone.user == apps[1].user
    kept = history.app(busy.id)
    assert kept is not None and kept.last_seen_ms == T0 + 35_000
    assert kept.allocated == busy.allocated
    assert history.app("application_0_0") is None
    alive = history.apps(Window(T0 + 30_000, T0 + 40_000))
    ended = {a.id for a in apps if a.finished_ms and a.finished_ms < T0 + 30_000}
    assert busy.id in {a.id for a in alive}
    assert not ended & {a.id for a in alive}
    queue = apps[0].queue.rsplit(".", 1)[0]
    assert all(a.queue.startswith(queue) for a in history.apps(ALL, queue))


def test_preemptions_are_found_where_an_apps_preempted_counts_rose(history: History) -> None:
    s = dump_sample("basic", T0)
    app = s.apps[0]
    history.add(with_apps(s, T0, [app]), {})
    hit = replace(app, preempted=app.preempted + 3, am_preempted=app.am_preempted + 1,
                  preempted_resources=(app.preempted_resources[0] + 8192,
                                       app.preempted_resources[1] + 4))
    history.add(with_apps(s, T0 + 5_000, [hit]), {})
    history.add(with_apps(s, T0 + 10_000, [hit]), {})
    found = history.preemptions(T0, T0 + MINUTE)
    assert [(p.time_ms, p.app, p.containers, p.am_containers, p.memory_mb, p.vcores)
            for p in found] == [(T0 + 5_000, app.id, 4, 1, 8192, 4)]
    assert found[0].queue == app.queue
    assert history.preemptions(T0, T0 + MINUTE, "root.nowhere") == []
    # an RM that restarted counts from zero: no preemption from a lower count
    history.add(with_apps(s, T0 + 15_000, [app], cluster_id=s.cluster_id + 1), {})
    history.add(with_apps(s, T0 + 20_000, [hit], cluster_id=s.cluster_id + 1), {})
    assert len(history.preemptions(T0, T0 + MINUTE)) == 2


def test_nodes_are_written_when_they_change(history: History) -> None:
    s = dump_sample("basic", T0)
    for k in range(4):
        history.add(replace(s, time_ms=T0 + 5_000 * k), {})
    assert _count(history, "node_change") == len(s.nodes)
    changed = replace(s.nodes[0], used=(s.nodes[0].used[0] + 1024, s.nodes[0].used[1]))
    history.add(replace(s, time_ms=T0 + 20_000, nodes=(changed, *s.nodes[1:])), {})
    history.add(replace(s, time_ms=T0 + 25_000, nodes=(changed,)), {})
    assert _count(history, "node_change") == len(s.nodes) + 1 + (len(s.nodes) - 1)


def test_checkpoints_keep_the_answers_every_quarter_hour(history_url: Callable[[], str]
                                                         ) -> None:
    h = History.open(history_url(), checkpoint_every_ms=15 * MINUTE)
    try:
        s = dump_sample("basic", T0)
        for k, minute in enumerate((0, 5, 14, 15, 16, 31)):
            h.add(replace(s, time_ms=T0 + minute * MINUTE),
                  {}, {"scheduler.json": f"answer {k}", "apps.json": "é"})
        assert _count(h, "checkpoint") == 3  # at 0, 15 and 31 minutes
        assert h.checkpoint(T0 - 1) is None
        assert h.checkpoint(T0 + 14 * MINUTE) == (T0, {"scheduler.json": "answer 0",
                                                       "apps.json": "é"})
        assert h.checkpoint(T0 + 20 * MINUTE)[0] == T0 + 15 * MINUTE  # type: ignore[index]
    finally:
        h.close()


def test_prune_bounds_the_size_by_the_retention(history_url: Callable[[], str]) -> None:
    """Half a day of polls every 30 s with raw samples kept an hour, minutes 2 h, hours 3 h:
    the database stops growing once the retention is full (from about 4 h on)."""
    retention = Retention(raw_ms=HOUR, tiers=((MINUTE, 2 * HOUR), (HOUR, 3 * HOUR)))
    h = History.open(history_url(), retention, poll_interval_ms=30_000)
    try:
        sizes = []
        for k in range(2 * 60 * 12):
            t = T0 + 30_000 * k
            v = values(used_mb=1024 * (k % 7), pending_containers=k % 3)
            h.add(flat_sample(t, [(f"q{i}", v) for i in range(20)], v), {})
            if k % 120 == 119:
                h.prune(t)
                sizes.append(h.size_bytes())
        with h.engine.connect() as connection:
            hours = connection.execute(text(
                "SELECT count(*) FROM bucket WHERE width_ms = 3600000")).scalar_one()
            oldest = connection.execute(text("SELECT min(time_ms) FROM sample")).scalar_one()
        assert hours <= 4
        assert oldest >= t - HOUR - MINUTE
        assert max(sizes[-6:]) <= 1.2 * min(sizes[-6:])
    finally:
        h.close()


def test_bad_input_is_a_clear_error(history: History, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"Window\.timezone"):
        history.tally(Window(0, 1, hours=frozenset({1}), timezone="Mars/Olympus"))
    with pytest.raises(ValueError, match=r"Retention\.tiers"):
        History.open(str(tmp_path / "x.db"), Retention(DAY, ((MINUTE, DAY), (90_000, DAY))))
    with pytest.raises(ValueError, match=r"Retention\.raw_ms"):
        History.open(str(tmp_path / "y.db"), Retention(MINUTE, ((MINUTE, DAY),)))
    # a URL that is not one: the user's --db, named (and its password not shown)
    with pytest.raises(ConfigError, match=r"^--db: cannot open the history database .*history "
                       "database URL") as e:
        History.open("postgresql+psycopg://a:b@[::1")
    assert ":b@" not in str(e.value)


def test_ten_thousand_quiet_apps_write_no_row_per_poll(history: History) -> None:
    """Only the apps that moved are written: 10,000 apps, then polls where 50 of them got a
    container (their memorySeconds grew too, as every running app's does: no change) and
    50 finished (a transition, kept in app_change)."""
    s = dump_sample("basic", T0)
    template = s.apps[0]
    apps = [replace(template, id=f"application_1700000000000_{k:05d}") for k in range(10_000)]
    history.add(with_apps(s, T0, apps), {})
    assert _count(history, "app_change") == 10_000
    for poll in range(1, 3):
        grown = [replace(a, memory_seconds=a.memory_seconds + 5 * poll * a.allocated[0])
                 for a in apps]
        for k in range(100 * poll, 100 * poll + 50):
            grown[k] = replace(grown[k], running_containers=grown[k].running_containers + 1)
        for k in range(100 * poll + 50, 100 * poll + 100):
            grown[k] = replace(grown[k], state="FINISHED", finished_ms=T0 + 5_000 * poll)
        apps = grown
        history.add(with_apps(s, T0 + 5_000 * poll, apps), {})
        assert _count(history, "app_change") == 10_000 + 50 * poll
        assert history.app(apps[100 * poll].id).running_containers == (  # type: ignore[union-attr]
            template.running_containers + 1)


def test_prune_forgets_apps_and_changes_after_the_longest_retention_but_keeps_the_newest(
        history_url: Callable[[], str]) -> None:
    retention = Retention(raw_ms=2 * MINUTE, tiers=((MINUTE, 10 * MINUTE),))
    h = History.open(history_url(), retention, poll_interval_ms=5_000)
    try:
        s = dump_sample("basic", T0)
        h.add(s, {}, {"scheduler.json": "first"})
        h.add(with_apps(s, T0 + 5_000, []), {}, {"scheduler.json": "second"})  # apps gone
        h.prune(T0 + 5 * MINUTE)
        assert _count(h, "app") == len(s.apps) and _count(h, "app_change") == len(s.apps)
        assert h.checkpoint(T0 + 5_000) == (T0, {"scheduler.json": "first"})
        h.prune(T0 + 20 * MINUTE)
        assert _count(h, "app") == _count(h, "app_change") == _count(h, "node_change") == 0
        assert h.checkpoint(T0 + 5_000) == (T0, {"scheduler.json": "first"})  # the newest
        assert h.last_time_ms() == T0 + 5_000  # the newest sample is never pruned
    finally:
        h.close()
