"""How apps, asks, containers and nodes enter and leave the state: submission, placement,
admission (``maxRunningApps``), resource requests, attempts, recovery and decommissioning.
Imports only the core packages below it: :mod:`~fairshare.core.rules`,
:mod:`~fairshare.core.model` and :mod:`~fairshare.core.hub`."""
