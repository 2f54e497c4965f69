"""Start, drive and stop rmharness: Hadoop's own ResourceManager in a child JVM.

The harness (rmharness/README.md) prints ``PORT <n>`` once its REST API answers, then one
JSON event per line; it reads ``status`` / ``submit <json>`` / ``quit`` on stdin. This module
is shared by the pytest fixture (rm_tests/conftest.py) and rmharness/capture.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
HARNESS_DIR = ROOT / "rmharness"
JAR = HARNESS_DIR / "target" / "rmharness.jar"
CONTENTION_XML = HARNESS_DIR / "scripts" / "contention.xml"

Event = dict[str, Any]


class HarnessError(RuntimeError):
    """The harness could not be built, did not start, or did not do what was awaited."""


def build(force: bool = False) -> Path:
    """Builds rmharness.jar with Maven unless it is there and newer than its sources (offline
    first, as the oracle does)."""
    if JAR.exists() and (JAR.parent / "lib").is_dir() and not force and not _stale():
        return JAR
    mvn = shutil.which("mvn")
    if mvn is None:
        raise HarnessError("rmharness: Maven (mvn) is not on PATH; it needs a JDK 17 and Maven")
    base = [mvn, "-B", "-q", "package", "-DskipTests"]
    offline = subprocess.run([*base, "-o"], cwd=HARNESS_DIR, capture_output=True, text=True)
    if offline.returncode != 0:
        online = subprocess.run(base, cwd=HARNESS_DIR, capture_output=True, text=True)
        if online.returncode != 0:
            raise HarnessError(f"rmharness: mvn package failed:\n{online.stdout}{online.stderr}")
    JAR.touch()  # Maven may leave an up-to-date jar as it was: it is now newer than its sources
    return JAR


def _stale() -> bool:
    """A source (or the pom) changed after the jar was built: a new control command, say."""
    built = JAR.stat().st_mtime
    sources = [HARNESS_DIR / "pom.xml", *(HARNESS_DIR / "src").rglob("*"),
               *(HARNESS_DIR / "scripts").rglob("*")]
    return any(p.is_file() and p.stat().st_mtime > built for p in sources)


class Harness:
    """One running harness process: its base URL, its events, its control channel."""

    def __init__(self, proc: subprocess.Popen[str], port: int, stderr_path: Path) -> None:
        self.proc = proc
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        self.stderr_path = stderr_path
        self.events: list[Event] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @classmethod
    def start(
        cls,
        *args: str,
        stderr_path: Path,
        timeout: float = 90.0,
    ) -> Harness:
        """Starts ``java -jar rmharness.jar ARGS`` and waits for its ``PORT`` line."""
        java = shutil.which("java")
        if java is None:
            raise HarnessError("rmharness: java is not on PATH (a JDK 17 is needed)")
        err: IO[str] = stderr_path.open("w")
        proc = subprocess.Popen(
            [java, "-Xmx1g", "-jar", str(build()), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            bufsize=1,
            env={**os.environ, "TZ": "UTC"},
        )
        err.close()
        try:
            port = _wait_port(proc, timeout, stderr_path)
        except BaseException:
            _kill(proc)
            raise
        return cls(proc, port, stderr_path)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            line = line.strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                event = {"event": "unparsed", "line": line}
            with self._cond:
                self.events.append(event)
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def send(self, command: str) -> None:
        """Writes one control line (``status``, ``submit {...}``, ``quit``)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def wait_for(
        self, predicate: Callable[[list[Event]], bool], timeout: float, what: str
    ) -> list[Event]:
        """Waits until ``predicate(events)`` holds; raises with the events seen otherwise."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self.events):
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    kinds = [e.get("event") for e in self.events]
                    raise HarnessError(f"rmharness: no {what} within {timeout:.0f} s; saw {kinds}")
                self._cond.wait(min(left, 0.5))
            return list(self.events)

    def of(self, kind: str) -> list[Event]:
        """The events of one kind seen so far."""
        with self._cond:
            return [e for e in self.events if e.get("event") == kind]

    def stop(self) -> int:
        """``quit``, then the pid is killed if the JVM is not gone within 15 s."""
        if self.proc.poll() is None:
            try:
                self.send("quit")
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                _kill(self.proc)
        self._reader.join(timeout=5)
        return self.proc.returncode


def _wait_port(proc: subprocess.Popen[str], timeout: float, stderr_path: Path) -> int:
    assert proc.stdout is not None
    result: list[int] = []
    done = threading.Event()

    def first_line() -> None:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.startswith("PORT "):
            result.append(int(line.split()[1]))
        done.set()

    threading.Thread(target=first_line, daemon=True).start()
    if not done.wait(timeout) or not result:
        tail = stderr_path.read_text(errors="replace")[-3000:]
        raise HarnessError(f"rmharness: no PORT line within {timeout:.0f} s; stderr:\n{tail}")
    return result[0]


def _kill(proc: subprocess.Popen[str]) -> None:
    """Ends the child by its own pid only."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=10)
