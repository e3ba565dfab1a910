"""tool.rag_answer's question reader: the English text a question is searched with, read as
kb.search and tool.hybrid_search read a query (`features.kb.language`), and the English names of
each entity that reading found. The answer step scores sentences against that text too, so it
needs it beside the search (an English section shares no word with a Thai question), and it checks
that every quoted sentence names the question's subject by one of those names (`answer_focus`)."""

from __future__ import annotations

from bio_mcp.features.evidence.answer_focus import QueryReading
from bio_mcp.features.kb.language import Lang, english_query, fold, load_lexicon, mesh_describer
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.store import MetadataStore


class CrossLingualRewriter:
    def __init__(self, store: MetadataStore, catalog: MeshCatalog | None) -> None:
        self._store = store
        self._catalog = catalog

    def read(self, question: str, lang: Lang) -> QueryReading:
        query = english_query(question, lang, self._store, self._catalog)
        with self._store.read() as tx:
            lexicon = load_lexicon(tx.connection)
        describe = mesh_describer(self._catalog)
        names: list[tuple[str, ...]] = []
        for entity in query.entity_ids:
            found = lexicon.english_names(entity)
            described = describe(entity)
            if described and fold(described) not in {fold(n) for n in found}:
                found.append(described)
            if found:
                names.append(tuple(found))
        return QueryReading(query.search_text_en, tuple(names), query.untranslated)
