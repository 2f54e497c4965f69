"""Rules of Hadoop's DAOs that the recorded answers do not show, each worked out from the
class that applies it (and found by the oracle's REST comparison, docs/fidelity.md): which
apps a leaf counts as pending, every place of an app's asks in YARN's hash order, and what
an unmanaged AM leaves out."""

from __future__ import annotations

from typing import Any

from fairshare.core import ContainerRequest, Engine
from fairshare.server.rest import daos
from fairshare.server.rest.jersey import to_json
from tests.server.rest.fake import FakeControl, contention_engine, r
from tests.server.rest.shapes import parse, walk_queues


def leaf(control: FakeControl, name: str) -> dict[str, Any]:
    queue = walk_queues(parse(to_json(daos.scheduler(control.snapshot())))
                        .get("scheduler").get("schedulerInfo").get("rootQueue"))[name]
    return dict(queue)


def app_info(control: FakeControl, app_id: str) -> dict[str, Any]:
    s = control.snapshot()
    return dict(parse(to_json(daos.apps(s, s.apps))).get("apps").get("app")[
        [a.id for a in s.apps].index(app_id)])


def test_a_runnable_app_is_pending_until_its_first_container() -> None:
    # FSLeafQueue.getNumPendingApps counts a runnable attempt while its AppSchedulingInfo is
    # pending, which only the first allocation (AppSchedulingInfo
    # .updateMetricsForAllocatedContainer) ends; getNumActiveApps counts the others
    control = FakeControl(contention_engine())
    app = control.submit_direct("root.a", "alice", r(1024, 1))
    control.engine.update()
    assert control.engine.snapshot().app(app).runnable
    before = leaf(control, "root.a")
    assert (before["numPendingApps"], before["numActiveApps"]) == (1, 0)
    control.tick(1)  # a heartbeat: the AM container
    after = leaf(control, "root.a")
    assert (after["numPendingApps"], after["numActiveApps"]) == (0, 1)


def test_an_app_over_max_running_apps_is_pending_too() -> None:
    # root.b allows 5 running apps (contention.xml): the sixth is not runnable
    control = FakeControl(contention_engine())
    for _ in range(6):
        control.submit_direct("root.b", "bob", r(1024, 1))
    control.tick(6)  # an update pass (demand), then heartbeats: the five AMs
    b = leaf(control, "root.b")
    assert (b["numPendingApps"], b["numActiveApps"]) == (1, 5)


def test_the_asks_of_every_place_in_the_allocators_hash_order() -> None:
    # a host ask is asked at its host, its rack and ANY (AMRMClientImpl); getAllResourceRequests
    # walks each allocator's ConcurrentHashMap by resource name: String.hashCode "*" = 42 →
    # bin 42 & 15 = 10, "n1" = 110·31 + 49 = 3459 = 0xD83 → bin 3, "/r1" = (47·31 + 114)·31 + 49
    # = 48750 = 0xBE6E → bin 14 (h ^ h >>> 16 leaves these as they are): n1, *, /r1 — the order
    # Hadoop's own AppInfo gave for this ask in the oracle (random-000004)
    engine = contention_engine()
    engine.add_node("n1", r(8192, 8), "/r1")
    control = FakeControl(engine)
    app = control.submit_direct("root.a", "alice", r(1024, 1),
                                [ContainerRequest(3, r(2048, 1), 1, "n1")])
    asks = [(q["resourceName"], q["priority"], q["numContainers"])
            for q in (dict(x) for x in app_info(control, app)["resourceRequests"])]
    # the AM's ask (priority 0) first: SchedulerRequestKey.hashCode is
    # 31·(31·Priority.hashCode + (int)(id ^ id >>> 32)) + 0, Priority's 517861·9511 + p, in
    # 32-bit arithmetic: 232347939 for priority 0 (bin 10 of 16 after the spread) and
    # 232348900 for priority 1 (bin 13); the ids, −1 and 0, both fold to 0
    assert asks == [("*", 0, 1), ("n1", 1, 3), ("*", 1, 3), ("/r1", 1, 3)]


def test_an_unmanaged_am_has_no_am_label() -> None:
    # AppInfo: amNodeLabelExpression is null for an unmanaged application (no AM request)
    control = FakeControl(contention_engine())
    managed = control.submit_direct("root.a", "bob", r(1024, 1))
    unmanaged = "application_1796196824096_0002"
    control.engine.submit(unmanaged, "root.a", "alice", None, [ContainerRequest(1, r(1024, 1))])
    info = app_info(control, unmanaged)
    assert info["unmanagedApplication"] is True
    assert "amNodeLabelExpression" not in info
    info = app_info(control, managed)
    assert info["unmanagedApplication"] is False and info["amNodeLabelExpression"] == ""


def test_a_leafs_am_limit_has_every_resource_type() -> None:
    # FSQueueMetrics.getMaxAMShare carries the custom types (customResources), so
    # amMaxResources does: maxAMShare 0.5 of a leaf whose fair share is the whole cluster of
    # one node with 4 GPUs gives 2 GPUs
    from fairshare.config.allocation import parse_allocations_text
    from fairshare.config.yarnsite import load_site

    site = load_site(None, {"yarn.resource-types": "yarn.io/gpu"})
    xml = ("<allocations><queue name='a'><maxAMShare>0.5</maxAMShare></queue>"
           "<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy></allocations>")
    engine = Engine(site, parse_allocations_text(xml, "gpu.xml", site.resource_types))
    engine.add_node("n1", site.resource_types.of({"memory-mb": 8192, "vcores": 8,
                                                  "yarn.io/gpu": 4}))
    control = FakeControl(engine)
    control.submit_direct("root.a", "alice", site.resource_types.of(
        {"memory-mb": 1024, "vcores": 1}))
    control.tick(6)
    infos = {dict(i)["name"]: dict(i)["value"] for i in dict(dict(
        leaf(control, "root.a")["amMaxResources"])["resourceInformations"])["resourceInformation"]}
    assert infos == {"memory-mb": 4096, "vcores": 4, "yarn.io/gpu": 2}


def test_an_app_whose_submission_made_its_queue_has_no_am_label() -> None:
    # RMAppManager validates the AM request before FairScheduler.addApplication makes the
    # queue: SchedulerUtils finds no QueueInfo and leaves the label null, and
    # RMAppAttemptImpl.ScheduledTransition sets FSQueue's default label, null, so AppInfo
    # leaves amNodeLabelExpression out (Hadoop's own AppInfo, in the oracle's SLS cases); the
    # next app finds the queue and gets NO_LABEL, ""
    control = FakeControl(contention_engine())
    first = control.submit_direct("root.fresh", "alice", r(1024, 1))
    second = control.submit_direct("root.fresh", "bob", r(1024, 1))
    assert control.engine.snapshot().app(first).queue == "root.fresh"
    assert "amNodeLabelExpression" not in app_info(control, first)
    assert app_info(control, second)["amNodeLabelExpression"] == ""
