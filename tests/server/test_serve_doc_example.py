"""docs/serve.md's "Your own AM, in Python", run as written: its AM script and its submitter,
against ``fairshare serve --executor local`` (in-process, uvicorn on 127.0.0.1). The only
edits are the two the text tells its reader to make: the server's address, and the AM
script's full path."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from fairshare.server.service import ServeOptions, build

DOC = Path(__file__).resolve().parents[2] / "docs" / "serve.md"
ALLOCATIONS = "<allocations><queue name='a'/><queue name='b'/></allocations>"
TIMEOUT_S = 60.0


def doc_blocks() -> tuple[str, str]:
    """The two Python blocks of the section."""
    text = DOC.read_text()
    section = text[text.index("**Your own AM, in Python.**"):]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    return blocks[0], blocks[1]


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "fair-scheduler.xml").write_text(ALLOCATIONS)
    served = build(ServeOptions(tmp_path / "fair-scheduler.xml", None, "2x4g/4",
                                executor="local", out=tmp_path / "session"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    served.start(base)
    web = uvicorn.Server(uvicorn.Config(served.app, host="127.0.0.1", port=port,
                                        log_level="warning", lifespan="off"))
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while not web.started:
            assert time.monotonic() < deadline, "the server did not listen"
            time.sleep(0.05)
        yield base
    finally:
        served.stop()
        web.should_exit = True
        thread.join(timeout=10)


def test_the_documented_am_runs_its_four_parts(url: str, tmp_path: Path) -> None:
    am_code, submit_code = doc_blocks()
    am = tmp_path / "parts_am.py"
    am.write_text(am_code)
    submit = tmp_path / "submit.py"
    submit.write_text(submit_code.replace("http://127.0.0.1:8088", url)
                      .replace(" parts_am.py", f" {am}"))
    done = subprocess.run([sys.executable, str(submit)], capture_output=True, text=True,
                          timeout=TIMEOUT_S, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    app, state, final, *diagnostics = done.stdout.split()
    assert (state, final) == ("FINISHED", "SUCCEEDED")
    assert " ".join(diagnostics) == "4 of 4 parts succeeded"
    # every part wrote its line, in a container of that app (the AM is container 000001)
    outputs = sorted((tmp_path / "session" / "containers").glob(f"{app}/*/stdout"))
    parts = [p.read_text() for p in outputs if not p.parent.name.endswith("_000001")]
    assert len(parts) == 4
    assert all(re.fullmatch(r"part of container_\S+ on \S+\n", text) for text in parts)
