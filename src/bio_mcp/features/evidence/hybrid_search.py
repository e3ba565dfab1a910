"""`tool.hybrid_search` (seed 003): BM25 + vector search of the local corpus in Thai or English.

One search engine: the query goes through `features.kb.search.search_kb` (the corpus's hybrid index,
the entity boost, the diagnostics record). What this module adds is the seed's hit shape, and the
language step made here, with the query's `lang`, for English queries too (their herb names):

1. `lang` (`th`, `en`, or `auto` by script) and the cross-lingual query (`kb.language.cross_lingual`):
   Thai text segmented with the graph's Thai names kept whole, the entities the query names (by
   their Thai, English or scientific names in `kg_names`), and the English text the literature is
   searched with (the entities' English names and MeSH names).
2. At most `top_k` hits, in this order: `herb` hits for the herbs and formulations the query names
   (by name, or a MeSH plant the linker finds in the query's own words and the named herbs'
   scientific and MeSH names, not their synonyms: tree B01.875), then, for each of the best documents,
   a `paper` hit (the document, its abstract's best snippet) followed by a `chunk` hit (its best
   passage, the Section id `kb.retrieve_evidence` reads), until `top_k` is reached: the last
   document may give its paper hit alone. `filters.types` keeps only some types, so `paper` or
   `chunk` alone gives one hit per document.
3. `unmatched_terms` (kb.search's): the query's words and entities that no listed document names by
   any synonym, said first in the text.
4. `filters.year_from` / `year_to` / `pub_types` filter inside the index search, so they never
   starve the top-k. A Thai query with no English counterpart at all is searched by its words only
   (BM25): the English embedding model cannot read Thai, and its nearest vectors would be noise.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from bio_mcp.features.evidence.citation_checks import pmid_of
from bio_mcp.features.evidence.models import AuditedOutput
from bio_mcp.features.kb.language import (
    CrossLingualQuery,
    LangChoice,
    NameLexicon,
    cross_lingual,
    load_lexicon,
    mesh_describer,
    substance_loanwords,
)
from bio_mcp.features.kb.models import EvidenceItem, KbSearchRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.features.kb.search import KbContext, make_snippet, search_kb
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.models import ToolInput, ToolOutput
from bio_mcp.store.document_keys import is_pubmed_key

HitType = Literal["herb", "paper", "chunk"]
HIT_TYPES: tuple[HitType, ...] = ("herb", "paper", "chunk")
MAX_TOP_K = 20  # kb.search's own bound: the documents one search ranks
HERBS_FILL_TOP_K_NOTE = (
    "The herb hits fill top_k, so no paper or passage is listed: raise top_k, or set filters.types to "
    "paper or chunk, for the literature."
)
PLANTS_TREE = "B01.875"
HERB_RESOURCE = "kg://herb/{id}"
PAPER_RESOURCE = "paper://pmid/{pmid}"


class SearchFilters(ToolInput):
    types: list[HitType] | None = Field(
        default=None, min_length=1, description="Hit types to return (herb, paper, chunk); default all"
    )
    year_from: int | None = Field(default=None, ge=1000, le=9999, strict=True, description="Earliest publication year")
    year_to: int | None = Field(default=None, ge=1000, le=9999, strict=True, description="Latest publication year")
    pub_types: list[Annotated[str, StringConstraints(min_length=1)]] | None = Field(
        default=None, min_length=1, description="PubMed publication types, any of (e.g. Review, Randomized Controlled Trial)"
    )

    @model_validator(mode="after")
    def _ordered_years(self) -> SearchFilters:
        if self.year_from is not None and self.year_to is not None and self.year_from > self.year_to:
            raise ValueError("filters.year_from must not be after filters.year_to")
        return self


class HybridSearchRequest(ToolInput):
    query: Annotated[str, StringConstraints(min_length=1, max_length=1000, strip_whitespace=True)] = Field(
        description="What to search for, in Thai or English (herb names in either language)"
    )
    lang: LangChoice = Field(default="auto", description="th, en, or auto (decided by the query's script)")
    filters: SearchFilters | None = Field(
        default=None, description="Optional: hit types, publication years, publication types"
    )
    top_k: int = Field(
        default=10, ge=1, le=MAX_TOP_K, strict=True,
        description="Hits to return (1-20): the herbs named, then per document a paper and its best passage",
    )


class SearchHit(ToolOutput):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(description="herb: entity id; paper: pmid:N (an ingested file: its file: key); chunk: the Section id")
    type: HitType
    title: str
    snippet: str
    score: float = Field(
        ge=0.0, le=1.0,
        description="Relevance in [0, 1]. herb: 1 when the query names the herb by one of its names, else the entity "
        "linker's confidence in the plant it found; paper and chunk: kb.search's score of the document's best "
        "section (the fused BM25 and cosine relevance over the best any document can reach, times the quality "
        "factor), so 1 is the best match both retrievers can express, not a proof that every query term is "
        "matched (see unmatched_terms)",
    )
    source: str = Field(
        description="The resource to read: kg://herb/{id}, paper://pmid/{pmid}[#chunk-n]; an ingested file's file:// URI[#chunk-n]"
    )
    pmid: str | None = Field(default=None, description="Additive: the paper's PMID (paper and chunk hits; none for an ingested file)")


class HybridSearchResponse(AuditedOutput):
    hits: list[SearchHit]
    lang: Literal["th", "en"] = Field(description="Additive: the query's language (auto resolved)")
    query_en: str = Field(description="Additive: the English text the corpus was searched with")
    entity_ids: list[str] = Field(description="Additive: entities the query names (Thai, English or MeSH names)")
    untranslated: list[str] = Field(description="Additive: Thai words with no English counterpart, left out")
    note: str | None = Field(
        default=None,
        description="Additive: why no paper is listed (an empty corpus says how to fill it; herb hits may fill "
        "top_k); with papers, which query terms none of them mentions (unmatched_terms)",
    )
    unmatched_terms: list[str] = Field(
        default_factory=list,
        description="Additive: the query's content words and entities (a Thai query's after its English reading) "
        "that no listed paper or passage's document contains by any synonym (MeSH entry terms, a herb's Thai, "
        "English and scientific names); empty when every term is matched or no document is listed",
    )


def _is_plant(catalog: MeshCatalog | None, entity_id: str) -> bool:
    concept = catalog.vocabulary.get(entity_id) if catalog is not None and catalog.vocabulary is not None else None
    return concept is not None and any(tree.startswith(PLANTS_TREE) for tree in concept.tree_numbers)


def _herb_hits(
    query: CrossLingualQuery, linked: Sequence[tuple[str, float]], lexicon: NameLexicon, catalog: MeshCatalog | None
) -> list[SearchHit]:
    """Herbs the query names (score 1: an exact name) first, then MeSH plants the linker found (its
    confidence). A drug the query names is an entity too, but not a herb."""

    def is_herb(entity: str) -> bool:
        return entity in lexicon.names or _is_plant(catalog, entity)

    scored = {entity: 1.0 for entity in query.entity_ids if is_herb(entity)}
    for entity, confidence in linked:
        if entity not in scored and is_herb(entity):
            scored[entity] = round(min(1.0, max(0.0, confidence)), 6)
    hits = []
    for entity, score in scored.items():
        thai = lexicon.thai_names(entity)
        english = lexicon.english_names(entity)
        described = catalog.describe(entity) if catalog is not None else None
        mesh_name = described[0] if described else None
        display = (thai + english) if query.lang == "th" else (english + thai)
        if mesh_name and mesh_name not in display:
            display.append(mesh_name)
        parts = [f"Thai: {', '.join(thai)}" if thai else None, f"English: {', '.join(english)}" if english else None,
                 f"MeSH: {mesh_name}" if mesh_name else None]
        hits.append(SearchHit(
            id=entity,
            type="herb",
            title=" · ".join(display[:3]) or entity,
            snippet="; ".join(p for p in parts if p)[:200],
            score=score,
            source=HERB_RESOURCE.format(id=entity),
        ))
    return hits


@dataclass(frozen=True)
class _PaperReference:
    id: str
    source: str
    pmid: str | None
    fallback_title: str


def _corpus_key(item: EvidenceItem) -> str:
    """The corpus document key of an evidence item: a PMID, or an ingested file's `file:` key."""
    return pmid_of(item.metadata.doc_id or item.metadata.doc_uri.removeprefix("pubmed:"))


