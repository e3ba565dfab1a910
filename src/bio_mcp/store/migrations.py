"""The steps that bring a database of an earlier schema version to this one, run by
`MetadataStore.create_schema` inside its transaction after `create_all` has added new tables."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.engine import Connection


def _mentions_to_their_table(connection: Connection) -> None:
    """1 -> 2: MENTIONS edges leave `kg_edges` for `kg_mentions` (section order, as a sync appends)."""
    connection.exec_driver_sql(
        "INSERT INTO kg_mentions (src, dst, weight, document_id, props) "
        "SELECT src, dst, weight, document_id, props FROM kg_edges WHERE type = 'MENTIONS' ORDER BY src, dst"
    )
    connection.exec_driver_sql("DELETE FROM kg_edges WHERE type = 'MENTIONS'")


# The step from each version to the next.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _mentions_to_their_table}
