"""The history database's tables (SQLAlchemy Core), as migration ``v0001`` creates them.

Time-keyed tables have the time in their primary key, so that TimescaleDB can make them
hypertables (a hypertable's unique indexes must hold its time column). Times are Unix ms.

* ``queue`` — every queue name ever seen, with a stable id; ``layout`` — a list of queue ids
  (the rows of a blob), stored once per distinct list.
* ``sample`` — one row per poll: the queues' values and thresholds as a blob (:mod:`.raw`),
  ``gap_ms`` to the next sample and ``weight_ms``, the time it stands for (NULL while it is
  the newest: its interval is still open).
* ``bucket`` — one row per (resolution, bucket start): the merged tally of every queue
  (:mod:`.tally`), one blob.
* ``app`` — each app's latest record (written when something changed); ``app_change`` — the
  app's numbers at each of its transitions (:mod:`.apps`); ``node_change`` — a node's
  numbers when they changed;
  ``preemption`` — containers an app lost between two samples.
* ``checkpoint`` — the RM's raw answers (zlib JSON) every few minutes, for ``watch fork``.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

queue = Table(
    "queue", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("name", String(1024), nullable=False, unique=True))

layout = Table(
    "layout", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("digest", String(64), nullable=False, unique=True),
    Column("ids", LargeBinary, nullable=False))

sample = Table(
    "sample", metadata,
    Column("time_ms", BigInteger, primary_key=True, autoincrement=False),
    Column("cluster_id", BigInteger, primary_key=True, autoincrement=False),
    Column("layout_id", Integer, nullable=False),
    Column("key", Boolean, nullable=False),  # a keyframe: values not relative to the previous
    Column("gap_ms", BigInteger),
    Column("weight_ms", BigInteger),
    Column("data", LargeBinary, nullable=False))

bucket = Table(
    "bucket", metadata,
    Column("width_ms", BigInteger, primary_key=True, autoincrement=False),
    Column("start_ms", BigInteger, primary_key=True, autoincrement=False),
    Column("layout_id", Integer, nullable=False),
    Column("data", LargeBinary, nullable=False))

app = Table(
    "app", metadata,
    Column("id", String(128), primary_key=True),
    Column("cluster_id", BigInteger, nullable=False),
    Column("user", String(256), nullable=False),
    Column("name", Text, nullable=False),
    Column("queue", String(1024), nullable=False),
    Column("state", String(32), nullable=False),
    Column("final_status", String(32), nullable=False),
    Column("started_ms", BigInteger, nullable=False),
    Column("launched_ms", BigInteger, nullable=False),
    Column("finished_ms", BigInteger, nullable=False),
    Column("first_seen_ms", BigInteger, nullable=False),
    Column("last_seen_ms", BigInteger, nullable=False),
    Column("listed", Boolean, nullable=False),  # in the RM's answer at the newest sample
    Column("first_container_ms", BigInteger),
    Column("allocated_mb", BigInteger, nullable=False),
    Column("allocated_vcores", BigInteger, nullable=False),
    Column("pending_containers", BigInteger, nullable=False),
    Column("running_containers", BigInteger, nullable=False),
    Column("am_preempted", BigInteger, nullable=False),
    Column("preempted", BigInteger, nullable=False),
    Column("preempted_mb", BigInteger, nullable=False),
    Column("preempted_vcores", BigInteger, nullable=False),
    Column("memory_seconds", BigInteger, nullable=False),
    Column("vcore_seconds", BigInteger, nullable=False),
    Column("preempted_memory_seconds", BigInteger, nullable=False),
    Column("preempted_vcore_seconds", BigInteger, nullable=False),
    Column("diagnostics", Text, nullable=False),
    Index("app_seen", "last_seen_ms"))

app_change = Table(
    "app_change", metadata,
    Column("app_id", String(128), primary_key=True),
    Column("time_ms", BigInteger, primary_key=True, autoincrement=False),
    Column("state", String(32), nullable=False),
    Column("allocated_mb", BigInteger, nullable=False),
    Column("allocated_vcores", BigInteger, nullable=False),
    Column("pending_containers", BigInteger, nullable=False),
    Column("running_containers", BigInteger, nullable=False),
    Column("preempted", BigInteger, nullable=False),  # non-AM (numNonAMContainerPreempted)
    Column("preempted_mb", BigInteger, nullable=False),
    Column("preempted_vcores", BigInteger, nullable=False),
    Index("app_change_time", "time_ms"))

node_change = Table(
    "node_change", metadata,
    Column("node_id", String(512), primary_key=True),
    Column("time_ms", BigInteger, primary_key=True, autoincrement=False),
    Column("state", String(32), nullable=False),
    Column("capacity_mb", BigInteger, nullable=False),
    Column("capacity_vcores", BigInteger, nullable=False),
    Column("used_mb", BigInteger, nullable=False),
    Column("used_vcores", BigInteger, nullable=False),
    Column("containers", BigInteger, nullable=False),
    Index("node_change_time", "time_ms"))

preemption = Table(
    "preemption", metadata,
    Column("time_ms", BigInteger, primary_key=True, autoincrement=False),
    Column("cluster_id", BigInteger, primary_key=True, autoincrement=False),
    Column("app_id", String(128), primary_key=True),
    Column("queue", String(1024), nullable=False),
    Column("containers", BigInteger, nullable=False),
    Column("am_containers", BigInteger, nullable=False),
    Column("memory_mb", BigInteger, nullable=False),
    Column("vcores", BigInteger, nullable=False))

checkpoint = Table(
    "checkpoint", metadata,
    Column("time_ms", BigInteger, primary_key=True, autoincrement=False),
    Column("cluster_id", BigInteger, primary_key=True, autoincrement=False),
    Column("data", LargeBinary, nullable=False))

# the tables TimescaleDB makes hypertables, and their time column
HYPERTABLES = {"sample": "time_ms", "bucket": "start_ms", "app_change": "time_ms",
               "node_change": "time_ms", "preemption": "time_ms", "checkpoint": "time_ms"}
