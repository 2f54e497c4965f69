"""The virtual executor: NodeManagers the server simulates. Nothing runs; an app's containers
last what its submission declares (the simulator's app model, in the engine loop)."""

from __future__ import annotations

from collections.abc import Sequence

from fairshare.server.executors.base import ExecutorHost, Launch, NodeOffer


class VirtualExecutor:
    kind = "virtual"

    def start(self, host: ExecutorHost) -> None:
        pass

    def nodes(self) -> Sequence[NodeOffer] | None:
        return None

    def launch(self, launch: Launch) -> None:
        pass  # (the loop launches nothing for the virtual executor's apps)

    def stop(self, app: str, container: str, grace_ms: int) -> None:
        pass

    def close(self) -> None:
        pass
