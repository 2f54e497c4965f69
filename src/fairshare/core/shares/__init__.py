"""Demand and fair shares (docs/semantics.md §2): the share solver, steady and instantaneous
shares over the tree, and the update pass's incremental
demand and share steps. Imports :mod:`~fairshare.core.model`,
:mod:`~fairshare.core.hub` and :mod:`~fairshare.core.lifecycle` only."""
