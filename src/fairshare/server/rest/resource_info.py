"""``ResourceInfo`` (``RM/webapp/dao/ResourceInfo``), the shape of every resource in the RM's
answers: ``memory``, ``vCores`` and ``resourceInformations``, one ``resourceInformation`` per
resource type with its fields in alphabetical order (``ResourceInformationsInfo`` marshals
``ResourceInformation`` beans)."""

from __future__ import annotations

from fairshare.resources.vector import LONG_MAX, MEMORY, Resource, ResourceTypes
from fairshare.server.rest.jersey import Obj, obj

_UNITS = {MEMORY: "Mi"}  # vcores and custom types: "" (their configured units are not kept)


def resource_info(types: ResourceTypes, r: Resource, *,
                  minimum: Resource | None = None, maximum: Resource | None = None) -> Obj:
    """``r`` as a ResourceInfo. Each ``ResourceInformation`` carries a minimum and maximum
    allocation: 0 and Long.MAX for a resource built by the scheduler's arithmetic; the
    scheduler's own ``minimum``/``maximum`` allocation where ``r`` is the one object the
    RM's ``ResourceUtils`` made with them (an unset ``minResources``, see
    :func:`fairshare.server.rest.dao_scheduler`)."""
    infos = []
    for i, name in enumerate(types.names):
        infos.append(obj(
            ("attributes", obj()),
            ("maximumAllocation", LONG_MAX if maximum is None else maximum.values[i]),
            ("minimumAllocation", 0 if minimum is None else minimum.values[i]),
            ("name", name),
            ("resourceType", "COUNTABLE"),
            ("units", _UNITS.get(name, "")),
            ("value", r.values[i]),
        ))
    return obj(("memory", r.memory), ("vCores", r.vcores_int),
               ("resourceInformations", obj(("resourceInformation", infos))))


def mb_vcores(types: ResourceTypes, memory: int, vcores: int) -> Resource:
    """A resource from a metric pair (QueueMetrics keeps MB and vcores only)."""
    return types.of({MEMORY: memory, "vcores": vcores})
