"""`kb.search` (seed 002's `search_documentation`): evidence sections from the corpus's hybrid
index, boosted by the query's entities, optionally re-scored and reranked, with the subgraph
around them in graph mode.

1. Providers are resolved first (an unconfigured one fails before any work, `providers`).
   A query with Thai words is read in English (`language`: herb names by their English, scientific
   and MeSH names, other words through WordNet) and searched so, with the entities it names; one
   with no English counterpart at all by its Thai words alone (BM25: the English embedding model
   cannot read Thai, and its nearest vectors would be noise).
2. The query is linked to entities (the graph's MeSH linker) and searched in the corpus's one
   `HybridIndex` for a pool of candidate documents, each carried by its best chunk (= Section).
3. Another configured embedding provider re-scores the pool (its cosine replaces the index's in
   the same fusion); the entity boost (`ranking.entity_boost`) lifts documents whose sections
   mention the query's entities; a reranker, when chosen, scores the pool with a cross-encoder.
4. The best `top_k` become evidence: Section id, title, a 200-character snippet around the first
   query term, `full_text` (<= 16 KB) in full and graph modes, scores in [0, 1].
5. Graph mode walks the graph (`graph.traverse`, budgeted) from the evidence sections and the
   query's entities.
6. `unmatched_terms`: the query's terms (its words and entities, a Thai query's as read in English)
   that no returned section's document names by any synonym (`graph.unmatched_terms`); `note` says so, and
   the text says it first.
Each call stores a diagnostics record (`diagnostics`) whose id the result carries.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.search import (
    EMPTY_CORPUS_NOTE,
    LEXICAL_BUILDING_NOTE,
    NO_MATCH_NOTE,
    document_text,
)
from bio_mcp.features.kb.diagnostics import StageClock, record_diagnostics
from bio_mcp.features.kb.language import (
    CrossLingualQuery,
    cross_lingual,
    english_query,
    load_lexicon,
)
from bio_mcp.features.kb.models import (
    FULL_TEXT_MAX_BYTES,
    SNIPPET_MAX_CHARS,
    EvidenceItem,
    EvidenceMetadata,
    GraphBudget,
    GraphDiagnostics,
    KbSearchRequest,
    KbSearchResponse,
    PlanDiagnostics,
    RetrievalDiagnostics,
    SearchDiagnostics,
    SearchGraph,
    SearchGraphEdge,
    SearchGraphNode,
)
from bio_mcp.features.kb.providers import ProviderRegistry
from bio_mcp.features.kb.ranking import entity_boost
from bio_mcp.features.kb.traverse import node_line
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.elements import HAS_SECTION, MENTIONS
from bio_mcp.graph.ids import document_node_id, pubmed_source_uri, section_node_id
from bio_mcp.graph.mentions import Mention
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.graph.traverse import Frontier, Subgraph, TraversalSpec, traverse
from bio_mcp.graph.unmatched_terms import (
    QueryTerm,
    catalog_names,
    coverage_sentence,
    covered_score,
    query_terms,
    term_coverage,
    unmatched_terms,
)
from bio_mcp.search.fusion import DEFAULT_FUSION, fuse_scores, quality_factor
from bio_mcp.search.hybrid import Hit, SearchMode
from bio_mcp.store import MetadataStore, StoredChunk, StoredDocument
from bio_mcp.store.document_keys import is_pubmed_key
from bio_mcp.thai_script import contains_thai

# Candidate documents ranked before the cut to top_k (the boost and rerankers reorder within it).
# 20 keeps the hybrid's candidate depth at rag.search's default (FusionConfig.candidate_depth).
CANDIDATE_POOL = 20
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{2,}")


class QueryLinker(Protocol):
    def link(self, text: str) -> Sequence[Mention]: ...


@dataclass
class KbContext:
    """What kb.search and kb.retrieve_evidence read: the corpus's store and index, the providers,
    the entity linker (None when no vocabulary is configured: no boost, no entity seeds) and the
    MeSH catalog (a Thai herb name is searched by its MeSH name too)."""

    settings: Settings
    store: MetadataStore
    index: CorpusIndex
    providers: ProviderRegistry
    linker: QueryLinker | None = None
    catalog: MeshCatalog | None = None


NO_QUERY_WORD_NOTE = (
    "No section holds a word of the query: these are only the nearest by meaning, and their low scores "
    "say how near. Check the spelling, or try another name for what you are after (graph.entities lists synonyms)."
)


@dataclass
class _Candidate:
    """A candidate document, carried by its best chunk; the chunk and document rows are read only
    for those that need them (the evidence, or every candidate when a provider reads texts)."""

    hit: Hit
    score: float
    # The graph Document's source_uri: `pubmed:N`, or an ingested file's URI.
    source_uri: str
    document_node: str = field(init=False)
    chunk: StoredChunk | None = None
    document: StoredDocument | None = None

    def __post_init__(self) -> None:
        self.document_node = document_node_id(self.source_uri)

    @property
    def section_id(self) -> str:
        assert self.chunk is not None
        return section_node_id(self.source_uri, self.chunk.chunk_id)


def source_uris(store: MetadataStore, keys: Sequence[str]) -> dict[str, str]:
    """Corpus document key -> its graph Document's source_uri (one read, only for ingested files)."""
    uris = {key: pubmed_source_uri(key) for key in keys if is_pubmed_key(key)}
    files = sorted({key for key in keys if not is_pubmed_key(key)})
    if files:
        with store.read() as tx:
            uris.update(tx.ingested_files.source_uris(files))
    return uris


