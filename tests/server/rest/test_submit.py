"""``POST /apps`` bodies: YARN's ApplicationSubmissionContextInfo (the minimal body a Hadoop
3.4 RM was seen to accept), fairshare's extension object and tags, and every refusal naming its
field."""

from __future__ import annotations

import json

import pytest

from fairshare.resources.vector import DEFAULT_TYPES, Resource, ResourceTypes
from fairshare.server.control import Refused
from fairshare.server.rest.submit import AM_CONTAINER_SPEC, parse_submission
from fairshare.server.submission import DistributedShell, Submission
from fairshare.sim.sources.workload import TaskGroup

APP = "application_1796153631387_0002"
# the body a 3.4.1 RM accepted in the capture
CAPTURED = {"application-id": APP, "application-name": "bob-rest", "queue": "root.b.b1",
            "priority": 0, AM_CONTAINER_SPEC: {"commands": {"command": "sleep 100"}},
            "unmanaged-AM": False, "max-app-attempts": 2,
            "resource": {"memory": 1024, "vCores": 1}, "application-type": "YARN",
            "keep-containers-across-application-attempts": False,
            "application-tags": {"tag": ["t1", "t2"]}}
T = DEFAULT_TYPES


def parse(body: object, content_type: str = "application/json") -> Submission:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return parse_submission(data, content_type, "bob", T)


def refused(body: object, content_type: str = "application/json") -> Refused:
    with pytest.raises(Refused) as caught:
        parse(body, content_type)
    return caught.value


def r(memory: int, vcores: int) -> Resource:
    return T.of({"memory-mb": memory, "vcores": vcores})


def test_the_captured_body() -> None:
    sub = parse(CAPTURED)
    assert sub == parse_submission(json.dumps(CAPTURED).encode(), "application/json", "bob", T)
    assert (sub.application_id, sub.name, sub.queue, sub.user, sub.priority) == \
        (APP, "bob-rest", "root.b.b1", "bob", 0)
    assert (sub.am_resource, sub.max_attempts, sub.application_type, sub.tags,
            sub.am_command) == (r(1024, 1), 2, "YARN", ("t1", "t2"), "sleep 100")
    assert not sub.unmanaged and not sub.keep_containers
    assert sub.tasks == () and sub.distributed_shell is None


def test_defaults_are_yarns() -> None:
    sub = parse({"application-id": APP})
    assert (sub.name, sub.queue, sub.application_type, sub.priority, sub.am_command) == \
        ("N/A", "default", "YARN", 0, None)


def test_the_same_body_in_xml() -> None:
    xml = (f"<?xml version='1.0'?><application-submission-context><application-id>{APP}"
           "</application-id><application-name>bob-rest</application-name><queue>root.b"
           "</queue><resource><memory>2048</memory><vCores>2</vCores></resource>"
           f"<{AM_CONTAINER_SPEC}><commands><command>sleep 1</command></commands><environment>"
           "<entry><key>A</key><value>1</value></entry><entry><key>B</key><value>2</value>"
           f"</entry></environment></{AM_CONTAINER_SPEC}><application-tags><tag>X</tag><tag>y"
           "</tag></application-tags><unmanaged-AM>true</unmanaged-AM>"
           "</application-submission-context>").encode()
    sub = parse(xml, "application/xml; charset=utf-8")
    assert (sub.name, sub.queue, sub.am_resource, sub.am_command, sub.unmanaged) == \
        ("bob-rest", "root.b", r(2048, 2), "sleep 1", True)
    assert sub.environment == (("A", "1"), ("B", "2"))
    assert sub.tags == ("x", "y")  # lower-cased, as YARN stores tags


def test_natural_json_maps_with_repeated_entry_keys() -> None:
    body = (f'{{"application-id":"{APP}","{AM_CONTAINER_SPEC}":{{"environment":'
            '{"entry":{"key":"A","value":"1"},"entry":{"key":"B","value":"2"}}}}').encode()
    assert parse(body).environment == (("A", "1"), ("B", "2"))


def test_numbers_as_text_as_jaxb_reads_them() -> None:
    sub = parse({**CAPTURED, "priority": "3", "max-app-attempts": "1",
                 "unmanaged-AM": "true"})
    assert (sub.priority, sub.max_attempts, sub.unmanaged) == (3, 1, True)


def test_the_extension_object() -> None:
    body = {**CAPTURED, "fairshare": {"tasks": [
        {"count": 4, "memory-mb": 1024, "vcores": 1, "duration-ms": 60000},
        {"count": 2, "memory-mb": 2048, "duration-ms": 500, "priority": 3}]}}
    assert parse(body).tasks == (TaskGroup(4, r(1024, 1), 60000, 20),
                                 TaskGroup(2, r(2048, 1), 500, 3))
    shell = {**CAPTURED, "fairshare": {"distributed-shell": {
        "num-containers": 3, "shell-command": "echo hi", "container-memory": 512,
        "container-vcores": 2, "priority": 1}}}
    assert parse(shell).distributed_shell == DistributedShell(3, "echo hi", r(512, 2), 1)


def test_custom_resource_types_in_tasks() -> None:
    gpus = ResourceTypes.with_custom(["yarn.io/gpu"])
    body = json.dumps({"application-id": APP, "fairshare": {"tasks": [
        {"count": 1, "memory-mb": 1, "duration-ms": 1, "yarn.io/gpu": 2}]}}).encode()
    task = parse_submission(body, "application/json", "u", gpus).tasks[0]
    assert task.resource == gpus.of({"memory-mb": 1, "vcores": 1, "yarn.io/gpu": 2})


