"""`rag.search`: hybrid BM25 + vector retrieval over the corpus chunks, with the quality rerank.

The corpus's `HybridIndex` does the work (see `search.hybrid` and `search.fusion`): both
retrievers return their top chunks, which are rolled up to documents, fused and, with
`quality_bias`, reranked by the document's quality total. A result is a document represented by
its best chunk: `doc_id` for `rag.get`, `uuid` for that chunk, and (additive to the seed) the
document's `title` and `year` and a `snippet` of that chunk around the query's words, so a caller
can judge a hit without a `rag.get` per result. An empty answer says why in `note`.

`unmatched_terms` lists the query's terms (content words and the entities the graph's linker finds)
that no returned document names by any synonym (`graph.unmatched_terms`), and the text says so first: a
ranked list always has a best hit, which need not be about what was asked.
"""

from __future__ import annotations

import re

from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.models import RagSearchRequest, RagSearchResponse, RagSearchResult
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.unmatched_terms import (
    TextLinker,
    catalog_names,
    coverage_sentence,
    covered_score,
    query_terms,
    term_coverage,
    unmatched_terms,
)
from bio_mcp.search.hybrid import Hit
from bio_mcp.store import StoredDocument
from bio_mcp.store.document_keys import is_pubmed_key

SNIPPET_CHARS = 280
EMPTY_CORPUS_NOTE = (
    "The local corpus is empty, so nothing can match. Fill it first: call pubmed.sync_delta with a "
    "query_key and a PubMed term (or run `bio-mcp sync KEY TERM`), then search again."
)
NO_MATCH_NOTE = "No document in the local corpus ({documents} documents) matches this query."
LEXICAL_BUILDING_NOTE = ("This replica's word index is still being built from the store: these results are "
                         "ranked by meaning (vector similarity) alone, not by the query's words.")
_WORD = re.compile(r"[A-Za-z0-9]{3,}")


def snippet(text: str, query: str, width: int = SNIPPET_CHARS) -> str:
    """About `width` characters of `text` starting near the first query word it contains, cut at spaces."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    lowered = text.lower()
    found = [lowered.find(word.lower()) for word in _WORD.findall(query)]
    first = min((position for position in found if position >= 0), default=0)
    start = max(0, first - width // 4)
    if start:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < first else start
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > first else end
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")


def _pubmed_hits(request: RagSearchRequest, index: CorpusIndex) -> list[Hit]:
    """The best `top_k` PubMed records: rag.search's contract names documents `pmid:N`, so ingested
    files (found by kb.search) are passed over, searching deeper while they crowd the top."""
    depth = request.top_k
    while True:
        hits = index.search(request.query, depth, request.quality_bias)
        pubmed = [hit for hit in hits if is_pubmed_key(hit.pmid)]
        if len(pubmed) >= request.top_k or len(hits) < depth:
            return pubmed[: request.top_k]
        depth *= 2


def document_text(document: StoredDocument) -> str:
    """What a document says: its title and abstract (an ingested file's sections are its abstract)."""
    return "\n".join(part for part in (document.title, document.abstract) if part)


def search_corpus(
    request: RagSearchRequest, index: CorpusIndex, linker: TextLinker | None = None, catalog: MeshCatalog | None = None
) -> RagSearchResponse:
    """`linker` and `catalog`: the graph's, which find the query's entities and their synonyms for
    `unmatched_terms` (without them only the query's words are checked)."""
    hits = _pubmed_hits(request, index)
    with index.store.read() as tx:
        if not hits:
            documents = tx.documents.count()
            note = EMPTY_CORPUS_NOTE if documents == 0 else NO_MATCH_NOTE.format(documents=documents)
            return RagSearchResponse(results=[], note=note)
        stored = tx.documents.get_many(hit.pmid for hit in hits)
        chunks = tx.chunks.get_many(hit.uuid for hit in hits)
    terms = query_terms(request.query, linker, names=catalog_names(catalog))
    results = []
    for hit in hits:
        document, chunk = stored.get(hit.pmid), chunks.get(hit.uuid)
        text = document_text(document) if document else chunk.text if chunk else ""
        results.append(
            RagSearchResult.model_validate(
                hit.as_contract()
                | {
                    # Scaled by the share of the query's terms the document names (`covered_score`).
                    "score": covered_score(hit.score, term_coverage(terms, text, linker)),
                    "title": document.title if document else None,
                    "year": document.year if document else None,
                    "snippet": snippet(chunk.text, request.query) if chunk else None,
                }
            )
        )
    results.sort(key=lambda result: (-result.score, result.doc_id))
    unmatched = unmatched_terms(terms, (document_text(document) for document in stored.values()), linker)
    note = coverage_sentence(terms, unmatched)
    if index.lexical_building:
        note = f"{LEXICAL_BUILDING_NOTE} {note}" if note else LEXICAL_BUILDING_NOTE
    return RagSearchResponse(results=results, unmatched_terms=unmatched, note=note)


def summarize(response: RagSearchResponse) -> str:
    """The note on what no result mentions first, then every result as a table row with every field
    it has (snippets and titles included)."""
    if not response.results:
        return response.note or "No matching documents in the local corpus."
    lines = [response.note] if response.note else []
    lines.append(f"{len(response.results)} documents, best first:")
    for result in response.results:
        heading = f"- {result.doc_id} ({result.year or 'n.d.'}, score {result.score:.3f}): {result.title or '(no title)'}"
        lines.append(heading + (f"\n  {result.snippet}" if result.snippet else ""))
    return "\n".join(lines)
