"""Preemption (docs/semantics.md §5), as pure functions over frozen views.

* :mod:`fairshare.core.preemption.victims` — which containers may be preempted (§5.5) and
  victim selection on one node (§5.4); the search across nodes with the YARN-7655 wider search
  (§5.3) that runs is :mod:`fairshare.core.preemption.plan_search`, through a round's
  :mod:`fairshare.core.preemption.search`.
"""
