"""A schema-driven fuzzer over ``fairshare serve``: schemathesis generates requests from the
server's own OpenAPI document (``/openapi.json``: YARN's REST API and fairshare's
extensions), valid ones and ones that break the schema, and calls the whole app in-process;
no answer may be a 5xx, and each must be one the document declares for its route, in a
media type it declares.

Smoke size here (``make test``): a few examples per operation, a fixed seed (Hypothesis
derandomized), no example database — the same requests every run, well under a minute. A
larger run: ``FAIRSHARE_FUZZ_EXAMPLES=500 python -m pytest tests/server/test_fuzz_openapi.py``
(docs/reliability.md). The event stream is left out: without ``limit`` it is meant never to
end (tests/server/test_bad_input.py checks its parameters).

The only 5xx the RM answers by design are Jersey's 415/405 and the Fair Scheduler's refusal
of a priority, as 503 ``WebApplicationException``/``UndeclaredThrowableException`` (a
Hadoop 3.4 RM): those are allowed, the catch-all 503 of a fault of fairshare's is not.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import CheckContext, content_type_conformance, status_code_conformance
from schemathesis.core.failures import Failure

from fairshare.server.service import Served
from tests.server.served import served_client

EXAMPLES = int(os.environ.get("FAIRSHARE_FUZZ_EXAMPLES", "6"))
CATCH_ALL = "fairshare could not answer this request"  # rest/app.py's answer to a fault
# the 503s a Hadoop 3.4 RM gives on purpose (docs/rest.md)
YARNS_503 = ("WebApplicationException", "UndeclaredThrowableException")
SKIPPED = {"/ws/v1/fairshare/events"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, TestClient]]:
    with served_client(tmp_path_factory.mktemp("fuzz")) as pair:
        yield pair


def no_fault(ctx: CheckContext, response: Any, case: Any) -> bool | None:
    """Not a 5xx, but for the RM's own 503s (a RemoteException of the exceptions Hadoop's
    RM answers 503 with, not fairshare's catch-all)."""
    if response.status_code < 500:
        return None
    body: Any = None
    with contextlib.suppress(ValueError):  # not JSON: no RemoteException
        body = response.json()
    remote = body.get("RemoteException", {}) if isinstance(body, dict) else {}
    if response.status_code == 503 and remote.get("exception") in YARNS_503 \
            and CATCH_ALL not in (remote.get("message") or ""):
        return None
    raise Failure(operation=case.operation.label, title="Server error",
                  message=f"{response.status_code}: {response.text[:500]}", code="server_error")


def operations(app: Any) -> list[Any]:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    found = [result.ok() for result in schema.get_all_operations()]
    return [op for op in found if op.path not in SKIPPED]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_answer_is_a_fault(served: tuple[Served, TestClient], mode: GenerationMode) -> None:
    """Every operation of the document, ``EXAMPLES`` cases each (valid ones, then ones that
    break the schema): every failure is collected, then all are shown at once."""
    server = served[0]
    failures: list[str] = []
    ops = operations(server.app)
    assert len(ops) >= 20  # the document lists every route (a vanished one would hide here)
    for op in ops:
        @given(case=op.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck), phases=[Phase.generate])
        def run(case: Any) -> None:
            case.call_and_validate(checks=[no_fault, status_code_conformance,
                                           content_type_conformance])

        try:
            run()
        except Unsatisfiable:  # nothing of it can be made invalid (no parameter, no body)
            assert mode is GenerationMode.NEGATIVE, op.label
        except BaseException as e:  # (schemathesis's FailureGroup is an ExceptionGroup)
            if isinstance(e, KeyboardInterrupt | SystemExit):
                raise
            failures.append(f"{op.label}: {e}")  # one operation's: the others still run
        assert server.loop.failure is None, op.label
    assert not failures, "\n\n".join(failures)
