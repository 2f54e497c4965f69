"""Resource strings of the allocation file (spec §1.4) — being written; see the issue."""

from __future__ import annotations

from typing import Literal

from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import DEFAULT_TYPES, ResourceTypes


class ResourceStringError(ValueError):
    """A malformed resource string; the message is YARN's (abridged), without a location."""


def parse_resource_config(
    text: str,
    types: ResourceTypes = DEFAULT_TYPES,
    *,
    missing: Literal["zero", "unbounded"],
) -> ConfigurableResource:
    raise NotImplementedError
