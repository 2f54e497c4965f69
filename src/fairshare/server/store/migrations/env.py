"""Alembic's environment for the state store: it runs on the connection the opener put in
``config.attributes["connection"]`` (:func:`fairshare.web.history.database.migrate`), inside
the opener's transaction. Its revisions are recorded in a version table of its own
(``fairshare_state_version``), so the state store and the history may share one PostgreSQL
database. Offline mode (SQL scripts) is not supported."""

from __future__ import annotations

from fairshare.web.history.database import run_migrations

VERSION_TABLE = "fairshare_state_version"

run_migrations(VERSION_TABLE)
