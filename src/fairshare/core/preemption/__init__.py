"""Preemption (docs/semantics.md §5), as pure functions over frozen views.

* :mod:`fairshare.core.preemption.victims` — which containers may be preempted (§5.5), victim
  selection on one node (§5.4) and across nodes, with the YARN-7655 wider search (§5.3).
"""
