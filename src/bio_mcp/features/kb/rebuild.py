"""`bio-mcp graph rebuild`: every node and edge of the graph again, from the store's documents and chunks.

The graph (and the relation evidence extracted from documents) is cleared, then rebuilt in pages of
documents: each page is read, linked and its relations extracted outside any transaction, and
written in one transaction, exactly as a sync writes it (`write_document_graphs`), so the node,
edge and evidence ids are the ones a sync produced. RELATED_TO is recomputed at the end. While a
rebuild runs the graph is incomplete; a sync running beside it is safe (it writes whole documents,
which the rebuild at most writes again). A killed rebuild is finished by running it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bio_mcp.config import Settings
from bio_mcp.graph.build import DocumentSource, write_document_graphs
from bio_mcp.graph.catalog import MeshCatalog, descriptor_ui_of_name
from bio_mcp.graph.corpus_source import StoredSource, count_documents, document_page
from bio_mcp.graph.evidence_store import SqlEvidenceStore
from bio_mcp.graph.facts import DocumentFacts
from bio_mcp.graph.ids import FILE_SOURCE_TYPE
from bio_mcp.graph.indexer import GraphIndexer, build_graph_indexer
from bio_mcp.graph.kg_import import imported_edges, restore_imported
from bio_mcp.graph.pubtator3_status import reopen_annotated
from bio_mcp.graph.related import refresh_related
from bio_mcp.graph.related_refresh import RelatedRefresh, refresh_related_if_stale, refresh_related_now
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.store import MetadataStore, open_metadata_store

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RebuildReport:
    documents: int
    nodes: int
    edges: int
    related_edges: int
    seconds: float


def _facts(source: StoredSource, kept: dict[str, tuple[int, DocumentFacts]], catalog: MeshCatalog) -> DocumentFacts:
    stored = kept.get(source.pmid)
    if stored is not None and stored[0] == source.version:
        return stored[1]
    # A document synced before the graph existed: its headings by name, major flags unknown.
    uis = sorted({ui for name in source.mesh if (ui := descriptor_ui_of_name(catalog, name)) is not None})
    return DocumentFacts(topics=tuple((ui, False) for ui in uis))


def rebuild_graph(
    store: MetadataStore, graph: GraphIndexer, *, page_size: int = 200, progress: Progress | None = None
) -> RebuildReport:
    started = time.perf_counter()
    with store.transaction() as tx:
        total = count_documents(tx.connection)
        imported = imported_edges(tx.connection)
        SqlGraphStore(tx.connection).clear()
        SqlEvidenceStore(tx.connection).clear_documents()
        # The rebuild links the stored chunks again; PubTator3's mentions come back with a sync.
        reopen_annotated(tx.connection)
    done = 0
    after: str | None = None
    while True:
        with store.read() as tx:
            page = document_page(tx.connection, after, page_size)
            kept = SqlGraphStore(tx.connection).facts(source.pmid for source in page)
        if not page:
            break
        sources = []
        for source in page:
            annotations = graph.annotate(source.sections)
            sources.append(DocumentSource(
                pmid=source.pmid, title=source.title, version=source.version, last_edited=source.last_edited,
                sections=source.sections, facts=_facts(source, kept, graph.catalog), mentions=annotations.mentions,
                relations=annotations.relations, source_uri=source.source_uri,
                source_type=None if source.source_uri is None else FILE_SOURCE_TYPE,
            ))
        with store.transaction() as tx:
            write_document_graphs(SqlGraphStore(tx.connection), sources, graph.catalog, SqlEvidenceStore(tx.connection))
        done += len(page)
        after = page[-1].pmid
        if progress is not None:
            progress(done, max(total, done))
    with store.transaction() as tx:
        # What `bio-mcp kg import` and `kg herbs` wrote is not derived from documents: put it back,
        # then every evidence-backed edge (imported rows outlive the rebuild) is derived again.
        restore_imported(tx.connection, graph.catalog, imported)
        SqlEvidenceStore(tx.connection).derive_all_edges()
        related = refresh_related(tx.connection)
        counts = SqlGraphStore(tx.connection).counts()
    return RebuildReport(
        documents=done, nodes=counts.total_nodes, edges=counts.total_edges, related_edges=related.edges,
        seconds=round(time.perf_counter() - started, 3),
    )


def rebuild_configured_graph(
    settings: Settings, progress: Progress | None = None, graph: GraphIndexer | None = None
) -> RebuildReport:
    """`bio-mcp graph rebuild` on the corpus of these settings (DATABASE_URL or BIO_MCP_HOME), with
    `graph` (default: the linker and vocabulary the settings configure)."""
    store = open_metadata_store(settings)
    try:
        return rebuild_graph(store, graph or build_graph_indexer(settings), progress=progress)
    finally:
        store.close()


def refresh_configured_related(settings: Settings, *, if_stale: bool = False) -> RelatedRefresh:
    """RELATED_TO over the current MENTIONS of the settings' corpus: `bio-mcp graph related`
    always; after `bio-mcp sync` (`if_stale`) only when MENTIONS changed since the last computation
    and the graph has at most BIO_MCP_GRAPH_RELATED_MAX_SECTIONS sections."""
    store = open_metadata_store(settings)
    try:
        if if_stale:
            return refresh_related_if_stale(store, settings.graph_related_max_sections)
        return refresh_related_now(store)
    finally:
        store.close()
