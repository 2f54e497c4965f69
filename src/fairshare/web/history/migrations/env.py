"""Alembic's environment for the history database: it runs on the connection the opener put in
``config.attributes["connection"]`` (:func:`fairshare.web.history.database.migrate`), never on
a URL of its own, so the migrations run inside the opener's transaction and engine (with its
SQLite pragmas). Offline mode (SQL scripts) is not supported."""

from __future__ import annotations

from alembic import context


def run() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=None,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


def _under_alembic() -> bool:
    """Whether Alembic is running this module (imported otherwise — by the docstring
    test — its context is not set up, and nothing is done)."""
    try:
        return not context.is_offline_mode()
    except (AttributeError, NameError):  # Alembic's context proxy, unset
        return False


if _under_alembic():
    run()
