"""A paper the query does not touch is no hit: in a corpus of two real PPR abstracts, the Thai name of
Andrographis finds its paper and not the other one (which the vector search's floor used to list at
0.000), and tool.rag_answer cites only the Andrographis paper."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bio_mcp.eval.corpus_fill import fill_scratch_corpus
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.answer import AnswerService
from bio_mcp.features.evidence.answer_models import RagAnswerRequest
from bio_mcp.features.evidence.hybrid_search import HybridSearch, HybridSearchRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.graph.names import write_names
from bio_mcp.sources.ncbi.client import EutilsClient
from tests.evidence.evidence_fixtures import ANDROGRAPHIS_PAPER, evidence_settings, herb_names, ppr_documents

pytestmark = pytest.mark.anyio
GARLIC_PAPER = "11010950"  # PPR dev: "Garlic consumption and cancer prevention: meta-analyses ..."


@pytest.fixture(scope="module")
async def two_papers(
    tmp_path_factory: pytest.TempPathFactory, data_dir: Path, graph_indexer: GraphIndexer
) -> AsyncIterator[KbRetrieval]:
    settings = evidence_settings(tmp_path_factory.mktemp("two-papers"))
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, embed_in_background=False, graph=graph_indexer)
    await service.open()
    documents = [d for d in ppr_documents(data_dir) if d.record.pmid in (ANDROGRAPHIS_PAPER, GARLIC_PAPER)]
    assert len(documents) == 2
    fill_scratch_corpus(service.index, documents, settings.embeddings_batch_size, graph=graph_indexer)
    with service.store.transaction() as tx:
        write_names(tx.connection, herb_names(data_dir))
    yield KbRetrieval(service)
    await service.aclose()
    await eutils.aclose()


async def test_the_paper_the_query_does_not_touch_is_not_a_hit(two_papers: KbRetrieval) -> None:
    response = await HybridSearch(two_papers).search(HybridSearchRequest(query="ฟ้าทะลายโจร", lang="th"))
    documents = [hit for hit in response.hits if hit.type != "herb"]
    assert {hit.pmid for hit in documents} == {ANDROGRAPHIS_PAPER}
    assert all(hit.score > 0 for hit in response.hits)
    # The other paper is found by a query that names it.
    garlic = await HybridSearch(two_papers).search(HybridSearchRequest(query="garlic consumption", lang="en"))
    assert [hit.pmid for hit in garlic.hits if hit.type == "paper"] == [GARLIC_PAPER]


async def test_rag_answer_cites_only_the_paper_that_matched(two_papers: KbRetrieval) -> None:
    response = await AnswerService(two_papers).answer(RagAnswerRequest(question="ฟ้าทะลายโจร", lang="th"))
    cited = {citation.id for citation in response.citations}
    assert cited == {f"pmid:{ANDROGRAPHIS_PAPER}"}
