"""A node's heartbeat (docs/semantics.md §3): the tree walk's order index and the assignment
of containers, reservations and earmarks; which heartbeats of a tick are provably quiet
(``quiet.py``, behind ``Engine.heartbeat_tick``). Imports the core packages below it only
(rules, model, hub, lifecycle)."""
