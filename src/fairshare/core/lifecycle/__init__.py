"""How apps, asks, containers and nodes enter and leave the state: submission, placement,
admission (``maxRunningApps``), resource requests, attempts, recovery and decommissioning.
Imports only :mod:`fairshare.core.model`."""
