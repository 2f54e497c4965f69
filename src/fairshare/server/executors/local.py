"""The ``local`` executor: every container is a real process on this machine.

What a NodeManager's ``DefaultContainerExecutor`` does, on one host, for every node the
scheduler knows:

* a container is ``bash -c <command>`` started in its own session, so in its own process group
  (YARN starts the launch script with ``setsid`` so that the whole tree can be signalled);
* in its work directory, with stdout and stderr to ``<log_dir>/stdout`` and ``<log_dir>/stderr``
  (YARN's ``<LOG_DIR>/stdout`` redirection of DistributedShell and MapReduce);
* with the environment ``ContainerLaunch.sanitizeEnv`` gives: the server's own (the NM's
  environment is inherited by ``DefaultContainerExecutor``'s shell), then the launch's, then
  the variables a container may not override — ``CONTAINER_ID``, ``NM_HOST``, ``NM_PORT``,
  ``NM_HTTP_PORT``, ``LOCAL_DIRS``, ``LOG_DIRS``, ``USER``, ``LOGNAME``, ``HOME``, ``PWD``,
  ``JVM_PID`` (the shell's ``$$``) — and fairshare's ``APPLICATION_ID`` (YARN leaves the AM to
  derive it from ``CONTAINER_ID``);
* an exit is reported to the host with the shell's exit code (a signal: 128 + signal);
* ``stop`` sends SIGTERM to the group, then SIGKILL to the group ``grace_ms`` later
  (``ContainerCleanup.signalProcess`` with a ``DelayedProcessKiller`` after
  ``yarn.nodemanager.sleep-delay-before-sigkill.ms``), and reports nothing. The grace is the
  group's, not the shell's: a child that saves its work on SIGTERM keeps it when the shell
  that started it ends at once;
* when a container's shell ends by itself, what is left of its group gets the same SIGTERM,
  then SIGKILL (``ContainerImpl``'s exit transitions ask for that clean-up), so that a
  background child cannot outlive its container. Until its group is gone the shell is left
  unreaped, so that its pid — the group's id — cannot be taken by another process meanwhile,
  and ``close`` returns only once every group is gone.

Memory is enforced with cgroups v2 when this process can make a child cgroup under its own
with the ``memory`` controller (``memory.max`` = the container's memory, ``memory.swap.max`` 0;
an OOM kill is reported as ``KILLED_EXCEEDED_PMEM``, -104, as the NM's
``ContainersMonitorImpl`` reports a container over its physical memory). Where it cannot — no
cgroup v2 hierarchy, the ``memory`` controller not delegated, no permission (the hybrid
cgroup v1 layout of many hosts and CI machines) — memory is bookkept by the scheduler but NOT
enforced: :attr:`LocalExecutor.memory_enforced` is False and :attr:`LocalExecutor.memory_note`
says why. vcores are never enforced (YARN enforces them only with ``CGroupsCpuResourceHandler``).

One watcher thread does everything slow: it starts the processes (``launch`` only queues), waits
on their pidfds and on a wake-up pipe with ``select`` (no polling), fires the SIGKILL deadlines,
reaps every process and reports the exits.
"""

from __future__ import annotations

import contextlib
import errno
import getpass
import logging
import os
import selectors
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from fairshare.server.executors.base import (
    KILLED_EXCEEDED_PMEM,
    SIGKILL_DELAY_MS,
    ExecutorHost,
    Launch,
    NodeOffer,
)
from fairshare.server.view import node_http_address, yarn_container_id

log = logging.getLogger(__name__)

# ContainerLaunch.call: ``ret`` starts at -1 and is what a launch that threw reports
LAUNCH_FAILED = -1
# ContainerExecutor.ExitCode.LOST: a container the NodeManager could not reacquire
EXIT_LOST = 154
EXIT_CODE_SUFFIX = ".exitcode"  # beside the container's log directory
# variables of the server's own environment a container never inherits: another AM's token
_NOT_INHERITED_PREFIX = "FAIRSHARE_AM_"
# a SIGKILLed group is looked at this often until it is gone (SIGKILL is delivered when each
# process next runs), and left after KILL_WAIT_S (a process in uninterruptible sleep)
_GONE_POLL_S = 0.01
KILL_WAIT_S = 5.0
CLOSE_GRACE_MS = 10_000  # close() gives no container a longer grace than this


