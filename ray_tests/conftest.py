"""A local multi-node Ray cluster for the Ray executor's tests (``make test-ray``; Ray is the
``[ray]`` extra, which ``make test`` does not install, so these live outside ``tests/``).

One cluster per session (``ray.cluster_utils.Cluster``): a head and two worker nodes with
different resources — 1 GiB of memory per CPU on each, so that YARN's memory-only fair shares
can be met exactly by 1 GB / 1 vcore containers (the end-to-end test) — no dashboard, a small
object store each. Every Ray server listens on
127.0.0.1: ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` makes Ray take the loopback address as the
node's (it would otherwise resolve 127.0.0.1 to the machine's outside address), set before Ray
is imported, so the nodes' processes inherit it. The cluster's processes are ended by
``Cluster.shutdown`` (by their process ids) when the session ends; each test's executor is
closed, and its containers' process groups checked empty, when the test ends."""

from __future__ import annotations

import os

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import ray
from ray.cluster_utils import Cluster

from fairshare.resources.vector import Resource, ResourceTypes, res
from fairshare.server.executors.base import Launch
from fairshare.server.executors.ray import RayExecutor

GIB = 1024**3
OBJECT_STORE = 80 * 1024 * 1024  # Ray's smallest object store is 75 MiB
TYPES = ResourceTypes.with_custom(["yarn.io/gpu", "fpga"])
APP = "application_1700000000000_0001"
BOUND_S = 30.0  # the most any one wait in these tests may take


@dataclass
class RayCluster:
    cluster: Cluster
    head: object  # ray._private.node.Node
    gpu: object  # the worker node with a GPU
    licensed: object  # the worker node with a resource of no YARN type's

    @property
    def address(self) -> str:
        return str(self.cluster.address)


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[RayCluster]:
    cluster = Cluster(shutdown_at_exit=True)
    try:
        head = cluster.add_node(num_cpus=2, memory=2 * GIB, resources={"fpga": 2},
                                object_store_memory=OBJECT_STORE, include_dashboard=False)
        gpu = cluster.add_node(num_cpus=1, num_gpus=1, memory=1 * GIB,
                               object_store_memory=OBJECT_STORE)
        # "licence" is no YARN type of the server's: not mapped
        licensed = cluster.add_node(num_cpus=3, memory=3 * GIB, resources={"licence": 5},
                                    object_store_memory=OBJECT_STORE)
        cluster.wait_for_nodes()
        yield RayCluster(cluster, head, gpu, licensed)
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()  # every node's processes, by their ids, the head's last


@dataclass
class Recorder:
    """An ExecutorHost that keeps what it is told."""

    exits: dict[str, tuple[int, str]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def container_started(self, app: str, container: str, pid: int, started: int) -> None:
        pass  # (the Ray executor starts tasks, not processes of its own)

    def container_exited(self, app: str, container: str, exit_status: int,
                         diagnostics: str) -> None:
        assert app == APP
        with self.changed:
            self.order.append(container)
            self.exits[container] = (exit_status, diagnostics)
            self.changed.notify_all()

    def wait(self, container: str) -> tuple[int, str]:
        with self.changed:
            assert self.changed.wait_for(lambda: container in self.exits, BOUND_S), \
                f"{container} not reported in {BOUND_S} s"
            return self.exits[container]


def live_in_group(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` that have not ended (zombies have: nothing here
    reaps orphans, PID 1 included)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(int(entry))
    return found


def wait_until(condition: object, what: str) -> None:
    deadline = time.monotonic() + BOUND_S
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"not within {BOUND_S} s: {what}"
        time.sleep(0.05)


@dataclass
class Containers:
    """Launches for one test: YARN container ids, folders under the test's tmp_path, and the
    process group of every container that wrote its ``$$`` (bash's pid: its group's id)."""

    executor: RayExecutor
    host: Recorder
    folder: Path
    count: int = 0
    groups: list[int] = field(default_factory=list)

    def launch(self, node: str, command: str, resource: Resource = res(256, 1),
               environment: dict[str, str] | None = None) -> Launch:
        self.count += 1
        container = f"container_{APP}_01_{self.count:06d}"
        launch = Launch(APP, 1, container, node, resource, self.count == 1, command,
                        {"CONTAINER_ID": container, "APPLICATION_ID": APP, **(environment or {})},
                        self.folder / "work" / container, self.folder / "logs" / container)
        self.executor.launch(launch)
        return launch

    def started(self, launch: Launch) -> int:
        """Wait for a launch whose command begins ``echo $$ > pid`` to run; its group id."""
        pid = launch.work_dir / "pid"
        wait_until(lambda: pid.exists() and pid.read_text().strip(), f"{pid} written")
        group = int(pid.read_text())
        self.groups.append(group)
        return group


@pytest.fixture
def host() -> Recorder:
    return Recorder()


@pytest.fixture
def executor(ray_cluster: RayCluster, host: Recorder) -> Iterator[RayExecutor]:
    executor = RayExecutor(ray_cluster.address, types=TYPES)
    executor.start(host)
    try:
        yield executor
    finally:
        executor.close()


@pytest.fixture
def containers(executor: RayExecutor, host: Recorder, tmp_path: Path) -> Iterator[Containers]:
    made = Containers(executor, host, tmp_path)
    yield made
    executor.close()
    for group in made.groups:
        wait_until(lambda g=group: not live_in_group(g), f"process group {group} ended")
