"""Scenarios with one cause of waiting each, for tests/sim/test_waiting.py and the explain and
report tests: small clusters whose timing can be followed by hand (docs/simulator.md: at
each millisecond kill timers, completions, arrivals, the update pass every 500 ms from +500,
node heartbeats every 1,000 ms from +1,000 — one container per heartbeat unless
assignmultiple —, then the sample, every 1,000 ms here)."""

from __future__ import annotations

APP = ("    - {{id: {id}, at-ms: {at}, queue: root.{queue}, user: {user}, "
       "am: {{memory-mb: 1024, vcores: 1}},\n"
       "       tasks: [{{count: {count}, memory-mb: {mb}, vcores: 1, duration-ms: {ms}}}]}}\n")


def app(id: str, queue: str = "a", *, at: int = 0, user: str = "u", count: int = 1,
        mb: int = 1024, ms: int = 30000) -> str:
    return APP.format(id=id, at=at, queue=queue, user=user, count=count, mb=mb, ms=ms)


def scenario(queues: str, apps: str, *, preemption: bool = True, defaults: str = "",
             node: str = "memory-mb: 8192, vcores: 8", until: int | None = None,
             site: str = "") -> str:
    run = "{snapshot-every-ms: 1000" + (f", until-ms: {until}" if until else "") + "}"
    return (
        "version: 1\n"
        f"site:\n  yarn.scheduler.fair.preemption: {str(preemption).lower()}\n{site}"
        "allocations: |\n"
        f"  <allocations>{defaults}{queues}</allocations>\n"
        f"cluster:\n  nodes: [{{name: n1, {node}}}]\n"
        f"workload:\n  apps:\n{apps}"
        f"run: {run}\n")


TIMEOUTS = ("<defaultFairSharePreemptionTimeout>5</defaultFairSharePreemptionTimeout>"
            "<defaultFairSharePreemptionThreshold>0.8</defaultFairSharePreemptionThreshold>")

# The motivating case (issue 30): a queue held by its maxRunningApps while preemption is on
# and configured (5 s timeout, threshold 0.8). a1 runs at once; a2 is held not runnable
# until a1 ends.
MAX_RUNNING_APPS = scenario(
    '<queue name="a"><maxRunningApps>1</maxRunningApps></queue><queue name="b"/>',
    app("a1") + app("a2"), defaults=TIMEOUTS)

USER_MAX_APPS = scenario(
    '<queue name="a"/><queue name="b"/><user name="u"><maxRunningApps>1</maxRunningApps>'
    "</user>", app("a1") + app("a2"), defaults=TIMEOUTS)

MAX_AM_SHARE = scenario(
    '<queue name="a"><maxAMShare>0.15</maxAMShare></queue><queue name="b"/>',
    app("a1") + app("a2"), defaults=TIMEOUTS)

MAX_SHARE = scenario(
    '<queue name="a"><maxResources>2048 mb, 8 vcores</maxResources></queue>'
    '<queue name="b"/>', app("a1", count=2), defaults=TIMEOUTS)

MAX_CONTAINER_ALLOCATION = scenario(
    '<queue name="a"><maxContainerAllocation>2048 mb, 2 vcores</maxContainerAllocation>'
    '</queue><queue name="b"/>', app("a1", mb=4096), defaults=TIMEOUTS, until=60000)

# b1 fills a 4 GB node (its AM, then a task per heartbeat at 2, 3 and 4 s, for 60 s); a1
# arrives at 10 s to a full cluster.
FULL = app("b1", "b", count=3, ms=60000) + app("a1", at=10000)
FULL_NODE = "memory-mb: 4096, vcores: 4"
QUEUES = '<queue name="a"/><queue name="b"/>'
NOT_CONFIGURED = scenario(QUEUES, FULL, node=FULL_NODE)
PREEMPTION_OFF = scenario(QUEUES, FULL, node=FULL_NODE, defaults=TIMEOUTS, preemption=False)
GATE_CLOSED = scenario(QUEUES, FULL, node=FULL_NODE, defaults=TIMEOUTS, site=(
    "  yarn.scheduler.fair.preemption.cluster-utilization-threshold: 1.0\n"))
PREEMPTED = scenario(QUEUES, FULL, node=FULL_NODE, defaults=TIMEOUTS)
NON_PREEMPTABLE = scenario(
    '<queue name="a"/><queue name="b"><allowPreemptionFrom>false</allowPreemptionFrom>'
    "</queue>", FULL, node=FULL_NODE, defaults=TIMEOUTS)
