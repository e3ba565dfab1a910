"""Seed 002's kb contracts: `kb.search` (legacy `search_documentation`), `kb.retrieve_evidence`,
`graph.traverse`, `graph.entities`.

Field names, bounds and defaults are the seed's; requests forbid unknown keys. Additive fields
(allowed by the seed's change policy) say so in their description.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints

from bio_mcp.models import NonBlank, ToolInput, ToolOutput

Score = Annotated[float, Field(ge=0.0, le=1.0)]
Count = Annotated[int, Field(ge=0)]


class KbOutput(ToolOutput):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# ---- kb.search / search_documentation (kbtools) ------------------------------------------------

EmbeddingProviderName = Literal["jina", "openai", "hf", "auto"]
RerankerChoice = Literal["jina", "cohere", "none"]
Verbosity = Literal["snippet", "full", "graph"]
SNIPPET_MAX_CHARS = 200
FULL_TEXT_MAX_BYTES = 16 * 1024
SEARCH_REL_TYPES = ("MENTIONS", "HAS_SECTION")


class SearchProviders(ToolInput):
    embedding: EmbeddingProviderName | None = Field(
        default=None, description="Embedding provider for the query (auto: the corpus's configured one)"
    )
    reranker: RerankerChoice | None = Field(
        default=None, description="Reranker of the candidates (default BIO_MCP_KB_RERANKER, else none)"
    )


class GraphSearchLimits(ToolInput):
    max_depth_soft: int = Field(default=3, ge=1, le=5, strict=True, description="Depth the walk aims for")
    max_depth_hard: int = Field(default=5, ge=1, le=5, strict=True, description="Depth the walk never passes")
    max_nodes_hard: int = Field(default=200, ge=1, le=200, strict=True, description="Nodes the walk never passes")
    rel_whitelist: list[str] = Field(
        default_factory=lambda: list(SEARCH_REL_TYPES), description="Relationship types the walk may follow"
    )


class SearchLimits(ToolInput):
    graph: GraphSearchLimits = Field(
        default_factory=GraphSearchLimits,
        description="Budgets of the graph walk for verbosity graph (depth, nodes, relationship types)",
    )


class KbSearchRequest(ToolInput):
    query: NonBlank = Field(description="What to search for, in English or Thai (Thai is searched by its English words)")
    top_k: int = Field(default=8, ge=1, le=20, strict=True, description="Evidence sections to return")
    verbosity: Verbosity = Field(
        default="snippet", description="snippet (200-char snippets), full (+ full_text), graph (+ the subgraph)"
    )
    providers: SearchProviders = Field(
        default_factory=SearchProviders,
        description="Optional embedding provider and reranker for this query; omit to use the server's",
    )
    limits: SearchLimits = Field(
        default_factory=SearchLimits, description="Optional budgets, e.g. of the graph walk; omit for the defaults"
    )


class EvidenceMetadata(KbOutput):
    doc_uri: str = Field(description="The document's source URI, e.g. pubmed:12345")
    anchor: str = Field(description="The section's anchor within its document")
    score: Score = Field(
        description="Relevance in [0, 1]: the hybrid's fused BM25 and cosine relevance over the best any document can "
        "reach (not over this query's best), times the quality factor (1 at the best quality) and the entity boost "
        "(1 when the section's document mentions every entity of the query) and the share of the query's terms "
        "the document names (0.4 of it when none); with a reranker, its cross-encoder score"
    )
    doc_id: str | None = Field(default=None, description="Additive: the corpus document id (pmid:N for rag.get; file:... for an ingested file)")


class EvidenceItem(KbOutput):
    section_id: str = Field(description="The Section node id (SHA-256)")
    title: str = Field(description="Document title, and the section label when it has one")
    snippet: Annotated[str, StringConstraints(max_length=SNIPPET_MAX_CHARS)]
    full_text: str | None = Field(default=None, description="The section text (<= 16 KB), full and graph modes")
    metadata: EvidenceMetadata


class RetrievalDiagnostics(KbOutput):
    provider: str
    reranker: str
    lat_ms: int
    candidates: int | None = Field(default=None, description="Additive: candidates ranked before the cut")
    query_entities: list[str] | None = Field(default=None, description="Additive: entity ids the query linked to")


class GraphDiagnostics(KbOutput):
    expanded: Count
    pruned: Count
    reason: str = Field(description="delta<τ | budget_exhausted | depth_limit")


class PlanDiagnostics(KbOutput):
    explain_ok: bool
    timeout_ms: int


class SearchDiagnostics(KbOutput):
    retrieval: RetrievalDiagnostics
    graph: GraphDiagnostics | None = None
    plan: PlanDiagnostics | None = None


class SearchGraphNode(KbOutput):
    id: str
    label: str = Field(description="Chunk | Entity | Topic | Document")
    title: str
    score: Score
    type: str | None = Field(default=None, description="Additive: an Entity's type (Disease, Chemical, ...)")


class SearchGraphEdge(KbOutput):
    src: str
    dst: str
    type: str
    path: list[str]
    depth: int = Field(ge=1, le=5)


class GraphBudget(KbOutput):
    expanded: Count
    skipped: Count
    depth_reached: Count


class SearchGraph(KbOutput):
    nodes: list[SearchGraphNode]
    edges: list[SearchGraphEdge]
    budget: GraphBudget


class KbSearchResponse(KbOutput):
    omit_none = True

    answer: str | None = Field(default=None, description="Never generated here: the evidence is the answer")
    evidence: list[EvidenceItem]
    graph: SearchGraph | None = None
    diagnostics: SearchDiagnostics
    diagnostic_id: str | None = Field(default=None, description="Additive: the stored diagnostics record")
    note: str | None = Field(
        default=None,
        description="Additive: why there is no evidence (an empty corpus says how to fill it); with evidence, which "
        "query terms no section's document mentions (unmatched_terms), or that no section holds a query word",
    )
    query_en: str | None = Field(
        default=None,
        description="Additive, for a query in Thai: the English text it was searched with (herb names by their "
        "English, scientific and MeSH names, other words through WordNet)",
    )
    untranslated: list[str] | None = Field(
        default=None, description="Additive, for a query in Thai: its words with no English counterpart, not searched in English"
    )
    unmatched_terms: list[str] = Field(
        default_factory=list,
        description="Additive: the query's content words and linked entities (a Thai query's after its English "
        "reading) that no returned document contains by any synonym (MeSH entry terms, a herb's Thai, English "
        "and scientific names); empty when every term is matched or nothing is returned. `note` then says so",
    )


# ---- kb.retrieve_evidence (kbtools) ---------------------------------------------------------------

INLINE_TEXT_MAX_CHARS = 16 * 1024


class RetrieveEvidenceRequest(ToolInput):
    section_ids: Annotated[list[NonBlank], Field(min_length=1, max_length=20)] = Field(
        description="Section ids (SHA-256) from kb.search evidence or graph nodes"
    )
    max_chars: int = Field(
        default=INLINE_TEXT_MAX_CHARS, ge=200, le=INLINE_TEXT_MAX_CHARS, strict=True,
        description="Longest section text returned inline; a longer one is cut and whole at its scratch_uri",
    )


class EvidenceDocument(KbOutput):
    id: str = Field(description="The Document node id (SHA-256 of source_uri)")
    source_uri: str
    doc_id: str = Field(description="The corpus document id (pmid:N, or file:... for an ingested file)")
    title: str | None
    journal: str | None
    year: int | None
    pub_types: list[str]
    version: int


class EvidenceEntity(KbOutput):
    id: str
    name: str | None
    type: str | None
    confidence: Score


class EvidenceSection(KbOutput):
    section_id: str
    title: str
    anchor: str
    order: int
    text: str
    truncated: bool
    scratch_uri: str | None = Field(default=None, description="The whole text, when `text` was cut")
    document: EvidenceDocument
    entities: list[EvidenceEntity]


class RetrieveEvidenceResponse(KbOutput):
    omit_none = True

    sections: list[EvidenceSection]
    missing: list[str] = Field(description="Requested ids that name no section")
    diagnostic_id: str | None = None


# ---- graph.traverse / traverse_relationships, graph.entities (graph) ----------------------------

TRAVERSE_DEFAULT_RELS = ("MENTIONS", "HAS_SECTION")
TRAVERSE_DEFAULT_LABELS = ("Chunk", "Entity", "Topic", "Document")


class TraverseFrontier(ToolInput):
    top_k: int = Field(default=20, ge=1, le=200, strict=True, description="Nodes each hop expands, best first")
    delta_threshold: float = Field(default=0.05, ge=0.0, le=1.0, description="A node scoring below it is pruned")
    novelty_penalty: float = Field(
        default=0.2, ge=0.0, le=1.0, description="Each further node under one parent in a hop scores (1 - p) times less"
    )


class TraverseFilters(ToolInput):
    topic: list[NonBlank] | None = Field(
        default=None, description="Only documents (and their sections) indexed with one of these MeSH ids (HAS_TOPIC)"
    )
    entity: list[NonBlank] | None = Field(
        default=None, description="Only documents (and their sections) whose sections mention one of these entity ids"
    )


class TraverseRequest(ToolInput):
    seed_ids: Annotated[list[NonBlank], Field(min_length=1, max_length=200)] = Field(
        description="Node ids to start from: entity ids (mesh:D000082), section or document ids, or pmid:N"
    )
    direction: Literal["out", "in", "both"] = Field(default="out", description="Edge direction to follow")
    max_depth: int = Field(default=3, ge=1, le=5, strict=True, description="Hops from the seeds (hard cap 5)")
    max_nodes: int = Field(default=150, ge=1, le=200, strict=True, description="Nodes returned (hard cap 200)")
    rel_whitelist: list[NonBlank] = Field(
        default_factory=lambda: list(TRAVERSE_DEFAULT_RELS), description="Relationship types to follow"
    )
    label_whitelist: list[NonBlank] = Field(
        default_factory=lambda: list(TRAVERSE_DEFAULT_LABELS), description="Node labels a walk may enter"
    )
    frontier: TraverseFrontier = Field(
        default_factory=TraverseFrontier,
        description="How each hop ranks and prunes its frontier (top_k, delta_threshold, novelty_penalty)",
    )
    filters: TraverseFilters = Field(
        default_factory=TraverseFilters, description="Optional: keep only documents with these topics or entities"
    )


class TraverseNode(KbOutput):
    id: str
    label: str = Field(description="Document | Chunk | Entity")
    title: str
    score: Score
    labels: list[str] = Field(description="Additive: every label of the node (Chunk/Section, Entity/type/Topic)")
    type: str | None = Field(default=None, description="Additive: an Entity's type (Disease, Chemical, ...)")
    depth: int = Field(ge=0, le=5, description="Additive: hops from the nearest seed")


class TraverseEdge(KbOutput):
    src: str
    dst: str
    type: str
    depth: int = Field(ge=1, le=5)
    path: list[str] = Field(description="Additive: node ids from a seed to the node this edge reached")


class TraverseCaps(KbOutput):
    max_depth: int
    max_nodes: int
    max_rows: int = Field(description="Additive: rows one call may read")
    timeout_ms: int = Field(description="Additive: per-query timeout")


class TraverseExplain(KbOutput):
    scoring: str
    caps: TraverseCaps


class TraverseDiagnostics(KbOutput):
    expanded: Count
    pruned: Count
    reason: str = Field(description="delta<τ | budget_exhausted | depth_limit")
    depth_reached: Count
    rows_read: Count
    timed_out: bool
    missing_seeds: list[str] = Field(description="Seed ids that are not nodes of the graph")
    hint: str | None = Field(
        default=None,
        description="Additive: when the walk found no edge but the other direction has some, how to call again",
    )


class TraverseResponse(KbOutput):
    nodes: list[TraverseNode]
    edges: list[TraverseEdge]
    explain: TraverseExplain
    diagnostics: TraverseDiagnostics = Field(description="Additive: what the walk expanded, pruned and why it stopped")


class EntitiesRequest(ToolInput):
    query: NonBlank = Field(description="A name, synonym or id, e.g. 'tylenol', 'Acetaminophen', 'mesh:D000082'")
    limit: int = Field(default=10, ge=1, le=50, strict=True, description="Entities to return, best match first")


class EntityMention(KbOutput):
    document_id: str = Field(description="The Document node")
    source_uri: str | None = Field(default=None, description="pubmed:<pmid> or the ingested file's URI")
    section_id: str = Field(description="The Section (chunk) node whose text mentions the entity")
    section: str | None = Field(default=None, description="The section's title")
    spans: list[tuple[int, int, str]] = Field(description="[start, end, text] offsets into the section's text")
    linker: str | None = Field(default=None, description="The linker of the most confident span (e.g. pubtator3)")
    linkers: list[str] = Field(description="Every linker that found the entity in this section")


class EntityItem(KbOutput):
    id: str
    name: str
    type: str
    synonyms: list[str]
    tree_numbers: list[str]
    mentions: Count = Field(description="Documents of the corpus whose sections mention it")
    match: str = Field(
        description="Additive: how the query matched (id, name, synonym, linked, prefix, words, fuzzy; promoted: "
        "the query is a MeSH supplementary concept's id that MeSH 2024 files under this descriptor; thai: the "
        "Thai query names it, e.g. a drug name spelt in Thai)"
    )
    score: Score = Field(description="Additive: match strength in [0, 1]")
    mentioned_in: list[EntityMention] = Field(
        default_factory=list,
        description="Additive: the entity's best MENTIONS edges (up to 3): document, section, spans and linker",
    )


class EntitiesResponse(KbOutput):
    entities: list[EntityItem]
