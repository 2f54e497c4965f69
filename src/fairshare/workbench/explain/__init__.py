"""``fairshare explain``: why an app waited, a container was preempted, a queue was (or was
never) starved — the causal chain read from a run's outputs. :mod:`.queue` answers for a queue
and dispatches the other questions; :mod:`.app` for an app or a container; :mod:`.waiting` names
the causes an app waited for; :mod:`.changes` the reloads and node changes in between;
:mod:`.model` holds the statements they are made of."""
