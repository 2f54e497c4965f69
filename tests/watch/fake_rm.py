"""A ResourceManager's REST API on loopback, serving recorded answers, and able to misbehave as
real ones do: a standby RM (``RMWebAppFilter``'s 307, or Hadoop 2's 200 text with a Refresh
header), 5xx for the first requests, answers slower than the client's timeout, a body cut short,
an HTML error page, a CapacityScheduler, a restart (a new ``clusterInfo.id``).

The answers come from a folder of ``scheduler.json``, ``nodes.json``, ``apps.json`` (the shapes
of the import fixtures); ``info.json`` and ``metrics.json`` are made from answers captured from a
Hadoop 3.4.1 MockRM (``ClusterInfo``, ``ClusterMetricsInfo``) when the folder has none.
``/apps`` honours ``states`` and ``finishedTimeBegin`` as ``RMWebServices.getApps`` does (state
names compared without case; the time range inclusive).
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

CLUSTER_ID = 1796153554191
INFO_PATH = "/ws/v1/cluster/info"
JSON_TYPE = "application/json;charset=utf-8"  # what Jersey answers (captured)


def info_answer(cluster_id: int, ha_state: str = "ACTIVE") -> str:
    """``/ws/v1/cluster/info`` as Hadoop 3.4.1 answers it (captured, MockRM)."""
    return json.dumps({"clusterInfo": {
        "id": cluster_id, "startedOn": cluster_id, "state": "STARTED", "haState": ha_state,
        "rmStateStoreName": "org.apache.hadoop.yarn.server.resourcemanager.recovery."
                            "NullRMStateStore",
        "resourceManagerVersion": "3.4.1",
        "resourceManagerBuildVersion": "3.4.1 from 4d7825309348956336b8f06a08322b78422849b1",
        "resourceManagerVersionBuiltOn": "2024-10-09T15:14Z", "hadoopVersion": "3.4.1",
        "hadoopBuildVersion": "3.4.1 from 4d7825309348956336b8f06a08322b78422849b1",
        "hadoopVersionBuiltOn": "2024-10-09T14:57Z",
        "haZooKeeperConnectionState": "Could not find leader elector."}},
        separators=(",", ":"))


METRICS = {"appsSubmitted": 4, "appsCompleted": 1, "appsPending": 1, "appsRunning": 2,
           "appsFailed": 0, "appsKilled": 0, "reservedMB": 0, "availableMB": 11264,
           "allocatedMB": 13312, "pendingMB": 13824, "reservedVirtualCores": 0,
           "availableVirtualCores": 16, "allocatedVirtualCores": 8,
           "pendingVirtualCores": 7, "containersAllocated": 8, "containersReserved": 0,
           "containersPending": 8, "totalMB": 24576, "utilizedMB": 0, "totalVirtualCores": 24,
           "utilizedVirtualCores": 0, "utilizedMBPercent": 0, "utilizedVirtualCoresPercent": 0,
           "rmSchedulerBusyPercent": -1, "totalNodes": 3, "lostNodes": 0, "unhealthyNodes": 0,
           "decommissioningNodes": 0, "decommissionedNodes": 0, "rebootedNodes": 0,
           "activeNodes": 3, "shutdownNodes": 0, "containerAssignedPerSecond": 0,
           "totalAllocatedContainersAcrossPartition": 0,
           "crossPartitionMetricsAvailable": False, "rmEventQueueSize": 0,
           "schedulerEventQueueSize": 0}

HTML_PAGE = ("<html>\n<head><title>Sign in</title></head>\n<body><form action=\"/login\">"
             "</form></body>\n</html>\n")


@dataclass
class Behaviour:
    """What the fake RM does with the next requests (tests change it while it runs)."""

    mode: str = "normal"  # normal | standby | standby-text | standby-lost | slow | truncated
    # | cut | html | status
    redirect_to: str = ""  # standby modes: the active RM's base URL
    fail_first: int = 0  # answer 503 to this many requests first (any mode)
    delay_s: float = 0.0  # slow: sleep before answering
    status: int = 403  # status: the status to answer
    body: str = ""  # status: the body
    content_type: str = JSON_TYPE
    only: str = ""  # apply the mode to paths ending so ("/scheduler"); others answer normally


@dataclass
class FakeRM:
    """The server: ``answers`` by file name, started by :func:`serving`."""

    answers: dict[str, str]
    cluster_id: int = CLUSTER_ID
    behaviour: Behaviour = field(default_factory=Behaviour)
    requests: list[str] = field(default_factory=list)  # path?query of each request, in order
    peers: set[int] = field(default_factory=set)  # the client ports seen (one: keep-alive)
    url: str = ""
    # SPNEGO, as the RM's KerberosAuthenticationHandler: given the Authorization header,
    # None to refuse (401 with "WWW-Authenticate: Negotiate"), else the headers to answer with
    negotiate: Callable[[str | None], dict[str, str] | None] | None = None

    @classmethod
    def from_folder(cls, folder: Path, **kwargs: Any) -> FakeRM:
        answers = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.json")}
        answers.setdefault("metrics.json", json.dumps({"clusterMetrics": METRICS}))
        return cls(answers, **kwargs)

    def restart(self) -> None:
        """A new RM process: a new ``clusterInfo.id`` (its start time)."""
        self.cluster_id += 60_000

    def answer(self, target: str) -> tuple[int, dict[str, str], bytes]:
        self.requests.append(target)
        b = self.behaviour
        path = urlsplit(target).path
        mode = b.mode if not b.only or path.endswith(b.only) else "normal"
        if b.fail_first > 0:
            b.fail_first -= 1
            return 503, {"Content-Type": JSON_TYPE}, _remote(
                "WebApplicationException", "java.lang.NullPointerException")
        if mode == "slow":
            time.sleep(b.delay_s)
        if mode in ("standby", "standby-text", "standby-lost"):
            return self._standby(mode, target, path)
        if mode == "status":
            return b.status, {"Content-Type": b.content_type}, b.body.encode()
        if mode == "html":
            return 200, {"Content-Type": "text/html;charset=utf-8"}, HTML_PAGE.encode()
        status, text = self._normal(target, path)
        data = text.encode()
        if mode == "truncated":  # a whole answer of half the text
            data = data[: len(data) // 2]
        if mode == "cut":  # the connection closes half-way through the announced length
            return status, {"Content-Type": JSON_TYPE, "Content-Length": str(len(data)),
                            "Connection": "close"}, data[: len(data) // 2]
        return status, {"Content-Type": JSON_TYPE}, data

    def _standby(self, mode: str, target: str, path: str) -> tuple[int, dict[str, str], bytes]:
        """``RMWebAppFilter.doFilter`` on a standby: /info is answered (``shouldRedirect``),
        the rest redirected; Hadoop 2 answered 200 with a Refresh header instead."""
        if path == INFO_PATH:
            return 200, {"Content-Type": JSON_TYPE}, info_answer(self.cluster_id,
                                                                 "STANDBY").encode()
        location = self.behaviour.redirect_to + target
        if mode == "standby-text":
            text = f"This is standby RM. Redirecting to the current active RM: {location}\n"
            return 200, {"Content-Type": "text/plain;charset=utf-8",
                         "Refresh": f"3; url={location}"}, text.encode()
        if mode == "standby-lost":  # no active RM known: a Refresh header, no Location
            return 307, {"Content-Type": "text/plain;charset=utf-8", "Refresh":
                         f"1;url={target}"}, b"Can not find any active RM. Will retry in next " \
                b"1 seconds.\nHA Zookeeper Connection State: CONNECTED\n"
        return 307, {"Content-Type": "text/plain;charset=utf-8", "Location": location}, \
            f"This is standby RM. The redirect url is: {target}\n".encode()

    def _normal(self, target: str, path: str) -> tuple[int, str]:
        name = path.rsplit("/", 1)[-1] + ".json"
        if path == INFO_PATH:
            return 200, self.answers.get("info.json") or info_answer(self.cluster_id)
        if name not in self.answers or not path.startswith("/ws/v1/cluster/"):
            return 404, _remote("NotFoundException", f"java.lang.Exception: {path} not found"
                                ).decode()
        if name == "apps.json":
            return 200, _filter_apps(self.answers[name], parse_qs(urlsplit(target).query))
        return 200, self.answers[name]


def _remote(exception: str, message: str) -> bytes:
    """``GenericExceptionHandler``'s body."""
    return json.dumps({"RemoteException": {
        "exception": exception, "message": message,
        "javaClassName": f"org.apache.hadoop.yarn.webapp.{exception}"}}).encode()


