"""The local executor on real processes: environment, logs, exit codes, SIGTERM then SIGKILL,
no process left behind by close()."""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairshare.resources.vector import DEFAULT_TYPES
from fairshare.server.executors.base import Launch
from fairshare.server.executors.local import LAUNCH_FAILED, LocalExecutor, probe_cgroup

APP = "application_1700000000000_0001"
CONTAINER = f"container_{APP}_01_000002"


class Host:
    """An ExecutorHost that keeps the exits and lets a test wait for them."""

    def __init__(self) -> None:
        self.exits: list[tuple[str, str, int, str]] = []
        self.starts: dict[str, tuple[int, int]] = {}  # container → (pid, start ticks)
        self._cond = threading.Condition()

    def container_started(self, app: str, container: str, pid: int, started: int) -> None:
        self.starts[container] = (pid, started)

    def container_exited(self, app: str, container: str, exit_status: int,
                         diagnostics: str) -> None:
        with self._cond:
            self.exits.append((app, container, exit_status, diagnostics))
            self._cond.notify_all()

    def wait(self, count: int, timeout: float = 10.0) -> list[tuple[str, str, int, str]]:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.exits) >= count, timeout), self.exits
            return list(self.exits)


@pytest.fixture
def executor() -> Iterator[tuple[LocalExecutor, Host]]:
    ex = LocalExecutor()
    host = Host()
    ex.start(host)
    yield ex, host
    ex.close()


