"""The corpus's stored documents and chunks, read back page by page as graph sources (for a rebuild)."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.graph.build import SectionSource
from bio_mcp.store.database import in_batches
from bio_mcp.store.schema import chunks, documents, ingested_files


@dataclass(frozen=True)
class StoredSource:
    pmid: str
    title: str | None
    version: int
    last_edited: str | None
    mesh: list[str]
    sections: list[SectionSource]
    # An ingested file's URI and type (None for a PubMed record).
    source_uri: str | None = None
    doc_type: str | None = None


def count_documents(connection: Connection) -> int:
    return int(connection.execute(sa.select(sa.func.count()).select_from(documents)).scalar_one())


def document_page(connection: Connection, after: str | None, size: int) -> list[StoredSource]:
    """Up to `size` documents with pmid > `after` (keyset paging), each with its chunks in order."""
    query = (
        sa.select(
            documents.c.pmid, documents.c.title, documents.c.version, documents.c.lr, documents.c.mesh,
            ingested_files.c.source_uri, ingested_files.c.doc_type,
        )
        .outerjoin(ingested_files, ingested_files.c.doc_key == documents.c.pmid)
        .order_by(documents.c.pmid)
        .limit(size)
    )
    if after is not None:
        query = query.where(documents.c.pmid > after)
    rows = list(connection.execute(query))
    sections: dict[str, list[SectionSource]] = {row.pmid: [] for row in rows}
    for batch in in_batches(list(sections)):
        chunk_query = (
            sa.select(chunks.c.pmid, chunks.c.chunk_id, chunks.c.uuid, chunks.c.section, chunks.c.text, chunks.c.position)
            .where(chunks.c.pmid.in_(batch))
            .order_by(chunks.c.pmid, chunks.c.position, chunks.c.chunk_id)
        )
        for chunk in connection.execute(chunk_query):
            sections[chunk.pmid].append(
                SectionSource(chunk.chunk_id, chunk.uuid, chunk.section, chunk.text, chunk.position)
            )
    return [
        StoredSource(
            row.pmid, row.title, row.version, row.lr, list(row.mesh), sections[row.pmid], row.source_uri, row.doc_type
        )
        for row in rows
    ]

