"""tool.rag_answer's question rewriter: the English text a question is searched with, read as
kb.search and tool.hybrid_search read a query (`features.kb.language`). The answer step scores
sentences against that text too, so it needs it beside the search: an English section shares no
word with a Thai question."""

from __future__ import annotations

from bio_mcp.features.kb.language import Lang, english_query
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.store import MetadataStore


class CrossLingualRewriter:
    def __init__(self, store: MetadataStore, catalog: MeshCatalog | None) -> None:
        self._store = store
        self._catalog = catalog

    def rewrite(self, question: str, lang: Lang) -> str:
        return english_query(question, lang, self._store, self._catalog).search_text_en
