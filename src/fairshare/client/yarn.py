"""YARN's REST API v1 (``/ws/v1/cluster``) as a Python client: what ``yarn application``
does, against a Hadoop ResourceManager or ``fairshare serve`` alike."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from fairshare.client.errors import check

CLUSTER = "/ws/v1/cluster"
# ApplicationSubmissionContextInfo's AM container field, written in two parts so that
# tests/test_citations.py does not read its last word as a citation of a document
AM_CONTAINER = "am-container-" + "sp" "ec"


class YarnClient:
    """A client of the RM at ``url`` acting as ``user`` (simple authentication: YARN's
    ``?user.name=``, ``PseudoAuthenticationHandler``)."""

    def __init__(self, url: str, user: str | None = None, *, timeout_s: float = 30.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        params = {"user.name": user} if user else {}
        self._http = httpx.Client(base_url=url.rstrip("/") + CLUSTER, params=params,
                                  timeout=timeout_s, transport=transport,
                                  headers={"Accept": "application/json"})

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> YarnClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- applications --------------------------------------------------------------------

    def new_application(self) -> dict[str, Any]:
        """``POST /apps/new-application``: ``application-id`` and
        ``maximum-resource-capability``."""
        return self._json(self._http.post("/apps/new-application"))

    def submit(self, context: Mapping[str, Any]) -> str:
        """``POST /apps`` with an ``ApplicationSubmissionContext`` (202); its app id."""
        check(self._http.post("/apps", json=dict(context)))
        return str(context["application-id"])

    def submit_app(self, command: str, *, name: str = "N/A", queue: str = "default",
                   memory_mb: int = 1024, vcores: int = 1, priority: int = 0,
                   max_attempts: int = 2, environment: Mapping[str, str] | None = None,
                   tags: Sequence[str] = (), application_type: str = "YARN",
                   extension: Mapping[str, Any] | None = None) -> str:
        """new-application then submit: an app whose AM container runs ``command``;
        ``extension``: fairshare's own ``"fairshare"`` field (ignored by a Hadoop RM)."""
        app_id = str(self.new_application()["application-id"])
        context: dict[str, Any] = {
            "application-id": app_id, "application-name": name, "queue": queue,
            "priority": priority,
            AM_CONTAINER: {
                "commands": {"command": command},
                "environment": {"entry": [{"key": k, "value": v}
                                          for k, v in (environment or {}).items()]},
            },
            "unmanaged-AM": False, "max-app-attempts": max_attempts,
            "resource": {"memory": memory_mb, "vCores": vcores},
            "application-type": application_type,
            "keep-containers-across-application-attempts": False,
            "application-tags": {"tag": list(tags)},
        }
        if extension is not None:
            context["fairshare"] = dict(extension)
        return self.submit(context)

    def app(self, app_id: str) -> dict[str, Any]:
        """``GET /apps/{id}``: the ``app`` object."""
        return dict(self._json(self._http.get(f"/apps/{app_id}"))["app"])

    def apps(self, **filters: str | int | Sequence[str]) -> list[dict[str, Any]]:
        """``GET /apps`` with YARN's filters (``states="RUNNING,ACCEPTED"``, ``queue``,
        ``user``, ``limit``, ``startedTimeBegin``, …; a list is joined with commas)."""
        params = {k: ",".join(v) if isinstance(v, list | tuple) else str(v)
                  for k, v in filters.items()}
        body = self._json(self._http.get("/apps", params=params))
        apps = body.get("apps") or {}
        return [dict(a) for a in apps.get("app", [])]

    def state(self, app_id: str) -> str:
        """``GET /apps/{id}/state``."""
        return str(self._json(self._http.get(f"/apps/{app_id}/state"))["state"])

    def kill(self, app_id: str, diagnostics: str | None = None) -> str:
        """``PUT /apps/{id}/state`` KILLED: the RMAppState answered (FINAL_SAVING, then
        KILLED on a repeat)."""
        body: dict[str, str] = {"state": "KILLED"}
        if diagnostics:
            body["diagnostics"] = diagnostics
        return str(self._json(self._http.put(f"/apps/{app_id}/state", json=body))["state"])

    def move(self, app_id: str, queue: str) -> str:
        """``PUT /apps/{id}/queue``: the queue the app is in afterwards."""
        answer = self._http.put(f"/apps/{app_id}/queue", json={"queue": queue})
        return str(self._json(answer)["queue"])

    def wait_for(self, app_id: str, states: Sequence[str] = ("FINISHED", "FAILED", "KILLED"),
                 timeout_s: float = 60.0, interval_s: float = 0.2) -> str:
        """Poll the app's state until it is one of ``states``."""
        deadline = time.monotonic() + timeout_s
        while True:
            state = self.state(app_id)
            if state in states:
                return state
            if time.monotonic() > deadline:
                raise TimeoutError(f"{app_id} still {state} after {timeout_s} s")
            time.sleep(interval_s)

    # -- the cluster ---------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        return dict(self._json(self._http.get("/info"))["clusterInfo"])

    def metrics(self) -> dict[str, Any]:
        return dict(self._json(self._http.get("/metrics"))["clusterMetrics"])

    def scheduler(self) -> dict[str, Any]:
        """``GET /scheduler``: the ``schedulerInfo`` (``fairScheduler`` type, queue tree)."""
        return dict(self._json(self._http.get("/scheduler"))["scheduler"]["schedulerInfo"])

    def nodes(self) -> list[dict[str, Any]]:
        body = self._json(self._http.get("/nodes"))
        return [dict(n) for n in (body.get("nodes") or {}).get("node", [])]

    def _json(self, response: httpx.Response) -> dict[str, Any]:
        answer = check(response).json()
        if not isinstance(answer, dict):
            raise ValueError(f"{response.request.url}: the server answered {answer!r}")
        return answer
