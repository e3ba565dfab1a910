"""`rag.search`: hybrid BM25 + vector retrieval over the corpus chunks, with the quality rerank.

Both retrievers return their top chunks; `search.fusion` rolls them up to documents, fuses and
(with `quality_bias`) reranks by the document's current quality total from the store. A result
is a document represented by its best chunk: `doc_id` for `rag.get`, `uuid` for that chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.models import RagSearchRequest, RagSearchResponse, RagSearchResult
from bio_mcp.search.fusion import DEFAULT_FUSION, FusionConfig, RankedDoc, fuse, merge_candidates, rerank
from bio_mcp.search.hybrid import complete_candidates
from bio_mcp.store import MetadataStore

SearchMode = Literal["hybrid", "bm25", "vector"]


@dataclass(frozen=True)
class SearchSettings:
    fusion: FusionConfig = DEFAULT_FUSION
    # Which retrievers run: BEIR evaluation compares each alone against the hybrid.
    mode: SearchMode = "hybrid"


def ranked_documents(
    store: MetadataStore,
    index: CorpusIndex,
    query: str,
    top_k: int,
    quality_bias: bool,
    settings: SearchSettings = SearchSettings(),
) -> list[RankedDoc]:
    depth = settings.fusion.candidate_depth(top_k)
    use_vectors = settings.mode != "bm25" and index.vectors.vector_count > 0
    query_vector = index.embeddings.embed_query(query) if use_vectors else None
    with index.lock:
        bm25_hits = index.bm25.search(query, depth) if settings.mode != "vector" else []
        vector_hits = index.vectors.search(query_vector, depth) if query_vector is not None else []
        candidates = merge_candidates(
            ((hit.uuid, hit.pmid, hit.score) for hit in bm25_hits),
            ((hit.uuid, hit.pmid, hit.sim) for hit in vector_hits),
        )
        if settings.mode == "hybrid":
            candidates = complete_candidates(index.bm25, index.vectors, query, query_vector, candidates)
    if not candidates:
        return []
    with store.read() as tx:
        # An index entry whose chunk a concurrent sync just replaced is not served.
        live = tx.chunks.existing_uuids(candidate.uuid for candidate in candidates)
        candidates = [candidate for candidate in candidates if candidate.uuid in live]
        documents = tx.documents.get_many({candidate.pmid for candidate in candidates})
    fused = fuse(candidates, settings.fusion)
    quality = {doc.uuid: documents[doc.pmid].quality.total for doc in fused if doc.pmid in documents}
    return rerank(fused, quality, quality_bias, settings.fusion.quality_weight)[:top_k]


def search_corpus(
    request: RagSearchRequest,
    store: MetadataStore,
    index: CorpusIndex,
    settings: SearchSettings = SearchSettings(),
) -> RagSearchResponse:
    ranked = ranked_documents(store, index, request.query, request.top_k, request.quality_bias, settings)
    return RagSearchResponse(
        results=[
            RagSearchResult(
                doc_id=f"pmid:{doc.pmid}",
                uuid=doc.uuid,
                sim=doc.sim,
                bm25=doc.bm25,
                quality=None if doc.quality is None else float(doc.quality),
                score=doc.score,
            )
            for doc in ranked
        ]
    )


def summarize(response: RagSearchResponse) -> str:
    if not response.results:
        return "No matching chunks in the local corpus."
    top = ", ".join(f"{result.doc_id} ({result.score:.3f})" for result in response.results[:5])
    return f"{len(response.results)} documents; best: {top}"
