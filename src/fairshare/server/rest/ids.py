"""Application and node ids as the RM reads them from a URL (``ApplicationId.fromString``,
``NodeId.fromString``), with the errors it gives for bad ones."""

from __future__ import annotations

from fairshare.resources.javalang import parse_int
from fairshare.server.control import Refused

PREFIX = "application_"


def illegal_argument(message: str) -> Refused:
    """An ``IllegalArgumentException`` that reached ``GenericExceptionHandler`` (400)."""
    return Refused(400, "IllegalArgumentException", "java.lang.IllegalArgumentException",
                   message)


def bad_app_id(message: str) -> Refused:
    """``WebAppUtils.parseApplicationId``: ``new BadRequestException(e)``, whose message is
    the cause's ``toString``."""
    return Refused(400, "BadRequestException",
                   "org.apache.hadoop.yarn.webapp.BadRequestException",
                   f"java.lang.IllegalArgumentException: {message}")


def parse_application_id(text: str) -> tuple[int, int]:
    """``ApplicationId.fromString``: (cluster timestamp, number). Raises ``ValueError`` with
    YARN's message."""
    if not text.startswith(PREFIX):
        raise ValueError(f"Invalid ApplicationId prefix: {text}. The valid ApplicationId "
                         "should start with prefix application")
    rest = text[len(PREFIX):]
    timestamp, sep, number = rest.partition("_")
    if not sep:
        raise ValueError(f"Invalid ApplicationId: {text}")
    try:
        return parse_int(timestamp, bits=64), parse_int(number, bits=32)
    except ValueError:
        raise ValueError(f"Invalid ApplicationId: {text}") from None


def canonical_app_id(text: str) -> str:
    """The id as ``ApplicationId.toString`` writes it (the RM looks apps up by value:
    ``application_17_1`` is ``application_17_0001``). Raises :func:`bad_app_id`."""
    try:
        timestamp, number = parse_application_id(text)
    except ValueError as e:
        raise bad_app_id(str(e)) from None
    return f"{PREFIX}{timestamp}_{number:04d}"


def canonical_node_id(text: str) -> str:
    """``NodeId.fromString``: ``host:port``; an ``IllegalArgumentException`` (400) else."""
    parts = text.split(":")
    while len(parts) > 1 and parts[-1] == "":  # String.split drops trailing empty strings
        parts.pop()
    if len(parts) != 2:
        raise illegal_argument(f"Invalid NodeId [{text}]. Expected host:port")
    try:
        port = parse_int(parts[1])
    except ValueError:
        raise illegal_argument(f"Invalid port: {parts[1]}") from None
    return f"{parts[0].strip()}:{port}"
