"""Running one ``fairshare`` command with a time and a memory limit.

Two modes:

* **fork server** (default): the worker process has imported ``fairshare.cli.main`` once; each
  run is a forked child that redirects fd 0/1/2, sets its rlimits and ``sys.argv``, calls
  ``main()`` and leaves with its ``SystemExit`` code. An uncaught exception is reported as the
  real interpreter reports it: the traceback on stderr, exit 1. This saves the ~1 s that
  importing numpy, pyarrow, pydantic and typer costs every real start.
* **subprocess**: fork + exec of the real ``fairshare`` console script (also used, whatever the
  mode, for runs that need another environment, e.g. another ``PYTHONHASHSEED``).

Both put the child in its own process group, poll it through a pidfd, kill the whole group
with SIGKILL when it runs past the timeout or its resident memory passes the limit, and read
its peak RSS from ``os.wait4``. ``RLIMIT_AS`` is a hard guard well above the RSS limit (the
readers reserve address space they never touch, so it cannot be the limit itself),
``RLIMIT_FSIZE`` bounds what a run can write, core dumps are off.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import select
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

MB = 1024 * 1024
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 60.0
    max_rss_mb: int = 1536  # the limit a run is failed for (measured)
    address_space_mb: int = 8192  # RLIMIT_AS: a hard guard only
    file_size_mb: int = 2048  # RLIMIT_FSIZE: no output file may grow past this
    poll_s: float = 0.05


@dataclass(frozen=True)
class RunResult:
    exit_code: int | None  # None when a signal ended the child
    signal: int | None
    timed_out: bool
    memory_killed: bool
    wall_s: float
    max_rss_mb: float
    stdout: bytes
    stderr: bytes
    mode: str  # "fork" or "subprocess"
    stdout_cut: bool = False  # stdout was longer than what is kept (see _read)

    @property
    def killed_by_us(self) -> bool:
        return self.timed_out or self.memory_killed


def fairshare_command() -> list[str]:
    """The real CLI: the venv's console script, else ``python -c`` calling the same main()."""
    script = Path(sys.executable).with_name("fairshare")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-c", "from fairshare.cli.main import main; main()"]


def warm_up() -> None:
    """Import the CLI in this (worker) process so forked children start warm.

    fd 1 and 2 are pointed at /dev/null first, so the CLI's consoles are built as for a run
    whose output goes to files (as every fuzz run's does), not for the worker's terminal.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)
    import fairshare.cli.main  # noqa: F401  (the import is the point)


def run(argv: list[str], cwd: Path, out_dir: Path, limits: Limits, *, fork: bool,
        env: dict[str, str] | None = None) -> RunResult:
    """Run ``fairshare *argv`` in ``cwd``; stdout and stderr are kept in ``out_dir``."""
    stdout_path, stderr_path = out_dir / "stdout.bin", out_dir / "stderr.bin"
    use_fork = fork and env is None
    exec_argv = None if use_fork else [*fairshare_command(), *argv]
    exec_env = None if use_fork else {**os.environ, **(env or {})}
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child never returns
        _child(argv, cwd, stdout_path, stderr_path, limits, exec_argv, exec_env)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # also done in the child: whichever runs first
    timed_out, memory_killed, status, usage = _wait(pid, start, limits)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    return RunResult(
        exit_code=code if code >= 0 else None,
        signal=-code if code < 0 else None,
        timed_out=timed_out,
        memory_killed=memory_killed,
        wall_s=wall,
        max_rss_mb=usage.ru_maxrss / 1024,
        stdout=_read(stdout_path),
        stderr=_read(stderr_path),
        mode="fork" if use_fork else "subprocess",
        stdout_cut=_size(stdout_path) > READ_LIMIT,
    )


READ_LIMIT = 64 * MB  # stdout / stderr read back per run


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read(path: Path, limit: int = READ_LIMIT) -> bytes:
    try:
        with path.open("rb") as f:
            data = f.read(limit + 1)
    except OSError:
        return b""
    return data if len(data) <= limit else data[:limit] + b"\n[fuzz: output cut at 64 MB]\n"


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE / MB
    except (OSError, ValueError, IndexError):
        return 0.0


def _kill_group(pid: int) -> None:
    for target in (-pid, pid):
        with contextlib.suppress(OSError):
            os.kill(target, signal.SIGKILL)


def _wait(pid: int, start: float, limits: Limits) -> tuple[bool, bool, int, resource.struct_rusage]:
    deadline = start + limits.timeout_s
    pidfd: int | None
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    timed_out = memory_killed = False
    try:
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                return timed_out, memory_killed, status, usage
            now = time.monotonic()
            if now >= deadline and not (timed_out or memory_killed):
                timed_out = True
                _kill_group(pid)
            elif _rss_mb(pid) > limits.max_rss_mb and not (timed_out or memory_killed):
                memory_killed = True
                _kill_group(pid)
            pause = max(0.0, min(limits.poll_s, deadline - now)) or limits.poll_s
            if pidfd is not None:
                select.select([pidfd], [], [], pause)
            else:
                time.sleep(pause)
    except BaseException:  # interrupted: leave no child behind
        _kill_group(pid)
        os.waitpid(pid, 0)
        raise
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _child(argv: list[str], cwd: Path, stdout_path: Path, stderr_path: Path, limits: Limits,
           exec_argv: list[str] | None, exec_env: dict[str, str] | None) -> None:
    code = 125  # the harness itself failed in the child
    try:
        os.setpgid(0, 0)
        os.chdir(cwd)
        fd_in = os.open(os.devnull, os.O_RDONLY)
        fd_out = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        fd_err = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        for fd, target in ((fd_in, 0), (fd_out, 1), (fd_err, 2)):
            os.dup2(fd, target)
            os.close(fd)
        _set_limits(limits)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if exec_argv is not None:
            os.execve(exec_argv[0], exec_argv, exec_env or dict(os.environ))
        code = _call_main(argv)
    except BaseException:
        try:
            traceback.print_exc()
        finally:
            os._exit(code)
    os._exit(code)


def _set_limits(limits: Limits) -> None:
    address = limits.address_space_mb * MB
    resource.setrlimit(resource.RLIMIT_AS, (address, address))
    size = limits.file_size_mb * MB
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _call_main(argv: list[str]) -> int:
    """What the interpreter does with ``fairshare ARGV``: main(), then the exit code."""
    # New text streams on the redirected fds, configured as Python configures them at start
    # for a non-terminal: stdout strict and block-buffered, stderr backslashreplace and
    # line-buffered. Nothing the worker buffered can leak into them.
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                  errors="strict", line_buffering=False)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", line_buffering=True)
    sys.argv = ["fairshare", *argv]
    from fairshare.cli.main import main

    try:
        main()
        code = 0
    except SystemExit as e:
        code = _exit_code(e)
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
    except BaseException:
        sys.stderr.write("Exception ignored on flushing sys.stdout:\n")
        traceback.print_exc()
        code = 120
    with contextlib.suppress(BaseException):
        sys.stderr.flush()
    return code


def _exit_code(e: SystemExit) -> int:
    if e.code is None:
        return 0
    if isinstance(e.code, int) and not isinstance(e.code, bool):
        return e.code & 0xFF
    with contextlib.suppress(BaseException):
        sys.stderr.write(f"{e.code}\n")
    return 1
