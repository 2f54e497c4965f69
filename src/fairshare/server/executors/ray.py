"""``--executor ray``: Ray's nodes are the NodeManagers, and a container is a Ray task pinned to
the node the scheduler chose (docs/serve.md, "Running on a Ray cluster").

* The cluster: ``RayExecutor("ray://host:10001")`` (Ray Client), ``"auto"`` (the cluster this
  machine belongs to), a GCS address, or None — a local ``ray.init()`` that this executor also
  shuts down. A process already connected to Ray keeps its connection (and its shutdown).
* Nodes: Ray's alive nodes. The id is ``NodeManagerAddress:NodeManagerPort`` — the raylet's
  address and port, YARN's ``host:port`` NodeId shape; unique among live raylets (two raylets
  on one host never share a port) and the same for the raylet's life, as an NM's NodeId is.
  A raylet restarted on a fixed ``--node-manager-port`` gets the same id, as a restarted NM on
  the same address does. The capacity maps Ray's resources (:func:`node_capacity`), the rack a
  label (:func:`node_rack`).
* A container: :func:`~fairshare.server.executors.ray_node.run_container` as a Ray task with
  ``NodeAffinitySchedulingStrategy(node, soft=False)``, no retries, and ``num_cpus=0``: the RM
  has already placed it within the node's capacity (the fair scheduler's decision, with
  preemption), so Ray's own CPU bookkeeping must not hold it back — a task asking Ray for its
  vcores would wait behind other Ray work, or forever where the RM counts more vcores than Ray
  has CPUs free, while the RM believes it runs. Nothing is asked of Ray's memory or GPU
  accounting either; what that leaves unenforced is in docs/serve.md's limits.
* Exits: one watcher thread waits on every running task (``ray.wait`` with a timeout) and turns
  each result into YARN's exit status (:func:`exit_of_error`). ``stop`` cancels, forced, and
  reports nothing; ``close`` cancels all and ends what ``start`` began.
"""

from __future__ import annotations

import importlib
import logging
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairshare.resources.vector import DEFAULT_TYPES, MEMORY, VCORES, Resource, ResourceTypes
from fairshare.server.executors import ray_node
from fairshare.server.executors.base import (
    ABORTED,
    KILLED_EXCEEDED_PMEM,
    SIGKILL_DELAY_MS,
    SUCCESS,
    ExecutorHost,
    Launch,
    NodeOffer,
)

log = logging.getLogger(__name__)

DEFAULT_RACK = "/default-rack"  # NetworkTopology.DEFAULT_RACK
# the label a node's rack is read from (Ray's zone label, set by its cloud launchers)
RACK_LABEL = "ray.io/availability-zone"
# ContainerLaunch.call: a launch that throws before the process ran exits with its initial -1
LAUNCH_FAILED = -1
# SchedulerUtils.LOST_CONTAINER, with ContainerExitStatus.ABORTED
LOST_CONTAINER = "Container released on a *lost* node"
# how long the watcher's ray.wait blocks: the most a new launch waits to join the watched
# set (a finished task ends the wait at once), and close's latency
WAIT_S = 0.2
CLOSE_WAIT_S = 10.0  # close: for Ray to end the cancelled tasks' workers

_MIB = 1024 * 1024
# Ray resources that are no container resource: the object store is Ray's shared memory,
# node:<ip> and accelerator_type:<kind> are placement markers
_NOT_MAPPED = ("CPU", "memory", "object_store_memory")
_MARKERS = ("node:", "accelerator_type:")


def _ray() -> Any:
    """Ray, imported when a RayExecutor first needs it (Ray is the optional ``[ray]`` extra)."""
    try:
        return importlib.import_module("ray")
    except ImportError as e:
        raise RuntimeError("--executor ray needs Ray: pip install 'fairshare[ray]'") from e