@pytest.mark.parametrize(("tag", "groups"), [
    ("fairshare.tasks=4x1024m/1@60s", [TaskGroup(4, r(1024, 1), 60_000, 20)]),
    ("fairshare.tasks=4x1024@60", [TaskGroup(4, r(1024, 1), 60_000, 20)]),
    ("fairshare.tasks=2x2g/3@500ms:7+1x512m@2m",
     [TaskGroup(2, r(2048, 3), 500, 7), TaskGroup(1, r(512, 1), 120_000, 20)]),
    ("FAIRSHARE.TASKS=1X1G@1H", [TaskGroup(1, r(1024, 1), 3_600_000, 20)]),  # tags: lower case
])
def test_tasks_in_application_tags(tag: str, groups: list[TaskGroup]) -> None:
    body = {"application-id": APP, "application-tags": {"tag": ["etl", tag]}}
    assert list(parse(body).tasks) == groups


def test_distributed_shell_in_application_tags() -> None:
    body = {"application-id": APP, "application-tags": {"tag": [
        "fairshare.dshell=3x512m/1:2", "fairshare.dshell.command=sleep 5"]}}
    assert parse(body).distributed_shell == DistributedShell(3, "sleep 5", r(512, 1), 2)


@pytest.mark.parametrize(("body", "message"), [
    ({}, "Could not parse application id "),
    ({"application-id": "bogus"}, "Could not parse application id bogus"),
    ({"application-id": "application_x_1"}, "Could not parse application id application_x_1"),
    ({"application-id": APP, "priority": "high"}, 'priority: expected an integer, not "high"'),
    ({"application-id": APP, "priority": 1.5}, "priority: expected an integer, not the number"),
    ({"application-id": APP, "max-app-attempts": 2**40}, "max-app-attempts: 1099511627776 is "
     "out of range"),
    ({"application-id": APP, "unmanaged-AM": "yes"}, 'unmanaged-AM: expected true or false, '
     'not "yes"'),
    ({"application-id": APP, "resource": 5}, "resource: expected an object"),
    ({"application-id": APP, "queue": {"name": "a"}}, "queue: expected a string, not an object"),
    ({"application-id": APP, "queue": ["a", "b"]}, "queue: given 2 times, expected once"),
    ({"application-id": APP, "fairshare": {"tasks": [{"count": 1}]}},
     "fairshare.tasks[0]: count and duration-ms are required"),
    ({"application-id": APP, "fairshare": {"tasks": [{"count": 1, "duration-ms": 1,
                                                       "memory": 5}]}},
     "fairshare.tasks[0].memory: unknown field"),
    ({"application-id": APP, "fairshare": {"jobs": []}}, "fairshare.jobs: unknown field"),
    ({"application-id": APP, "fairshare": {"tasks": [{"count": 1, "duration-ms": 1}],
                                           "distributed-shell": {"num-containers": 1,
                                                                 "shell-command": "x"}}},
     "fairshare: tasks and distributed-shell exclude each other"),
    ({"application-id": APP, "application-tags": {"tag": ["fairshare.tasks=lots"]}},
     "expected fairshare.tasks=COUNTxMEMORY[/VCORES]@DURATION[:PRIORITY]"),
    ({"application-id": APP, "application-tags": {"tag": ["fairshare.task=1x1@1"]}},
     "unknown fairshare tag"),
    ({"application-id": APP, "application-tags": {"tag": ["fairshare.dshell=1x1"]}},
     "fairshare.dshell and fairshare.dshell.command go together"),
    ({"application-id": APP, "application-tags": {"tag": ["fairshare.tasks=1x1@1"]},
      "fairshare": {"tasks": []}}, "given both as an object and in application-tags"),
])
def test_bad_fields_are_named(body: object, message: str) -> None:
    refusal = refused(body)
    assert (refusal.status, refusal.exception) == (400, "BadRequestException")
    assert refusal.message is not None and refusal.message.startswith("java.lang.Exception: ")
    assert message in refusal.message


@pytest.mark.parametrize("body", [b"", b"{", b"[1]", b"\xff\xfe", b"null", b"[" * 100_000])
def test_unreadable_json(body: bytes) -> None:
    refusal = refused(body)
    assert (refusal.status, refusal.exception, refusal.java_class) == \
        (400, "WebApplicationException", "javax.ws.rs.WebApplicationException")
    assert refusal.message is not None
    assert refusal.message.startswith("javax.xml.bind.UnmarshalException")


@pytest.mark.parametrize("body", [
    b"<application-submission-context>", b"<other/>",
    b'<!DOCTYPE x [<!ENTITY a "aaaa">]><application-submission-context>&a;'
    b"</application-submission-context>"])
def test_unreadable_xml(body: bytes) -> None:
    assert refused(body, "application/xml").status == 400


def test_other_media_types_are_jerseys_415_as_the_rm_answers_it() -> None:
    # Hadoop 3.4's RM (rm_tests/test_serve_shape.py): GenericExceptionHandler turns Jersey's
    # 415 into a 503 WebApplicationException without a message
    refusal = refused(CAPTURED, "text/plain")
    assert (refusal.status, refusal.plain, refusal.message) == (503, False, None)
    assert refusal.exception == "WebApplicationException"
