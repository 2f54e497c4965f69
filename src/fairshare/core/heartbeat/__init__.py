"""A node's heartbeat (docs/semantics.md §3): the tree walk's order index and the assignment
of containers, reservations and earmarks; which heartbeats of a tick are provably quiet
(``quiet.py``, behind ``Engine.heartbeat_tick``). Imports the layers below it only (model,
lifecycle, shares, starvation)."""