def query_entities(linker: QueryLinker | None, query: str) -> list[str]:
    """The distinct entity ids the query names, in order of first mention."""
    if linker is None:
        return []
    return list(dict.fromkeys(mention.entity_id for mention in linker.link(query)))


def _body(chunk: StoredChunk, title: str | None) -> str:
    """The chunk text without the title every chunk starts with; the title itself when that is all
    the chunk holds (a record without an abstract), which is then the evidence."""
    text = chunk.text
    if title and text.startswith(title):
        text = text[len(title) :]
    return text.strip() or chunk.text.strip()


def make_snippet(text: str, query: str, limit: int = SNIPPET_MAX_CHARS) -> str:
    """At most `limit` characters of `text` around the first query word it contains, cut at words."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    lowered = flat.lower()
    positions = [lowered.find(word.lower()) for word in _WORD.findall(query)]
    first = min((p for p in positions if p >= 0), default=0)
    start = 0 if first < limit // 2 else flat.rfind(" ", 0, first - limit // 4) + 1
    prefix = "…" if start > 0 else ""
    room = limit - len(prefix) - 1
    piece = flat[start : start + room]
    if start + room < len(flat):
        cut = piece.rfind(" ")
        piece = (piece[:cut] if cut > room // 2 else piece).rstrip() + "…"
    return prefix + piece


def cut_utf8(text: str, max_bytes: int = FULL_TEXT_MAX_BYTES) -> str:
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text
    return encoded[:max_bytes].decode("utf-8", errors="ignore")


def _title(chunk: StoredChunk, document: StoredDocument | None) -> str:
    title = (document.title if document else None) or (f"PubMed {chunk.pmid}" if is_pubmed_key(chunk.pmid) else chunk.pmid)
    return f"{title} — {chunk.section}" if chunk.section else title


def _rescore(candidates: list[_Candidate], query: str, embedder: Any) -> None:
    """Re-fuse BM25 with `embedder`'s cosine of query and section, then the quality factor."""
    vectors = embedder.embed_array([c.chunk.text for c in candidates if c.chunk is not None])
    query_vector = embedder.embed_query(query)
    sims = vectors @ np.asarray(query_vector, dtype=np.float32)
    bm25 = {c.hit.pmid: c.hit.bm25 for c in candidates if c.hit.bm25 is not None}
    sim = {c.hit.pmid: float(value) for c, value in zip(candidates, sims, strict=True)}
    fused = fuse_scores(bm25, sim, DEFAULT_FUSION)
    # Over the best any document can fuse to, as the index's own relevance is.
    ceiling = DEFAULT_FUSION.best_possible()
    for candidate in candidates:
        candidate.score = fused.get(candidate.hit.pmid, 0.0) / ceiling * quality_factor(
            candidate.hit.quality, DEFAULT_FUSION.quality_weight
        )


