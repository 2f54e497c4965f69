"""The first schema of the state store: the tables of :mod:`fairshare.server.store.schema` as
they were at version 1.

Revision ID: s0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "s0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "rm_state",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )
    op.create_table(
        "application",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("cluster_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(32), nullable=False),
        sa.Column("finished_ms", sa.BigInteger(), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
    )
    op.create_table(
        "container",
        sa.Column("id", sa.String(256), primary_key=True),
        sa.Column("app_id", sa.String(128), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
    )
    op.create_index("ix_container_app_id", "container", ["app_id"])
    op.create_table(
        "node",
        sa.Column("id", sa.String(512), primary_key=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    for table in ("node", "container", "application", "rm_state"):
        op.drop_table(table)
