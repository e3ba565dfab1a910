"""paper://pmid/{id}: from the corpus, fetched from the fake E-utilities (real records) and stored when
absent and BIO_MCP_PAPER_FETCH allows, NOT_FOUND when it does not."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.eval.corpus_fill import fill_scratch_corpus
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.hybrid_search import HybridSearch, HybridSearchRequest
from bio_mcp.features.evidence.papers import PaperLibrary
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.server.toolset import Toolset
from bio_mcp.server.toolsets.evidence import search_tools
from bio_mcp.sources.ncbi.client import EutilsClient
from tests.evidence.evidence_fixtures import ANDROGRAPHIS_PAPER, evidence_settings, ppr_documents

pytestmark = pytest.mark.anyio

RECORDED = "20412080"  # a real record the fake E-utilities serves (pubmed/MANIFEST.tsv)


def _recorded_article(data_dir: Path, pmid: str) -> etree._Element:
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        root = etree.parse(handle).getroot()
    return next(a for a in root.iter("PubmedArticle") if a.findtext(".//MedlineCitation/PMID") == pmid)


Factory = Callable[..., CorpusService]


@pytest.fixture
async def make_corpus(
    tmp_path: Path, corpus_fakes, data_dir: Path, graph_indexer
) -> AsyncIterator[Factory]:
    opened: list[tuple[CorpusService, EutilsClient]] = []

    def make(fetch: bool) -> CorpusService:
        settings = evidence_settings(
            tmp_path / f"home-{len(opened)}", NCBI_EUTILS_BASE_URL=corpus_fakes.eutils_base_url, NCBI_API_KEY="test-key",
            NCBI_MAX_RETRIES=1, BIO_MCP_PAPER_FETCH=fetch,
        )
        eutils = EutilsClient(settings)
        service = CorpusService(settings, eutils, embed_in_background=False, graph=graph_indexer)
        opened.append((service, eutils))
        return service

    yield make
    for service, eutils in opened:
        await service.aclose()
        await eutils.aclose()


async def _with_ppr(service: CorpusService, data_dir: Path) -> CorpusService:
    await service.open()
    documents = ppr_documents(data_dir)
    chosen = documents[:19] + [d for d in documents if d.record.pmid == ANDROGRAPHIS_PAPER]
    fill_scratch_corpus(service.index, chosen, 64, graph=service.graph)
    return service


async def _read_resource(service: CorpusService, pmid: str) -> dict[str, Any]:
    toolset = Toolset("evidence", *search_tools(service, KbRetrieval(service)))
    resource = next(r for r in toolset.resources if r.uri.startswith("paper://"))
    assert resource.uri == "paper://pmid/{pmid}"
    return json.loads(await resource.read(pmid=pmid))


def _eutils_calls(corpus_fakes) -> int:
    return sum(1 for arrival in corpus_fakes.app.eutils.requests if "efetch" in arrival.path)


async def test_a_stored_paper_is_served_from_the_corpus_without_the_network(make_corpus, data_dir, corpus_fakes) -> None:
    service = await _with_ppr(make_corpus(fetch=False), data_dir)
    paper = await _read_resource(service, ANDROGRAPHIS_PAPER)
    assert {"pmid", "title", "abstract", "authors", "journal", "year", "links"} <= set(paper)
    assert paper["pmid"] == ANDROGRAPHIS_PAPER and paper["title"].startswith("Andrographolide and analogues")
    assert "Andrographis paniculata" in paper["abstract"]
    assert paper["links"] == [f"https://pubmed.ncbi.nlm.nih.gov/{ANDROGRAPHIS_PAPER}/"]
    # PPR keeps no authors and fetching is off: said, not invented.
    assert paper["authors"] == [] and paper["complete"] is False and paper["source"] == "corpus"
    assert _eutils_calls(corpus_fakes) == 0


async def test_an_absent_paper_with_fetching_off_is_not_found(make_corpus, data_dir, corpus_fakes) -> None:
    service = await _with_ppr(make_corpus(fetch=False), data_dir)
    library = PaperLibrary(service)
    with pytest.raises(BioMcpError) as raised:
        await library.read(RECORDED)
    assert raised.value.code is ErrorCode.NOT_FOUND and "BIO_MCP_PAPER_FETCH" in raised.value.message
    with pytest.raises(BioMcpError) as raised:
        await library.read("12ab")
    assert raised.value.code is ErrorCode.VALIDATION
    assert _eutils_calls(corpus_fakes) == 0
    with service.store.read() as tx:
        assert tx.documents.get(RECORDED) is None


async def test_an_absent_paper_is_fetched_stored_and_then_searchable(make_corpus, data_dir, corpus_fakes) -> None:
    service = await _with_ppr(make_corpus(fetch=True), data_dir)
    record = _recorded_article(data_dir, RECORDED)
    title = "".join(record.find(".//ArticleTitle").itertext())
    last_names = [a.findtext("LastName") for a in record.iter("Author") if a.findtext("LastName")]

    paper = await _read_resource(service, RECORDED)
    assert paper["source"] == "eutils" and paper["complete"] is True
    assert paper["title"] == title and paper["abstract"]
    assert [name.split(" ")[0] for name in paper["authors"]][: len(last_names)] == last_names
    assert paper["year"] == int(record.findtext(".//PubDate/Year") or paper["year"])
    assert paper["links"][0] == f"https://pubmed.ncbi.nlm.nih.gov/{RECORDED}/"
    assert _eutils_calls(corpus_fakes) == 1

    again = await _read_resource(service, RECORDED)
    assert again["source"] == "corpus" and again["authors"] == paper["authors"] and _eutils_calls(corpus_fakes) == 1
    # Stored through the corpus's write path: the tool's search finds it by its title.
    found = await HybridSearch(KbRetrieval(service)).search(HybridSearchRequest(query=title, lang="en", top_k=3))
    assert next(hit.pmid for hit in found.hits if hit.type == "paper") == RECORDED


async def test_a_paper_pubmed_does_not_know_is_not_found(make_corpus, data_dir, corpus_fakes) -> None:
    service = await _with_ppr(make_corpus(fetch=True), data_dir)
    with pytest.raises(BioMcpError) as raised:
        await PaperLibrary(service).read("99999999")  # not among the recorded records (MANIFEST.tsv)
    assert raised.value.code is ErrorCode.NOT_FOUND
