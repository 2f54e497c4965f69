"""A node's heartbeat (docs/semantics.md §3): the tree walk's order index and the assignment
of containers, reservations and earmarks. Imports the core packages below it only (rules,
model, hub, lifecycle)."""
