"""The ResourceManager's state store (``fairshare serve --store``): what a restart recovers
(:mod:`.store`), in SQLite or PostgreSQL through SQLAlchemy Core, its schema versioned by
Alembic (:mod:`.schema`, ``migrations/``), and the records it holds (:mod:`.codec`)."""
