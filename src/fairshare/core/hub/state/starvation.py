"""The writers of starvation (docs/semantics.md §4): the gate of the starvation pass, the
starved-apps queue and what one update pass's starvation step decided
(:class:`StarvationWrites`).
"""

from __future__ import annotations

from fairshare.core.hub.state.base import Records, WriterBase
from fairshare.core.model.changes import Change
from fairshare.core.model.records import App, StarvationWrites, StarvedApps


class StarvationWriter(WriterBase):
    def open_starvation_gate(self, gate_open: bool) -> None:
        self.state.starvation_gate_open = gate_open

    def set_starved(self, starved: StarvedApps) -> None:
        self.state.starved = starved

    def apply_starvation(self, writes: StarvationWrites) -> None:
        """The starvation step's decisions (:class:`StarvationWrites`), in the order made."""
        for runtime in writes.stamp_min_share:
            runtime.last_time_at_min_share = writes.clock
        for stamped in writes.stamp_fair_share:
            stamped.last_time_at_fair_share = writes.clock
        for runtime, last in writes.last_time_at_min_share.items():
            runtime.last_time_at_min_share = last
        for app, (amount, last) in writes.fairshare.items():
            app.fairshare_starvation, app.last_time_at_fair_share = amount, last
        for app, amount in writes.minshare.items():
            app.minshare_starvation = amount
            self.log.app(app)  # min-share starvation makes it starved: it may reserve
        for runtime, (starved, since) in writes.min_share_starved.items():
            if not starved:
                runtime.min_share_starved_since = None
            elif runtime.min_share_starved_since is None:
                runtime.min_share_starved_since = since
        if writes.starved is not None:
            self.state.starved = writes.starved

    def set_next_starvation_check(self, app: App, when: int) -> None:
        app.next_starvation_check = when


RECORDS: Records = {
    StarvationWriter.open_starvation_gate: (),
    StarvationWriter.set_starved: (),
    StarvationWriter.apply_starvation: (Change.APP,),  # an app's min-share starvation
    StarvationWriter.set_next_starvation_check: (),
}
