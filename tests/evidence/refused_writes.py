"""A write that fails late, on the real database: a trigger refusing every insert into one table
(SQLite and PostgreSQL), for tests that a failed write leaves nothing of the document behind."""

from __future__ import annotations

from bio_mcp.store import MetadataStore


def refuse_inserts(store: MetadataStore, table: str) -> None:
    with store.transaction() as tx:
        if tx.connection.dialect.name == "sqlite":
            tx.connection.exec_driver_sql(
                f"CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
            return
        tx.connection.exec_driver_sql(
            "CREATE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$"
        )
        tx.connection.exec_driver_sql(
            f"CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION refuse_insert()"
        )


def allow_inserts(store: MetadataStore, table: str) -> None:
    with store.transaction() as tx:
        on = "" if tx.connection.dialect.name == "sqlite" else f" ON {table}"
        tx.connection.exec_driver_sql(f"DROP TRIGGER refuse_{table}{on}")
