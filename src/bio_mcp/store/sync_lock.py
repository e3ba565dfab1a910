"""One sync per query key at a time, across processes and hosts.

PostgreSQL: a session advisory lock on a hash of the key, held by a connection dedicated to it.
SQLite: `flock` on a file under the locks folder. The server drops a dead session's advisory locks
and the kernel drops a dead process's flocks, so a killed sync never leaves its key locked.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.file_lock import lock_within
from bio_mcp.store.database import store_error

_LOCK_NOT_AVAILABLE = "55P03"


def advisory_key(query_key: str) -> int:
    """A signed 64-bit key for pg_advisory_lock, namespaced so other users of advisory locks don't collide."""
    digest = hashlib.sha256(f"bio-mcp:sync:{query_key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def lock_file_name(query_key: str) -> str:
    # Hashed: a query key may hold any character, a file name may not.
    return f"sync-{hashlib.sha256(query_key.encode()).hexdigest()[:32]}.lock"


def _shown(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


def _timeout_error(query_key: str, timeout_s: float) -> BioMcpError:
    return BioMcpError(
        ErrorCode.STORE,
        f"another sync of query_key {query_key!r} is still running; gave up waiting after {timeout_s:g}s",
        {"query_key": query_key, "timeout_s": timeout_s},
    )


@contextmanager
def postgres_sync_lock(engine: Engine, query_key: str, timeout_s: float) -> Iterator[None]:
    key = advisory_key(query_key)
    try:
        connection = engine.connect()
    except SQLAlchemyError as exc:
        raise store_error(exc, "connecting for the sync lock", database=_shown(engine)) from exc
    try:
        with connection.begin():
            if timeout_s > 0:
                # lock_timeout 0 would mean "wait forever"; a positive one bounds the server-side wait.
                timeout_ms = max(1, round(timeout_s * 1000))
                connection.execute(
                    sa.text("SELECT set_config('lock_timeout', :t, true)"), {"t": f"{timeout_ms}ms"}
                )
                connection.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": key})
            elif not connection.execute(sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar_one():
                raise _timeout_error(query_key, timeout_s)
    except SQLAlchemyError as exc:
        connection.close()
        if getattr(getattr(exc, "orig", None), "sqlstate", None) == _LOCK_NOT_AVAILABLE:
            raise _timeout_error(query_key, timeout_s) from None
        raise store_error(exc, "taking the sync lock", database=_shown(engine)) from exc
    except BaseException:
        connection.close()
        raise
    try:
        yield
    finally:
        try:
            connection.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": key})
            connection.commit()
        except SQLAlchemyError:
            # Closing the server session releases the lock if the explicit unlock could not run.
            connection.invalidate()
        finally:
            connection.close()


@contextmanager
def file_sync_lock(lock_dir: Path, query_key: str, timeout_s: float) -> Iterator[None]:
    try:
        lock_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_dir / lock_file_name(query_key), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise BioMcpError(
            ErrorCode.STORE,
            f"cannot open the sync lock file in {lock_dir}: {exc.strerror}",
            {"query_key": query_key},
        ) from exc
    try:
        if not lock_within(fd, timeout_s):
            raise _timeout_error(query_key, timeout_s)
        # Who holds it, for a person looking at the folder; the lock is the flock, not this text.
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {query_key}\n".encode(), 0)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
