"""unmatched_terms after the Thai reading, on the real PPR abstracts with the real Thai herb names: a
herb named in Thai that no abstract mentions (Tinospora, บอระเพ็ด) is listed by its Thai and English
names and said first; a herb the abstracts do mention (Andrographis, ฟ้าทะลายโจร) is matched, as are
the English names its Thai name is searched by, and an English herb name by the herb's other names."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.hybrid_search import HybridSearch, HybridSearchRequest, summarize
from bio_mcp.features.kb.models import KbSearchRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from tests.evidence.evidence_fixtures import ANDROGRAPHIS_PAPER

pytestmark = pytest.mark.anyio

TINOSPORA_THAI = "บอระเพ็ด"


async def test_a_thai_herb_no_abstract_mentions_is_listed_first(herbal_corpus: CorpusService, data_dir: Path) -> None:
    text = (data_dir / "bench" / "ppr" / "PPR_dev_corpus.txt").read_text(encoding="utf-8").lower()
    assert "tinospora" not in text and "andrographis" in text
    retrieval = KbRetrieval(herbal_corpus)
    query = f"{TINOSPORA_THAI}กับเบาหวาน"  # Tinospora and diabetes
    found = await HybridSearch(retrieval).search(HybridSearchRequest(query=query, lang="th", top_k=6))
    assert any(hit.type == "paper" for hit in found.hits)
    assert found.unmatched_terms == [f"{TINOSPORA_THAI} (Tinospora)"]
    assert summarize(found).startswith(f"No document mentions {TINOSPORA_THAI} (Tinospora); the results below match only")
    kb = await retrieval.search(KbSearchRequest(query=query, top_k=3))
    assert kb.unmatched_terms == [f"{TINOSPORA_THAI} (Tinospora)"]


async def test_a_thai_herb_the_abstracts_mention_is_matched(herbal_corpus: CorpusService) -> None:
    found = await HybridSearch(KbRetrieval(herbal_corpus)).search(
        HybridSearchRequest(query="ฟ้าทะลายโจร", lang="th", top_k=4)
    )
    assert ANDROGRAPHIS_PAPER in {hit.pmid for hit in found.hits}
    # Its English names (Andrographis paniculata, Green chiretta) are the herb, not terms of their own.
    assert found.unmatched_terms == [] and not summarize(found).startswith("No document mentions")


async def test_an_english_herb_name_is_matched_by_the_herbs_other_names(herbal_corpus: CorpusService) -> None:
    # "Green chiretta" is Andrographis's English name in the herb table, not a MeSH term, and no
    # abstract writes it: the Andrographis paper, found by "andrographolide", names the herb as
    # Andrographis paniculata, so the name is matched; kb.search reads English herb names as
    # tool.hybrid_search does.
    query = "green chiretta andrographolide"
    kb = await KbRetrieval(herbal_corpus).search(KbSearchRequest(query=query, top_k=3))
    assert f"pubmed:{ANDROGRAPHIS_PAPER}" in {item.metadata.doc_uri for item in kb.evidence}
    assert kb.unmatched_terms == []
    found = await HybridSearch(KbRetrieval(herbal_corpus)).search(HybridSearchRequest(query=query, lang="en", top_k=4))
    assert found.unmatched_terms == []
