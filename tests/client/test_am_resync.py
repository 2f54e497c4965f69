"""``AMClient`` after an RM restart: an allocate answered ``ApplicationMasterNotRegistered
Exception`` makes it register again as it first did and ask again for exactly what it asked
for and was not given, then make the call again without its asks (they were just sent) —
``AMRMClientImpl``'s resync; a server that does not answer is tried again until it does."""

from __future__ import annotations

import json
from typing import Any

import httpx

from fairshare.client import AMClient
from fairshare.client.am import ContainerAsk

NOT_REGISTERED = {"RemoteException": {
    "exception": "ApplicationMasterNotRegisteredException",
    "javaClassName": "org.apache.hadoop.yarn.exceptions.ApplicationMasterNotRegisteredException",
    "message": "AM is not registered for known application attempt"}}


class FakeRM:
    """Answers as a real RM would, and restarts (forgets the registration) when told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.registered = False
        self.down = 0  # calls to refuse at the connection before answering again
        self.response_id = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            self.down -= 1
            raise httpx.ConnectError("connection refused", request=request)
        path = request.url.path.rsplit("/", 1)[-1]
        body = json.loads(request.content)
        self.calls.append((path, body))
        if path == "register":
            self.registered = True
            return httpx.Response(200, json={"queue": "root.a"})
        if not self.registered:
            return httpx.Response(400, json=NOT_REGISTERED)
        self.response_id += 1
        given = []
        if self.response_id == 1:  # one of the three 1 GB asked for, and one of 512 MB
            given = [{"id": "c_1", "nodeId": "n1:1", "nodeHttpAddress": "n1:2",
                      "resource": {"memory": 1024, "vCores": 1}, "priority": 1},
                     {"id": "c_2", "nodeId": "n1:1", "nodeHttpAddress": "n1:2",
                      "resource": {"memory": 512, "vCores": 1}, "priority": 2}]
        return httpx.Response(200, json={"responseId": self.response_id,
                                         "allocatedContainers": given,
                                         "completedContainersStatuses": []})


def test_a_restarted_rm_gets_the_registration_and_the_outstanding_asks_again() -> None:
    rm = FakeRM()
    am = AMClient("http://rm", "token", transport=httpx.MockTransport(rm),
                  connect_max_wait_s=5)
    am.register(host="am-host", rpc_port=1234, tracking_url="http://am/ui")
    first = am.allocate([ContainerAsk(3, 1024), ContainerAsk(2, 512, priority=2)])
    assert [c.id for c in first.allocated] == ["c_1", "c_2"]
    rm.registered, rm.down = False, 3  # the RM restarts: down for three calls, then forgets
    rm.calls.clear()
    second = am.allocate([ContainerAsk(1, 2048, priority=3)], releases=["c_2"])
    assert second.response_id == 3  # (the resync's own allocate was the second answer)
    assert [path for path, _ in rm.calls] == ["allocate", "register", "allocate", "allocate"]
    assert rm.calls[1][1] == {"host": "am-host", "rpcPort": 1234, "trackingUrl": "http://am/ui"}
    # asked again: what was outstanding (2 of 1 GB, 1 of 512 MB) and the new ask (2 GB)
    again = sorted((a["resource"]["memory"], a["priority"], a["count"])
                   for a in rm.calls[2][1]["asks"])
    assert again == [(512, 2, 1), (1024, 1, 2), (2048, 3, 1)]
    # the call itself made again: its release, not its asks (sent with the resync)
    assert rm.calls[3][1]["asks"] == [] and rm.calls[3][1]["releases"] == ["c_2"]


def test_an_rm_that_stays_away_is_given_up_on_after_the_connect_wait() -> None:
    rm = FakeRM()
    rm.down = 10_000
    am = AMClient("http://rm", "token", transport=httpx.MockTransport(rm),
                  connect_max_wait_s=0.2)
    try:
        am.register()
    except httpx.ConnectError:
        pass
    else:
        raise AssertionError("a register to an RM that never answers must fail")
