"""The only writer of the cluster's state: every field of an app, a node, a queue's runtime
record or the cluster is assigned in this package (``tests/test_state_writes.py`` checks it),
and each write a cache depends on is recorded in the change log
(:mod:`fairshare.core.model.changes`; each module's ``RECORDS`` table declares which kinds
each of its writers records, ``tests/core/hub/test_state_changes.py`` checks them). The
writers decide and report nothing (their callers emit the events); vectors are replaced,
never changed in place.
The § numbers cited here are sections of docs/semantics.md.

One module per noun — :mod:`.queues`, :mod:`.nodes`, :mod:`.apps`, :mod:`.containers` (a
container's allocation, release and reservation, across node, app and queues),
:mod:`.preemption`, :mod:`.starvation` — each a mixin of :class:`~.base.WriterBase`;
:class:`StateWriter` inherits them all, so that ``s.write.allocate(…)`` on the hottest path is a
plain method call.
"""

from __future__ import annotations

from fairshare.core.hub.state import apps, containers, nodes, preemption, queues, starvation
from fairshare.core.hub.state.base import Records
from fairshare.core.hub.state.containers import ContainerWriter
from fairshare.core.hub.state.preemption import PreemptionWriter
from fairshare.core.hub.state.queues import QueueCounter
from fairshare.core.hub.state.starvation import StarvationWriter

__all__ = ["RECORDS", "QueueCounter", "StateWriter"]


class StateWriter(ContainerWriter, PreemptionWriter, StarvationWriter):
    """Every write of the state, each recording what it changed (one mixin per noun)."""


# every writer → the kinds of change it may record (those of the writers it calls included)
RECORDS: Records = {**queues.RECORDS, **nodes.RECORDS, **apps.RECORDS, **containers.RECORDS,
                    **preemption.RECORDS, **starvation.RECORDS}
