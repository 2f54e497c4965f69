"""The Ray executor against a real local multi-node Ray cluster (conftest's three nodes): Ray's
nodes and resources as NodeManagers, containers pinned to their node, the environment and logs
a NodeManager gives, exit codes as YARN's statuses, a forced cancel that leaves no process, and
close()."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import ray

from fairshare.resources.vector import res
from fairshare.server.executors.ray import (
    DEFAULT_RACK,
    LAUNCH_FAILED,
    RayExecutor,
    exit_of_result,
    node_capacity,
    node_rack,
    yarn_type_of,
)
from fairshare.server.executors.ray_node import RAY_NODE_ID_VARIABLE
from ray_tests.conftest import (
    APP,
    BOUND_S,
    TYPES,
    Containers,
    RayCluster,
    Recorder,
    live_in_group,
    wait_until,
)

MIB = 1024 * 1024


def yarn_id(node: Any) -> str:
    """The NodeId the executor should give a Ray node: its raylet's address and port."""
    return f"{node.node_ip_address}:{node.node_manager_port}"


def pid_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


# -- the mapping of Ray's resources (worked by hand) --------------------------------------------

def test_rays_resources_as_a_yarn_capacity() -> None:
    # memory in bytes → MB rounded down; fractional CPUs and custom amounts rounded down
    resources = {"CPU": 3.5, "memory": 1536 * MIB + 1000, "GPU": 2.0, "fpga": 1.9,
                 "object_store_memory": 80 * MIB, "node:10.0.0.1": 1.0,
                 "accelerator_type:A100": 1.0, "licence": 4.0}
    assert node_capacity(resources, TYPES) == TYPES.of(
        {"memory-mb": 1536, "vcores": 3, "yarn.io/gpu": 2, "fpga": 1})
    assert node_capacity({}, TYPES) == TYPES.of({})
    # a Ray resource named exactly as a YARN type wins over one that maps by yarn.io/<lower>
    both = {"yarn.io/gpu": 4.0, "GPU": 1.0}
    assert node_capacity(both, TYPES) == TYPES.of({"yarn.io/gpu": 4})
    assert node_capacity(dict(reversed(both.items())), TYPES) == TYPES.of({"yarn.io/gpu": 4})


def test_which_ray_resources_map_to_which_yarn_types() -> None:
    assert yarn_type_of("GPU", TYPES) == "yarn.io/gpu"
    assert yarn_type_of("fpga", TYPES) == "fpga"
    assert yarn_type_of("FPGA", TYPES) is None  # no yarn.io/fpga among the server's types
    for unmapped in ("CPU", "memory", "object_store_memory", "node:127.0.0.1",
                     "node:__internal_head__", "accelerator_type:T4", "licence"):
        assert yarn_type_of(unmapped, TYPES) is None, unmapped


def test_the_rack_is_the_zone_label_as_a_path() -> None:
    assert node_rack({"ray.io/availability-zone": "us-west-2a"}) == "/us-west-2a"
    assert node_rack({"ray.io/availability-zone": "/r1"}) == "/r1"
    assert node_rack({}) == DEFAULT_RACK == "/default-rack"
    assert node_rack({"zone": "z"}, label="zone") == "/z"


def test_a_non_zero_exit_has_yarns_diagnostics() -> None:
    assert exit_of_result(0, "ignored") == (0, "")
    status, diagnostics = exit_of_result(3, "boom\n")
    assert status == 3
    assert diagnostics.startswith("Container exited with a non-zero exit code 3.")
    assert diagnostics.endswith("boom\n")


# -- the cluster's nodes ------------------------------------------------------------------------

def test_the_nodes_are_rays_with_their_resources(ray_cluster: RayCluster,
                                                 executor: RayExecutor) -> None:
    head, gpu, licensed = ray_cluster.head, ray_cluster.gpu, ray_cluster.licensed
    offers = {n.id: n for n in executor.nodes()}
    # conftest's nodes: head 2 CPUs, 2 GiB, fpga 2; gpu 1 CPU, 1 GPU, 1 GiB; licensed 3 CPUs,
    # 3 GiB and "licence" (no type of the server's)
    assert {k: v.capacity for k, v in offers.items()} == {
        yarn_id(head): TYPES.of({"memory-mb": 2048, "vcores": 2, "fpga": 2}),
        yarn_id(gpu): TYPES.of({"memory-mb": 1024, "vcores": 1, "yarn.io/gpu": 1}),
        yarn_id(licensed): TYPES.of({"memory-mb": 3072, "vcores": 3}),
    }
    assert {n.rack for n in offers.values()} == {DEFAULT_RACK}
    for node in (head, gpu, licensed):
        assert executor.ray_node_id(yarn_id(node)) == node.node_id
    assert len(set(offers)) == 3  # three raylets on one host: three NodeIds, by port


