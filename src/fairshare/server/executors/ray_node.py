"""What runs on a Ray node for one container: the Ray task's body and the two small processes
it starts (the NodeManager's part of a launch, ``ContainerLaunch`` and
``DefaultContainerExecutor``).

Nothing here imports fairshare: the driver ships this module to Ray's workers by value
(``ray.cloudpickle.register_pickle_by_value``), so a Ray cluster needs only Ray and a Python,
not fairshare installed on every node.

Why two small processes between the Ray worker and ``bash``: ``ray.cancel(force=True)`` ends
the worker, and the container's own processes would outlive it — bash runs in its own session
(its process group is the container, as the NodeManager's ``setsid``), and Ray ends only what
is left in the worker's own process group as the worker exits (the raylet's per-worker process
group cleanup, a SIGKILL to the group; or its older child-process cleanup, none when the worker
crashed). So the worker's child is a *launcher*, in the worker's group, which Ray may kill at
any time, and the launcher's child is the *guard*, bash's parent, in a session of its own (in
the worker's group it would die by the same SIGKILL, before it could end the container — why
Ray's own job supervisor detaches its watcher the same way): the guard asks the kernel for
SIGTERM when the launcher dies (``PR_SET_PDEATHSIG`` on Linux; a once-a-second look at its
parent's pid elsewhere), and then ends the container's process group as the NodeManager does:
SIGTERM, SIGKILL ``sigkill_delay_ms`` later (``yarn.nodemanager.sleep-delay-before-sigkill.ms``,
``ContainerCleanup``; 0 or less: SIGKILL at once). The same happens when the container's main
process exits and left others running in its group (YARN cleans a container up after every
exit).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping

# a variable for the container: the Ray node it actually runs on (NodeID hex)
RAY_NODE_ID_VARIABLE = "FAIRSHARE_RAY_NODE_ID"
# ContainerLaunch: how much of stderr's end YARN puts in a failed container's diagnostics
STDERR_TAIL_BYTES = 4096

# The guard: bash's parent. argv: its parent's pid, the SIGKILL delay (ms), the command.
GUARD = r"""
import ctypes, os, signal, subprocess, sys, threading, time

parent, delay, command = int(sys.argv[1]), int(sys.argv[2]) / 1000.0, sys.argv[3]
state = {"child": None, "stop": False}

class Stop(BaseException):
    pass

def on_term(signum, frame):
    state["stop"] = True
    if state["child"] is not None:
        raise Stop

def watch_parent():
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)

def end_group(pgid):
    if delay > 0:  # 0 or less: SIGKILL at once, as ContainerCleanup
        try:
            os.killpg(pgid, signal.SIGTERM)
        except ProcessLookupError:
            return
        time.sleep(delay)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass

signal.signal(signal.SIGTERM, on_term)
try:
    if ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM) != 0:  # PR_SET_PDEATHSIG
        raise OSError
except (OSError, AttributeError):
    threading.Thread(target=watch_parent, daemon=True).start()
if os.getppid() != parent:
    state["stop"] = True
child = None
try:
    if not state["stop"]:
        child = subprocess.Popen(["bash", "-c", command], start_new_session=True)
        state["child"] = child
    if state["stop"]:
        raise Stop
    code = child.wait()
except Stop:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if child is not None:
        end_group(child.pid)
        child.wait()
    sys.exit(143)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
try:
    os.killpg(child.pid, 0)
    end_group(child.pid)
except ProcessLookupError:
    pass
sys.exit(128 - code if code < 0 else code)
"""

# The launcher: the worker's child, which Ray kills (SIGKILL, with the worker's process group)
# when the worker exits, and which dies with the worker (PR_SET_PDEATHSIG, SIGKILL) when the
# worker crashes; either way its death is the guard's signal. The guard is started in a
# session of its own, out of the group Ray kills. argv: the worker's pid, the delay, the
# command.
LAUNCHER = r"""
import ctypes, os, signal, subprocess, sys

try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
except AttributeError:
    pass
if os.getppid() != int(sys.argv[1]):
    sys.exit(143)
guard = subprocess.Popen([sys.executable, "-I", "-c", GUARD, str(os.getpid()), *sys.argv[2:]],
                         start_new_session=True)
code = guard.wait()
sys.exit(128 - code if code < 0 else code)
""".replace("GUARD", repr(GUARD))


def run_container(command: str, environment: Mapping[str, str], work_dir: str, log_dir: str,
                  sigkill_delay_ms: int) -> tuple[int, str]:
    """The Ray task: run ``command`` by ``bash -c`` in ``work_dir`` with the worker's
    environment and ``environment`` over it (a NodeManager's children inherit its environment
    too, ``ContainerLaunch.sanitizeEnv`` adds the container's), stdout and stderr appended to
    ``log_dir``'s ``stdout`` and ``stderr``. Returns its exit code (128 + the signal that ended
    it, as bash reports one) and, when that is not 0, the end of its stderr for the
    diagnostics. A failure to start (a folder that cannot be made) raises: the task fails."""
    import ray  # type: ignore[import-not-found, unused-ignore]  # on the worker: Ray is there

    os.makedirs(work_dir, exist_ok=True)
    os.makedirs(log_dir, exist_ok=True)
    env = dict(os.environ)
    env.update(environment)
    env[RAY_NODE_ID_VARIABLE] = ray.get_runtime_context().get_node_id()
    with open(os.path.join(log_dir, "stdout"), "ab") as out, \
            open(os.path.join(log_dir, "stderr"), "ab") as err:
        launcher = subprocess.Popen(
            [sys.executable, "-I", "-c", LAUNCHER, str(os.getpid()), str(sigkill_delay_ms),
             command], cwd=work_dir, env=env, stdin=subprocess.DEVNULL, stdout=out,
            stderr=err)
    code = launcher.wait()
    return code, "" if code == 0 else _tail(os.path.join(log_dir, "stderr"))


def _tail(path: str, size: int = STDERR_TAIL_BYTES) -> str:
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - size))
        return f.read().decode("utf-8", "replace")
