"""Alembic's environment for the state store: it runs on the connection the opener put in
``config.attributes["connection"]`` (:func:`fairshare.web.history.database.migrate`), inside
the opener's transaction. Its revisions are recorded in a version table of its own
(``fairshare_state_version``), so the state store and the history may share one PostgreSQL
database. Offline mode (SQL scripts) is not supported."""

from __future__ import annotations

from alembic import context

VERSION_TABLE = "fairshare_state_version"


def run() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=None,
                      version_table=VERSION_TABLE,
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
