"""Alembic's environment for the history database: it runs on the connection the opener put in
``config.attributes["connection"]`` (:func:`fairshare.web.history.database.migrate`), never on
a URL of its own, so the migrations run inside the opener's transaction and engine (with its
SQLite pragmas). Imported by Alembic only."""

from __future__ import annotations

from alembic import context


def run() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=None,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():  # pragma: no cover - SQL scripts are not generated
    raise SystemExit("the history's migrations run on a live connection only")
run()