def yarn_node_id(info: Mapping[str, Any]) -> str:
    """A Ray node's YARN NodeId: its raylet's ``address:port`` (the module docstring)."""
    return f"{info['NodeManagerAddress']}:{info['NodeManagerPort']}"


def node_rack(labels: Mapping[str, str], label: str = RACK_LABEL) -> str:
    """The rack: the node's ``label`` as a path (``us-west-2a`` → ``/us-west-2a``), else
    YARN's default rack."""
    value = labels.get(label, "")
    if not value:
        return DEFAULT_RACK
    return value if value.startswith("/") else "/" + value


def yarn_type_of(ray_name: str, types: ResourceTypes) -> str | None:
    """The YARN resource type a Ray custom resource counts in: the type of the same name, else
    ``yarn.io/<name in lower case>`` (Ray's ``GPU`` → YARN's ``yarn.io/gpu``, ``fpga`` →
    ``yarn.io/fpga``), if the server's types have it; None: not mapped."""
    if ray_name in _NOT_MAPPED or ray_name.startswith(_MARKERS):
        return None
    custom = types.names[2:]
    for candidate in (ray_name, "yarn.io/" + ray_name.lower()):
        if candidate in custom:
            return candidate
    return None


def node_capacity(resources: Mapping[str, float], types: ResourceTypes = DEFAULT_TYPES
                  ) -> Resource:
    """A Ray node's total resources as a YARN capacity: ``CPU`` → vcores and ``memory`` (bytes)
    → memory-mb, both rounded down; each custom resource that :func:`yarn_type_of` maps, rounded
    down (a name that matches exactly wins over a ``yarn.io/`` match). Types Ray does not
    have are 0."""
    values = {MEMORY: int(resources.get("memory", 0)) // _MIB,
              VCORES: math.floor(resources.get("CPU", 0))}
    exact: set[str] = set()
    for name, amount in sorted(resources.items()):
        target = yarn_type_of(name, types)
        if target is None or (target in exact and name != target):
            continue
        if name == target:
            exact.add(target)
        values[target] = math.floor(amount)
    return types.of(values)


def exit_of_result(code: int, stderr_tail: str) -> tuple[int, str]:
    """A container that ran: its exit code, and YARN's diagnostics for a non-zero one
    (``ContainerLaunch``: the code, then the last bytes of stderr)."""
    if code == SUCCESS:
        return SUCCESS, ""
    diagnostics = f"Container exited with a non-zero exit code {code}. "
    if stderr_tail:
        diagnostics += f"\nLast {ray_node.STDERR_TAIL_BYTES} bytes of stderr :\n{stderr_tail}"
    return code, diagnostics


def exit_of_error(error: BaseException, node_alive: bool) -> tuple[int, str]:
    """A task that did not return, as YARN's exit status and diagnostics:

    1. its node is no longer alive (``NodeDiedError``, or any error once Ray says the node is
       dead) → ABORTED, "released on a lost node" — what the RM gives a lost NM's containers
       (``AbstractYarnScheduler``/``FairScheduler.removeNode``);
    2. Ray's memory monitor killed it (``OutOfMemoryError``) → KILLED_EXCEEDED_PMEM, the status
       the NM gives a container it kills for its physical memory;
    3. the task raised (``RayTaskError``: no such folder, no bash) or its runtime environment
       could not be set up → -1, ContainerLaunch's failure to launch, with the cause;
    4. anything else (its worker crashed, it was cancelled through Ray by someone else) →
       ABORTED, with Ray's message.
    """
    ray = _ray()
    errors = ray.exceptions
    if not node_alive or isinstance(error, errors.NodeDiedError):
        return ABORTED, LOST_CONTAINER
    if isinstance(error, errors.OutOfMemoryError):
        return KILLED_EXCEEDED_PMEM, str(error)
    if isinstance(error, errors.RayTaskError):
        cause = error.cause if isinstance(error.cause, BaseException) else error
        return LAUNCH_FAILED, f"Failed to launch container: {cause}"
    if isinstance(error, errors.RuntimeEnvSetupError):
        return LAUNCH_FAILED, f"Failed to launch container: {error}"
    return ABORTED, str(error)


