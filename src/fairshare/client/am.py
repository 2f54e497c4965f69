"""The AM side of fairshare's AM protocol (docs/am-protocol.md): what YARN's ``AMRMClient``
and ``NMClient`` do for a Java ApplicationMaster, over REST."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from fairshare.client.errors import ClientError, check

PATH = "/ws/v1/fairshare/am"
TOKEN_ENV = "FAIRSHARE_AM_TOKEN"
URL_ENV = "FAIRSHARE_AM_URL"
# ContainerExitStatus: the RM took the container back (released, lost) / preempted it
ABORTED = -100
PREEMPTED = -102
NOT_REGISTERED = "ApplicationMasterNotRegisteredException"
# yarn.resourcemanager.connect.max-wait.ms and .retry-interval.ms: how long an AM's calls
# wait for an RM that does not answer (restarting), and how often they try
CONNECT_MAX_WAIT_S = 900.0
CONNECT_RETRY_S = 0.5


@dataclass(frozen=True, slots=True)
class ContainerAsk:
    """``AMRMClient.ContainerRequest``: ``count`` containers of ``memory_mb`` and ``vcores`` at
    ``priority``, at ``node`` (a node id, host:port) or ``rack``, or anywhere."""

    count: int
    memory_mb: int
    vcores: int = 1
    priority: int = 1
    node: str | None = None
    rack: str | None = None
    relax_locality: bool = True

    def json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"count": self.count, "priority": self.priority,
                                "resource": {"memory": self.memory_mb, "vCores": self.vcores},
                                "relaxLocality": self.relax_locality}
        if self.node is not None:
            body["node"] = self.node
        if self.rack is not None:
            body["rack"] = self.rack
        return body


@dataclass(frozen=True, slots=True)
class GrantedContainer:
    """A container allocated to this attempt (YARN's ``Container``)."""

    id: str
    node_id: str
    node_http_address: str
    memory_mb: int
    vcores: int
    priority: int


@dataclass(frozen=True, slots=True)
class ContainerStatus:
    """A completed container: its process's exit code, or YARN's ``ContainerExitStatus``
    (-100 released or lost, -102 preempted, …), with the diagnostics."""

    container_id: str
    exit_status: int
    diagnostics: str


@dataclass(frozen=True, slots=True)
class AllocateResponse:
    response_id: int
    allocated: tuple[GrantedContainer, ...]
    completed: tuple[ContainerStatus, ...]
    to_preempt: tuple[str, ...] = field(default=())  # the strict contract's container ids


class AMClient:
    """An ApplicationMaster's connection to the RM, for one attempt (its token)."""

    def __init__(self, url: str, token: str, *, timeout_s: float = 30.0,
                 transport: httpx.BaseTransport | None = None,
                 connect_max_wait_s: float = CONNECT_MAX_WAIT_S) -> None:
        self._http = httpx.Client(base_url=url.rstrip("/") + PATH, timeout=timeout_s,
                                  headers={"Authorization": f"Bearer {token}"},
                                  transport=transport)
        self.connect_max_wait_s = connect_max_wait_s
        # for a resync after an RM restart (AMRMClientImpl): how it registered, and what it
        # asked for and was not given yet, by (priority, memory, vcores, node, rack, relax)
        self._registration: dict[str, Any] | None = None
        self._outstanding: dict[tuple[int, int, int, str | None, str | None, bool], int] = {}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **kwargs: Any) -> AMClient:
        """The client of the AM this process is: the server's URL and the attempt's token from
        ``FAIRSHARE_AM_URL`` and ``FAIRSHARE_AM_TOKEN``."""
        env = os.environ if environ is None else environ
        missing = [name for name in (URL_ENV, TOKEN_ENV) if not env.get(name)]
        if missing:
            raise RuntimeError(f"not running as a fairshare AM: {', '.join(missing)} not set")
        return cls(env[URL_ENV], env[TOKEN_ENV], **kwargs)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> AMClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- the protocol --------------------------------------------------------------------

    def register(self, host: str = "", rpc_port: int = -1, tracking_url: str = ""
                 ) -> dict[str, Any]:
        """``registerApplicationMaster``: the queue, the maximum container size, …"""
        self._registration = {"host": host, "rpcPort": rpc_port, "trackingUrl": tracking_url}
        return self._post("/register", self._registration)

    def allocate(self, asks: Sequence[ContainerAsk] = (), releases: Sequence[str] = (),
                 progress: float = 0.0) -> AllocateResponse:
        """One ``allocate`` heartbeat: new asks (added to those outstanding), containers given
        back, progress; the answer since the last one."""
        for ask in asks:
            key = _key(ask)
            self._outstanding[key] = self._outstanding.get(key, 0) + ask.count
        # after a resync the asks are among those sent again: the call is made without them
        body = self._post("/allocate", {"asks": [a.json() for a in asks],
                                        "releases": list(releases), "progress": progress},
                          resync={"asks": [], "releases": list(releases),
                                  "progress": progress})
        for c in body.get("allocatedContainers", []):
            self._given(int(c["priority"]), int(c["resource"]["memory"]),
                        int(c["resource"]["vCores"]))
        return AllocateResponse(
            int(body["responseId"]),
            tuple(GrantedContainer(c["id"], c["nodeId"], c["nodeHttpAddress"],
                                   int(c["resource"]["memory"]), int(c["resource"]["vCores"]),
                                   int(c["priority"]))
                  for c in body.get("allocatedContainers", [])),
            tuple(ContainerStatus(s["containerId"], int(s["exitStatus"]), s["diagnostics"])
                  for s in body.get("completedContainersStatuses", [])),
            tuple(c["id"] for c in
                  body.get("preempt", {}).get("strictContract", {}).get("containers", [])))

    def start_container(self, container_id: str, command: str,
                        environment: Mapping[str, str] | None = None) -> None:
        """``NMClient.startContainer``: run ``command`` (``bash -c``) in the container."""
        self._post(f"/containers/{container_id}/start",
                   {"command": command, "environment": dict(environment or {})},
                   resync={"command": command, "environment": dict(environment or {})})

    def unregister(self, final_status: str = "SUCCEEDED", diagnostics: str = "",
                   tracking_url: str = "") -> None:
        """``finishApplicationMaster``; the app ends when this process exits."""
        self._post("/unregister", {"finalApplicationStatus": final_status,
                                   "diagnostics": diagnostics, "trackingUrl": tracking_url})

    # -- the common case -----------------------------------------------------------------

    def run_containers(self, count: int, command: str, *, memory_mb: int, vcores: int = 1,
                       priority: int = 1, environment: Mapping[str, str] | None = None,
                       retry_preempted: bool = True, interval_s: float = 0.2,
                       timeout_s: float | None = None) -> list[ContainerStatus]:
        """Run ``command`` in ``count`` containers and wait for them all: DistributedShell's
        ApplicationMaster loop. A container the RM took back (preempted, -102, or aborted,
        -100: lost with its node) is asked for again when ``retry_preempted`` (DistributedShell
        retries the aborted ones; a preempted task did nothing wrong either). Returns the final
        status of each of the ``count`` runs, in completion order."""
        if count < 1:
            raise ValueError("count must be at least 1")
        ask = ContainerAsk(1, memory_mb, vcores, priority)
        pending = [ContainerAsk(count, memory_mb, vcores, priority)]
        running: set[str] = set()
        extra: list[str] = []  # allocated beyond what is needed: given back next time
        done: list[ContainerStatus] = []
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while len(done) < count:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"{len(done)} of {count} containers done in {timeout_s} s")
            answer = self.allocate(pending, extra, len(done) / count)
            pending, extra = [], []
            for container in answer.allocated:
                if len(running) + len(done) < count:
                    try:
                        self.start_container(container.id, command, environment)
                    except ClientError as e:
                        if e.status != 404:
                            raise
                        # gone before it started (an RM restart did not recover a container
                        # not yet started): asked for again
                        pending.append(ask)
                        continue
                    running.add(container.id)
                else:
                    extra.append(container.id)
            for status in answer.completed:
                if status.container_id not in running:
                    continue
                running.discard(status.container_id)
                if retry_preempted and status.exit_status in (PREEMPTED, ABORTED):
                    pending.append(ask)
                else:
                    done.append(status)
            if len(done) < count:
                time.sleep(interval_s)
        return done

    def _given(self, priority: int, memory: int, vcores: int) -> None:
        """An allocated container answers one outstanding ask of its size and priority."""
        for key, count in self._outstanding.items():
            if key[:3] == (priority, memory, vcores) and count > 0:
                self._outstanding[key] = count - 1
                return

    def _resync(self) -> None:
        """The RM restarted and knows this attempt as not registered: register again and ask
        again for everything outstanding (``AMRMClientImpl`` on
        ``ApplicationMasterNotRegisteredException``)."""
        if self._registration is None:
            raise RuntimeError("the RM asks for a registration this AM never made")
        self._post("/register", self._registration)
        asks = [ContainerAsk(n, memory, vcores, priority, node, rack, relax).json()
                for (priority, memory, vcores, node, rack, relax), n in
                self._outstanding.items() if n > 0]
        if asks:
            self._post("/allocate", {"asks": asks, "releases": [], "progress": 0.0})

    def _post(self, path: str, body: Mapping[str, Any], *,
              resync: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """One call, tried again while the RM does not answer (up to ``connect_max_wait_s``)
        and, given ``resync`` (the body to send then), once more after re-registering if the
        RM restarted."""
        deadline = time.monotonic() + self.connect_max_wait_s
        resynced = False
        while True:
            try:
                response = self._http.post(path, json=dict(body))
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(CONNECT_RETRY_S)
                continue
            try:
                answer = check(response).json()
            except ClientError as e:
                if resync is not None and not resynced and e.exception == NOT_REGISTERED \
                        and self._registration is not None:
                    self._resync()
                    resynced, body = True, resync
                    continue
                raise
            if not isinstance(answer, dict):
                raise ValueError(f"{path}: the server answered {answer!r}")
            return answer


def _key(ask: ContainerAsk) -> tuple[int, int, int, str | None, str | None, bool]:
    return (ask.priority, ask.memory_mb, ask.vcores, ask.node, ask.rack, ask.relax_locality)
