"""The engine's commands as data: one frozen dataclass per thing a caller can make it do.

Every driver speaks this vocabulary — the scripted runner's steps, the workload's timed changes,
the simulator's app model, the differential oracle's trace — and so will a live service's
request handlers and a state store's journal. :func:`apply_command` carries one out on an
:class:`~fairshare.core.engine.Engine` through exactly the public method a direct caller would
use, so a command has the same effect and events as that call.

Each command has a stable ``kind`` and a JSON form (:func:`command_to_json`,
:func:`command_from_json`; docs/architecture.md, "Commands"): ``{"kind": …}`` and its fields in
kebab-case, resources as ``{"memory-mb": n, "vcores": n, …}`` of the engine's resource types.
A :class:`Reload` travels as the allocation file YARN read (``text``) and is parsed again when
read back, as ``AllocationFileLoaderService`` would on the ResourceManager that replays it.

The names follow YARN's protocols: :class:`Ask` is the ``ask`` list of an AM's
``AllocateRequest`` (``AMRMClient.addContainerRequest``), :class:`Release` and
:class:`CompleteContainer` its ``release`` list and a task's container exiting, :class:`Kill`
and :class:`Move` the client's ``killApplication`` and ``moveApplicationAcrossQueues``,
:class:`Decommission` ``yarn rmadmin -refreshNodes -g``, :class:`Forget` ``RMAppManager``
dropping an ended app past ``max-completed-applications``.
"""

from fairshare.core.commands.apply import apply_command
from fairshare.core.commands.json_form import command_from_json, command_to_json
from fairshare.core.commands.vocabulary import (
    COMMAND_KINDS,
    AddNode,
    AddNodes,
    Advance,
    AdvanceTo,
    Ask,
    Command,
    CompleteContainer,
    Decommission,
    Finish,
    Forget,
    Heartbeat,
    HeartbeatAll,
    HeartbeatTick,
    Kill,
    Move,
    Preempt,
    RecoverContainer,
    Release,
    Reload,
    ReloadFailed,
    RemoveNode,
    ResizeNode,
    Restart,
    Submit,
    Update,
)

__all__ = [
    "COMMAND_KINDS",
    "AddNode",
    "AddNodes",
    "Advance",
    "AdvanceTo",
    "Ask",
    "Command",
    "CompleteContainer",
    "Decommission",
    "Finish",
    "Forget",
    "Heartbeat",
    "HeartbeatAll",
    "HeartbeatTick",
    "Kill",
    "Move",
    "Preempt",
    "RecoverContainer",
    "Release",
    "Reload",
    "ReloadFailed",
    "RemoveNode",
    "ResizeNode",
    "Restart",
    "Submit",
    "Update",
    "apply_command",
    "command_from_json",
    "command_to_json",
]
