"""The fuzz suite's fork server: limits, and an exception reported as the interpreter would.

The forked child calls ``fairshare.cli.main.main``; here it is replaced (the child inherits
the patch) by functions that hang, crash or grab memory.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

import fairshare.cli.main
from fuzz import runner


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, main: object,
         limits: runner.Limits) -> runner.RunResult:
    monkeypatch.setattr(fairshare.cli.main, "main", main)
    return runner.run(["validate", "x.xml"], tmp_path, tmp_path, limits, fork=True)


def test_exit_code_and_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def main() -> None:
        print("out", sys.argv[1:])
        print("err", file=sys.stderr)
        raise SystemExit(2)

    r = _run(tmp_path, monkeypatch, main, runner.Limits(timeout_s=10))
    assert (r.exit_code, r.signal, r.timed_out) == (2, None, False)
    assert r.stdout == b"out ['validate', 'x.xml']\n" and r.stderr == b"err\n"


def test_an_exception_is_a_traceback_and_exit_1(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def main() -> None:
        raise KeyError("boom")

    r = _run(tmp_path, monkeypatch, main, runner.Limits(timeout_s=10))
    assert r.exit_code == 1
    assert b"Traceback (most recent call last)" in r.stderr and b"KeyError: 'boom'" in r.stderr


def test_a_hang_is_killed_at_the_timeout(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    r = _run(tmp_path, monkeypatch, lambda: time.sleep(60), runner.Limits(timeout_s=0.5))
    assert r.timed_out and r.signal == 9 and r.wall_s < 5


def test_memory_over_the_limit_is_killed(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def main() -> None:
        blocks = [bytearray(16 * 1024 * 1024) for _ in range(40)]  # 640 MB, touched
        time.sleep(5 + len(blocks))

    r = _run(tmp_path, monkeypatch, main, runner.Limits(timeout_s=20, max_rss_mb=300))
    assert r.memory_killed and r.signal == 9
