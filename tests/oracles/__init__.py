"""Straightforward reference implementations, kept out of the product.

The engine runs one implementation of each computation: incremental, indexed, pruned. Each is
checked against a reference here that does the same thing the plain way, as YARN's own code
reads: lockstep tests drive an engine with the product's step and one with the reference's on
the same random inputs and compare every event and every number. A reference is put into an
engine by the function its module offers (``use_reference_update``…); the benchmarks time the
product against it.

Beside them, instruments the tests run over a live engine, never the engine itself: the
consistency checks of its state (:mod:`.invariants`) and the ledger rebuilt from its events
(:mod:`.ledger`).
"""
