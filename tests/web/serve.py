"""An ASGI app served by uvicorn on 127.0.0.1 at a free port, in a thread, for the browser
tests: its base URL while the ``with`` lasts, the server stopped after."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


@contextmanager
def _running(server: uvicorn.Server, **run: Any) -> Iterator[threading.Thread]:
    """``server`` run in a thread until the ``with`` ends, waited for until it serves."""
    thread = threading.Thread(target=server.run, kwargs=run, name="uvicorn", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        yield thread
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextmanager
def serving_app(app: Any) -> Iterator[str]:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                                           lifespan="off"))
    with _running(server):
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"


@contextmanager
def serving_served(served: Any) -> Iterator[str]:
    """A built ``fairshare serve`` (``service.Served``) started and served on 127.0.0.1 at a
    free port (bound first: the AM protocol needs the URL before the engine starts); its base
    URL while the ``with`` lasts; uvicorn and then the server stopped after, and checked."""
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.bind(("127.0.0.1", 0))
    listening.listen(128)
    url = f"http://127.0.0.1:{listening.getsockname()[1]}"
    served.start(url)
    server = uvicorn.Server(uvicorn.Config(served.app, log_level="warning", access_log=False,
                                           lifespan="off"))
    try:
        with _running(server, sockets=[listening]) as thread:
            yield url
    finally:
        listening.close()
        served.stop()
    assert not thread.is_alive()
    assert served.loop.failure is None
