"""Input files are regular files, checked before they are opened (fairshare.config.files), and
XML inputs are bounded before they are parsed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fairshare.config import xml as xml_module
from fairshare.config.allocation import load_allocations, parse_allocations_text
from fairshare.config.errors import ConfigError
from fairshare.config.files import decode_utf8, file_problem, memory_guard, read_input
from fairshare.config.xml import MAX_XML_TAGS, parse_xml_text
from fairshare.config.yarnsite import load_site

ALLOCATIONS = "<allocations><queue name='a'><weight>2</weight></queue></allocations>\n"


def fifo(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


# ---- what a path names ---------------------------------------------------------------------------


def test_a_regular_file_has_no_problem(tmp_path: Path) -> None:
    path = tmp_path / "a.xml"
    path.write_text("x")
    assert file_problem(path) is None


def test_a_symbolic_link_to_a_regular_file_is_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_text("x")
    (tmp_path / "link.xml").symlink_to(tmp_path / "a.xml")
    assert file_problem(tmp_path / "link.xml") is None


@pytest.mark.parametrize(("make", "kind", "reason"), [
    pytest.param(lambda p: p / "nope.xml", "missing", "No such file or directory", id="missing"),
    pytest.param(lambda p: p, "directory", "is a directory", id="a directory"),
    pytest.param(lambda p: fifo(p, "f.xml"), "special", "not a regular file (a FIFO)",
                 id="a FIFO"),
    pytest.param(lambda p: Path("/dev/zero"), "special",
                 "not a regular file (a character device)", id="/dev/zero"),
    pytest.param(lambda p: p / "a.xml" / "b.xml", "error", "Not a directory",
                 id="a file used as a directory"),
])
def test_what_is_not_a_regular_file_is_named(tmp_path: Path, make, kind: str,
                                              reason: str) -> None:
    (tmp_path / "a.xml").write_text("x")
    problem = file_problem(make(tmp_path))
    assert problem is not None
    assert (problem.kind, problem.reason) == (kind, reason)


def test_a_socket_is_not_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        problem = file_problem(path)
    finally:
        server.close()
    assert problem is not None and problem.reason == "not a regular file (a socket)"


def test_a_path_with_a_nul_character_is_refused() -> None:
    problem = file_problem("a\0b")
    assert problem is not None and problem.kind == "error"


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    """Opening a FIFO without a writer blocks forever: the answer must come at once."""
    path = fifo(tmp_path, "f.xml")
    began = time.monotonic()
    with pytest.raises(ConfigError) as info:
        read_input(path, "f.xml", 1000)
    assert time.monotonic() - began < 5
    assert str(info.value) == "f.xml: cannot read file: not a regular file (a FIFO)"


def test_dev_zero_is_refused_without_reading_it() -> None:
    with pytest.raises(ConfigError) as info:
        read_input("/dev/zero", "zero", 1 << 40)
    assert str(info.value) == "zero: cannot read file: not a regular file (a character device)"


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big"
    with path.open("wb") as out:
        out.truncate(101)  # sparse: 101 bytes reported, nothing to read
    with pytest.raises(ConfigError) as info:
        read_input(path, "big", 100)
    assert str(info.value) == "big: file is too large (the limit is 100 bytes)"


def test_a_file_at_the_limit_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    assert read_input(path, "f", 100) == b"x" * 100


def test_an_unreadable_file_gives_the_systems_reason(tmp_path: Path) -> None:
    path = tmp_path / "secret.xml"
    path.write_text("x")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):  # root reads everything: nothing to refuse then
            assert read_input(path, "secret.xml", 10) == b"x"
            return
        with pytest.raises(ConfigError, match="cannot read file: Permission denied"):
            read_input(path, "secret.xml", 10)
    finally:
        path.chmod(0o600)


def test_text_that_is_not_utf8_is_located_at_its_line() -> None:
    # b"\xed\xa0\x80" is what a lone surrogate U+D800 would be in UTF-8: not valid UTF-8
    with pytest.raises(ConfigError) as info:
        decode_utf8(b"one\ntwo\nthree \xed\xa0\x80\n", "t.csv")
    assert (info.value.file, info.value.line, info.value.message) == (
        "t.csv", 3, "file is not UTF-8 text")


def test_a_bom_is_dropped() -> None:
    assert decode_utf8(b"\xef\xbb\xbfa: 1", "t") == "a: 1"


def test_running_out_of_memory_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info, memory_guard("big.json"):
        raise MemoryError
    assert str(info.value) == "big.json: too large to load in memory"


# ---- the XML readers ---------------------------------------------------------------------------


def test_an_allocation_file_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    path = fifo(tmp_path, "fs.xml")
    with pytest.raises(ConfigError) as info:
        load_allocations(path)
    assert str(info.value) == f"{path}: cannot read file: not a regular file (a FIFO)"


def test_a_site_file_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    path = fifo(tmp_path, "yarn-site.xml")
    with pytest.raises(ConfigError) as info:
        load_site(path)
    assert str(info.value) == f"{path}: cannot read file: not a regular file (a FIFO)"


def test_a_missing_allocation_file_keeps_its_message(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_allocations(tmp_path / "nope.xml")
    missing = tmp_path / "nope.xml"
    assert str(info.value) == f"{missing}: cannot read file: No such file or directory"


def test_an_xml_file_with_too_many_tags_is_refused_before_parsing() -> None:
    # over the limit, and broken after it: the limit is what is reported (nothing was parsed)
    text = "<allocations>" + "<a/>" * MAX_XML_TAGS + "<unclosed"
    with pytest.raises(ConfigError) as info:
        parse_xml_text(text, "fs.xml")
    tags = 1 + MAX_XML_TAGS + 1
    assert info.value.message == (f"too large: more than {MAX_XML_TAGS:,} tags ('<' characters; "
                                  f"{tags:,} in the file)")


def test_an_xml_file_at_the_tag_limit_is_parsed() -> None:
    text = "<allocations>" + "<queue name='q'/>" * (MAX_XML_TAGS - 2) + "</allocations>"
    config = parse_allocations_text(text, "fs.xml")
    assert [q.name for q in config.queues if q.name.endswith(".q")] == ["root.q"]


def test_a_character_reference_to_a_surrogate_is_a_located_xml_error() -> None:
    with pytest.raises(ConfigError) as info:
        parse_xml_text("<allocations>\n<queue name='a&#xD800;'/>\n</allocations>", "fs.xml")
    assert info.value.line == 2 and info.value.message.startswith("malformed XML")


def test_running_out_of_memory_while_parsing_xml_is_a_config_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(xml_module.etree, "fromstring", exhausted)
    with pytest.raises(ConfigError) as info:
        parse_xml_text(ALLOCATIONS, "fs.xml")
    assert str(info.value) == "fs.xml: too large to load in memory"


# ---- the commands ------------------------------------------------------------------------------


def fairshare(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process, so that a regression that blocks fails instead of hanging."""
    return subprocess.run([sys.executable, "-m", "fairshare", *args], capture_output=True,
                          text=True, timeout=60, check=False)


def test_validate_refuses_a_fifo_with_exit_2(tmp_path: Path) -> None:
    path = fifo(tmp_path, "fs.xml")
    done = fairshare("validate", str(path))
    assert done.returncode == 2
    assert done.stderr.strip() == f"{path}: cannot read file: not a regular file (a FIFO)"
    assert "Traceback" not in done.stderr


def test_shares_refuses_a_site_file_that_is_dev_zero_with_exit_2(tmp_path: Path) -> None:
    allocations = tmp_path / "fs.xml"
    allocations.write_text(ALLOCATIONS)
    done = fairshare("shares", str(allocations), "--cluster", "memory-mb=1024,vcores=1",
                     "--site", "/dev/zero")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "/dev/zero: cannot read file: not a regular file (a character device)")