# -- containers ----------------------------------------------------------------------------------

def test_each_container_runs_on_the_node_it_was_placed_on(
        ray_cluster: RayCluster, containers: Containers, host: Recorder) -> None:
    # three on the 1-CPU node at once: Ray's CPU bookkeeping does not hold them back (the RM
    # placed them), and hard affinity keeps them there although other nodes have CPUs free
    nodes = [ray_cluster.gpu] * 3 + [ray_cluster.head, ray_cluster.licensed]
    launches = [containers.launch(yarn_id(n), f"echo ${RAY_NODE_ID_VARIABLE} > ran-on; "
                                  "touch started; for i in $(seq 300); do "
                                  "[ $(ls ../*/started | wc -l) -ge 5 ] && exit 0; sleep 0.1; "
                                  "done; exit 9") for n in nodes]
    for launch in launches:
        assert host.wait(launch.container) == (0, "")  # all five ran at the same time
    for node, launch in zip(nodes, launches, strict=True):
        assert (launch.work_dir / "ran-on").read_text().strip() == node.node_id


def test_the_container_has_yarns_environment_its_folder_and_its_logs(
        ray_cluster: RayCluster, containers: Containers, host: Recorder) -> None:
    launch = containers.launch(yarn_id(ray_cluster.licensed),
                               "env; pwd; echo to-stderr >&2; echo more >&2",
                               environment={"MY_VAR": "mine", "NM_HOST": "127.0.0.1"})
    assert host.wait(launch.container) == (0, "")
    out = (launch.log_dir / "stdout").read_text().splitlines()
    seen = dict(line.split("=", 1) for line in out if "=" in line)
    assert seen["CONTAINER_ID"] == launch.container
    assert seen["APPLICATION_ID"] == APP
    assert (seen["MY_VAR"], seen["NM_HOST"]) == ("mine", "127.0.0.1")
    assert "PATH" in seen  # the worker's own environment under the container's
    assert out[-1] == str(launch.work_dir)
    assert (launch.log_dir / "stderr").read_text() == "to-stderr\nmore\n"


def test_exit_codes_come_back_as_container_statuses(
        ray_cluster: RayCluster, containers: Containers, host: Recorder) -> None:
    node = yarn_id(ray_cluster.head)
    ok = containers.launch(node, "true")
    failing = containers.launch(node, "echo the-cause >&2; exit 3")
    killed = containers.launch(node, "kill -9 $$")
    assert host.wait(ok.container) == (0, "")
    status, diagnostics = host.wait(failing.container)
    assert status == 3
    assert "non-zero exit code 3" in diagnostics and "the-cause" in diagnostics
    assert host.wait(killed.container)[0] == 128 + 9  # as bash reports a signal


