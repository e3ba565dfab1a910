"""`rag.search`: hybrid BM25 + vector retrieval over the corpus chunks, with the quality rerank.

The corpus's `HybridIndex` does the work (see `search.hybrid` and `search.fusion`): both
retrievers return their top chunks, which are rolled up to documents, fused and, with
`quality_bias`, reranked by the document's quality total. A result is a document represented by
its best chunk: `doc_id` for `rag.get`, `uuid` for that chunk.
"""

from __future__ import annotations

from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.models import RagSearchRequest, RagSearchResponse, RagSearchResult


def search_corpus(request: RagSearchRequest, index: CorpusIndex) -> RagSearchResponse:
    hits = index.search(request.query, request.top_k, request.quality_bias)
    return RagSearchResponse(results=[RagSearchResult.model_validate(hit.as_contract()) for hit in hits])


def summarize(response: RagSearchResponse) -> str:
    """Every result as a table row with every field it has (snippets and titles included)."""
    if not response.results:
        return "No matching chunks in the local corpus."
    rows = [result.to_json() for result in response.results]
    columns = list(dict.fromkeys(key for row in rows for key in row))
    lines = [f"**{len(rows)} documents**, best first.", "", "| " + " | ".join(columns) + " |",
             "|" + "---|" * len(columns)]
    for row in rows:
        cells = (f"{v:.4f}" if isinstance(v, float) else "" if v is None else str(v) for v in (row.get(c) for c in columns))
        lines.append("| " + " | ".join(cell.replace("|", "/").replace("\n", " ") for cell in cells) + " |")
    return "\n".join(lines)
