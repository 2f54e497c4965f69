"""What every writer holds: the state it writes, the context it reads (a queue's ancestry) and
the change log it records in. The writers' modules (one per noun) each add a mixin of
:class:`WriterBase`; :class:`~fairshare.core.hub.state.StateWriter` inherits them all, so a
call of ``s.write.allocate`` is one method call, through no delegation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from fairshare.core.hub.context import Context
from fairshare.core.model.changes import Change, ChangeLog
from fairshare.core.model.records import ClusterState

# writer → the kinds of change it may record (nested writers' included): each module's table
Records = Mapping[Callable[..., object], tuple[Change, ...]]


class WriterBase:
    """The state, the context and the change log every writer works with."""

    def __init__(self, state: ClusterState, context: Context, log: ChangeLog) -> None:
        self.state, self._context, self.log = state, context, log