@dataclass(slots=True)
class _Running:
    app: str
    container: str
    ray_node: str  # NodeID hex
    ref: Any = field(default=None)  # the task's ObjectRef


class RayExecutor:
    """Containers as Ray tasks on Ray's nodes (the module docstring)."""

    kind = "ray"

    def __init__(self, address: str | None, *, types: ResourceTypes = DEFAULT_TYPES,
                 rack_label: str = RACK_LABEL, sigkill_delay_ms: int = SIGKILL_DELAY_MS,
                 init_options: Mapping[str, Any] | None = None) -> None:
        self.address = address
        self.types = types
        self.rack_label = rack_label
        # per executor, as yarn.nodemanager.sleep-delay-before-sigkill.ms is per NM: a cancel
        # reaches a running task only by ending its worker, and the guard process each
        # container has knows the delay from its launch (ray_node's docstring)
        self.sigkill_delay_ms = sigkill_delay_ms
        self._init_options = dict(init_options or {})
        self._lock = threading.Condition()
        self._ray_ids: dict[str, str] = {}  # YARN node id → Ray NodeID hex
        self._running: dict[Any, _Running] = {}  # ObjectRef → container
        self._by_container: dict[tuple[str, str], Any] = {}  # (app, container) → ObjectRef
        self._failed: list[tuple[str, str, int, str]] = []  # launches that never started
        self._connected = False
        self._initialized_here = False
        self._closed = False
        self._host: ExecutorHost | None = None
        self._watcher: threading.Thread | None = None
        self._task: Any = None

    # -- the cluster

    def _connect(self) -> Any:
        ray = _ray()
        with self._lock:
            if self._closed:
                raise RuntimeError("the Ray executor is closed")
            if not self._connected:
                if not ray.is_initialized():
                    ray.init(address=self.address, **self._init_options)
                    self._initialized_here = True
                # workers need Ray only, not fairshare: ray_node is shipped by value
                ray.cloudpickle.register_pickle_by_value(ray_node)
                self._task = ray.remote(num_cpus=0, max_retries=0, retry_exceptions=False)(
                    ray_node.run_container)
                self._connected = True
        return ray

    def _alive(self) -> list[Mapping[str, Any]]:
        nodes: list[Mapping[str, Any]] = [n for n in self._connect().nodes() if n["Alive"]]
        nodes.sort(key=lambda n: (n["NodeManagerAddress"], int(n["NodeManagerPort"])))
        with self._lock:
            self._ray_ids = {yarn_node_id(n): n["NodeID"] for n in nodes}
        return nodes

    def nodes(self) -> Sequence[NodeOffer]:
        """Ray's alive nodes, by address and port."""
        return [NodeOffer(yarn_node_id(n), node_rack(n.get("Labels") or {}, self.rack_label),
                          node_capacity(n["Resources"], self.types)) for n in self._alive()]

    def ray_node_id(self, node: str) -> str | None:
        """The Ray NodeID (hex) of a YARN node id, as of the last look at Ray's nodes."""
        with self._lock:
            return self._ray_ids.get(node)

    # -- the executor protocol

    def start(self, host: ExecutorHost) -> None:
        self._connect()
        with self._lock:
            if self._watcher is not None:
                raise RuntimeError("the Ray executor is started already")
            self._host = host
            self._watcher = threading.Thread(target=self._watch, name="ray-executor-watcher",
                                             daemon=True)
            self._watcher.start()

    def launch(self, launch: Launch) -> None:
        if self._watcher is None:
            raise RuntimeError("RayExecutor.launch before start")
        ray = self._connect()
        target = self.ray_node_id(launch.node)
        if target is None:  # a node that joined since the last look, or one that is gone
            self._alive()
            target = self.ray_node_id(launch.node)
        if target is None:
            self._fail(launch, ABORTED, LOST_CONTAINER)
            return
        strategy = importlib.import_module("ray.util.scheduling_strategies")
        try:
            ref = self._task.options(
                name=launch.container,
                scheduling_strategy=strategy.NodeAffinitySchedulingStrategy(target, soft=False),
            ).remote(launch.command, dict(launch.environment), str(launch.work_dir),
                     str(launch.log_dir), self.sigkill_delay_ms)
        except Exception as e:  # Ray refused the submission: the container never started
            self._fail(launch, LAUNCH_FAILED, f"Failed to launch container: {e}")
            return
        with self._lock:
            running = _Running(launch.app, launch.container, target, ref)
            if self._closed:
                ray.cancel(ref, force=True)
                return
            self._running[ref] = running
            self._by_container[(launch.app, launch.container)] = ref
            self._lock.notify_all()

    def _fail(self, launch: Launch, status: int, diagnostics: str) -> None:
        # reported from the watcher thread: launch runs on the engine thread, which the host
        # may serialise its callbacks onto
        with self._lock:
            self._failed.append((launch.app, launch.container, status, diagnostics))
            self._lock.notify_all()

    def stop(self, app: str, container: str, grace_ms: int) -> None:
        with self._lock:
            ref = self._by_container.pop((app, container), None)
            if ref is not None:
                del self._running[ref]
        if ref is not None:
            self._cancel(ref)

    def _cancel(self, ref: Any) -> None:
        try:
            _ray().cancel(ref, force=True)
        except Exception:  # it ended meanwhile, or Ray is gone: nothing left to end
            log.debug("ray.cancel failed", exc_info=True)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            refs = list(self._running)
            self._running.clear()
            self._by_container.clear()
            self._lock.notify_all()
            watcher = self._watcher
        if watcher is not None:
            watcher.join()
        if self._connected:
            ray = _ray()
            for ref in refs:
                self._cancel(ref)
            if refs:  # a cancelled task resolves once Ray has ended its worker
                ray.wait(refs, num_returns=len(refs), timeout=CLOSE_WAIT_S, fetch_local=False)
            if self._initialized_here:
                ray.shutdown()

    # -- the watcher thread

    def _watch(self) -> None:
        ray = _ray()
        while True:
            with self._lock:
                while not (self._closed or self._running or self._failed):
                    self._lock.wait()
                if self._closed:
                    return
                refs = list(self._running)
                failed, self._failed = self._failed, []
            for app, container, status, diagnostics in failed:
                self._report(app, container, status, diagnostics)
            if not refs:
                continue
            ready, _ = ray.wait(refs, num_returns=1, timeout=WAIT_S, fetch_local=True)
            if ready:  # every other one that is done too, in one pass
                ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0, fetch_local=True)
            for ref in ready:
                self._finished(ray, ref)

    def _finished(self, ray: Any, ref: Any) -> None:
        with self._lock:
            running = self._running.pop(ref, None)
            if running is None:  # stopped meanwhile: the loop has ended it already
                return
            del self._by_container[(running.app, running.container)]
        try:
            code, tail = ray.get(ref)
            status, diagnostics = exit_of_result(int(code), str(tail))
        except ray.exceptions.RayError as e:
            status, diagnostics = exit_of_error(e, self._node_alive(ray, running.ray_node))
        self._report(running.app, running.container, status, diagnostics)

    def _node_alive(self, ray: Any, node_hex: str) -> bool:
        try:
            return any(n["NodeID"] == node_hex and n["Alive"] for n in ray.nodes())
        except Exception:  # the GCS itself is unreachable: the node is as good as lost
            return False

    def _report(self, app: str, container: str, status: int, diagnostics: str) -> None:
        host = self._host
        if host is None:
            return
        try:
            host.container_exited(app, container, status, diagnostics)
        except Exception:  # the host's failure must not end the watcher
            log.exception("container_exited(%s, %s) failed", app, container)