def _load(context: KbContext, candidates: list[_Candidate], documents: bool) -> list[_Candidate]:
    """Reads the candidates' chunks (and, with `documents`, their documents); drops any whose chunk
    is gone (deleted since the index answered)."""
    with context.store.read() as tx:
        chunks = tx.chunks.get_many([c.hit.uuid for c in candidates if c.chunk is None])
        rows = tx.documents.get_many(sorted({c.hit.pmid for c in candidates})) if documents else {}
    for candidate in candidates:
        candidate.chunk = candidate.chunk or chunks.get(candidate.hit.uuid)
        candidate.document = candidate.document or rows.get(candidate.hit.pmid)
    return [c for c in candidates if c.chunk is not None]


# Read per candidate document and per section, best first: far above what a real abstract has.
SECTIONS_PER_DOCUMENT = 64
MENTIONS_PER_SECTION = 128


def _matched_entities(context: KbContext, candidates: list[_Candidate], entities: list[str]) -> dict[str, int]:
    """Per document node id: how many of `entities` its sections mention. Read from the documents'
    side (their sections, then the sections' MENTIONS: two batched index-range reads), so the cost
    does not grow with how many documents mention a hub entity."""
    wanted = set(entities)
    with context.store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        sections = graph.neighbours(
            sorted({c.document_node for c in candidates}), "out", [HAS_SECTION], SECTIONS_PER_DOCUMENT
        )
        document_of = {row.other: row.origin for row in sections}
        mentions = graph.neighbours(sorted(document_of), "out", [MENTIONS], MENTIONS_PER_SECTION) if document_of else []
    found: dict[str, set[str]] = {}
    for row in mentions:
        if row.other in wanted:
            found.setdefault(document_of[row.origin], set()).add(row.other)
    return {document: len(hits) for document, hits in found.items()}


def _candidate_text(candidate: _Candidate) -> str:
    """The text whose terms a result is checked for: its document's, else its chunk's."""
    if candidate.document is not None:
        return document_text(candidate.document)
    return candidate.chunk.text if candidate.chunk is not None else ""


def coverage_terms(context: KbContext, text: str, translation: CrossLingualQuery | None) -> list[QueryTerm]:
    """The terms of the query as searched (`text`) whose absence from every returned document is
    said: its words and linked entities, and the herbs it names by their `kg_names` (a Thai name
    labelled with its English one), each named by its MeSH names and its `kg_names`."""
    mesh_names = catalog_names(context.catalog)
    with context.store.read() as tx:
        lexicon = load_lexicon(tx.connection)
    # An English query is not read otherwise; its herb names (kg_names) are found here.
    matches = translation.matches if translation is not None else cross_lingual(text, "en", lexicon).matches
    if not matches:
        return query_terms(text, context.linker, names=mesh_names)

    def names(entity_id: str) -> list[str]:
        return [*(name.name for name in lexicon.names.get(entity_id, ())), *mesh_names(entity_id)]

    named = []
    for match in matches:
        label = match.text
        if match.lang == "th":
            described = context.catalog.describe(match.entity_id) if context.catalog is not None else None
            english = described[0] if described else next(iter(lexicon.english_names(match.entity_id)), None)
            label = f"{match.text} ({english})" if english else match.text
        named.append((match.entity_id, label))
    return query_terms(text, context.linker, named, names)


def _walk(context: KbContext, request: KbSearchRequest, seeds: list[str]) -> Subgraph | None:
    limits = request.limits.graph
    spec = TraversalSpec(
        seeds=seeds,
        direction="both",
        max_depth=min(limits.max_depth_soft, limits.max_depth_hard),
        max_nodes=limits.max_nodes_hard,
        relationships=limits.rel_whitelist,
        frontier=Frontier(),
        max_rows=context.settings.graph_max_rows,
    )
    with context.store.read() as tx:
        graph = SqlGraphStore(tx.connection, timeout_s=context.settings.graph_query_timeout_ms / 1000)
        try:
            return traverse(graph, spec)
        except BioMcpError as error:
            # No seed is a node: a corpus synced before its graph existed (`bio-mcp graph rebuild`).
            if error.code is ErrorCode.NOT_FOUND:
                return None
            raise
        finally:
            graph.close()


