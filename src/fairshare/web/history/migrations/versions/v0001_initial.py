"""The first schema of the history database: the tables of :mod:`fairshare.web.history.schema`
as they were at version 1, and, where the TimescaleDB extension can be created, its
time-keyed tables as hypertables (chunks of one day; times are integer Unix ms).

Revision ID: v0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "v0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

DAY_MS = 86_400_000
HYPERTABLES = {"sample": "time_ms", "bucket": "start_ms", "app_change": "time_ms",
               "node_change": "time_ms", "preemption": "time_ms", "checkpoint": "time_ms"}


def upgrade() -> None:
    op.create_table(
        "app",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("cluster_id", sa.BigInteger(), nullable=False),
        sa.Column("user", sa.String(256), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("queue", sa.String(1024), nullable=False),
        sa.Column("state", sa.String(32), nullable=False),
        sa.Column("final_status", sa.String(32), nullable=False),
        sa.Column("started_ms", sa.BigInteger(), nullable=False),
        sa.Column("launched_ms", sa.BigInteger(), nullable=False),
        sa.Column("finished_ms", sa.BigInteger(), nullable=False),
        sa.Column("first_seen_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_seen_ms", sa.BigInteger(), nullable=False),
        sa.Column("listed", sa.Boolean(), nullable=False),
        sa.Column("first_container_ms", sa.BigInteger()),
        sa.Column("allocated_mb", sa.BigInteger(), nullable=False),
        sa.Column("allocated_vcores", sa.BigInteger(), nullable=False),
        sa.Column("pending_containers", sa.BigInteger(), nullable=False),
        sa.Column("running_containers", sa.BigInteger(), nullable=False),
        sa.Column("am_preempted", sa.BigInteger(), nullable=False),
        sa.Column("preempted", sa.BigInteger(), nullable=False),
        sa.Column("preempted_mb", sa.BigInteger(), nullable=False),
        sa.Column("preempted_vcores", sa.BigInteger(), nullable=False),
        sa.Column("memory_seconds", sa.BigInteger(), nullable=False),
        sa.Column("vcore_seconds", sa.BigInteger(), nullable=False),
        sa.Column("preempted_memory_seconds", sa.BigInteger(), nullable=False),
        sa.Column("preempted_vcore_seconds", sa.BigInteger(), nullable=False),
        sa.Column("diagnostics", sa.Text(), nullable=False),
    )
    op.create_index("app_seen", "app", ["last_seen_ms"])
    op.create_table(
        "app_change",
        sa.Column("app_id", sa.String(128), primary_key=True),
        sa.Column("time_ms", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("state", sa.String(32), nullable=False),
        sa.Column("allocated_mb", sa.BigInteger(), nullable=False),
        sa.Column("allocated_vcores", sa.BigInteger(), nullable=False),
        sa.Column("pending_containers", sa.BigInteger(), nullable=False),
        sa.Column("running_containers", sa.BigInteger(), nullable=False),
        sa.Column("preempted", sa.BigInteger(), nullable=False),
        sa.Column("preempted_mb", sa.BigInteger(), nullable=False),
        sa.Column("preempted_vcores", sa.BigInteger(), nullable=False),
    )
    op.create_index("app_change_time", "app_change", ["time_ms"])
    op.create_table(
        "bucket",
        sa.Column("width_ms", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("start_ms", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("layout_id", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "checkpoint",
        sa.Column("time_ms", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("cluster_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "layout",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("ids", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "node_change",
        sa.Column("node_id", sa.String(512), primary_key=True),
        sa.Column("time_ms", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("state", sa.String(32), nullable=False),
        sa.Column("capacity_mb", sa.BigInteger(), nullable=False),
        sa.Column("capacity_vcores", sa.BigInteger(), nullable=False),
        sa.Column("used_mb", sa.BigInteger(), nullable=False),
        sa.Column("used_vcores", sa.BigInteger(), nullable=False),
        sa.Column("containers", sa.BigInteger(), nullable=False),
    )
    op.create_index("node_change_time", "node_change", ["time_ms"])
    op.create_table(
        "preemption",
        sa.Column("time_ms", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("cluster_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("app_id", sa.String(128), primary_key=True),
        sa.Column("queue", sa.String(1024), nullable=False),
        sa.Column("containers", sa.BigInteger(), nullable=False),
        sa.Column("am_containers", sa.BigInteger(), nullable=False),
        sa.Column("memory_mb", sa.BigInteger(), nullable=False),
        sa.Column("vcores", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "queue",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("name", sa.String(1024), nullable=False, unique=True),
    )
    op.create_table(
        "sample",
        sa.Column("time_ms", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("cluster_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("layout_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.Boolean(), nullable=False),
        sa.Column("gap_ms", sa.BigInteger()),
        sa.Column("weight_ms", sa.BigInteger()),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    bind = op.get_bind()
    if bind.dialect.name == "postgresql" and _timescale_available(bind):
        op.execute("CREATE EXTENSION IF NOT EXISTS timescaledb")
        for table, column in HYPERTABLES.items():
            op.execute(sa.text(
                f"SELECT create_hypertable('{table}', '{column}', "
                f"chunk_time_interval => {DAY_MS}::bigint, if_not_exists => TRUE, "
                # the primary key leads with the time already: no second index on it
                "create_default_indexes => FALSE, migrate_data => TRUE)"))


def _timescale_available(bind: sa.engine.Connection) -> bool:
    """Whether the extension can be created: the server has its files
    (pg_available_extensions) and loads its library at start (TimescaleDB refuses to be
    created otherwise: "extension must be preloaded"). Installed but not preloaded, the
    history uses plain tables rather than fail to open."""
    found = bind.execute(sa.text(
        "SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb'")).first()
    preload = bind.execute(sa.text("SELECT current_setting('shared_preload_libraries')")
                           ).scalar() or ""
    return found is not None and "timescaledb" in str(preload)


def downgrade() -> None:
    for table in ("checkpoint", "preemption", "node_change", "app_change", "app", "bucket",
                  "sample", "layout", "queue"):
        op.drop_table(table)
