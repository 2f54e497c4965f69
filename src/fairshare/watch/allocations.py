"""The allocation file and yarn-site a watched RM runs with, as the admin gives them: the numbers
the REST API does not serve (weights, timeouts, thresholds), kept current as the file changes.

A reload follows YARN's ``AllocationFileLoaderService`` (docs/semantics.md §1.2): the first load
must succeed (``FairScheduler.initScheduler`` fails the RM's start otherwise, so
:class:`AllocationWatch` raises :class:`ConfigError`); afterwards a changed file is read once it
is :data:`RELOAD_WAIT_MS` old (``ALLOC_RELOAD_WAIT_MS``: an editor's half-written file is not
read), and a file that fails leaves **the configuration in force** ("Failed to reload fair
scheduler config file - will use existing allocations."), its error told, and told as a repeat
until the file changes again (YARN logs it once per run of failures). "Changed" is the file's
modification time, size or content (a SHA-256 of its bytes: an edit within the mtime's
resolution, or one that restores the mtime, is seen too).

yarn-site.xml is read once: the RM reads it only at start (``yarn rmadmin -refreshQueues``
reloads the allocation file, not the site).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from fairshare.config.allocation import load_allocations
from fairshare.config.errors import ConfigError
from fairshare.config.files import read_input
from fairshare.config.model import AllocationConfig
from fairshare.config.xml import MAX_XML_BYTES
from fairshare.config.yarnsite import SiteConfig, load_site
from fairshare.core import QueueSettings, QueueTree, build_queue_tree
from fairshare.sim.record.contention import threshold_of

__all__ = ["RELOAD_WAIT_MS", "AllocationWatch", "Failed", "Reloaded", "Unchanged"]

RELOAD_WAIT_MS = 5_000  # AllocationFileLoaderService.ALLOC_RELOAD_WAIT_MS


@dataclass(frozen=True, slots=True)
class Reloaded:
    """The file changed and was loaded: ``config`` is in force now."""

    config: AllocationConfig


@dataclass(frozen=True, slots=True)
class Unchanged:
    """Nothing to load; ``waiting``: the file changed less than RELOAD_WAIT_MS ago."""

    waiting: bool = False


@dataclass(frozen=True, slots=True)
class Failed:
    """The file changed and cannot be loaded (or is gone): the previous configuration stays.
    ``repeated``: the same file failed at an earlier check already."""

    message: str
    repeated: bool = False


CheckResult = Reloaded | Unchanged | Failed


class AllocationWatch:
    """The allocation file at ``path`` (None: none, YARN's defaults) and the yarn-site at
    ``site`` (None: YARN's defaults); both loaded now, raising ConfigError as the RM's start
    would fail."""

    def __init__(self, path: Path | None, site: Path | None = None) -> None:
        self.path = path
        self.site: SiteConfig = load_site(site) if site is not None else SiteConfig.default()
        self.config = AllocationConfig()  # YARN's defaults: no file
        self._digest: str | None = None  # of the file in force
        self._failed: str | None = None  # digest of the file that failed last
        self._failed_message = ""
        self._tree: QueueTree = build_queue_tree(self.config, self.site.resource_types)
        self._extended: tuple[tuple[str, ...], QueueTree] | None = None
        if path is not None:
            data = self._bytes()
            self._use(load_allocations(path, self.site.resource_types), data)

    # -- the site ---------------------------------------------------------------------------

    @property
    def preemption_enabled(self) -> bool:
        """``yarn.scheduler.fair.preemption``: starvation is never checked without it."""
        return self.site.preemption

    @property
    def utilization_threshold(self) -> float:
        """``yarn.scheduler.fair.preemption.cluster-utilization-threshold``: preemption is
        gated at or below it (``FairScheduler.shouldAttemptPreemption``, strict)."""
        return self.site.preemption_cluster_utilization_threshold

    # -- reloading --------------------------------------------------------------------------

    def check(self, now_ms: int) -> CheckResult:
        """Reload the file if it changed (``now_ms``: the watcher's clock, Unix ms, compared
        with the file's modification time for the settle wait)."""
        if self.path is None:
            return Unchanged()
        shown = str(self.path)
        try:
            stat = os.stat(self.path)
            data = self._bytes()
        except (OSError, ConfigError) as exc:
            message = exc.message if isinstance(exc, ConfigError) else exc.strerror or str(exc)
            return self._fail("gone", f"{shown}: {message}: the configuration loaded last "
                              "stays in force")
        digest = hashlib.sha256(data).hexdigest()
        if digest == self._digest:
            self._failed = None
            return Unchanged()
        modified_ms = stat.st_mtime_ns // 1_000_000
        if modified_ms <= now_ms < modified_ms + RELOAD_WAIT_MS:
            return Unchanged(waiting=True)
        if digest == self._failed:
            return Failed(self._failed_message, repeated=True)
        try:
            config = load_allocations(self.path, self.site.resource_types)
        except ConfigError as exc:
            return self._fail(digest, f"{exc}\n(the configuration loaded last stays in force, "
                              "as the ResourceManager keeps it)")
        self._use(config, data)
        return Reloaded(config)

    def _bytes(self) -> bytes:
        assert self.path is not None
        return read_input(self.path, str(self.path), MAX_XML_BYTES)

    def _use(self, config: AllocationConfig, data: bytes) -> None:
        self.config = config
        self._digest = hashlib.sha256(data).hexdigest()
        self._failed = None
        self._tree = build_queue_tree(config, self.site.resource_types)
        self._extended = None

    def _fail(self, digest: str, message: str) -> Failed:
        repeated = digest == self._failed
        self._failed, self._failed_message = digest, message
        return Failed(message, repeated=repeated)

    # -- per-queue settings -----------------------------------------------------------------

    def tree(self, queue_names: tuple[str, ...] | list[str] = ()) -> QueueTree:
        """The configured queue tree with the RM's queues it lacks added as YARN creates them
        (``QueueManager.getQueue`` with create: settings inherited from the parent; a queue
        whose name has no child among ``queue_names`` is a leaf)."""
        names = tuple(queue_names)
        if self._extended is not None and self._extended[0] == names:
            return self._extended[1]
        tree = self._tree
        missing = sorted((n for n in names if n not in tree), key=lambda n: n.count("."))
        prefixes = {n.rsplit(".", i)[0] for n in names for i in range(1, n.count(".") + 1)}
        for name in missing:
            if name in tree or "." not in name or name.rsplit(".", 1)[0] not in tree:
                continue
            try:
                tree = tree.with_queue(name, is_leaf=name not in prefixes, dynamic=True)
            except ValueError:  # our file says otherwise than the RM's: inherit, below
                continue
        self._extended = names, tree
        return tree

    def settings(self, name: str, queue_names: tuple[str, ...] | list[str] = ()
                 ) -> QueueSettings:
        """The effective settings of ``name``: its own in the tree, else (a queue YARN would
        not create under our file) its nearest ancestor's."""
        tree = self.tree(queue_names)
        while name not in tree and "." in name:
            name = name.rsplit(".", 1)[0]
        return tree[name].settings if name in tree else tree.root.settings

    def thresholds(self, queue_names: tuple[str, ...] | list[str]) -> dict[str, float]:
        """Each queue's fairSharePreemptionThreshold as the contention tests measure against it
        (:func:`~fairshare.sim.record.contention.threshold_of`: without a file, YARN's unset
        -1 is read as the file default 0.5)."""
        names = tuple(queue_names)
        return {name: threshold_of(self.settings(name, names).fair_share_preemption_threshold)
                for name in names}