def launch(tmp: Path, command: str, n: int = 2, env: dict[str, str] | None = None,
           memory: int = 512) -> Launch:
    container = f"container_{APP}_01_{n:06d}"
    app_dir = tmp / "appcache" / APP
    return Launch(APP, 1, container, "host1.example:8041",
                  DEFAULT_TYPES.of({"memory-mb": memory, "vcores": 1}), False, command,
                  env or {}, app_dir / container, tmp / "logs" / APP / container)


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (/proc/<pid>/stat's state)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_pid(ex: LocalExecutor, container: str, timeout: float = 5.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid = ex.pid(APP, container)
        if pid is not None:
            return pid
        time.sleep(0.01)
    raise AssertionError(f"{container} never started")


def test_exit_codes_and_signals_reach_the_host(executor: tuple[LocalExecutor, Host],
                                               tmp_path: Path) -> None:
    ex, host = executor
    ex.launch(launch(tmp_path, "exit 0", 2))
    ex.launch(launch(tmp_path, "exit 3", 3))
    ex.launch(launch(tmp_path, "kill -9 $$", 4))  # SIGKILL: bash's 128 + 9
    exits = {c: status for _, c, status, _ in host.wait(3)}
    assert exits == {f"container_{APP}_01_000002": 0, f"container_{APP}_01_000003": 3,
                     f"container_{APP}_01_000004": 128 + 9}


def test_the_process_sees_yarns_environment_and_the_launchs_own(
        executor: tuple[LocalExecutor, Host], tmp_path: Path) -> None:
    ex, host = executor
    spec = launch(tmp_path, "env; echo to-stderr >&2", env={"MY_VAR": "mine", "USER": "alice",
                                                            "CONTAINER_ID": "overridden?"})
    ex.launch(spec)
    assert host.wait(1)[0][2] == 0
    seen = dict(line.split("=", 1) for line in
                (spec.log_dir / "stdout").read_text().splitlines() if "=" in line)
    # ContainerLaunch.sanitizeEnv: the launch's own, YARN's non-modifiable ones over them
    assert seen["MY_VAR"] == "mine"
    assert seen["CONTAINER_ID"] == "container_1700000000000_0001_01_000002"
    assert seen["APPLICATION_ID"] == APP
    assert (seen["NM_HOST"], seen["NM_PORT"], seen["NM_HTTP_PORT"]) == (
        "host1.example", "8041", "9041")
    assert seen["LOCAL_DIRS"] == str(spec.work_dir.parent)
    assert seen["LOG_DIRS"] == str(spec.log_dir)
    assert seen["PWD"] == str(spec.work_dir)
    assert (seen["USER"], seen["LOGNAME"]) == ("alice", "alice")
    assert "HOME" in seen
    assert (spec.log_dir / "stderr").read_text() == "to-stderr\n"


def test_jvm_pid_is_the_shell_and_the_shell_leads_its_own_group(
        executor: tuple[LocalExecutor, Host], tmp_path: Path) -> None:
    ex, host = executor
    spec = launch(tmp_path, 'echo "$JVM_PID $$ $(ps -o pgid= -p $$) $(ps -o sid= -p $$)"')
    ex.launch(spec)
    host.wait(1)
    jvm_pid, shell, pgid, sid = (spec.log_dir / "stdout").read_text().split()
    assert jvm_pid == shell == pgid == sid  # a new session: its own process group
    assert int(shell) != os.getpgrp()


def test_stop_sends_sigterm_then_sigkill_after_the_grace_and_reports_nothing(
        executor: tuple[LocalExecutor, Host], tmp_path: Path) -> None:
    ex, host = executor
    marker = tmp_path / "got-term"
    # the shell traps TERM (and its sleep inherits nothing: it runs in the background)
    ex.launch(launch(tmp_path, f"trap 'touch {marker}' TERM; while true; do sleep 0.05; done"))
    pid = wait_pid(ex, CONTAINER)
    time.sleep(0.2)  # the trap is set
    began = time.monotonic()
    ex.stop(APP, CONTAINER, 600)
    time.sleep(0.3)
    assert marker.exists()  # SIGTERM arrived
    assert alive(pid)  # ... and was survived, until the SIGKILL
    while alive(pid) and time.monotonic() - began < 5:
        time.sleep(0.01)
    took = time.monotonic() - began
    assert not alive(pid)
    assert 0.55 <= took < 2.0, took
    time.sleep(0.1)
    assert host.exits == []  # a stopped container is not reported


def test_a_stop_without_a_grace_takes_the_executors(tmp_path: Path) -> None:
    ex = LocalExecutor(grace_ms=0)  # yarn.nodemanager.sleep-delay-before-sigkill.ms 0
    host = Host()
    ex.start(host)
    try:
        marker = tmp_path / "got-term"
        ex.launch(launch(tmp_path, f"trap 'touch {marker}' TERM; while true; do sleep 0.05; "
                                   "done"))
        pid = wait_pid(ex, CONTAINER)
        time.sleep(0.2)  # the trap is set
        ex.stop(APP, CONTAINER)
        deadline = time.monotonic() + 5
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not alive(pid) and not marker.exists()  # SIGKILL at once: no SIGTERM first
    finally:
        ex.close()


def test_stop_of_a_process_that_honours_sigterm_ends_it_at_once(
        executor: tuple[LocalExecutor, Host], tmp_path: Path) -> None:
    ex, host = executor
    ex.launch(launch(tmp_path, "sleep 30"))
    pid = wait_pid(ex, CONTAINER)
    began = time.monotonic()
    ex.stop(APP, CONTAINER, 5000)
    while alive(pid) and time.monotonic() - began < 5:
        time.sleep(0.01)
    assert time.monotonic() - began < 1.0
    assert host.exits == []


def test_the_grace_is_the_groups_when_the_shell_ends_at_sigterm(
        executor: tuple[LocalExecutor, Host], tmp_path: Path) -> None:
    """``ContainerCleanup`` SIGTERMs the group, and the ``DelayedProcessKiller`` SIGKILLs the
    group after the delay: a child that takes 0.2 s to save its work on SIGTERM has the time,
    although the shell that started it ends at once."""
    ex, host = executor
    saved, child_pid = tmp_path / "saved", tmp_path / "child"
    ex.launch(launch(tmp_path, f"(trap 'sleep 0.2; echo saved > {saved}; exit 0' TERM; "
                               f"while :; do sleep 0.02; done) & echo $! > {child_pid}; wait"))
    shell = wait_pid(ex, CONTAINER)
    deadline = time.monotonic() + 5
    while not (child_pid.exists() and child_pid.read_text().strip()):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    child = int(child_pid.read_text())
    time.sleep(0.2)  # the child's trap is set
    ex.stop(APP, CONTAINER, 600)
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(shell) and not alive(child)
    assert saved.read_text() == "saved\n"  # it finished within the grace
    assert ex.running() == [] and host.exits == []


def test_what_a_container_leaves_behind_gets_sigterm_then_sigkill(
        executor: tuple[LocalExecutor, Host], tmp_path: Path) -> None:
    """After a container's shell exits, the NodeManager cleans its group up as it stops one
    (``ContainerImpl``'s exit transitions): SIGTERM, then SIGKILL after the delay. The exit is
    reported at once."""
    ex, host = executor
    got_term, child_pid = tmp_path / "got-term", tmp_path / "child"
    ex.launch(launch(tmp_path, f"(trap 'echo $EPOCHREALTIME > {got_term}' TERM; "
                               f"while :; do sleep 0.02; done) & echo $! > {child_pid}; "
                               "sleep 0.3; exit 5"))
    deadline = time.monotonic() + 5
    while not (child_pid.exists() and child_pid.read_text().strip()):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    pidfd = os.pidfd_open(int(child_pid.read_text()))
    try:
        (_, _, status, _), = host.wait(1)
        assert status == 5
        assert select.select([pidfd], [], [], 5)[0]  # readable once the child has ended
        ended = time.time()
    finally:
        os.close(pidfd)
    # it got SIGTERM, and outlived it until the SIGKILL 250 ms later (less the time its trap
    # may take to run on a loaded machine)
    assert ended - float(got_term.read_text()) >= 0.1


def test_close_leaves_no_process_behind(tmp_path: Path) -> None:
    ex = LocalExecutor()
    host = Host()
    ex.start(host)
    children = tmp_path / "children"
    # a container whose shell ignores TERM and has a background child that does too
    ex.launch(launch(tmp_path, f"trap '' TERM; sleep 60 & echo $! > {children}; wait", 2))
    ex.launch(launch(tmp_path, "sleep 60", 3))
    shell = wait_pid(ex, CONTAINER)
    other = wait_pid(ex, f"container_{APP}_01_000003")
    deadline = time.monotonic() + 5
    while not (children.exists() and children.read_text().strip()):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    child = int(children.read_text())
    assert alive(shell) and alive(child) and alive(other)
    began = time.monotonic()
    ex.close()
    assert time.monotonic() - began < 3.0
    for pid in (shell, child, other):
        assert not alive(pid), pid
    assert ex.running() == []
    ex.close()  # idempotent


def test_a_background_child_does_not_outlive_its_container(
        executor: tuple[LocalExecutor, Host], tmp_path: Path) -> None:
    ex, host = executor
    children = tmp_path / "children"
    ex.launch(launch(tmp_path, f"sleep 60 & echo $! > {children}; exit 0"))
    assert host.wait(1)[0][2] == 0
    child = int(children.read_text())
    deadline = time.monotonic() + 2
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(child)


def test_a_launch_that_cannot_start_is_reported_as_an_exit(
        executor: tuple[LocalExecutor, Host], tmp_path: Path) -> None:
    ex, host = executor
    blocker = tmp_path / "file"
    blocker.write_text("")
    bad = Launch(APP, 1, CONTAINER, "h:1", DEFAULT_TYPES.of({"memory-mb": 1, "vcores": 1}),
                 False, "true", {}, blocker / "work", tmp_path / "log")
    ex.launch(bad)
    (_, container, status, diagnostics), = host.wait(1)
    assert (container, status) == (CONTAINER, LAUNCH_FAILED)
    assert "could not be launched" in diagnostics


def test_many_containers_end_in_bounded_time(executor: tuple[LocalExecutor, Host],
                                             tmp_path: Path) -> None:
    ex, host = executor
    began = time.monotonic()
    for n in range(2, 22):
        ex.launch(launch(tmp_path, "sleep 0.2", n))
    exits = host.wait(20)
    assert [e[2] for e in exits] == [0] * 20
    assert time.monotonic() - began < 5


def test_memory_enforcement_is_said_either_way(caplog: pytest.LogCaptureFixture) -> None:
    ex = LocalExecutor()
    base, note = probe_cgroup()
    assert ex.memory_enforced is (base is not None)
    assert note == ex.memory_note and note
    off = LocalExecutor(enforce_memory=False)
    assert not off.memory_enforced
    with caplog.at_level(logging.INFO, logger="fairshare.server.executors.local"):
        off.start(Host())  # the server's log says so when it starts
        off.close()
    said, = (r for r in caplog.records if "memory" in r.getMessage())
    assert (said.levelno, said.getMessage()) == (
        logging.WARNING, "local executor: containers' memory is bookkept but not enforced "
        "(memory enforcement turned off)")


def test_a_cgroup_base_that_cannot_take_children_is_refused(tmp_path: Path) -> None:
    # an ordinary directory: mkdir works but no controllers appear, as with no delegation
    base, note = probe_cgroup(tmp_path)
    assert base is None
    assert "memory controller" in note


def test_the_cgroup_files_written_and_read(tmp_path: Path) -> None:
    """Where cgroups v2 are delegated (not on this suite's machines, whose memory controller is
    cgroup v1's): a container's cgroup gets memory.max in bytes, the shell joins it before the
    command runs, and an oom_kill in memory.events is reported as KILLED_EXCEEDED_PMEM. An
    ordinary directory stands in for the cgroup filesystem."""
    base = tmp_path / "cgroup"
    base.mkdir()
    ex = LocalExecutor(enforce_memory=False)
    ex._cgroup_base = base  # what a successful probe_cgroup gives
    host = Host()
    ex.start(host)
    try:
        go = tmp_path / "go"  # the container ends once the test has written memory.events
        spec = launch(tmp_path, f"for _ in $(seq 500); do [ -e {go} ] && break; sleep 0.01; "
                                "done", memory=64)
        ex.launch(spec)
        pid = wait_pid(ex, CONTAINER)
        cgroup = base / f"fairshare-{CONTAINER}"
        assert (cgroup / "memory.max").read_text() == str(64 * 1024 * 1024)
        deadline = time.monotonic() + 5
        procs = cgroup / "cgroup.procs"
        while not (procs.exists() and procs.read_text().strip()):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert procs.read_text().strip() == str(pid)
        (cgroup / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
        go.touch()
        (_, _, status, diagnostics), = host.wait(1)
        assert status == -104  # ContainerExitStatus.KILLED_EXCEEDED_PMEM
        assert "beyond physical memory limits" in diagnostics
    finally:
        ex.close()
