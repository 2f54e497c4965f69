"""What the engine's state is made of: the records of the cluster (apps, nodes, containers,
reservations, queue runtime records), the queue tree and its settings, the change log the caches
drain, the events, and the errors the engine raises (``errors.py``). Imports nothing from
``fairshare.core`` but :mod:`fairshare.core.rules`."""
