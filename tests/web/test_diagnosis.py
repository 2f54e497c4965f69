"""What holds a watched RM's queues and apps (web/diagnosis.py): one worked example per cause,
each a hand-built sample (a DumpQueue tree, nodes, apps) with a small allocation file, the
expected numbers worked out in the comments."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig, load_site
from fairshare.sim.importer.dump import (
    DumpApp,
    DumpNode,
    DumpQueue,
    JsonFile,
    PendingAsk,
    read_apps,
    read_nodes,
    read_scheduler,
)
from fairshare.sim.record.causes import WaitCause
from fairshare.web.diagnosis import Finding, QueueFacts, diagnose
from fairshare.web.sample import Sample

NOW = 1_800_000_000_000
CLUSTER = (40960, 40)  # four nodes of 10,240 MB and 10 vcores
PREEMPTION = load_site(overrides={"yarn.scheduler.fair.preemption": "true"})


def _leaf(name: str, used: tuple[int, int], fair: tuple[int, int], *, active: int = 0,
          pending: int = 0, max_apps: int = 2**31 - 1, max_res: tuple[int, int] = CLUSTER,
          am_used: tuple[int, int] = (0, 0), am_max: tuple[int, int] = (0, 0),
          preemptable: bool = True, policy: str = "fair", pending_containers: int = 0
          ) -> DumpQueue:
    return DumpQueue(name=name, leaf=True, policy=policy, min_resources=(0, 0),
                     max_resources=max_res, used=used, steady_fair=fair, fair=fair,
                     am_max=am_max, max_apps=max_apps, preemptable=preemptable, children=(),
                     line=1, am_used=am_used, pending_containers=pending_containers,
                     active_apps=active, pending_apps=pending)


def _root(*leaves: DumpQueue) -> DumpQueue:
    used = (sum(q.used[0] for q in leaves), sum(q.used[1] for q in leaves))
    return DumpQueue(name="root", leaf=False, policy="drf", min_resources=(0, 0),
                     max_resources=CLUSTER, used=used, steady_fair=CLUSTER, fair=CLUSTER,
                     am_max=None, max_apps=2**31 - 1, preemptable=True, children=leaves,
                     line=1)


def _nodes(free_mb: int, free_vcores: int = 1) -> tuple[DumpNode, ...]:
    """Four nodes with this much free each."""
    return tuple(DumpNode(f"n{i}", "", "/default-rack", (10240, 10),
                          (10240 - free_mb, 10 - free_vcores), 1) for i in range(4))


def _app(n: int, queue: str, state: str, ask: tuple[int, int] | None, *, user: str = "alice",
         started: int = NOW - 600_000) -> DumpApp:
    asks = () if ask is None else (PendingAsk(1, 1, ask),)
    return DumpApp(id=f"application_1_{n:04d}", user=user, queue=queue, state=state,
                   started_ms=started + n, finished_ms=0, allocated=(0, 0),
                   running_containers=0, am_host=None, am_container=None, unmanaged=False,
                   asks=asks, line=1)


def _sample(root: DumpQueue, nodes: tuple[DumpNode, ...], apps: tuple[DumpApp, ...]
            ) -> Sample:
    return Sample(NOW, "http://rm:8088", 1, "3.4.1", root, CLUSTER, nodes, apps)


def _alloc(queues: str, extra: str = "") -> AllocationConfig:
    return parse_allocations_text(f"<allocations>{extra}<queue name=\"root\">{queues}</queue>"
                                  "</allocations>")


AB = _alloc('<queue name="a"/><queue name="b"/>')


def _of(findings: list[Finding], app: str | None, queue: str = "root.a") -> Finding:
    return next(f for f in findings if f.app == app and f.queue == queue)


def _run(sample: Sample, config: AllocationConfig = AB, site: SiteConfig = PREEMPTION,
         short_for_ms: int | None = None) -> list[Finding]:
    facts = {} if short_for_ms is None else {"root.a": QueueFacts(NOW - short_for_ms,
                                                                  NOW - short_for_ms)}
    return diagnose(sample, config, site, facts)


# -- not runnable ------------------------------------------------------------------------------


def test_max_running_apps_reached_holds_the_latest_accepted_app() -> None:
    # maxRunningApps 2; 2 active and 1 pending: at most 2 runnable, so 2 + 1 − 2 = 1 app is
    # held not runnable — the latest submitted, app 3 (apps 1 and 2 run and ask nothing)
    a = _leaf("root.a", (8192, 4), (20480, 20), active=2, pending=1, max_apps=2)
    apps = (_app(1, "root.a", "RUNNING", None), _app(2, "root.a", "RUNNING", None),
            _app(3, "root.a", "ACCEPTED", (1024, 1), user="bob"))
    config = _alloc('<queue name="a"><maxRunningApps>2</maxRunningApps></queue>')
    found = _run(_sample(_root(a), _nodes(4096), apps), config)
    held = _of(found, "application_1_0003")
    assert held.cause == WaitCause.MAX_RUNNING_APPS
    assert "maxRunningApps 2 of root.a reached (2 running, 1 pending)" in held.words
    assert held.words.startswith("held by the queue's maxRunningApps")
    assert held.setting == "maxRunningApps of root.a = 2"
    assert held.advice.startswith("raise the queue's maxRunningApps (maxRunningApps of root.a")
    assert held.since_ms == NOW - 600_000 + 3  # waiting since it was submitted
    assert _of(found, None).cause == WaitCause.MAX_RUNNING_APPS
    assert [f.app for f in found] == [None, "application_1_0003"]


def test_a_pending_app_under_the_limit_is_runnable_and_waits_for_room() -> None:
    # maxRunningApps 2, 1 active + 1 pending = 2: nothing held; a node has 4,096 MB free for
    # its 1,024 MB AM, and the AM limit is not known (0): the next heartbeat places it
    a = _leaf("root.a", (8192, 4), (20480, 20), active=1, pending=1, max_apps=2)
    apps = (_app(1, "root.a", "RUNNING", None), _app(2, "root.a", "ACCEPTED", (1024, 1)))
    held = _of(_run(_sample(_root(a), _nodes(4096), apps)), "application_1_0002")
    assert held.cause == WaitCause.ROOM_FREE
    assert "a node has room for 1,024 MB, 1 vcores" in held.words


def test_user_max_running_apps() -> None:
    # carol may run 1 app; she runs one in root.b, so her app in root.a is not runnable
    a = _leaf("root.a", (0, 0), (20480, 20), pending=1)
    b = _leaf("root.b", (4096, 2), (20480, 20), active=1)
    apps = (_app(1, "root.b", "RUNNING", None, user="carol"),
            _app(2, "root.a", "ACCEPTED", (1024, 1), user="carol"))
    config = _alloc('<queue name="a"/><queue name="b"/>',
                    '<user name="carol"><maxRunningApps>1</maxRunningApps></user>')
    held = _of(_run(_sample(_root(a, b), _nodes(4096), apps), config), "application_1_0002")
    assert held.cause == WaitCause.USER_MAX_APPS
    assert "user carol's maxRunningApps 1 reached (1 running)" in held.words
    assert held.setting == "maxRunningApps of user carol = 1"


# -- limits ------------------------------------------------------------------------------------


def test_max_share_reached() -> None:
    # maxResources 8,192 MB, 8 vcores; it uses 7,168 MB: + a 2,048 MB ask = 9,216 > 8,192
    a = _leaf("root.a", (7168, 7), (20480, 20), active=1, max_res=(8192, 8))
    apps = (_app(1, "root.a", "RUNNING", (2048, 1)),)
    config = _alloc('<queue name="a"><maxResources>8192 mb, 8 vcores</maxResources></queue>'
                    '<queue name="b"/>')
    held = _of(_run(_sample(_root(a), _nodes(4096), apps), config), "application_1_0001")
    assert held.cause == WaitCause.MAX_SHARE
    assert held.setting == "maxResources of root.a = 8,192 MB, 8 vcores"
    assert "root.a uses 7,168 MB, 7 vcores" in held.words


def test_an_unset_max_share_is_not_a_limit_even_on_a_full_queue() -> None:
    # REST reports an unset max share as the cluster (40,960 MB): using 39,936 MB + 2,048 would
    # pass it, but without maxResources the queue has no max share; preemption is off
    a = _leaf("root.a", (39936, 39), (40960, 40), active=1)
    apps = (_app(1, "root.a", "RUNNING", (2048, 1)),)
    held = _of(_run(_sample(_root(a), _nodes(0, 0), apps), site=SiteConfig.default()),
               "application_1_0001")
    assert held.cause == WaitCause.PREEMPTION_OFF


def test_max_am_share() -> None:
    # AM usage 3,072 MB, 3 vcores + this AM 2,048 MB, 1 vcore = 5,120 MB > the AM limit 4,096
    # (maxAMShare 0.5, the default, of an 8,192 MB fair share); a node has room for it
    a = _leaf("root.a", (3072, 3), (8192, 8), active=3, pending=1, am_used=(3072, 3),
              am_max=(4096, 4))
    apps = (_app(1, "root.a", "ACCEPTED", (2048, 1)),)
    held = _of(_run(_sample(_root(a), _nodes(4096), apps)), "application_1_0001")
    assert held.cause == WaitCause.MAX_AM_SHARE
    assert held.setting == "maxAMShare of root.a = 0.5"
    assert ("AM usage 3,072 MB, 3 vcores + this AM 2,048 MB, 1 vcores is above the AM limit "
            "4,096 MB, 4 vcores") in held.words


# -- preemption --------------------------------------------------------------------------------

# A full cluster (no node has 1,024 MB free) where root.a uses 4,096 MB of a 20,480 MB fair
# share (below 0.5 × 20,480 = 10,240) and root.b the rest: 36,864 / 40,960 = 90 % used.
A_SHORT = _leaf("root.a", (4096, 4), (20480, 20), active=1, pending_containers=3)
B_OVER = _leaf("root.b", (32768, 32), (20480, 20), active=1)
FULL = _nodes(0, 0)
WAITING = (_app(1, "root.a", "RUNNING", (1024, 1)), _app(2, "root.b", "RUNNING", None))


def test_preemption_off() -> None:
    held = _of(_run(_sample(_root(A_SHORT, B_OVER), FULL, WAITING), site=SiteConfig.default()),
               "application_1_0001")
    assert held.cause == WaitCause.PREEMPTION_OFF
    assert held.setting == "yarn.scheduler.fair.preemption = false"
    assert held.advice.startswith("turn preemption on (yarn.scheduler.fair.preemption = false)")


def test_utilization_gate() -> None:
    # 29,491 of 40,960 MB = 0.71999 (72 %), 20 of 40 vcores = 50 %: the larger, 72 %, is
    # below the 80 % threshold; no node has 8,192 MB free for the ask
    a = _leaf("root.a", (4096, 4), (20480, 20), active=1)
    b = _leaf("root.b", (25395, 16), (20480, 20), active=1)
    apps = (_app(1, "root.a", "RUNNING", (8192, 1)),)
    held = _of(_run(_sample(_root(a, b), _nodes(2867, 5), apps)), "application_1_0001")
    assert held.cause == WaitCause.UTILIZATION_GATE
    assert "utilization 72% is below the 80% threshold: preemption is gated" in held.words
    assert held.setting == ("yarn.scheduler.fair.preemption.cluster-utilization-threshold "
                            "= 0.8")


def test_starvation_not_configured() -> None:
    # short for 380 s = 6 m 20 s, and no timeout anywhere in the file
    held = _of(_run(_sample(_root(A_SHORT, B_OVER), FULL, WAITING), short_for_ms=380_000),
               "application_1_0001")
    assert held.cause == WaitCause.STARVATION_NOT_CONFIGURED
    assert ("below 0.5 × its fair share for 6 m 20 s; fairSharePreemptionTimeout unset, so "
            "nothing will ever be preempted for it") in held.words
    assert held.since_ms == NOW - 380_000
    assert held.advice.startswith("set a fairSharePreemptionTimeout for the queue")


TIMEOUT_600 = _alloc('<queue name="a"><fairSharePreemptionTimeout>600'
                     '</fairSharePreemptionTimeout></queue><queue name="b"/>')
TIMEOUT_300 = _alloc('<queue name="a"/><queue name="b"/>',
                     "<defaultFairSharePreemptionTimeout>300</defaultFairSharePreemptionTimeout>")


def test_timeout_not_yet_passed() -> None:
    # short for 6 m 20 s of a 600 s timeout: 600 − 380 = 220 s = 3 m 40 s to go
    held = _of(_run(_sample(_root(A_SHORT, B_OVER), FULL, WAITING), TIMEOUT_600, PREEMPTION,
                    380_000), "application_1_0001")
    assert held.cause == WaitCause.PREEMPTION_TIMEOUT
    assert ("below 0.5 × its fair share for 6 m 20 s, 3 m 40 s before its "
            "fairSharePreemptionTimeout of 10 m 00 s passes") in held.words
    assert held.setting == "fairSharePreemptionTimeout of root.a = 10 m 00 s (threshold 0.5)"


def test_only_a_min_share_timeout() -> None:
    # minSharePreemptionTimeout set, no fairSharePreemptionTimeout: fair-share starvation
    # cannot happen, so being short of 0.5 × its fair share waits for nothing
    config = _alloc('<queue name="a"><minSharePreemptionTimeout>60</minSharePreemptionTimeout>'
                    '</queue><queue name="b"/>')
    held = _of(_run(_sample(_root(A_SHORT, B_OVER), FULL, WAITING), config, PREEMPTION,
                    380_000), "application_1_0001")
    assert held.cause == WaitCause.PREEMPTION_TIMEOUT
    assert ("below 0.5 × its fair share for 6 m 20 s; fairSharePreemptionTimeout unset: only "
            "min-share starvation (minSharePreemptionTimeout) applies") in held.words
    assert held.setting == "fairSharePreemptionTimeout of root.a = unset (threshold 0.5)"


def test_timeout_passed_and_preemption_under_way() -> None:
    # 380 s short > 300 s (the file's default timeout), root.b is over its share and
    # preemptable: its containers are to be taken
    held = _of(_run(_sample(_root(A_SHORT, B_OVER), FULL, WAITING), TIMEOUT_300, PREEMPTION,
                    380_000), "application_1_0001")
    assert held.cause == WaitCause.PREEMPTION_ROUND
    assert "containers of root.b are to be preempted" in held.words
    assert held.setting == ("waitTimeBeforeKill = 15.0 s, "
                            "waitTimeBeforeNextStarvationCheck = 10.0 s")


def test_only_non_preemptable_victims() -> None:
    b = _leaf("root.b", (32768, 32), (20480, 20), active=1, preemptable=False)
    config = _alloc('<queue name="a"/><queue name="b"><allowPreemptionFrom>false'
                    '</allowPreemptionFrom></queue>',
                    "<defaultFairSharePreemptionTimeout>300</defaultFairSharePreemptionTimeout>")
    held = _of(_run(_sample(_root(A_SHORT, b), FULL, WAITING), config, PREEMPTION, 380_000),
               "application_1_0001")
    assert held.cause == WaitCause.NON_PREEMPTABLE_VICTIMS
    assert "the queues above their fair share (root.b) have allowPreemptionFrom false" in \
        held.words
    assert held.setting == "allowPreemptionFrom of root.b"


def test_victims_at_fair_share() -> None:
    # root.a (fair) uses 4,096 MB, 16 vcores; root.b exactly its 20,480 MB, 20 vcores: 36 of
    # 40 vcores = 90 % used, root.a short in memory, nobody above a fair share
    a = _leaf("root.a", (4096, 16), (20480, 20), active=1)
    b = _leaf("root.b", (20480, 20), (20480, 20), active=1, policy="drf")
    apps = (_app(1, "root.a", "RUNNING", (1024, 1)),)
    held = _of(_run(_sample(_root(a, b), FULL, apps), TIMEOUT_300, PREEMPTION, 380_000),
               "application_1_0001")
    assert held.cause == WaitCause.VICTIMS_AT_FAIR_SHARE
    assert "no other queue is above its fair share" in held.words


def test_starvation_smaller_than_a_container() -> None:
    # 0.5 × 20,480 − 8,192 = 2,048 MB of starvation: a 4,096 MB ask is bigger, and YARN counts
    # the containers that fit in it by memory (DefaultResourceCalculator): none
    a = _leaf("root.a", (8192, 8), (20480, 20), active=1)
    b = _leaf("root.b", (28672, 28), (20480, 20), active=1)
    apps = (_app(1, "root.a", "RUNNING", (4096, 1)),)
    held = _of(_run(_sample(_root(a, b), FULL, apps), TIMEOUT_300, PREEMPTION, 380_000),
               "application_1_0001")
    assert held.cause == WaitCause.STARVATION_UNDER_A_CONTAINER
    assert "(2,048 MB) is less than a container of 4,096 MB" in held.words


def test_no_node_fits_the_ask() -> None:
    # 0.5 × 30,720 − 2,048 = 13,312 MB of starvation holds the 12,288 MB ask, but every node
    # has 10,240 MB in all: preemption cannot make room for it anywhere
    a = _leaf("root.a", (2048, 2), (30720, 30), active=1)
    b = _leaf("root.b", (34816, 34), (10240, 10), active=1)
    apps = (_app(1, "root.a", "RUNNING", (12288, 1)),)
    held = _of(_run(_sample(_root(a, b), FULL, apps), TIMEOUT_300, PREEMPTION, 380_000),
               "application_1_0001")
    assert held.cause == WaitCause.NO_NODE_FITS
    assert "no node is big enough for a container of 12,288 MB, 1 vcores" in held.words
    assert held.setting == "the node sizes"


def test_at_fair_share_on_a_full_cluster() -> None:
    # root.a uses 12,288 MB of a 20,480 MB share: above 0.5 × 20,480 = 10,240, not short
    a = _leaf("root.a", (12288, 12), (20480, 20), active=1)
    b = _leaf("root.b", (28672, 28), (20480, 20), active=1)
    apps = (_app(1, "root.a", "RUNNING", (1024, 1)),)
    held = _of(_run(_sample(_root(a, b), FULL, apps), TIMEOUT_300), "application_1_0001")
    assert held.cause == WaitCause.AT_FAIR_SHARE
    assert "it uses 12,288 MB, 12 vcores against a fair share of 20,480 MB, 20 vcores" in \
        held.words
    assert held.setting == "the weight of root.a = 1"


def test_a_queue_in_contention_without_known_apps_gets_its_own_finding() -> None:
    found = _run(_sample(_root(A_SHORT, B_OVER), FULL, ()), short_for_ms=380_000)
    assert [(f.queue, f.app, f.cause) for f in found] == [
        ("root.a", None, WaitCause.STARVATION_NOT_CONFIGURED)]


def test_a_queue_the_file_does_not_name_inherits_its_parents_timeout() -> None:
    # root.users.alice (created by a placement rule) inherits root.users' 600 s timeout
    alice = _leaf("root.users.alice", (4096, 4), (20480, 20), active=1)
    users = DumpQueue(name="root.users", leaf=False, policy="fair", min_resources=(0, 0),
                      max_resources=CLUSTER, used=alice.used, steady_fair=(20480, 20),
                      fair=(20480, 20), am_max=None, max_apps=2**31 - 1, preemptable=True,
                      children=(alice,), line=1)
    config = _alloc('<queue name="users" type="parent"><fairSharePreemptionTimeout>600'
                    '</fairSharePreemptionTimeout></queue><queue name="b"/>')
    apps = (_app(1, "root.users.alice", "RUNNING", (1024, 1)),)
    facts = {"root.users.alice": QueueFacts(NOW - 380_000, NOW - 380_000)}
    found = diagnose(_sample(_root(users, B_OVER), FULL, apps), config, PREEMPTION, facts)
    held = _of(found, "application_1_0001", "root.users.alice")
    assert held.cause == WaitCause.PREEMPTION_TIMEOUT
    assert "fairSharePreemptionTimeout of 10 m 00 s" in held.words


def test_a_real_dump_diagnoses_every_waiting_app() -> None:
    # tests/importer/dumps/basic: apps 1 and 2 run with asks, app 3 is ACCEPTED, app 0 is
    # finished; node1 has 3,072 MB free, enough for any of their asks
    folder = Path(__file__).parents[1] / "importer" / "dumps" / "basic"
    root, cluster = read_scheduler(JsonFile.read(folder / "scheduler.json", "scheduler.json"))
    nodes, _ = read_nodes(JsonFile.read(folder / "nodes.json", "nodes.json"))
    apps = read_apps(JsonFile.read(folder / "apps.json", "apps.json"))
    sample = Sample(NOW, "http://rm:8088", 1, "3.3.6", root, cluster, nodes, apps)
    found = diagnose(sample, AllocationConfig(), SiteConfig.default(), {})
    by_app = {f.app: f for f in found if f.app is not None}
    assert sorted(by_app) == ["application_1700000000000_0001", "application_1700000000000_0002",
                              "application_1700000000000_0003"]
    assert {f.cause for f in found} == {WaitCause.ROOM_FREE}
    assert "room for 1,536 MB, 1 vcores" in by_app["application_1700000000000_0003"].words


def test_an_ancestors_max_running_apps_holds_an_app_of_its_leaf() -> None:
    # tests/importer/dumps/drf12: root.prod has maxApps 2; its leaves etl (1 active, 1
    # pending) and reports (1 active): 3 − 2 = 1 held, the ACCEPTED app 4 of root.prod.etl;
    # root.dev has maxApps 0: its ACCEPTED app 5 is held (0 + 1 − 0 = 1)
    folder = Path(__file__).parents[1] / "importer" / "dumps" / "drf12"
    root, cluster = read_scheduler(JsonFile.read(folder / "scheduler.json", "scheduler.json"))
    nodes, _ = read_nodes(JsonFile.read(folder / "nodes.json", "nodes.json"))
    apps = read_apps(JsonFile.read(folder / "apps.json", "apps.json"))
    sample = Sample(NOW, "http://rm:8088", 1, "3.4.1", root, cluster, nodes, apps)
    by_app = {f.app: f for f in diagnose(sample, AllocationConfig(), SiteConfig.default(), {})}
    assert by_app["application_1733000000000_0004"].setting == "maxRunningApps of root.prod = 2"
    assert "(2 running, 1 pending)" in by_app["application_1733000000000_0004"].words
    assert by_app["application_1733000000000_0005"].setting == "maxRunningApps of root.dev = 0"
    # app 2 runs and asks nothing: not waiting
    assert "application_1733000000000_0002" not in by_app


def test_an_am_being_launched_is_not_waiting() -> None:
    # ACCEPTED with its AM container allocated (amContainerLogs names it) and no asks left
    a = _leaf("root.a", (1024, 1), (20480, 20), active=1, pending_containers=0)
    app = replace(_app(1, "root.a", "ACCEPTED", None), am_container="container_1_0001_01_01")
    assert _run(_sample(_root(a), _nodes(4096), (app,))) == []
