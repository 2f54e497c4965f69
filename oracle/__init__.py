"""The differential oracle: the same scenarios through fairshare and through Hadoop's own
FairScheduler (the Java driver in ``oracle/driver``), compared decision by decision.

``make oracle`` runs it (docs/fidelity.md, "The differential oracle"). Everything here is a
development tool: it needs a JDK and Maven, and nothing in ``src/`` imports it.
"""
