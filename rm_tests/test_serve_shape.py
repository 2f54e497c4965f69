"""Shape over HTTP (issue 33 point 4): Hadoop 3.4's own ResourceManager (rmharness: MockRM
with its web app) and ``fairshare serve`` are given the same allocation file
(rm_tests/shape-allocations.xml), the same yarn-site settings (the ones rmharness's Conf.java
fixes), the same nodes (4 x 8192 MB / 8 vcores) and the same REST submissions, and every
endpoint of YARN's REST API v1 is asked the same requests, good and bad, on both. Their
answers must agree in status code, media type (and charset), ``Location``, and body shape:
for JSON the same keys in the same order and nesting with the same JSON types
(tests/server/rest/shapes.py), for XML the same element structure and ``xsi:type``.

Like is compared with like: each app plays one role on both servers and reaches the same
state there before anything is compared (RUNNING with containers, KILLED, moved, ACCEPTED and
never runnable, FINISHED, FAILED by the scheduler: a parent queue). MockRM launches no AM for
a REST submission, so the harness plays the AM of each running app (its ``drive`` command:
launch, register, the same asks); serve's virtual executor runs the tasks of the
submission's ``fairshare`` extension, which Hadoop's RM accepts and ignores.

What differs is listed in ``KEY_EXCEPTIONS`` (fields) and ``ANSWER_EXCEPTIONS`` (whole
answers) with the reason (docs/fidelity.md "Shape over HTTP against Hadoop's RM"); anything
else that differs fails the test, and so does a listed difference no longer seen.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from rm_tests.harness import Harness, HarnessError
from tests.server.rest.shapes import Pairs, differences, parse

ALLOCATIONS = Path(__file__).resolve().parent / "shape-allocations.xml"
NODES = "4x8192/8"
CLUSTER = "/ws/v1/cluster"
TIMEOUT_S = 60.0  # for any one state to be reached, generous: CI machines may be loaded

# rmharness/src/main/java/org/fairshare/rmharness/Conf.java's settings, as a yarn-site file;
# 150 ms is the harness's --heartbeat-ms default, 1000 ms its --kill-wait-ms default
SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>yarn.scheduler.fair.preemption</name><value>true</value></property>
  <property><name>yarn.scheduler.fair.preemption.cluster-utilization-threshold</name>
    <value>0.8</value></property>
  <property><name>yarn.scheduler.fair.waitTimeBeforeKill</name><value>1000</value></property>
  <property><name>yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck</name>
    <value>1000</value></property>
  <property><name>yarn.scheduler.fair.user-as-default-queue</name><value>false</value></property>
  <property><name>yarn.resourcemanager.nodemanagers.heartbeat-interval-ms</name>
    <value>150</value></property>
</configuration>
"""


@dataclass(frozen=True)
class Role:
    """One app, submitted alike to both servers; ``state`` is where it must get to."""

    user: str
    queue: str
    state: str
    tasks: tuple[tuple[int, int], ...] = ()  # (count, duration ms; 0: until the end)
    finish_after_ms: int = 0  # the harness's AM unregisters after this (0: never)
    driven: bool = True  # the harness plays its AM (MockRM launches none)


ROLES = {
    "running": Role("alice", "root.a", "RUNNING", tasks=((4, 0),)),
    "killed": Role("bob", "root.b", "KILLED"),
    "moved": Role("carol", "root.c.c1", "RUNNING"),
    "held": Role("dave", "root.held", "ACCEPTED", driven=False),
    "finished": Role("erin", "root.a", "FINISHED", tasks=((1, 300),), finish_after_ms=1500),
    "rejected": Role("frank", "root.c", "FAILED", driven=False),
}


@dataclass
class Answer:
    status: int
    content_type: str
    location: str | None
    body: bytes


