"""``fairshare.client``: Python clients of ``fairshare serve`` (and of YARN's own RM).

* :class:`AMClient` — for a program running as an application's AM container: register,
  allocate (ask, release, progress; allocated, completed and to-be-preempted containers),
  start containers, unregister, and :meth:`AMClient.run_containers` for the common case
  (docs/am-protocol.md).
* :class:`YarnClient` — YARN's REST API v1 (``/ws/v1/cluster``): new-application, submit,
  state, kill, move, apps, scheduler; works against a Hadoop RM as against ``fairshare serve``.

Both use httpx only and import nothing else of fairshare, so that an AM can carry this package
alone.
"""

from fairshare.client.am import (
    ABORTED,
    PREEMPTED,
    AllocateResponse,
    AMClient,
    ContainerAsk,
    ContainerStatus,
    GrantedContainer,
)
from fairshare.client.errors import ClientError
from fairshare.client.yarn import YarnClient

__all__ = [
    "ABORTED",
    "PREEMPTED",
    "AMClient",
    "AllocateResponse",
    "ClientError",
    "ContainerAsk",
    "ContainerStatus",
    "GrantedContainer",
    "YarnClient",
]