@dataclass(frozen=True, slots=True)
class _Stop:
    app: str
    container: str
    grace_ms: int


@dataclass(frozen=True, slots=True)
class _Adopt:
    launch: Launch
    pid: int | None  # its running shell, as adopt() located it (None: it has ended)


@dataclass(slots=True)
class _Running:
    launch: Launch
    process: subprocess.Popen[bytes] | None  # None: adopted (started by a server before)
    pidfd: int
    cgroup: Path | None
    pid: int = 0
    stopped: bool = False  # the loop stopped it, or its exit is reported: nothing more to say
    kill_at: float | None = None  # monotonic seconds: SIGKILL the group then
    killed_at: float | None = None  # monotonic seconds: the group was SIGKILLed then
    shell_ended: bool = False  # the shell exited, unreaped: the rest of its group lingers


class LocalExecutor:
    """Containers as process groups on this machine (see the module docstring; memory is
    enforced only where cgroups v2 lets this process make child cgroups — otherwise
    :attr:`memory_enforced` is False and memory is bookkept, not enforced)."""

    kind = "local"
    memory_enforced: bool = False  # set by the constructor's probe
    memory_note: str = ""  # why memory is or is not enforced

    def __init__(self, *, http_address: Callable[[str], str] = node_http_address,
                 enforce_memory: bool = True, cgroup_base: Path | None = None,
                 grace_ms: int = SIGKILL_DELAY_MS) -> None:
        self._http_address = http_address
        # the NodeManager's yarn.nodemanager.sleep-delay-before-sigkill.ms, for what it stops
        # of its own accord: what a container leaves behind, and every container at close()
        self.grace_ms = grace_ms
        self._host: ExecutorHost | None = None
        self._lock = threading.Lock()
        self._actions: list[Launch | _Stop | _Adopt] = []
        self._running: dict[tuple[str, str], _Running] = {}
        self._lingering: list[_Running] = []  # shells ended, their groups given the grace
        self._closing = False
        self._closed = False
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self.memory_enforced = False
        self.memory_note = "memory enforcement turned off"
        self._cgroup_base: Path | None = None
        if enforce_memory:
            self._cgroup_base, self.memory_note = probe_cgroup(cgroup_base)
            self.memory_enforced = self._cgroup_base is not None

    # -- the Executor protocol ------------------------------------------------------------

    def start(self, host: ExecutorHost) -> None:
        # said when the server starts (its logging is set up by then), either way
        if self.memory_enforced:
            log.info("local executor: containers' memory enforced (%s)", self.memory_note)
        else:
            log.warning("local executor: containers' memory is bookkept but not enforced "
                        "(%s)", self.memory_note)
        self._host = host
        self._thread = threading.Thread(target=self._watch, name="local-executor", daemon=True)
        self._thread.start()

    def nodes(self) -> Sequence[NodeOffer] | None:
        return None  # the server's --nodes: every node is this machine

    def launch(self, launch: Launch) -> None:
        self._queue(launch)

    def adopt(self, launch: Launch, pid: int | None, started: int | None) -> bool:
        """Take over ``launch``'s container, started before a restart (its pid and start as
        stored; None: look for it by its ``CONTAINER_ID``): its exit is then reported as a
        launched one's is — at once if it ended meanwhile. False, and nothing done, when its
        process never started (allocated, not yet launched when the server stopped)."""
        found = _locate(launch.container, pid, started)
        if found is None and pid is None and _written_exit_code(launch) is None:
            return False
        self._queue(_Adopt(launch, found))
        return True

    def stop(self, app: str, container: str, grace_ms: int | None = None) -> None:
        self._queue(_Stop(app, container, self.grace_ms if grace_ms is None else grace_ms))

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closing = True
        self._wake()
        if self._thread is not None:
            # every group gets SIGTERM, then SIGKILL after the grace: bounded
            self._thread.join(timeout=30.0)
        with self._lock:
            self._closed = True
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    # -- what tests and the loop may read -------------------------------------------------

    def pid(self, app: str, container: str) -> int | None:
        """The process id of a running container's shell (its process group's id)."""
        with self._lock:
            running = self._running.get((app, container))
            return None if running is None else running.pid

    def running(self) -> list[tuple[str, str]]:
        with self._lock:
            return list(self._running)

    # -- the watcher thread ---------------------------------------------------------------

    def _queue(self, action: Launch | _Stop | _Adopt) -> None:
        with self._lock:
            refused = self._closing
            if not refused:
                self._actions.append(action)
        if refused:  # a stop has nothing left to do; a launch fails
            if isinstance(action, Launch):
                self._report(action, LAUNCH_FAILED, "the executor is closed")
            elif isinstance(action, _Adopt):
                self._report(action.launch, EXIT_LOST, "the executor is closed")
            return
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _watch(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self._wake_r, selectors.EVENT_READ, None)
        try:
            while True:
                with self._lock:
                    actions, self._actions = self._actions, []
                    closing = self._closing
                for action in actions:
                    self._apply(action, selector)
                if closing:
                    self._end_all(selector)
                    return
                timeout = self._fire_deadlines()
                for key, _ in selector.select(timeout):
                    if key.data is None:
                        _drain(self._wake_r)
                    else:
                        self._shell_ended(key.data, selector)
        finally:
            selector.close()

    def _apply(self, action: Launch | _Stop | _Adopt,
               selector: selectors.BaseSelector) -> None:
        if isinstance(action, Launch):
            self._spawn(action, selector)
            return
        if isinstance(action, _Adopt):
            self._adopt(action, selector)
            return
        with self._lock:
            running = self._running.get((action.app, action.container))
        if running is not None and not running.stopped:
            self._terminate(running, action.grace_ms)

    def _terminate(self, running: _Running, grace_ms: int) -> None:
        running.stopped = True
        if grace_ms <= 0:
            self._kill(running)
            return
        _signal_group(running.pid, signal.SIGTERM)
        running.kill_at = time.monotonic() + grace_ms / 1000

    def _kill(self, running: _Running) -> None:
        _signal_group(running.pid, signal.SIGKILL)
        running.kill_at = None
        running.killed_at = time.monotonic()

    def _fire_deadlines(self) -> float | None:
        """SIGKILL the groups whose grace ran out, reap the ended shells whose groups are
        gone; the seconds to the next deadline."""
        now = time.monotonic()
        nearest: float | None = None
        with self._lock:
            running = list(self._running.values())
        for r in [*running, *self._lingering]:
            if r.kill_at is not None and r.kill_at <= now:
                self._kill(r)
            elif r.kill_at is not None and (nearest is None or r.kill_at < nearest):
                nearest = r.kill_at
        for r in list(self._lingering):
            if r.killed_at is None:
                continue
            if not _others_in_group(r.pid) or now - r.killed_at > KILL_WAIT_S:
                self._lingering.remove(r)
                self._finish(r)
            elif nearest is None or now + _GONE_POLL_S < nearest:
                nearest = now + _GONE_POLL_S
        return None if nearest is None else max(0.0, nearest - now)

    def _spawn(self, launch: Launch, selector: selectors.BaseSelector) -> None:
        try:
            launch.work_dir.mkdir(parents=True, exist_ok=True)
            launch.log_dir.mkdir(parents=True, exist_ok=True)
            cgroup = self._make_cgroup(launch)
            env = self.environment(launch)
            with open(launch.log_dir / "stdout", "ab") as out, \
                    open(launch.log_dir / "stderr", "ab") as err:
                process = subprocess.Popen(
                    ["bash", "-c", _script(launch.command, cgroup, exit_code_file(launch))],
                    cwd=launch.work_dir,
                    env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                    start_new_session=True, close_fds=True)
            pidfd = os.pidfd_open(process.pid)
        except OSError as e:
            self._report(launch, LAUNCH_FAILED, f"the container could not be launched: {e}")
            return
        self._watch_shell(_Running(launch, process, pidfd, cgroup, process.pid), selector)

    def _watch_shell(self, running: _Running, selector: selectors.BaseSelector) -> None:
        """A container's shell runs: waited on (its pidfd), and the host told its pid and
        start, what a restart re-attaches to."""
        launch = running.launch
        with self._lock:
            self._running[(launch.app, launch.container)] = running
        selector.register(running.pidfd, selectors.EVENT_READ, running)
        started = _start_ticks(running.pid)
        if self._host is not None and started is not None:
            self._host.container_started(launch.app, launch.container, running.pid, started)

    def _adopt(self, adopt: _Adopt, selector: selectors.BaseSelector) -> None:
        """Take over a container a server before this one started (a work-preserving
        restart), its shell located by :meth:`adopt`. Its exit code is the one its script
        writes (the shell is not this process's child); one that ended while no server ran is
        reported with it, or as lost without one."""
        launch = adopt.launch
        pid = adopt.pid
        pidfd = -1
        if pid is not None:
            try:
                pidfd = os.pidfd_open(pid)
            except OSError:
                pid = None
        if pid is None:
            self._report_ended(launch)
            return
        self._watch_shell(_Running(launch, None, pidfd, None, pid), selector)

    def _report_ended(self, launch: Launch) -> None:
        """A container whose shell is gone: its script's exit code, or lost without one
        (the NodeManager's ``ExitCode.LOST`` for a container it cannot reacquire)."""
        status = _written_exit_code(launch)
        if status is None:
            self._report(launch, EXIT_LOST, f"Container {launch.container} was lost: its "
                         "process ended while no ResourceManager ran, and left no exit code")
        else:
            self._report(launch, status, _exit_diagnostics(status))

    def _shell_ended(self, running: _Running, selector: selectors.BaseSelector) -> None:
        """A container's shell exited (it stays unreaped, so its pid — the group's id — is not
        reused): its exit is reported unless the loop stopped it, and the rest of its group,
        if any, gets its grace before the SIGKILL."""
        selector.unregister(running.pidfd)
        running.shell_ended = True
        launch = running.launch
        with self._lock:
            self._running.pop((launch.app, launch.container), None)
        ended_by_itself = not running.stopped
        if ended_by_itself:
            self._report_exit(running)
        if not _others_in_group(running.pid):
            self._finish(running)
            return
        if ended_by_itself:  # the NodeManager's clean-up after an exit: SIGTERM, SIGKILL
            self._terminate(running, self.grace_ms)
        # until the SIGKILL (if it is not sent already), then until the group is gone
        self._lingering.append(running)

    def _report_exit(self, running: _Running) -> None:
        launch = running.launch
        running.stopped = True  # reported once
        if _oom_killed(running.cgroup):
            self._report(launch, KILLED_EXCEEDED_PMEM,
                         f"Container {launch.container} is running beyond physical memory "
                         f"limits ({launch.resource.memory} MB). Killed.")
            return
        status = (_exit_status(running.pidfd) if running.process is not None
                  else _written_exit_code(launch))
        if status is None:  # an adopted shell killed by a signal writes no exit code
            status = EXIT_LOST
        self._report(launch, status, _exit_diagnostics(status))

    def _finish(self, running: _Running) -> None:
        """Reap the shell (its group is gone or SIGKILLed) and remove its cgroup."""
        if running.process is not None:  # (an adopted shell is reaped by its parent, init)
            running.process.wait()
        os.close(running.pidfd)
        self._end_cgroup(running.cgroup)

    def _end_all(self, selector: selectors.BaseSelector) -> None:
        """close(): SIGTERM every group, SIGKILL after the grace (at most CLOSE_GRACE_MS),
        wait until every one is gone."""
        with self._lock:
            running = list(self._running.values())
        for r in running:
            if not r.stopped:
                self._terminate(r, min(self.grace_ms, CLOSE_GRACE_MS))
        while True:
            with self._lock:
                if not self._running and not self._lingering:
                    return
            timeout = self._fire_deadlines()
            for key, _ in selector.select(0.05 if timeout is None else timeout):
                if key.data is None:
                    _drain(self._wake_r)
                else:
                    self._shell_ended(key.data, selector)

    def _report(self, launch: Launch, status: int, diagnostics: str) -> None:
        if self._host is not None:
            self._host.container_exited(launch.app, launch.container, status, diagnostics)

    # -- the environment and the cgroup ---------------------------------------------------

    def environment(self, launch: Launch) -> dict[str, str]:
        """``ContainerLaunch.sanitizeEnv``: inherited, then the launch's, then YARN's own."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(_NOT_INHERITED_PREFIX)}
        env.update(launch.environment)
        host, _, port = launch.node.rpartition(":")
        http_port = self._http_address(launch.node).rpartition(":")[2]
        # Launch has no user field: the loop passes the app's user as USER when it has one
        user = launch.environment.get("USER") or _os_user()
        env.update({
            "CONTAINER_ID": yarn_container_id(launch.container),
            "APPLICATION_ID": launch.app,
            "NM_HOST": host or launch.node,
            "NM_PORT": port if host else "0",
            "NM_HTTP_PORT": http_port,
            "LOCAL_DIRS": str(launch.work_dir.parent),
            "LOG_DIRS": str(launch.log_dir),
            "USER": user,
            "LOGNAME": user,
            # YARN's yarn.nodemanager.user-home-dir defaults to "/home/"; the server's HOME
            # is kept instead, so that tools that write under HOME work
            "HOME": os.environ.get("HOME", "/home/"),
            "PWD": str(launch.work_dir),
        })
        return env

    def _make_cgroup(self, launch: Launch) -> Path | None:
        if self._cgroup_base is None:
            return None
        path = self._cgroup_base / f"fairshare-{launch.container}"
        path.mkdir(exist_ok=True)
        (path / "memory.max").write_text(str(launch.resource.memory * 1024 * 1024))
        with contextlib.suppress(OSError):  # no swap accounting: memory.max alone
            (path / "memory.swap.max").write_text("0")
        return path

    def _end_cgroup(self, cgroup: Path | None) -> None:
        """Remove a container's cgroup (what is still in it killed first)."""
        if cgroup is None:
            return
        try:
            kill = cgroup / "cgroup.kill"
            if kill.exists():
                kill.write_text("1")
            for _ in range(100):  # the killed members leave the cgroup within moments
                try:
                    cgroup.rmdir()
                    break
                except OSError as e:
                    if e.errno != errno.EBUSY:
                        break
                    time.sleep(0.01)
        except OSError as e:
            log.warning("cgroup %s: %s", cgroup, e)


