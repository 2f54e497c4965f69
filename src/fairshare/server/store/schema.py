"""The state store's tables (SQLAlchemy Core), as the migrations leave them.

Like YARN's own stores (``ZKRMStateStore``, ``LeveldbRMStateStore``: one protobuf
``ApplicationStateData`` per app), each record is one row holding a JSON document
(:mod:`fairshare.server.store.codec`) under its key, with the few columns recovery orders or
trims by beside it:

* ``rm_state``: the epoch (``RMStateStore.getAndIncrementEpoch``) and the schema's version;
* ``application``: an app with its submission context, queue, state and attempts;
* ``container``: a running container — YARN has NodeManagers report these, fairshare is its
  own NodeManager and keeps them here (node, resources, start, process);
* ``node``: the virtual executor's NodeManagers, in registration order.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Integer, MetaData, String, Table, Text

metadata = MetaData()

rm_state = Table(
    "rm_state", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

application = Table(
    "application", metadata,
    Column("id", String(128), primary_key=True),
    Column("cluster_timestamp", BigInteger, nullable=False),  # the id's: recovery's order
    Column("number", Integer, nullable=False),
    Column("state", String(32), nullable=False),
    Column("finished_ms", BigInteger, nullable=False),  # epoch ms; 0 while it runs
    Column("record", Text, nullable=False),
)

container = Table(
    "container", metadata,
    Column("id", String(256), primary_key=True),  # the engine's container id
    Column("app_id", String(128), nullable=False, index=True),
    Column("record", Text, nullable=False),
)

node = Table(
    "node", metadata,
    Column("id", String(512), primary_key=True),
    Column("position", Integer, nullable=False),  # registration order
    Column("record", Text, nullable=False),
)
