"""Re-reading an evidence row's quote in the stored text it was taken from.

A relation a sync or an ingestion extracted keeps its sentence with its section and offsets; the
sentence is stated only if the section's stored chunk still reads exactly that at those offsets
(a document re-synced since, or a row written wrong, would otherwise quote words the source does
not say). Imported facts quote their own source, not a stored text: they have no check (None).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.features.evidence.relations import StoredEvidence
from bio_mcp.store.database import in_batches
from bio_mcp.store.schema import chunks, kg_nodes


def quote_checks(connection: Connection, rows: Sequence[StoredEvidence]) -> dict[str, bool | None]:
    """row id -> whether its sentence is its section's stored text at its offsets (None: no section)."""
    sections = sorted({row.section_id for row in rows if row.section_id})
    uuids: dict[str, str] = {}
    for batch in in_batches(sections):
        statement = sa.select(kg_nodes.c.id, kg_nodes.c.chunk_uuid).where(kg_nodes.c.id.in_(batch))
        uuids.update({row.id: row.chunk_uuid for row in connection.execute(statement) if row.chunk_uuid})
    texts: dict[str, str] = {}
    for batch in in_batches(sorted(set(uuids.values()))):
        statement = sa.select(chunks.c.uuid, chunks.c.text).where(chunks.c.uuid.in_(batch))
        texts.update({row.uuid: row.text for row in connection.execute(statement)})
    checks: dict[str, bool | None] = {}
    for row in rows:
        if not row.section_id:
            checks[row.id] = None
            continue
        text = texts.get(uuids.get(row.section_id, ""))
        checks[row.id] = (text is not None and row.start is not None and row.end is not None
                          and text[row.start : row.end] == row.sentence)
    return checks