def _oom_killed(cgroup: Path | None) -> bool:
    """Whether the kernel OOM-killed a process in a container's cgroup (memory.events)."""
    if cgroup is None:
        return False
    try:
        for line in (cgroup / "memory.events").read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill" and int(value) > 0:
                return True
    except (OSError, ValueError) as e:
        log.warning("cgroup %s: %s", cgroup, e)
    return False


def _exit_status(pidfd: int) -> int:
    """An ended, unreaped shell's exit code, as bash reports one (a signal: 128 + signal),
    read without reaping it (``WNOWAIT``)."""
    try:
        info = os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOWAIT)
    except ChildProcessError:
        return LAUNCH_FAILED
    if info is None:
        return LAUNCH_FAILED
    return info.si_status if info.si_code == os.CLD_EXITED else 128 + info.si_status


def _others_in_group(pgid: int) -> bool:
    """Whether a live process other than the group's leader is in process group ``pgid``
    (read from /proc: ``killpg(pgid, 0)`` would answer yes for the unreaped leader alone)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True  # cannot tell: give the group its grace
    for name in entries:
        if not name.isdigit() or int(name) == pgid:
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # it ended meanwhile
        if int(fields[2]) == pgid and fields[0] != b"Z":
            return True
    return False


def probe_cgroup(base: Path | None = None) -> tuple[Path | None, str]:
    """The cgroup v2 directory under which containers' cgroups go, or None, and why not."""
    if base is None:
        found = _own_cgroup_v2()
        if isinstance(found, str):
            return None, found
        base = found
    probe = base / f"fairshare-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError as e:
        return None, f"cannot create a child cgroup under {base}: {e.strerror}"
    try:
        if "memory" not in _controllers(probe):
            try:  # enabling it works where this cgroup has no process of its own (or is root)
                (base / "cgroup.subtree_control").write_text("+memory")
            except OSError as e:
                return None, (f"the memory controller is not enabled for children of {base} "
                              f"and cannot be ({e.strerror})")
        if "memory" not in _controllers(probe):
            return None, f"the memory controller is not available under {base}"
        return base, f"cgroups v2 under {base}"
    finally:
        with contextlib.suppress(OSError):
            probe.rmdir()


