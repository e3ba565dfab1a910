"""Engine set-up, schema creation and versioning, and how database failures surface."""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import SCHEMA_VERSION, MetadataStore, open_metadata_store
from bio_mcp.store.schema import metadata, schema_version


def test_schema_is_created_once_with_its_version(
    store: MetadataStore, store_url: str, tmp_path: Path
) -> None:
    again = MetadataStore.open(store_url, lock_dir=tmp_path / "locks")
    try:
        assert again.create_schema() == SCHEMA_VERSION
        with again.read() as tx:
            rows = tx.connection.execute(sa.select(schema_version.c.id, schema_version.c.version)).all()
            tables = set(sa.inspect(tx.connection).get_table_names())
    finally:
        again.close()
    assert rows == [(1, SCHEMA_VERSION)]
    assert set(metadata.tables) <= tables


def test_concurrent_start_ups_create_the_schema_once(store_url: str, tmp_path: Path) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(3)

    def start() -> None:
        try:
            barrier.wait()
            MetadataStore.open(store_url, lock_dir=tmp_path / "locks").close()
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_a_newer_schema_is_refused(store: MetadataStore, store_url: str) -> None:
    with store.transaction() as tx:
        tx.connection.execute(sa.update(schema_version).values(version=SCHEMA_VERSION + 1))
    with pytest.raises(BioMcpError) as caught:
        MetadataStore.open(store_url)
    assert caught.value.code is ErrorCode.STORE
    assert f"schema version {SCHEMA_VERSION + 1}" in caught.value.message


def test_sqlite_runs_in_wal_mode_with_foreign_keys_and_a_large_page_cache(tmp_path: Path) -> None:
    store = MetadataStore.open(f"sqlite:///{tmp_path / 'pragmas.sqlite3'}", busy_timeout_ms=12_345)
    try:
        with store.read() as tx:
            pragmas = {
                name: tx.connection.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("journal_mode", "foreign_keys", "busy_timeout", "synchronous", "cache_size")
            }
    finally:
        store.close()
    # synchronous 1 is NORMAL; a negative cache_size is in KiB (SQLite's default is -2000).
    assert pragmas == {
        "journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 12_345, "synchronous": 1, "cache_size": -262_144,
    }


def test_database_errors_become_store_errors(store: MetadataStore, real_records, make_chunks) -> None:
    first, second = real_records[0], real_records[1]
    with store.transaction() as tx:
        tx.documents.upsert([first, second])
        tx.chunks.replace(first.pmid, 1, make_chunks(first))
    # A chunk uuid that already belongs to another document violates the primary key.
    stolen = [chunk.model_copy(update={"chunk_id": f"x{chunk.chunk_id}"}) for chunk in make_chunks(first)]
    with pytest.raises(BioMcpError) as caught, store.transaction() as tx:
        tx.chunks.replace(second.pmid, 1, stolen)
    error = caught.value
    assert error.code is ErrorCode.STORE
    assert error.message.startswith("database error while writing: ")
    assert "INSERT" not in error.message and stolen[0].text not in error.message
    assert error.details["error"] in ("IntegrityError", "UniqueViolation")
    if store.dialect == "postgresql":
        assert error.details["sqlstate"] == "23505"
    with store.read() as tx:
        assert {chunk.uuid for chunk in tx.chunks.for_document(second.pmid)} == set()


def test_an_unreachable_postgresql_is_a_store_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(BioMcpError) as caught:
        MetadataStore.open(f"postgresql://postgres:secret@127.0.0.1:{port}/test")
    assert caught.value.code is ErrorCode.STORE
    assert "secret" not in caught.value.message + str(caught.value.details)


def test_a_sqlite_file_in_a_missing_folder_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(BioMcpError) as caught:
        MetadataStore.open(f"sqlite:///{tmp_path / 'absent' / 'store.sqlite3'}")
    assert caught.value.code is ErrorCode.STORE
    assert "unable to open database file" in caught.value.message


@pytest.mark.parametrize(
    "url",
    [
        "not a url",
        "mysql://root@127.0.0.1/bio",
        "sqlite://",
        "sqlite:///:memory:",
        "postgresql+psycopg2://postgres@127.0.0.1/test",
        "postgresql+nosuch://postgres@127.0.0.1/test",
    ],
)
def test_unusable_urls_are_validation_errors(url: str) -> None:
    with pytest.raises(BioMcpError) as caught:
        MetadataStore(url)
    assert caught.value.code is ErrorCode.VALIDATION


@pytest.mark.parametrize("url", ["postgresql://postgres@127.0.0.1/test", "postgresql+psycopg://postgres@127.0.0.1/test"])
def test_postgresql_without_the_postgres_extra_names_it(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # As in the default install, where psycopg is the `postgres` extra.
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(BioMcpError) as caught:
        MetadataStore(url)
    assert caught.value.code is ErrorCode.VALIDATION
    assert "pip install 'bio-mcp[postgres]'" in caught.value.message
    assert caught.value.details == {"url": "postgresql+psycopg://postgres@127.0.0.1/test", "missing": "psycopg"}


def test_a_plain_postgresql_url_uses_psycopg3(postgres_url: str) -> None:
    plain = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    store = MetadataStore(plain)
    try:
        assert store.dialect == "postgresql" and store.url.startswith("postgresql+psycopg://")
    finally:
        store.close()


def test_settings_default_to_a_sqlite_file_in_home(bio_home: Path) -> None:
    store = open_metadata_store(Settings())
    try:
        with store.sync_lock("glp1_obesity_v1", timeout_s=0):
            [lock_file] = (bio_home / "locks").iterdir()
            assert lock_file.name.startswith("sync-") and lock_file.suffix == ".lock"
    finally:
        store.close()
    assert (bio_home / "bio-mcp.sqlite3").is_file()


def test_sqlite_lock_files_default_to_a_folder_beside_the_database(tmp_path: Path) -> None:
    store = MetadataStore.open(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    try:
        with store.sync_lock("glp1_obesity_v1", timeout_s=0):
            assert len(list((tmp_path / "locks").glob("sync-*.lock"))) == 1
    finally:
        store.close()
