"""A fairshare scenario in the form the Java driver reads: everything resolved.

The driver (``oracle/driver``) is kept small by giving it nothing to interpret: the site is the
property map Hadoop's ``Configuration`` would hold (the ``site-file`` read, ``site`` on top),
the allocation file is its text, node templates are expanded, defaults are filled, and each
step carries its line for the report. Its format is written down in docs/fidelity.md, "The
driver's input".

What the oracle cannot compare is refused here with a reason (:class:`NotComparable`):
``--set`` overrides, or a ``recover-container`` step. A ``workload`` is handed over as the steps
fairshare's simulator took (:mod:`oracle.trace`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fairshare.config.yarnsite import load_site
from fairshare.sim.parse.specs import NodeSpec
from fairshare.sim.parse.steps import (
    AddNodeStep,
    AdvanceStep,
    CommandStep,
    ExpectStep,
    FinishStep,
    HeartbeatStep,
    KillStep,
    MoveStep,
    RecoverContainerStep,
    ReleaseStep,
    ReloadStep,
    RemoveNodeStep,
    RequestSpec,
    RequestStep,
    ResizeNodeStep,
    Scenario,
    SnapshotStep,
    Step,
    SubmitStep,
    UpdateStep,
)

__all__ = ["NotComparable", "normalise"]


class NotComparable(Exception):
    """The scenario uses something the driver does not replay; the message says what."""


def normalise(scenario: Scenario, steps: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The driver's JSON document for ``scenario`` (plain data, ready for ``json.dumps``);
    ``steps``: the steps a workload was traced into (:mod:`oracle.trace`) instead of the
    scenario's own."""
    if steps is None and (scenario.workload is not None or scenario.changes):
        raise NotComparable("it has a workload: trace it (oracle.trace)")
    if scenario.overrides:
        raise NotComparable("it is run with --set options")
    return {
        "name": scenario.name,
        "start-ms": scenario.start_ms,
        "site": _site(scenario),
        "allocations": _allocations(scenario),
        "groups": {user: list(groups) for user, groups in scenario.groups.items()},
        "nodes": [_node(n) for n in scenario.nodes],
        "steps": [_step(s) for s in scenario.steps] if steps is None else steps,
    }


def _site(scenario: Scenario) -> dict[str, str]:
    """What ``Configuration.get`` returns for each property: the file, then ``site`` over it."""
    site = load_site(scenario.site_file, dict(scenario.site))
    return dict(sorted(site.raw.items()))


def _allocations(scenario: Scenario) -> str | None:
    if scenario.allocations_file is not None:
        return Path(scenario.allocations_file).read_text(encoding="utf-8")
    return scenario.allocations_text


def _node(node: NodeSpec) -> dict[str, Any]:
    return {"name": node.name, "rack": node.rack, "resources": dict(node.resources)}


def _request(request: RequestSpec) -> dict[str, Any]:
    return {"count": request.count, "resources": dict(request.resources),
            "priority": request.priority, "locality": request.locality,
            "relax-locality": request.relax_locality}


def _step(step: Step) -> dict[str, Any]:
    kind, args = _STEPS[type(step)](step)
    return {"step": kind, "line": step.line, **args}


def _reload(step: ReloadStep) -> dict[str, Any]:
    if step.allocations_file is not None:
        return {"allocations": Path(step.allocations_file).read_text(encoding="utf-8")}
    return {"allocations": step.allocations_text}


def _not_comparable(step: Step) -> tuple[str, dict[str, Any]]:
    raise NotComparable(f"line {step.line}: the driver does not replay "
                        f"{type(step).__name__} steps")


def _plain(kind: str, *names: str) -> Any:
    """A step whose arguments are copied as they are (snake_case → kebab-case)."""
    def convert(step: Step) -> tuple[str, dict[str, Any]]:
        return kind, {name.replace("_", "-"): getattr(step, name) for name in names}
    return convert


_STEPS: dict[type, Any] = {
    AddNodeStep: lambda s: ("add-node", _node(s.node)),
    RemoveNodeStep: _plain("remove-node", "name"),
    ResizeNodeStep: lambda s: ("resize-node", {"name": s.name,
                                               "resources": dict(s.resources)}),
    SubmitStep: lambda s: ("submit", {
        "app": s.app, "queue": s.queue, "user": s.user,
        "am": None if s.am is None else dict(s.am),
        "requests": [_request(r) for r in s.requests], "recovering": s.recovering}),
    RequestStep: lambda s: ("request", {"app": s.app,
                                        "requests": [_request(r) for r in s.requests]}),
    UpdateStep: _plain("update"),
    HeartbeatStep: _plain("heartbeat", "node", "times"),
    AdvanceStep: _plain("advance", "ms"),
    ReleaseStep: _plain("release", "app", "count", "which"),
    FinishStep: _plain("finish", "app"),
    KillStep: _plain("kill", "app"),
    ReloadStep: lambda s: ("reload", _reload(s)),
    MoveStep: _plain("move", "app", "queue"),
    SnapshotStep: _plain("snapshot", "label"),
    ExpectStep: _plain("expect"),
    RecoverContainerStep: _not_comparable,
    CommandStep: _not_comparable,  # a serve session's journal: replayed by fairshare run
}