def _own_cgroup_v2() -> Path | str:
    mount: Path | None = None
    try:
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            if right.split(" ", 1)[0] == "cgroup2":
                mount = Path(left.split()[4])
                break
        own = next((line[3:] for line in Path("/proc/self/cgroup").read_text().splitlines()
                    if line.startswith("0::")), None)
    except OSError as e:
        return f"cannot read /proc: {e.strerror}"
    if mount is None or own is None:
        return "no cgroup v2 hierarchy is mounted"
    base = mount / own.lstrip("/")
    if not (base / "cgroup.controllers").exists():
        return f"this process's cgroup v2 directory {base} is not there"
    return base


def _controllers(path: Path) -> list[str]:
    try:
        return (path / "cgroup.controllers").read_text().split()
    except OSError:
        return []


def _exit_diagnostics(status: int) -> str:
    """What the NodeManager says of a container's exit (``ContainerLaunch``): nothing for 0."""
    return "" if status == 0 else f"Exception from container-launch. Exit code: {status}"


def exit_code_file(launch: Launch) -> Path:
    """Where a container's script writes its exit code (as the NodeManager's launch script
    writes ``<container>.pid.exitcode``): read for a container a restart took over."""
    return launch.log_dir.with_name(launch.log_dir.name + EXIT_CODE_SUFFIX)