def _paper_reference(key: str, doc_uri: str) -> _PaperReference:
    """A PubMed record is read at paper://pmid/{pmid}; an ingested file has no PMID, so its hit is
    keyed by its `file:` key (what kb.search and tool.rag_answer call it) and points at its file URI."""
    if is_pubmed_key(key):
        return _PaperReference(f"pmid:{key}", PAPER_RESOURCE.format(pmid=key), key, f"PubMed {key}")
    return _PaperReference(key, doc_uri, None, doc_uri)


def hybrid_search(request: HybridSearchRequest, context: KbContext, catalog: MeshCatalog | None) -> HybridSearchResponse:
    with context.store.read() as tx:
        lexicon = load_lexicon(tx.connection)
    query = cross_lingual(request.query, request.lang, lexicon, mesh_describer(catalog), substance_loanwords(catalog))
    filters = request.filters or SearchFilters()
    types = set(filters.types or HIT_TYPES)
    hits: list[SearchHit] = []
    note = None
    unmatched: list[str] = []
    if "herb" in types:
        linked: dict[str, float] = {}
        if context.linker is not None:
            # The query's own words, not its herbs' synonyms: one may be another herb's name.
            for mention in context.linker.link(query.link_text_en):
                linked[mention.entity_id] = max(linked.get(mention.entity_id, 0.0), mention.confidence)
        hits += _herb_hits(query, sorted(linked.items()), lexicon, catalog)[: request.top_k]
    document_types = types & {"paper", "chunk"}
    room = request.top_k - len(hits)
    if document_types and not room:
        note = HERBS_FILL_TOP_K_NOTE
    # A query of punctuation alone leaves nothing to search with: no document hits, said in the summary.
    elif document_types and query.search_text_en.strip():
        year_range = None
        if filters.year_from is not None or filters.year_to is not None:
            year_range = (filters.year_from, filters.year_to)
        found = search_kb(
            KbSearchRequest(query=request.query, top_k=math.ceil(room / len(document_types))),
            context,
            translation=query,
            year_range=year_range,
            pub_types=filters.pub_types,
        )
        note = found.note
        unmatched = found.unmatched_terms
        keys = [_corpus_key(item) for item in found.evidence]
        with context.store.read() as tx:
            documents = tx.documents.get_many(sorted(set(keys)))
        for item, key in zip(found.evidence, keys, strict=True):
            document = documents.get(key)
            score = item.metadata.score
            paper = _paper_reference(key, item.metadata.doc_uri)
            if "paper" in types:
                title = (document.title if document else None) or paper.fallback_title
                abstract = (document.abstract if document else None) or item.snippet
                hits.append(SearchHit(
                    id=paper.id, type="paper", title=title, snippet=make_snippet(abstract, query.search_text_en),
                    score=score, source=paper.source, pmid=paper.pmid,
                ))
            if "chunk" in types:
                hits.append(SearchHit(
                    id=item.section_id, type="chunk", title=item.title, snippet=item.snippet, score=score,
                    source=f"{paper.source}#{item.metadata.anchor}", pmid=paper.pmid,
                ))
    return HybridSearchResponse(
        hits=hits[: request.top_k], lang=query.lang, query_en=query.search_text_en, entity_ids=list(query.entity_ids),
        untranslated=list(query.untranslated), note=note, unmatched_terms=unmatched,
    )