def _filter_apps(text: str, query: dict[str, list[str]]) -> str:
    states = {s.strip().upper() for v in query.get("states", []) for s in v.split(",")}
    begin = int(query["finishedTimeBegin"][0]) if "finishedTimeBegin" in query else None
    if not states and begin is None:
        return text
    value = json.loads(text)
    apps = value["apps"]["app"] if value.get("apps") else []
    kept = [a for a in apps if (not states or a["state"] in states)
            and (begin is None or a.get("finishedTime", 0) >= begin)]
    return json.dumps({"apps": {"app": kept} if kept else None})


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"  # keep-alive, as Jetty
    disable_nagle_algorithm = True  # else each answer waits for a delayed ACK (40 ms)

    def do_GET(self) -> None:
        rm = self.server.rm
        rm.peers.add(self.client_address[1])
        granted: dict[str, str] = {}
        if rm.negotiate is not None:
            answer = rm.negotiate(self.headers.get("Authorization"))
            if answer is None:
                body = b"Authentication required"
                self.send_response(401)
                self.send_header("WWW-Authenticate", "Negotiate")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            granted = answer
        status, headers, body = rm.answer(self.path)
        headers = {**headers, **granted}
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        else:
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, rm: FakeRM) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.rm = rm


@contextmanager
def serving(rm: FakeRM, tls: ssl.SSLContext | None = None) -> Iterator[FakeRM]:
    """Serve ``rm`` on 127.0.0.1 (a free port) until the block ends; ``rm.url`` is its base."""
    server = _Server(rm)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    rm.url = f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    try:
        yield rm
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
