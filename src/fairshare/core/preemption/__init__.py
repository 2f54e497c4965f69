"""Preemption (docs/semantics.md §5): a round over the starved apps, each planned without
touching the state, then committed.

* :mod:`.round` — the round: starved apps in ``FSStarvedApps`` order, each planned by the
  round's planner (the engine's :class:`~.round.SearchPlanner`) and committed (§4.6, §5.1).
* :mod:`.requests` — an app's starvation as container requests to preempt for (§5.2).
* :mod:`.plan` — one app's plan (§5.2–§5.5), its marks kept in an :mod:`.overlay` on top of
  the state; its victims found by :mod:`.plan_search` through the round's
  :class:`~.search.VictimSearch` (:mod:`.search`, what rounds keep for later ones in
  ``SearchMemory``), skipping nodes by :mod:`.bounds`; :mod:`.victims` the views searched and
  the rules on one node (which containers may be preempted §5.5, choosing on a node §5.4).
* :mod:`.commit` — a plan carried out: warn, earmark, kill timers, kill (§5.6, §5.7);
  :mod:`.blocked` — why a container found no victims.
"""