@dataclass
class Side:
    """One server: its base URL, the ids its apps got (by role), one of its nodes."""

    name: str
    base: str
    apps: dict[str, str] = field(default_factory=dict)
    node: str = ""
    writes: dict[str, Answer] = field(default_factory=dict)  # answers taken while setting up

    def request(self, method: str, path: str, *, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> Answer:
        url = self.base + self.fill(path)
        sent = {"Accept-Encoding": "identity", **(headers or {})}
        with httpx.Client(timeout=30) as client:
            r = client.request(method, url, content=body, headers=sent)
        return Answer(r.status_code, r.headers.get("content-type", ""),
                      r.headers.get("location"), r.content)

    def fill(self, path: str) -> str:
        """``{running}`` → this server's id of the app playing ``running``; ``{node}``."""
        return path.format(node=self.node, **self.apps)

    def roles_for_ids(self, text: str) -> str:
        """Ids (different on each server by nature) replaced by their roles."""
        for role, app_id in self.apps.items():
            text = text.replace(app_id, f"app-{role}")
        return text.replace(self.base, "BASE")


def submission(role: str, spec: Role, app_id: str) -> bytes:
    """The ApplicationSubmissionContext both servers get; ``fairshare`` is serve's app model."""
    tasks = ",".join(
        f'{{"count":{n},"memory-mb":1024,"vcores":1,"duration-ms":{ms or 3_600_000}}}'
        for n, ms in spec.tasks)
    return (f'{{"application-id":"{app_id}","application-name":"shape-{role}",'
            f'"queue":"{spec.queue}","application-type":"MAPREDUCE",'
            '"resource":{"memory":1024,"vCores":1},'
            '"am-container-spec":{"commands":{"command":"sleep 3600"}},'
            f'"fairshare":{{"tasks":[{tasks}]}}}}').encode()


def drive_command(spec: Role, app_id: str) -> str:
    asks = ",".join(
        f'{{"containers":{n},"mb":1024,"vcores":1,"priority":{i + 1},"duration_ms":{ms}}}'
        for i, (n, ms) in enumerate(spec.tasks))
    return (f'drive {{"app":"{app_id}","name":"shape","asks":[{asks}],'
            f'"finish_after_ms":{spec.finish_after_ms}}}')


def state_of(side: Side, app_id: str) -> str:
    answer = side.request("GET", f"{CLUSTER}/apps/{app_id}/state",
                          headers={"Accept": "application/json"})
    return str(parse(answer.body).get("state")) if answer.status == 200 else ""


def in_state(side: Side, role: str, state: str) -> Callable[[], bool]:
    return lambda: state_of(side, side.apps[role]) == state


def wait_until(check: Callable[[], bool], what: str, timeout: float = TIMEOUT_S,
               rm: Harness | None = None) -> None:
    """Polls ``check``; fails at the timeout, or at once when the harness reported an error
    (a command it does not know, a driver that failed)."""
    deadline = time.monotonic() + timeout
    while not check():
        errors = rm.of("error") if rm is not None else []
        if errors:
            raise HarnessError(f"rmharness: {errors} while waiting for {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout:.0f} s")
        time.sleep(0.1)


JSON = {"Accept": "application/json"}
TYPE_JSON = "application/json"
TYPE_XML = "application/xml"
KILL = b'{"state":"KILLED"}'
# (name, method, path, body, Content-Type, Accept): in this order, on both, once every app is
# in its role's state; the apps they change are changed alike
WRITES: list[tuple[str, str, str, bytes | None, str, str]] = [
    ("new-application-xml", "POST", "/apps/new-application?user.name=alice", None, TYPE_JSON,
     TYPE_XML),
    ("submit-malformed", "POST", "/apps?user.name=alice", b'{"application-id":', TYPE_JSON,
     TYPE_JSON),
    ("submit-empty-object", "POST", "/apps?user.name=alice", b"{}", TYPE_JSON, TYPE_JSON),
    ("submit-text", "POST", "/apps?user.name=alice", b"hello", "text/plain", TYPE_JSON),
    ("submit-static-user", "POST", "/apps", b"{}", TYPE_JSON, TYPE_JSON),
    ("kill", "PUT", "/apps/{killed}/state?user.name=bob", KILL, TYPE_JSON, TYPE_JSON),
    ("kill-again", "PUT", "/apps/{killed}/state?user.name=bob", KILL, TYPE_JSON, TYPE_JSON),
    ("kill-again-xml", "PUT", "/apps/{killed}/state?user.name=bob", KILL, TYPE_JSON, TYPE_XML),
    ("kill-finished", "PUT", "/apps/{finished}/state?user.name=erin", KILL, TYPE_JSON,
     TYPE_JSON),
    ("kill-wrong-state", "PUT", "/apps/{running}/state?user.name=alice",
     b'{"state":"FINISHED"}', TYPE_JSON, TYPE_JSON),
    ("kill-same-state", "PUT", "/apps/{running}/state?user.name=alice",
     b'{"state":"RUNNING"}', TYPE_JSON, TYPE_JSON),
    ("kill-malformed", "PUT", "/apps/{running}/state?user.name=alice", b"{", TYPE_JSON,
     TYPE_JSON),
    ("kill-no-state", "PUT", "/apps/{running}/state?user.name=alice", b"{}", TYPE_JSON,
     TYPE_JSON),
    ("kill-unknown", "PUT", "/apps/application_1_0001/state?user.name=alice", KILL, TYPE_JSON,
     TYPE_JSON),
    ("kill-static-user", "PUT", "/apps/{killed}/state", KILL, TYPE_JSON, TYPE_JSON),
    ("move", "PUT", "/apps/{moved}/queue?user.name=carol", b'{"queue":"root.b"}', TYPE_JSON,
     TYPE_JSON),
    ("move-same", "PUT", "/apps/{moved}/queue?user.name=carol", b'{"queue":"root.b"}',
     TYPE_JSON, TYPE_XML),
    ("move-nowhere", "PUT", "/apps/{moved}/queue?user.name=carol",
     b'{"queue":"root.nowhere"}', TYPE_JSON, TYPE_JSON),
    ("move-nowhere-static-user", "PUT", "/apps/{moved}/queue", b'{"queue":"root.nowhere"}',
     TYPE_JSON, TYPE_JSON),
    ("move-parent", "PUT", "/apps/{moved}/queue?user.name=carol", b'{"queue":"root.c"}',
     TYPE_JSON, TYPE_JSON),
    ("move-ended", "PUT", "/apps/{finished}/queue?user.name=erin", b'{"queue":"root.b"}',
     TYPE_JSON, TYPE_JSON),
    ("move-malformed", "PUT", "/apps/{moved}/queue?user.name=carol", b"[", TYPE_JSON,
     TYPE_JSON),
    ("move-unknown", "PUT", "/apps/application_1_0001/queue?user.name=carol",
     b'{"queue":"root.b"}', TYPE_JSON, TYPE_JSON),
    ("priority", "PUT", "/apps/{running}/priority?user.name=alice", b'{"priority":5}',
     TYPE_JSON, TYPE_JSON),
    ("priority-same", "PUT", "/apps/{running}/priority?user.name=alice", b'{"priority":0}',
     TYPE_JSON, TYPE_JSON),
    ("priority-none", "PUT", "/apps/{running}/priority?user.name=alice", b"{}", TYPE_JSON,
     TYPE_JSON),
    ("priority-malformed", "PUT", "/apps/{running}/priority?user.name=alice", b"{]",
     TYPE_JSON, TYPE_JSON),
    ("priority-ended", "PUT", "/apps/{finished}/priority?user.name=erin", b'{"priority":5}',
     TYPE_JSON, TYPE_JSON),
    ("priority-unknown", "PUT", "/apps/application_1_0001/priority?user.name=alice",
     b'{"priority":5}', TYPE_JSON, TYPE_JSON),
    ("delete-app", "DELETE", "/apps/{running}?user.name=alice", None, TYPE_JSON, TYPE_JSON),
    ("post-cluster", "POST", "/info", b"{}", TYPE_JSON, TYPE_JSON),
    ("put-cluster-xml", "PUT", "/info", b"{}", TYPE_JSON, TYPE_XML),
    ("get-new-application", "GET", "/apps/new-application", None, TYPE_JSON, TYPE_JSON),
    ("get-text-plain", "GET", "/info", None, TYPE_JSON, "text/plain"),
    ("submit-text-xml", "POST", "/apps?user.name=alice", b"hello", "text/plain", TYPE_XML),
]


def set_up(side: Side, rm: Harness | None) -> None:
    """The same submissions on one server, and every app brought to its role's state."""
    for role, spec in ROLES.items():
        new = side.request("POST", f"{CLUSTER}/apps/new-application?user.name={spec.user}",
                           headers=JSON)
        side.writes.setdefault("new-application", new)
        app_id = str(parse(new.body).get("application-id"))
        side.apps[role] = app_id
        side.writes[f"submit-{role}"] = side.request(
            "POST", f"{CLUSTER}/apps?user.name={spec.user}", body=submission(role, spec, app_id),
            headers={"Content-Type": TYPE_JSON,
                     "Accept": TYPE_XML if role == "held" else TYPE_JSON})
        if rm is not None and spec.driven:
            rm.send(drive_command(spec, app_id))
    for role, spec in ROLES.items():
        target = "RUNNING" if spec.state == "KILLED" else spec.state  # killed by WRITES
        wait_until(in_state(side, role, target), f"{role} app {target} on {side.name}", rm=rm)
    wait_until(lambda: all_allocated(side), f"running app's containers on {side.name}")
    for name, method, path, body, kind, accept in WRITES:
        if name == "kill-again":
            wait_until(in_state(side, "killed", "KILLED"), f"kill on {side.name}")
        side.writes[name] = side.request(method, CLUSTER + path, body=body,
                                         headers={"Content-Type": kind, "Accept": accept})
    nodes = parse(side.request("GET", f"{CLUSTER}/nodes", headers=JSON).body)
    side.node = str(nodes.get("nodes").get("node")[0].get("id"))


def all_allocated(side: Side) -> bool:
    answer = side.request("GET", f"{CLUSTER}/apps/{side.apps['running']}", headers=JSON)
    return answer.status == 200 and parse(answer.body).get("app").get("runningContainers") == 5


def start_serve(out: Path, allocations: Path = ALLOCATIONS, site_xml: str = SITE
                ) -> tuple[subprocess.Popen[str], str]:
    site = out / "yarn-site.xml"
    site.write_text(site_xml)
    log = (out / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "fairshare", "serve", str(allocations), "--site", str(site),
         "--nodes", NODES, "--listen", "127.0.0.1:0", "--out", str(out / "session"),
         "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=log, text=True)
    log.close()
    found: list[str] = []
    done = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            match = re.search(r"on (http://127\.0\.0\.1:\d+)/", line)
            if match and not found:
                found.append(match.group(1))
                done.set()
        done.set()

    threading.Thread(target=read, daemon=True).start()
    if not done.wait(60) or not found:
        stop_serve(proc)
        raise HarnessError(f"fairshare serve did not start:\n{(out / 'serve.log').read_text()}")
    return proc, found[0]


def stop_serve(proc: subprocess.Popen[str]) -> None:
    """SIGTERM to serve's own pid (a graceful stop), then SIGKILL if it lingers."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def sides(rmharness_jar: Path, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[tuple[Side, Side]]:
    """(serve, Hadoop's RM), both set up alike; both stopped by their own pids at the end."""
    out = tmp_path_factory.mktemp("shape")
    serve, base = start_serve(out)
    rm: Harness | None = None
    try:
        rm = Harness.start("--allocations", str(ALLOCATIONS), "--nodes", NODES,
                           stderr_path=out / "rm.log")
        ours, theirs = Side("serve", base), Side("rm", rm.base_url)
        with ThreadPoolExecutor(2) as pool:  # the two servers are set up side by side
            for done in [pool.submit(set_up, theirs, rm), pool.submit(set_up, ours, None)]:
                done.result()
        yield ours, theirs
    finally:
        stop_serve(serve)
        if rm is not None:
            rm.stop()


def xml_shape(data: bytes) -> Any:
    """An XML document as Pairs: each element's attributes (``@type`` for ``xsi:type``), then
    its children by tag, a tag repeated among siblings as one list; a leaf as its text (a
    string: its kind is what is compared, its text identifies list items)."""
    def convert(element: ET.Element) -> Any:
        children = list(element)
        if not children and not element.attrib:
            return element.text or ""
        out = Pairs(("@" + name.split("}")[-1], "attribute") for name in element.attrib)
        grouped: dict[str, list[Any]] = {}
        for child in children:
            grouped.setdefault(child.tag, []).append(convert(child))
        out += [(tag, items if len(items) > 1 else items[0]) for tag, items in grouped.items()]
        return out
    root = ET.fromstring(data)
    return Pairs([(root.tag, convert(root))])


def shape_of(side: Side, answer: Answer) -> Any:
    """The body's shape (ids replaced by roles); a string for a plain-text body; None: empty."""
    text = side.roles_for_ids(answer.body.decode())
    if not text:
        return None
    try:
        if text.startswith("<?xml"):
            return xml_shape(text.encode())
        return parse(text)
    except (ValueError, ET.ParseError):
        return "plain text"  # YARN's plain bodies (a refused move) under a JSON content type


# Keys that differ, by app role: (key, the server whose answers have it — "both": the value's
# shape differs —, role or None for every app, why). Each is removed from those answers
# before they are compared, and
# test_every_listed_exception_is_still_seen fails once one is no longer seen.
KEY_EXCEPTIONS: list[tuple[str, str, str | None, str]] = []

# Whole answers that can only differ: the request's name and why (test_every_listed_...
# checks that each still differs).
ANSWER_EXCEPTIONS: dict[str, str] = {
    **{f"GET {path} xml": "Hadoop's RM cannot write its RemoteException as XML: a 404 asked "
       "for as XML is a 500 with an empty body; serve answers the 404 in XML"
       for path in ("/apps/application_1_0001", "/apps/application_1_0001/appattempts",
                    "/apps/application_1_0001/state", "/nodes/nowhere:1")},
    **{f"GET /nowhere {kind}": "a path outside the REST API: Jetty's HTML error page (text/html)"
       ", serve's plain-text 404" for kind in ("json", "xml")},
    "kill-no-state": "a state-less body: the RM fails on it with a NullPointerException (503), "
                     "serve answers 400 with the only state it may be given (KILLED)",
    "get-text-plain": "an Accept that allows neither JSON nor XML: Hadoop's RM fails (500, "
                      "Jetty's plain-text error page); serve answers Jersey's 406, empty",
}


@dataclass
class Seen:
    keys: set[int] = field(default_factory=set)
    answers: set[str] = field(default_factory=set)


SEEN = Seen()


def strip_exceptions(shape: Any, server: str) -> Any:
    """``shape`` without the KEY_EXCEPTIONS of ``server``'s answers (noted in SEEN)."""
    if not isinstance(shape, Pairs):  # (a Pairs is a list too)
        if isinstance(shape, list):
            return [strip_exceptions(item, server) for item in shape]
        return shape
    role = str(shape.get("id") or "").removeprefix("app-")
    out = Pairs()
    for key, value in shape:
        listed = [i for i, (k, who, r, _) in enumerate(KEY_EXCEPTIONS)
                  if k == key and who in (server, "both") and r in (None, role)
                  and role in ROLES]
        if listed:
            SEEN.keys.update(listed)
            continue
        out.append((key, strip_exceptions(value, server)))
    return out


def media(content_type: str) -> tuple[str, str | None]:
    """A Content-Type's media type and charset (None: none given — also Jersey's
    ``charset=null``, which the RM writes on GenericExceptionHandler's answers to Jersey's
    own refusals, 405 and 415: no charset was negotiated)."""
    kind, _, params = content_type.partition(";")
    charset = re.search(r"charset=([^;\s]+)", params)
    named = charset.group(1).lower() if charset else None
    return kind.strip().lower(), None if named == "null" else named


def compare(ours: Side, theirs: Side, mine: Answer, hadoop: Answer) -> list[str]:
    """How serve's answer differs from Hadoop's: status, media type, charset (when both give
    one), Location (ids as roles), body shape."""
    out = []
    if mine.status != hadoop.status:
        out.append(f"status {mine.status} here, {hadoop.status} from Hadoop")
    (kind, charset), (their_kind, their_charset) = media(mine.content_type), media(
        hadoop.content_type)
    if kind != their_kind or (charset and their_charset and charset != their_charset):
        out.append(f"Content-Type {mine.content_type!r} here, {hadoop.content_type!r} from "
                   "Hadoop")
    where = ours.roles_for_ids(mine.location or ""), theirs.roles_for_ids(hadoop.location or "")
    if where[0] != where[1]:
        out.append(f"Location {where[0]!r} here, {where[1]!r} from Hadoop")
    a = strip_exceptions(shape_of(ours, mine), "serve")
    b = strip_exceptions(shape_of(theirs, hadoop), "rm")
    if (a is None) != (b is None) or isinstance(a, str) != isinstance(b, str):
        out.append("body differs in kind")
    elif a is not None and not isinstance(a, str):
        out += differences(a, b)
    if out:
        out.append(f"here: {mine.body[:400]!r}\nHadoop: {hadoop.body[:400]!r}")
    return out


def check(name: str, ours: Side, theirs: Side, mine: Answer, hadoop: Answer) -> None:
    found = compare(ours, theirs, mine, hadoop)
    if name in ANSWER_EXCEPTIONS:
        assert found, f"{name} is listed as differing ({ANSWER_EXCEPTIONS[name]}) but agrees"
        SEEN.answers.add(name)
        return
    assert found == [], "\n".join(found)


GETS = [
    "", "/", "/info", "/metrics", "/scheduler", "/scheduler/activities",
    "/apps", "/apps?states=RUNNING", "/apps?states=running,accepted", "/apps?queue=root.a",
    "/apps?user=alice", "/apps?startedTimeBegin=1&startedTimeEnd=9999999999999",
    "/apps?finishedTimeBegin=1", "/apps?applicationTypes=mapreduce", "/apps?states=BOGUS",
    "/apps?limit=abc", "/apps?limit=0", "/apps?startedTimeBegin=-1",
    "/apps?startedTimeBegin=5&startedTimeEnd=4", "/apps?deSelects=resourceRequests",
    "/apps?deSelects=timeouts,appNodeLabelExpression,amNodeLabelExpression",
    "/apps?finalStatus=KILLED", "/apps?finalStatus=BOGUS", "/apps?name=shape-running",
    "/apps?applicationTags=nothing", "/apps?states=KILLED&queue=root.b&user=bob",
    *[f"/apps/{{{role}}}" for role in ROLES],
    *[f"/apps/{{{role}}}/appattempts" for role in ROLES],
    *[f"/apps/{{{role}}}/state" for role in ROLES],
    "/apps/{running}/queue", "/apps/{moved}/queue", "/apps/{running}/priority",
    "/apps/application_1_0001", "/apps/application_1_0001/appattempts",
    "/apps/application_1_0001/state", "/apps/bogus", "/apps/bogus/state",
    "/nodes", "/nodes?states=RUNNING", "/nodes?states=LOST", "/nodes?states=BOGUS",
    "/nodes/{node}", "/nodes/nowhere:1", "/nowhere",
]


@pytest.mark.parametrize("accept", ["json", "xml"])
@pytest.mark.parametrize("path", GETS)
def test_a_get_is_answered_in_hadoops_shape(sides: tuple[Side, Side], path: str,
                                            accept: str) -> None:
    ours, theirs = sides
    headers = {"Accept": f"application/{accept}"}
    check(f"GET {path} {accept}", ours, theirs,
          ours.request("GET", CLUSTER + path, headers=headers),
          theirs.request("GET", CLUSTER + path, headers=headers))


@pytest.mark.parametrize("name", ["new-application", *[f"submit-{r}" for r in ROLES],
                                  *[w[0] for w in WRITES]])
def test_a_write_is_answered_in_hadoops_shape(sides: tuple[Side, Side], name: str) -> None:
    ours, theirs = sides
    check(name, ours, theirs, ours.writes[name], theirs.writes[name])


@pytest.mark.parametrize("accept", ["json", "xml"])
def test_a_limited_list_has_the_shape_of_the_same_apps(sides: tuple[Side, Side],
                                                       accept: str) -> None:
    # which two apps come first is the RMs' hash order of ids that differ by nature: each
    # listed app is compared with the same role's app from the other server's whole list
    ours, theirs = sides
    headers = {"Accept": f"application/{accept}"}
    shapes = []
    for side, server in ((ours, "serve"), (theirs, "rm")):
        limited = strip_exceptions(shape_of(side, side.request(
            "GET", f"{CLUSTER}/apps?limit=2", headers=headers)), server)
        every = strip_exceptions(shape_of(side, side.request(
            "GET", f"{CLUSTER}/apps", headers=headers)), server)
        shapes.append((limited.get("apps").get("app"), every.get("apps").get("app")))
    (ours_2, ours_all), (theirs_2, theirs_all) = shapes
    assert len(ours_2) == len(theirs_2) == 2 and len(ours_all) == len(theirs_all) == len(ROLES)
    for mine, others in ((ours_2, theirs_all), (theirs_2, ours_all)):
        for app in mine:
            other = next(o for o in others if o.get("id") == app.get("id"))
            pair = (app, other) if mine is ours_2 else (other, app)
            assert differences(*pair) == []


def test_every_listed_exception_is_still_seen(sides: tuple[Side, Side]) -> None:
    """Runs last: an exception no answer showed any more is to be taken off the list."""
    for path in ("/apps", "/apps/{rejected}/appattempts"):
        for side, server in ((sides[0], "serve"), (sides[1], "rm")):
            for accept in ("json", "xml"):
                strip_exceptions(shape_of(side, side.request(
                    "GET", CLUSTER + path, headers={"Accept": f"application/{accept}"})), server)
    unseen = [KEY_EXCEPTIONS[i][:3] for i in range(len(KEY_EXCEPTIONS)) if i not in SEEN.keys]
    assert unseen == []
    assert SEEN.answers == set(ANSWER_EXCEPTIONS)
