"""The recorded cases' clusters rebuilt on an engine (tests/watch/recorded/README.md)."""

from __future__ import annotations

from fairshare.core import ContainerRequest
from tests.server.rest.fake import FakeControl, contention_engine, r


def fair_preempted() -> tuple[FakeControl, str, str]:
    """``fair-preempted``: alice's app (root.a) asks 40 × 1024 MB and fills the cluster with
    31 and its AM; bob's (root.b) arrives 3 s later, one root.a container is preempted for
    bob's AM, then bob asks 12 × 2048 MB. Returns the control and the two app ids."""
    control = FakeControl(contention_engine())
    alice = control.submit_direct("root.a", "alice", r(1024, 1))
    control.tick(5)
    control.engine.request(alice, [ContainerRequest(40, r(1024, 1), 1)])
    control.tick(20)
    bob = control.submit_direct("root.b", "bob", r(1024, 1))
    control.tick(60)
    control.engine.request(bob, [ContainerRequest(12, r(2048, 1), 1)])
    control.tick(2)
    return control, alice, bob
