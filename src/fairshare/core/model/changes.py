"""What the state's writers changed, for the steps that keep caches over the state.

Every writer of :mod:`fairshare.core.hub.state` records here what it changed; which kinds
(:class:`Change`) each writer records is declared beside it, in its module's ``RECORDS`` table
(``tests/core/hub/test_state_changes.py`` runs every writer and checks it). Each cache that
must follow the state (the tree walk's order index, the incremental update pass, the
preemption search's kept nodes, the steady shares) holds its own :class:`ChangeReader` and
drains it when it next runs: so no write can leave a cache stale by forgetting to tell it, and
no cache depends on where a write happens.

What is recorded, and who reads it:

* ``apps`` — an app's usage, asks, AM, admission, reservations, demand, fair share or
  min-share starvation changed (a new attempt always follows its AM container's release): its
  place in its leaf's lists and what it could do on a node may differ (order index, update
  pass);
* ``by_leaf`` — the same apps under the leaf they were in *when* recorded (a move changes the
  leaf afterwards), plus apps that joined or left a leaf's lists without any other change
  (``membership``) — for readers that ask for it (the update pass);
* ``queues`` — a queue's usage or demand changed: its place among its siblings may move;
* ``am_limits`` — a leaf's AM limit (its fair share) or AM usage changed;
* ``nodes`` — what a node holds changed (a container placed or released, a reservation made,
  refreshed or dropped, a graceful decommission begun): the snapshot's kept copy of the node
  is stale (``Engine.snapshot``, :class:`~fairshare.core.snapshot.Snapshots`);
* ``tree`` — a new queue tree (a reload, a dynamic queue); ``cluster`` — nodes came, went or
  were resized.

:class:`PassChanges` is what one update pass makes of its reader's records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from fairshare.core.model.records import App


class Change(Enum):
    """A kind of change a writer records: one per :class:`ChangeLog` method."""

    APP = "app"
    MEMBERSHIP = "membership"
    QUEUE = "queue"
    AM_LIMIT = "am_limit"
    NODE = "node"
    TREE = "tree"
    CLUSTER = "cluster"


class ChangeReader:
    """What one cache has not seen yet; the cache clears it once it has caught up."""

    __slots__ = ("am_limits", "apps", "by_leaf", "cluster", "nodes", "queues", "tree")

    def __init__(self) -> None:
        self.apps: dict[str, App] = {}
        self.by_leaf: dict[str, dict[str, App]] = {}
        self.queues: dict[str, None] = {}
        self.am_limits: dict[str, None] = {}
        self.nodes: dict[str, None] = {}
        # a new reader has seen nothing: it starts as after a new tree and cluster
        self.tree = True
        self.cluster = True

    def clear(self) -> None:
        self.apps = {}
        self.by_leaf = {}
        self.queues = {}
        self.am_limits = {}
        self.nodes = {}
        self.tree = self.cluster = False


class ChangeLog:
    """The writers' record of what changed, fanned out to the readers that want each kind."""

    def __init__(self) -> None:
        # bumped by every record but ``membership``: equal versions mean nothing that a sort
        # key, an offer, an AM limit or the tree depends on was written in between
        self.version = 0
        self._app_readers: list[ChangeReader] = []  # apps
        self._leaf_readers: list[ChangeReader] = []  # by_leaf, and membership as apps
        self._queue_readers: list[ChangeReader] = []  # queues and AM limits
        self._node_readers: list[ChangeReader] = []  # nodes
        self._flag_readers: list[ChangeReader] = []  # tree and cluster: every reader

    def reader(self, *, apps: bool = True, queues: bool = True, by_leaf: bool = False,
               nodes: bool = False) -> ChangeReader:
        """A new reader of the given kinds (every reader sees tree and cluster changes)."""
        reader = ChangeReader()
        for wanted, readers in ((apps, self._app_readers), (by_leaf, self._leaf_readers),
                                (queues, self._queue_readers), (nodes, self._node_readers),
                                (True, self._flag_readers)):
            if wanted:
                readers.append(reader)
        return reader

    def app(self, app: App) -> None:
        self.version += 1
        for reader in self._app_readers:
            reader.apps[app.id] = app
        for reader in self._leaf_readers:
            reader.by_leaf.setdefault(app.queue, {})[app.id] = app

    def membership(self, app: App) -> None:
        """``app`` joined or left its leaf's lists (it ended, or moved) with no other change."""
        for reader in self._leaf_readers:
            reader.apps[app.id] = app
            reader.by_leaf.setdefault(app.queue, {})[app.id] = app

    def queue(self, name: str) -> None:
        self.version += 1
        for reader in self._queue_readers:
            reader.queues[name] = None

    def am_limit(self, leaf: str) -> None:
        self.version += 1
        for reader in self._queue_readers:
            reader.am_limits[leaf] = None

    def node(self, name: str) -> None:
        """What node ``name`` holds changed; no sort key, offer or limit depends on that
        alone (the app's and queues' own records say what does): the version stays."""
        for reader in self._node_readers:
            reader.nodes[name] = None

    def tree(self) -> None:
        self.version += 1
        for reader in self._flag_readers:
            reader.tree = True

    def cluster(self) -> None:
        self.version += 1
        for reader in self._flag_readers:
            reader.cluster = True


@dataclass(slots=True)
class PassChanges:
    """What may differ from the previous update pass, as the steps of one pass see it."""

    everything: bool  # the first pass: nothing is known yet
    cluster_changed: bool  # the cluster size is not the last pass's (always on the first)
    apps: dict[str, App]  # recorded since the last pass
    # leaf → the recorded apps that were in it when recorded or are in it now: the only ones
    # whose numbers, or whose place in its lists, may have changed
    by_leaf: dict[str, dict[str, App]]
    queues: set[str]  # queues that are new or whose settings, children or record changed
    tree_changed: bool
    demand_leaves: dict[str, None] = field(default_factory=dict)  # filled by the demand step
    share_leaves: dict[str, None] = field(default_factory=dict)  # leaves whose app shares moved