def _written_exit_code(launch: Launch) -> int | None:
    try:
        return int(exit_code_file(launch).read_text().strip())
    except (OSError, ValueError):
        return None


def _start_ticks(pid: int) -> int | None:
    """A process's start time (clock ticks since boot, /proc/<pid>/stat's 22nd field): with
    the pid, it names one process, not whichever takes the pid later."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[19]) if len(fields) > 19 and fields[0] != b"Z" else None


def _locate(container: str, pid: int | None, started: int | None) -> int | None:
    """A container's running shell: the stored pid if the process with that pid is still
    the one that started then, or, with no pid stored, the one its ``CONTAINER_ID`` names."""
    if pid is not None:
        return pid if _start_ticks(pid) == started else None
    return _find_container(container)


def _find_container(container: str) -> int | None:
    """The shell of a running container — a process group leader of this user whose
    environment has its ``CONTAINER_ID`` — or None."""
    wanted = f"CONTAINER_ID={yarn_container_id(container)}".encode()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for name in entries:
        if not name.isdigit():
            continue
        try:
            if os.getpgid(int(name)) != int(name):
                continue
            with open(f"/proc/{name}/environ", "rb") as f:
                if wanted in f.read().split(b"\0"):
                    return int(name)
        except OSError:
            continue
    return None


def _script(command: str, cgroup: Path | None, exit_file: Path) -> str:
    """The shell's script: join the cgroup first (before the command can allocate), set
    ``JVM_PID`` to the shell's pid as YARN's launch script does (``$$``), write the exit code
    when it ends (``exit_file``), run the command."""
    lines = []
    if cgroup is not None:
        lines.append(f"echo $$ > {shlex.quote(str(cgroup / 'cgroup.procs'))} || exit 1")
    f = shlex.quote(str(exit_file))
    lines.append(f'trap "code=\\$?; echo \\$code > {f}.tmp && mv -f {f}.tmp {f}" EXIT')
    lines.append("JVM_PID=$$; export JVM_PID")
    lines.append(command)
    return "\n".join(lines)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(pgid, sig)


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except (BlockingIOError, OSError):
        pass


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())

