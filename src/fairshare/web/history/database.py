"""Opening the history database: the URL, the engine, the schema migrations.

A plain path (or a ``sqlite:///`` URL) is SQLite in WAL mode — the poller writes while the
pages and the CLI read, and in WAL readers and the one writer do not block each other
(https://www.sqlite.org/wal.html); ``synchronous=NORMAL`` is WAL's usual setting (a power cut
may lose the last commits, never corrupt the file). Both are set on every connection, as
SQLite keeps them per connection. Any other URL goes to SQLAlchemy as it is
(``postgresql+psycopg://user@host/db``; a bare ``postgresql://`` is given psycopg 3).

The schema is Alembic's (``migrations/``, shipped in the package): :func:`migrate` upgrades
the database to the newest revision on the opener's connection, so opening an old database
upgrades it, and opening a new one creates it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from fairshare.web.history import schema

MIGRATIONS = Path(__file__).with_name("migrations")


def engine_for(url: str, what: str = "history database") -> Engine:
    """The engine of a path or URL; a malformed URL is a ValueError naming it (as ``what``'s
    URL: the history database, the state store)."""
    if "://" not in url:
        url = "sqlite:///" + str(Path(url).expanduser())
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError) as exc:
        raise ValueError(f"not a database URL ({what} URL: {exc})") from None
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(parsed, pool_pre_ping=True)


def shown_url(url: str) -> str:
    """The URL as messages show it: a path as given, a URL with its password hidden."""
    if "://" not in url:
        return url
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):  # not parsed: any user:password@ hidden by hand
        return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


def _sqlite_pragmas(connection: Any, _record: object) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def migrate(engine: Engine, migrations: Path = MIGRATIONS) -> None:
    """Upgrade the database to the newest schema of ``migrations`` (an Alembic script
    directory: the history's by default; the state store has its own), creating it when
    empty."""
    config = Config()
    config.set_main_option("script_location", str(migrations))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def run_migrations(version_table: str = "alembic_version") -> None:
    """An Alembic ``env.py``'s whole work (the history's, the state store's): the revisions
    run on the connection :func:`migrate` put in ``config.attributes["connection"]``, inside
    its transaction, recorded in ``version_table``; nothing when Alembic is not running the
    module (imported by the docstring test). Offline mode (SQL scripts) is not supported."""
    from alembic import context

    try:
        if context.is_offline_mode():
            return
    except (AttributeError, NameError):  # Alembic's context proxy, unset
        return
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=None,
                      version_table=version_table,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


def size_bytes(engine: Engine) -> int:
    """The database's size on disk: SQLite's pages in use (the file, with its WAL folded in,
    less the free pages deleted rows left for reuse); PostgreSQL's tables with their indexes
    and TOAST (TimescaleDB's hypertables with their chunks)."""
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            pages = connection.execute(text("PRAGMA page_count")).scalar_one()
            free = connection.execute(text("PRAGMA freelist_count")).scalar_one()
            size = connection.execute(text("PRAGMA page_size")).scalar_one()
            return int((pages - free) * size)
        timescale = connection.execute(text(
            "SELECT 1 FROM pg_extension WHERE extname = 'timescaledb'")).first() is not None
        total = 0
        for table in schema.metadata.tables:
            # a hypertable's rows are in its chunks, which the parent's size leaves out
            query = ("SELECT hypertable_size(CAST(:t AS regclass))"
                     if timescale and table in schema.HYPERTABLES
                     else "SELECT pg_total_relation_size(CAST(:t AS regclass))")
            total += int(connection.execute(text(query), {"t": table}).scalar_one() or 0)
        return total
