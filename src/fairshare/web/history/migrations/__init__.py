"""The history database's schema migrations (Alembic), run by :mod:`fairshare.web.history.database`
when a history is opened; ``versions/`` holds one module per schema version."""