def test_a_launch_that_cannot_start_is_reported(
        ray_cluster: RayCluster, executor: RayExecutor, containers: Containers,
        host: Recorder, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    containers.folder = blocker  # its work folder cannot be made under a file
    launch = containers.launch(yarn_id(ray_cluster.head), "true")
    status, diagnostics = host.wait(launch.container)
    assert status == LAUNCH_FAILED
    assert diagnostics.startswith("Failed to launch container")


def test_a_launch_on_a_node_ray_does_not_have_is_lost(
        containers: Containers, host: Recorder) -> None:
    launch = containers.launch("10.255.255.1:1", "true")
    assert host.wait(launch.container) == (-100, "Container released on a *lost* node")


def test_stop_cancels_the_task_forced_and_its_processes_are_gone(
        ray_cluster: RayCluster, executor: RayExecutor, containers: Containers,
        host: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    cancels: list[tuple[Any, dict[str, Any]]] = []
    cancel = ray.cancel

    def spy(ref: Any, **options: Any) -> Any:
        cancels.append((ref, options))
        return cancel(ref, **options)

    monkeypatch.setattr(ray, "cancel", spy)
    # a container that ignores SIGTERM and has a child that does too: only SIGKILL ends them
    launch = containers.launch(yarn_id(ray_cluster.licensed),
                               "echo $$ > pid; trap '' TERM; (trap '' TERM; sleep 60) & "
                               "echo $! > child; wait")
    group = containers.started(launch)
    child = launch.work_dir / "child"
    wait_until(lambda: child.exists() and child.read_text().strip(), "the child started")
    assert len(live_in_group(group)) >= 2
    ref = executor._by_container[(APP, launch.container)]
    began = time.monotonic()
    executor.stop(APP, launch.container, 250)
    assert cancels == [(ref, {"force": True})]
    wait_until(lambda: not live_in_group(group), "the container's processes ended")
    took = time.monotonic() - began
    assert not pid_alive(int(child.read_text()))
    assert took < 10.0, took
    # Ray ends the task's worker: the task fails as cancelled (or its worker as crashed) — or,
    # where the worker's way out let the task return first, it returns its launcher's end:
    # killed with the worker's process group (SIGKILL, -9), or exited as its guard does once
    # it has ended the container (143, ray_node's GUARD). Never the container's own exit.
    try:
        code, _ = ray.get(ref, timeout=BOUND_S)
    except (ray.exceptions.TaskCancelledError, ray.exceptions.WorkerCrashedError):
        pass
    else:
        assert code in (-9, 143), code
    time.sleep(0.5)
    assert host.exits == {}  # what the RM stopped is not reported back


def test_the_sigterm_comes_first_and_the_sigkill_after_the_delay(
        ray_cluster: RayCluster, tmp_path: Path) -> None:
    host = Recorder()
    executor = RayExecutor(ray_cluster.address, types=TYPES, sigkill_delay_ms=1500)
    executor.start(host)
    made = Containers(executor, host, tmp_path)
    try:
        got_term = tmp_path / "got-term"
        launch = made.launch(yarn_id(ray_cluster.head),
                             f"echo $$ > pid; trap 'touch {got_term}' TERM; "
                             "while true; do sleep 0.05; done")
        group = made.started(launch)
        executor.stop(APP, launch.container, 1500)
        wait_until(got_term.exists, "SIGTERM reached the container")
        termed = time.monotonic()
        assert live_in_group(group)  # it survives the SIGTERM ...
        wait_until(lambda: not live_in_group(group), "the SIGKILL")
        # ... until the SIGKILL, the delay after (the guard's sleep)
        assert time.monotonic() - termed > 0.8
    finally:
        executor.close()
    assert not live_in_group(group)


def test_a_delay_of_zero_is_sigkill_at_once(ray_cluster: RayCluster, tmp_path: Path) -> None:
    host = Recorder()
    executor = RayExecutor(ray_cluster.address, types=TYPES, sigkill_delay_ms=0)
    executor.start(host)
    made = Containers(executor, host, tmp_path)
    got_term = tmp_path / "got-term"
    try:
        launch = made.launch(yarn_id(ray_cluster.gpu),
                             f"echo $$ > pid; trap 'touch {got_term}' TERM; "
                             "while true; do sleep 0.05; done")
        group = made.started(launch)
        executor.stop(APP, launch.container, 0)
        wait_until(lambda: not live_in_group(group), "the SIGKILL")
    finally:
        executor.close()
    assert not got_term.exists()  # no SIGTERM came first (ContainerCleanup with 0)


def test_close_leaves_nothing_running(ray_cluster: RayCluster, tmp_path: Path) -> None:
    host = Recorder()
    executor = RayExecutor(ray_cluster.address, types=TYPES)
    executor.start(host)
    made = Containers(executor, host, tmp_path)
    launches = [made.launch(yarn_id(n), "echo $$ > pid; trap '' TERM; sleep 60 & wait")
                for n in (ray_cluster.head, ray_cluster.gpu, ray_cluster.licensed)]
    groups = [made.started(launch) for launch in launches]
    assert all(live_in_group(g) for g in groups)
    began = time.monotonic()
    executor.close()
    for group in groups:
        wait_until(lambda g=group: not live_in_group(g), f"group {group} ended")
    assert time.monotonic() - began < 15.0
    assert host.exits == {}
    executor.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        executor.nodes()


def test_many_short_containers_end_in_bounded_time(
        ray_cluster: RayCluster, containers: Containers, host: Recorder) -> None:
    nodes = [ray_cluster.head, ray_cluster.gpu, ray_cluster.licensed]
    began = time.monotonic()
    launches = [containers.launch(yarn_id(nodes[i % 3]), "sleep 0.2", res(64, 1))
                for i in range(12)]
    for launch in launches:
        assert host.wait(launch.container) == (0, "")
    assert time.monotonic() - began < 20.0
