"""The history's contract tests on a real PostgreSQL (``make test-postgres``): a throw-away
cluster made with initdb in a temporary folder, started with pg_ctl on 127.0.0.1 at a free
port (its socket in that folder too), one new database per test, and stopped by its
postmaster's pid when the session ends. As root, initdb and the server run as the
``postgres`` user (PostgreSQL refuses to run as root). TimescaleDB is used when the server
has it (preloaded then: it cannot be created otherwise); Debian's archive does not package it,
so CI tests the plain tables, and test_timescaledb.py says which it found."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from tests.ports import free_port


def _tool(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(
        f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise RuntimeError(f"{name} not found: apt-get install postgresql")
    return found


@pytest.fixture(scope="session")
def postgres() -> Iterator[str]:
    """The base URL (no database) of a PostgreSQL server started for this session."""
    folder = Path(tempfile.mkdtemp(prefix="fairshare-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", free_port()
    pid = None
    try:
        subprocess.run([*as_user, _tool("initdb"), "-D", str(data), "-U", "postgres",
                        "--auth=trust", "-E", "UTF8", "--no-sync"],
                       check=True, capture_output=True)
        # TimescaleDB, where the server has it, must be loaded at start to be created
        preload = " -c shared_preload_libraries=timescaledb" if has_timescaledb() else ""
        subprocess.run([*as_user, _tool("pg_ctl"), "-D", str(data), "-l",
                        str(folder / "server.log"), "-w", "-o",
                        f"-h 127.0.0.1 -p {port} -k {folder} -c fsync=off{preload}", "start"],
                       check=True, capture_output=True)
        pid = int((data / "postmaster.pid").read_text().split()[0])
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGINT)  # the postmaster's fast shutdown
            for _ in range(300):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
        shutil.rmtree(folder, ignore_errors=True)


def has_timescaledb() -> bool:
    """Whether the server's share directory holds TimescaleDB's control file."""
    pg_config = shutil.which("pg_config")
    if pg_config is None:
        return False
    share = subprocess.run([pg_config, "--sharedir"], capture_output=True, text=True).stdout
    return (Path(share.strip()) / "extension" / "timescaledb.control").is_file()


@pytest.fixture
def history_url(postgres: str) -> Callable[[], str]:
    """A new, empty database on the session's server per call."""
    def make() -> str:
        name = f"h{time.monotonic_ns()}"
        plain = postgres.replace("+psycopg", "")
        with psycopg.connect(f"{plain}/postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return f"{postgres}/{name}"

    return make
