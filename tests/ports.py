"""A free TCP port on 127.0.0.1, for the servers the test suites start (PostgreSQL, the KDC)."""

from __future__ import annotations

import socket


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
