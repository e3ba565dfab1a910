"""tool.hybrid_search finds an ingested file like a PubMed record: a paper hit keyed by its `file:`
key with its file URI as the source, and a chunk hit on the file's Section (it failed with a
VALIDATION error on the file URI, read as a PMID, as soon as a file ranked among the hits)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.features.evidence.hybrid_search import HybridSearch, HybridSearchRequest
from bio_mcp.features.evidence.ingest_models import IngestRunRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from tests.evidence.ingest.conftest import IngestEnv, with_names
from tests.evidence.ingest.documents import ppr_abstracts

pytestmark = pytest.mark.anyio


async def test_an_ingested_file_is_a_paper_hit_with_its_file_key_and_uri(ingest_env: IngestEnv, data_dir: Path) -> None:
    pmid, abstract = ppr_abstracts(data_dir, 1)[0]
    path = ingest_env.root / f"ppr-{pmid}.md"
    path.write_text(f"# {abstract.title}\n\n" + "\n\n".join(abstract.paragraphs) + "\n", encoding="utf-8")
    service = await with_names(ingest_env.make(), data_dir)
    response = await service.run(IngestRunRequest.model_validate({"dry_run": False, "batch": [{"uri": path.as_uri()}]}))
    assert response.status == "done", response.error
    key, uri = response.files[0].doc_id, path.resolve().as_uri()

    found = await HybridSearch(KbRetrieval(service.corpus)).search(
        HybridSearchRequest(query=abstract.title, lang="en", top_k=3))

    paper = next(hit for hit in found.hits if hit.type == "paper")
    assert (paper.id, paper.source, paper.pmid) == (key, uri, None)
    assert paper.title == abstract.title
    chunk = next(hit for hit in found.hits if hit.type == "chunk")
    assert chunk.source.startswith(uri + "#chunk-") and chunk.pmid is None
    with service.corpus.store.read() as tx:
        assert tx.documents.get_many([key])[key].title == abstract.title