class HybridSearch:
    """tool.hybrid_search over the corpus service's one search (`KbRetrieval`'s context)."""

    def __init__(self, retrieval: KbRetrieval) -> None:
        self.retrieval = retrieval

    async def search(self, request: HybridSearchRequest) -> HybridSearchResponse:
        context = await self.retrieval.context()
        graph = self.retrieval.corpus.graph
        catalog = graph.catalog if graph is not None else None
        return await asyncio.to_thread(hybrid_search, request, context, catalog)


def summarize(response: HybridSearchResponse) -> str:
    """Every hit (type, id, score, title, source, snippet), with the query's language and English form.
    The id is what the next call takes (a chunk's Section id for kb.retrieve_evidence, a herb's entity
    id for tool.find_contraindications); a client reading only the text has no other way to it."""
    # What no listed document mentions comes first: the hits below it are the best of what is there.
    head = [response.note] if response.unmatched_terms and response.note else []
    head.append(f"**{len(response.hits)} hits** (lang {response.lang}; searched as: {response.query_en[:200]})")
    if response.entity_ids:
        head.append("Entities named: " + ", ".join(response.entity_ids))
    if response.untranslated:
        head.append("Thai words without an English counterpart (not searched): " + ", ".join(response.untranslated)
                    + ". A Thai herb name the graph does not hold is cut into words; load Thai names with "
                    "`bio-mcp kg import FILE` (e.g. examples/kg/thai_herb_names.tsv)")
    if not any(hit.type != "herb" for hit in response.hits):
        head.append(response.note or "No matching papers in the local corpus.")
    lines = [
        f"{rank}. [{hit.type}] **{hit.title[:120]}** ({hit.score:.3f}, `{hit.id}`, {hit.source}): {hit.snippet}"
        for rank, hit in enumerate(response.hits, start=1)
    ]
    return "\n".join(head + lines)
