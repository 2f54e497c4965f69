"""One module per schema version of the history database, oldest first (Alembic revisions)."""