def _graph_payload(walk: Subgraph) -> SearchGraph:
    return SearchGraph(
        nodes=[
            SearchGraphNode(id=n.id, label=n.label, title=n.title or n.id, score=min(1.0, max(0.0, n.score)), type=n.type)
            for n in walk.nodes
        ],
        edges=[
            SearchGraphEdge(src=e.src, dst=e.dst, type=e.type, path=list(e.path), depth=min(5, max(1, e.depth)))
            for e in walk.edges
        ],
        budget=GraphBudget(expanded=walk.expanded, skipped=walk.pruned, depth_reached=walk.depth_reached),
    )


def search_kb(
    request: KbSearchRequest,
    context: KbContext,
    *,
    translation: CrossLingualQuery | None = None,
    year_range: tuple[int | None, int | None] | None = None,
    pub_types: Sequence[str] | None = None,
) -> KbSearchResponse:
    """`translation`: the query's cross-lingual reading made already (tool.hybrid_search makes it
    for every query, with its `lang`), else made here for a query with Thai words; `year_range`
    and `pub_types` filter inside the index's search."""
    clock = StageClock()
    started = time.perf_counter()
    embedding = context.providers.embedding(request.providers.embedding)
    reranker = context.providers.reranker(request.providers.reranker)
    thai = contains_thai(request.query)
    if translation is None and thai:
        with clock.stage("translate"):
            translation = english_query(request.query, "auto", context.store, context.catalog)
    text = translation.search_text_en if translation is not None else request.query
    mode: SearchMode = "bm25" if translation is not None and not translation.translated else "hybrid"
    with clock.stage("link"):
        named = translation.entity_ids if translation is not None else ()
        linked = query_entities(context.linker, translation.link_text_en if translation is not None else text)
        entities = list(dict.fromkeys([*linked, *named]))
    pool = max(CANDIDATE_POOL, request.top_k)
    with clock.stage("retrieve"):
        hits = context.index.search(text, pool, True, mode, year_range, pub_types)
        uris = source_uris(context.store, [hit.pmid for hit in hits])
        # A file whose row went since the index answered (deleted meanwhile) is passed over.
        candidates = [_Candidate(hit, hit.score, uris[hit.pmid]) for hit in hits if hit.pmid in uris]
    if embedding.rescorer is not None or reranker is not None:
        with clock.stage("fetch"):
            candidates = _load(context, candidates, documents=False)
    if embedding.rescorer is not None and candidates:
        with clock.stage("rescore"):
            _rescore(candidates, text, embedding.rescorer)
    weight = context.settings.kb_entity_boost if mode == "bm25" else context.settings.kb_entity_boost_hybrid
    matched: dict[str, int] = {}
    # Matching reads the graph; with no weight to apply it is skipped (hybrid, by default).
    if entities and candidates and weight > 0:
        with clock.stage("entity_boost"):
            matched = _matched_entities(context, candidates, entities)
    by_key = {c.hit.pmid: c for c in candidates}
    ranked = entity_boost(
        [(c.hit.pmid, c.score) for c in candidates],
        {c.hit.pmid: matched.get(c.document_node, 0) for c in candidates},
        len(entities), weight,
    )
    if reranker is not None and ranked:
        with clock.stage("rerank"):
            keys = [key for key, _ in ranked]
            texts = [by_key[key].chunk.text for key in keys]  # type: ignore[union-attr]
            scores = reranker.rerank(text, texts)
            ranked = sorted(zip(keys, scores, strict=True), key=lambda item: (-item[1], item[0]))
    with clock.stage("fetch"):
        loaded = {c.hit.pmid for c in _load(context, [by_key[key] for key, _ in ranked[: request.top_k]], documents=True)}
    ranked = [(key, score) for key, score in ranked if key in loaded]
    chosen = ranked[: request.top_k]
    terms: list[QueryTerm] = []
    texts: dict[str, str] = {}
    if chosen:
        with clock.stage("coverage"):
            terms = coverage_terms(context, text, translation)
            texts = {key: _candidate_text(by_key[key]) for key, _ in chosen}
            # The fused score a result reports is scaled by the share of the query's terms it names,
            # and the results are ordered by it (seed 000: best first by score). A reranker's score is
            # the cross-encoder's own reading of the pair, not normalised per query: left as it is.
            chosen = chosen if reranker is not None else sorted(
                ((key, covered_score(score, term_coverage(terms, texts[key], context.linker))) for key, score in chosen),
                key=lambda item: (-item[1], item[0]),
            )
    full = request.verbosity in ("full", "graph")
    evidence = []
    for key, score in chosen:
        candidate = by_key[key]
        assert candidate.chunk is not None
        title = candidate.document.title if candidate.document else None
        body = _body(candidate.chunk, title)
        evidence.append(
            EvidenceItem(
                section_id=candidate.section_id,
                title=_title(candidate.chunk, candidate.document),
                snippet=make_snippet(body, text),
                full_text=cut_utf8(candidate.chunk.text) if full else None,
                metadata=EvidenceMetadata(
                    doc_uri=candidate.source_uri, anchor=f"chunk-{candidate.chunk.chunk_id}",
                    score=round(score, 6), doc_id=candidate.hit.doc_id,
                ),
            )
        )
    graph = graph_diag = plan = None
    walk: Subgraph | None = None
    if request.verbosity == "graph":
        seeds = [item.section_id for item in evidence] + entities
        with clock.stage("graph"):
            walk = _walk(context, request, seeds) if seeds else None
        if walk is not None:
            graph = _graph_payload(walk)
            graph_diag = GraphDiagnostics(expanded=walk.expanded, pruned=walk.pruned, reason=walk.reason)
        else:
            graph = SearchGraph(nodes=[], edges=[], budget=GraphBudget(expanded=0, skipped=0, depth_reached=0))
            graph_diag = GraphDiagnostics(expanded=0, pruned=0, reason="delta<τ")
        plan = PlanDiagnostics(explain_ok=not (walk is not None and walk.timed_out), timeout_ms=context.settings.graph_query_timeout_ms)
    note = None
    unmatched: list[str] = []
    if not evidence:
        with context.store.read() as tx:
            documents = tx.documents.count()
        note = EMPTY_CORPUS_NOTE if documents == 0 else NO_MATCH_NOTE.format(documents=documents)
    else:
        with clock.stage("coverage"):
            unmatched = unmatched_terms(terms, [texts[key] for key, _ in chosen], context.linker)
        notes = [coverage_sentence(terms, unmatched)]
        if context.index.lexical_building:
            notes.insert(0, LEXICAL_BUILDING_NOTE)
        elif not any(by_key[key].hit.bm25 for key, _ in chosen):
            notes.append(NO_QUERY_WORD_NOTE)
        note = " ".join(n for n in notes if n) or None
    lat_ms = round((time.perf_counter() - started) * 1000)
    reranker_name = reranker.name if reranker is not None else "none"
    diagnostics = SearchDiagnostics(
        retrieval=RetrievalDiagnostics(
            provider=embedding.name, reranker=reranker_name, lat_ms=lat_ms,
            candidates=len(candidates), query_entities=entities,
        ),
        graph=graph_diag,
        plan=plan,
    )
    record = {
        "tool": "kb.search",
        "query": request.query,
        "verbosity": request.verbosity,
        "top_k": request.top_k,
        "providers": {"embedding": embedding.name, "reranker": reranker_name,
                      "rescored": embedding.rescorer is not None},
        "stages_ms": clock.as_ms(),
        "lat_ms": lat_ms,
        "candidates": len(candidates),
        "query_entities": entities,
        "entity_boost": {"weight": weight,
                         "documents_matching": sum(1 for v in matched.values() if v) if weight > 0 else None},
        "evidence": [{"section_id": item.section_id, "doc_uri": item.metadata.doc_uri, "score": item.metadata.score}
                     for item in evidence],
        "unmatched_terms": unmatched,
    }
    if translation is not None:
        record["query_en"] = text
    if walk is not None:
        record["graph"] = {"nodes": len(walk.nodes), "edges": len(walk.edges), "expanded": walk.expanded,
                           "pruned": walk.pruned, "depth_reached": walk.depth_reached, "reason": walk.reason,
                           "rows_read": walk.rows_read, "timed_out": walk.timed_out}
    diagnostic_id = record_diagnostics(context.store, "kb.search", record, context.settings.diagnostics_ttl_hours)
    query_en: str | None = None
    untranslated: list[str] | None = None
    # Said only of a query written in Thai: an English one is searched as written.
    if translation is not None and thai:
        query_en = text if translation.translated else None
        untranslated = list(translation.untranslated)
    return KbSearchResponse(
        evidence=evidence, graph=graph, diagnostics=diagnostics, diagnostic_id=diagnostic_id, note=note,
        query_en=query_en, untranslated=untranslated, unmatched_terms=unmatched,
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def summarize(response: KbSearchResponse) -> str:
    """Markdown of the whole answer, for clients that read only the text: every evidence item with
    its section id (what `kb.retrieve_evidence` takes), snippet and, in full and graph modes, its
    text; in graph mode the subgraph's entities and documents. The server's text budget still
    applies (an answer over it is cut, the whole kept as a scratch resource)."""
    retrieval = response.diagnostics.retrieval
    # The note first: what no section's document mentions, or why there is no evidence.
    lines = [response.note] if response.note else []
    lines.append(
        f"**{len(response.evidence)} evidence sections** (provider {retrieval.provider}, reranker "
        f"{retrieval.reranker}, {retrieval.lat_ms} ms; diagnostic_id {response.diagnostic_id})"
    )
    if response.query_en:
        lines.append(f"Searched in English as: {_clip(response.query_en, 200)}")
    if response.untranslated:
        lines.append("Thai words without an English counterpart (not searched in English): "
                     + ", ".join(response.untranslated))
    if retrieval.query_entities:
        lines.append("Query entities: " + ", ".join(retrieval.query_entities))
    for rank, item in enumerate(response.evidence, start=1):
        lines += [
            "",
            (f"{rank}. **{_clip(item.title, 160)}** ({item.metadata.score:.3f}, {item.metadata.doc_uri}, "
             f"section `{item.section_id}`)"),
            f"   {item.snippet}",
        ]
        if item.full_text:
            lines += ["", item.full_text]
    if response.graph is not None:
        lines += ["", *_graph_lines(response)]
    return "\n".join(lines)


def _graph_lines(response: KbSearchResponse) -> list[str]:
    """The subgraph's counts, then its entities and documents best first. Its sections and edges
    are counted only: listing them with their 64-character ids took about 25,000 characters for 8
    sections, more than the rest of the answer; the structured content holds every one."""
    assert response.graph is not None
    graph = response.graph
    labels = Counter(node.label for node in graph.nodes)
    types = Counter(edge.type for edge in graph.edges)
    reason = response.diagnostics.graph.reason if response.diagnostics.graph else ""
    lines = [
        (f"**Graph: {len(graph.nodes)} nodes** ({', '.join(f'{n} {label}' for label, n in sorted(labels.items()))}), "
         f"**{len(graph.edges)} edges** ({', '.join(f'{n} {kind}' for kind, n in sorted(types.items()))}); expanded "
         f"{graph.budget.expanded}, skipped {graph.budget.skipped}, depth {graph.budget.depth_reached}, stopped: {reason}"),
        (f"Its {labels.get('Chunk', 0)} sections and {len(graph.edges)} edges are not listed here: they are in the "
         "structured content (graph.nodes, graph.edges); kb.retrieve_evidence reads a section by id, graph.traverse "
         "walks on from any node below."),
    ]
    for label in ("Entity", "Document"):
        lines += [node_line(node) for node in graph.nodes if node.label == label]
    return lines
