"""``fairshare serve``'s option and input errors: exit 2 with the option or file:line named,
nothing started, nothing written where nothing should be."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app

runner = CliRunner()
GOOD = """<?xml version="1.0"?>
<allocations>
  <queue name="a"/>
</allocations>
"""


@pytest.fixture()
def allocations(tmp_path: Path) -> Path:
    path = tmp_path / "fair-scheduler.xml"
    path.write_text(GOOD)
    return path


def serve(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["serve", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("options", "said"), [
    (["--executor", "kubernetes"], "--executor: expected one of virtual, local, ray"),
    (["--executor", "local", "--speed", "10"], "--speed: only the virtual executor"),
    (["--speed", "0"], "--speed: expected a speed above 0"),
    (["--nodes", "4x16q/8"], "--nodes: expected COUNTxMEMORY/VCORES such as 4x16g/8"),
    (["--nodes", "0x16g/8"], "--nodes: count, memory and vcores must be positive"),
    (["--listen", "nowhere"], "--listen: expected HOST:PORT"),
    (["--log-level", "loud"], "--log-level: expected debug, info, warning or error"),
])
def test_a_bad_option_is_named_and_nothing_is_written(allocations: Path, tmp_path: Path,
                                                      options: list[str], said: str) -> None:
    out = tmp_path / "session"
    code, stderr = serve(str(allocations), "--out", str(out), "--listen", "127.0.0.1:0",
                         *options)
    assert code == 2
    assert said in " ".join(stderr.split())
    assert not out.exists()


def test_a_broken_allocation_file_is_reported_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "fair-scheduler.xml"
    path.write_text('<?xml version="1.0"?>\n<allocations>\n  <queue name="a">\n'
                    "    <weight>heavy</weight>\n  </queue>\n</allocations>\n")
    code, stderr = serve(str(path), "--out", str(tmp_path / "s"), "--listen", "127.0.0.1:0")
    assert code == 2
    assert f"{path}:4:" in stderr


def test_a_missing_allocation_file_and_nodes_file_are_named(tmp_path: Path,
                                                            allocations: Path) -> None:
    code, stderr = serve(str(tmp_path / "nope.xml"), "--listen", "127.0.0.1:0")
    assert code == 2 and "nope.xml" in stderr
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text("cluster:\n  nodes:\n    - {name: n1, memory-mb: lots, vcores: 8}\n")
    code, stderr = serve(str(allocations), "--nodes-file", str(nodes), "--out",
                         str(tmp_path / "s"), "--listen", "127.0.0.1:0")
    assert code == 2 and f"{nodes}:3" in stderr


def test_a_port_in_use_starts_nothing(allocations: Path, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code, stderr = serve(str(allocations), "--out", str(tmp_path / "s"), "--listen",
                             f"127.0.0.1:{port}")
    assert code == 2
    assert f"--listen: cannot listen on 127.0.0.1:{port}" in stderr
    assert not (tmp_path / "s").exists()
