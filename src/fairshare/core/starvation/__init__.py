"""Starvation (docs/semantics.md §4): the rules (deficits, the starved-apps heap), the update
pass's incremental starvation step, which computes what to write as a query, and how starvation
is reported. Imports the core packages below it only (rules, model, hub)."""
