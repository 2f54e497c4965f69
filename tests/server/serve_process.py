"""``fairshare serve`` as a process of its own, for the tests that kill it (``kill -9``) and
start it again on the same state store: started on 127.0.0.1 at a free port, waited for until
its REST API answers, killed or stopped by its pid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.ports import free_port

SRC = str(Path(__file__).resolve().parents[2] / "src")
ALLOCATIONS = """<?xml version="1.0"?>
<allocations><queue name="a"/><queue name="b"/></allocations>
"""


def site_xml(scheduling_wait_ms: int) -> str:
    """A yarn-site.xml with YARN's recovery wait shortened for a test."""
    return ('<?xml version="1.0"?>\n<configuration>\n  <property><name>yarn.resourcemanager.'
            'work-preserving-recovery.scheduling-wait-ms</name>\n'
            f'    <value>{scheduling_wait_ms}</value></property>\n</configuration>\n')
START_TIMEOUT_S = 30.0


@dataclass
class ServeProcess:
    """One ``fairshare serve`` command line, started (again) by :meth:`start`."""

    args: Sequence[str]
    log: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": SRC}
        self.starts += 1
        with self.log.open("ab") as log:
            log.write(f"--- start {self.starts}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                [sys.executable, "-m", "fairshare", "serve", *self.args,
                 "--listen", f"127.0.0.1:{self.port}"],
                env=env, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"fairshare serve exited {self.process.returncode}: "
                                     f"{self.log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/ws/v1/cluster/info", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.kill()
        raise AssertionError(f"fairshare serve did not answer in {START_TIMEOUT_S} s")

    def kill(self) -> None:
        """``kill -9``: nothing of the server runs on; its containers' processes do."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> int:
        """SIGTERM, as an admin stops it: its containers are stopped too; its exit code."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
        code = self.process.wait(timeout=30)
        self.process = None
        return code

    def get(self, path: str, **params: Any) -> Any:
        response = httpx.get(f"{self.url}{path}", params=params, timeout=10.0)
        assert response.status_code == 200, (path, response.status_code, response.text)
        return response.json()


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def wait_until(condition: Any, what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
