"""Alembic's environment for the history database: it runs on the connection the opener put in
``config.attributes["connection"]`` (:func:`fairshare.web.history.database.migrate`), never on
a URL of its own, so the migrations run inside the opener's transaction and engine (with its
SQLite pragmas). Offline mode (SQL scripts) is not supported."""

from __future__ import annotations

from fairshare.web.history.database import run_migrations

run_migrations()
