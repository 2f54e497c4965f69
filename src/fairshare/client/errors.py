"""What a refused request raises: YARN's status, exception and message."""

from __future__ import annotations

import httpx


class ClientError(Exception):
    """A request the server refused: ``status``, and the ``RemoteException``'s ``exception``
    and ``message`` (or the plain-text body YARN gives for some refusals)."""

    def __init__(self, status: int, exception: str, message: str) -> None:
        super().__init__(f"{status} {exception}: {message}".strip(": "))
        self.status = status
        self.exception = exception
        self.message = message


def check(response: httpx.Response) -> httpx.Response:
    """``response`` when it succeeded (2xx), else its :class:`ClientError`."""
    if response.is_success:
        return response
    exception, message = "", response.text
    try:
        remote = response.json().get("RemoteException")
    except (ValueError, AttributeError):
        remote = None
    if isinstance(remote, dict):
        exception = str(remote.get("exception", ""))
        message = str(remote.get("message", ""))
    raise ClientError(response.status_code, exception or response.reason_phrase, message)
