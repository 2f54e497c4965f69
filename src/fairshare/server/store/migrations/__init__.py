"""The state store's Alembic migrations (``env.py``, ``versions/``)."""
