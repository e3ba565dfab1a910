"""tool.hybrid_search on the real PPR abstracts with the real MeSH linker and the real Thai herb names:
Thai and English queries, language detection, filters, validation, the seed's shape and audit."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bio_mcp.features.corpus.search import EMPTY_CORPUS_NOTE
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.kb.language import build_lexicon, cross_lingual, detect_lang, segment
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.server.toolset import Toolset, call_tool
from bio_mcp.server.toolsets.evidence import search_tools
from bio_mcp.sources.ncbi.client import EutilsClient
from tests.evidence.evidence_fixtures import ANDROGRAPHIS, ANDROGRAPHIS_PAPER, evidence_settings, herb_names

pytestmark = pytest.mark.anyio

GINSENG = "mesh:D005894"
# PPR dev: "American ginseng stimulates insulin production and prevents apoptosis ... in cultured beta cells."
GINSENG_DIABETES_PAPER = "16951721"
GINSENG_AMPK_PAPER = "24748831"  # "AMP-activated protein kinase: An emerging target for ginseng." (diabetes, obesity)
LIVER_METASTASES_PAPER = "19445132"  # "Effects of Geranium sibirum extracts on liver metastases ... colonic cancer"


async def _search(retrieval: KbRetrieval, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    toolset = Toolset("evidence", *search_tools(retrieval.corpus, retrieval))
    spec = next(tool for tool in toolset.tools if tool.name == "tool.hybrid_search")
    result = await call_tool(spec, arguments)
    if result.is_error:
        return True, json.loads(result.content[0].text)
    return False, result.structured_content


def _check_shape(body: dict[str, Any]) -> None:
    assert set(body["audit"]) == {"in_hash", "out_hash", "latency_ms", "seed", "status"}
    assert body["audit"]["status"] == "ok"
    for hit in body["hits"]:
        assert {"id", "type", "title", "snippet", "score", "source"} <= set(hit)
        assert hit["type"] in ("herb", "paper", "chunk") and 0.0 <= hit["score"] <= 1.0
        assert hit["title"] and hit["snippet"] and hit["source"]


async def test_a_thai_herb_name_finds_the_english_andrographis_literature(retrieval: KbRetrieval) -> None:
    failed, body = await _search(retrieval, {"query": "ฟ้าทะลายโจร", "lang": "th", "top_k": 5})
    assert not failed, body
    _check_shape(body)
    assert body["lang"] == "th" and ANDROGRAPHIS in body["entity_ids"]
    assert "Andrographis" in body["query_en"]
    types = [hit["type"] for hit in body["hits"]]
    assert {"herb", "paper", "chunk"} <= set(types)
    herb = body["hits"][0]
    assert herb["type"] == "herb" and herb["id"] == ANDROGRAPHIS and herb["title"].startswith("ฟ้าทะลายโจร")
    assert herb["source"] == f"kg://herb/{ANDROGRAPHIS}"
    papers = [hit for hit in body["hits"] if hit["type"] == "paper"]
    assert papers[0]["pmid"] == ANDROGRAPHIS_PAPER and papers[0]["source"] == f"paper://pmid/{ANDROGRAPHIS_PAPER}"
    assert "Andrograph" in papers[0]["title"] + papers[0]["snippet"]
    chunks = [hit for hit in body["hits"] if hit["type"] == "chunk"]
    assert chunks[0]["pmid"] == ANDROGRAPHIS_PAPER and chunks[0]["source"].startswith(f"paper://pmid/{ANDROGRAPHIS_PAPER}#")
    assert len(papers) <= 5 and len(chunks) <= 5


async def test_a_thai_sentence_keeps_the_herb_whole_and_says_what_it_could_not_translate(retrieval: KbRetrieval) -> None:
    failed, body = await _search(retrieval, {"query": "ฟ้าทะลายโจรรักษาไข้หวัดได้ไหม"})
    assert not failed, body
    assert body["lang"] == "th" and body["entity_ids"] == [ANDROGRAPHIS]
    assert next(hit for hit in body["hits"] if hit["type"] == "paper")["pmid"] == ANDROGRAPHIS_PAPER
    # ไข้หวัด (common cold) goes through WordNet; รักษา (treat) is a verb, which the map leaves out.
    assert "cold" in body["query_en"].split() and body["untranslated"] == ["รักษา"]
    # A Thai query with no entity and no word WordNet knows finds no English paper, and says so.
    failed, body = await _search(retrieval, {"query": "รักษา"})
    assert not failed and body["entity_ids"] == [] and body["untranslated"] == ["รักษา"]
    assert not [hit for hit in body["hits"] if hit["type"] == "paper"]



async def test_a_drug_name_spelt_in_thai_finds_the_papers_on_the_drug_and_no_herb(retrieval: KbRetrieval) -> None:
    # PPR dev 23824549: Nerium oleander extract against lung cancer cells, "similar to those of ... cisplatin".
    failed, body = await _search(retrieval, {"query": "ซิสพลาตินกับมะเร็งปอด", "top_k": 4})
    assert not failed, body
    assert "mesh:D002945" in body["entity_ids"] and "Cisplatin" in body["query_en"]
    assert [hit["type"] for hit in body["hits"]][:2] == ["paper", "chunk"] and body["hits"][0]["pmid"] == "23824549"


async def test_top_k_bounds_the_hits_herbs_first_then_each_documents_paper_and_passage(retrieval: KbRetrieval) -> None:
    # The schema said "Documents to return" and every document gave two hits: top_k 3 was 8 hits.
    failed, full = await _search(retrieval, {"query": "ฟ้าทะลายโจร", "top_k": 20})
    assert not failed and len(full["hits"]) == 20
    herbs = [hit["id"] for hit in full["hits"] if hit["type"] == "herb"]
    assert herbs[0] == ANDROGRAPHIS and full["hits"][: len(herbs)] == [h for h in full["hits"] if h["type"] == "herb"]
    documents = full["hits"][len(herbs):]
    # Each document's best passage follows its paper hit.
    assert [hit["type"] for hit in documents] == ["paper", "chunk"] * (len(documents) // 2)
    assert all(paper["pmid"] == chunk["pmid"] for paper, chunk in zip(documents[::2], documents[1::2], strict=True))
    assert documents[0]["pmid"] == ANDROGRAPHIS_PAPER
    # A smaller top_k is the same list cut: the herbs, then as many document hits as fit.
    for top_k in (1, 2, 3, 4, 5):
        failed, body = await _search(retrieval, {"query": "ฟ้าทะลายโจร", "top_k": top_k})
        assert not failed, body
        assert [(h["type"], h["id"]) for h in body["hits"]] == [(h["type"], h["id"]) for h in full["hits"][:top_k]]
    # One hit per document when only one document type is asked for.
    papers = [hit["pmid"] for hit in documents[::2]]
    for kind in ("paper", "chunk"):
        failed, body = await _search(retrieval, {"query": "ฟ้าทะลายโจร", "filters": {"types": [kind]}, "top_k": 5})
        assert not failed and [hit["type"] for hit in body["hits"]] == [kind] * 5
        assert [hit["pmid"] for hit in body["hits"]] == papers[:5]


async def test_herb_hits_that_fill_top_k_say_why_no_paper_is_listed(retrieval: KbRetrieval) -> None:
    toolset = Toolset("evidence", *search_tools(retrieval.corpus, retrieval))
    spec = next(tool for tool in toolset.tools if tool.name == "tool.hybrid_search")
    result = await call_tool(spec, {"query": "ฟ้าทะลายโจร", "top_k": 1})
    assert [hit["type"] for hit in result.structured_content["hits"]] == ["herb"]
    assert "top_k" in result.structured_content["note"] and "No matching papers" not in result.content[0].text


async def test_the_text_of_an_untranslated_query_says_how_to_load_thai_names(retrieval: KbRetrieval) -> None:
    toolset = Toolset("evidence", *search_tools(retrieval.corpus, retrieval))
    spec = next(tool for tool in toolset.tools if tool.name == "tool.hybrid_search")
    text = (await call_tool(spec, {"query": "รักษา"})).content[0].text
    assert "not searched): รักษา" in text and "bio-mcp kg import" in text


async def test_the_text_names_every_hit_id_a_client_calls_the_next_tool_with(retrieval: KbRetrieval) -> None:
    # A client that reads only the text passes a chunk hit's Section id to kb.retrieve_evidence.
    toolset = Toolset("evidence", *search_tools(retrieval.corpus, retrieval))
    spec = next(tool for tool in toolset.tools if tool.name == "tool.hybrid_search")
    result = await call_tool(spec, {"query": "ฟ้าทะลายโจร", "top_k": 4})  # two herbs, a paper and its passage
    text = result.content[0].text
    hits = result.structured_content["hits"]
    assert {hit["type"] for hit in hits} == {"herb", "paper", "chunk"}
    for hit in hits:
        assert f"`{hit['id']}`" in text, hit


async def test_a_thai_disease_word_is_searched_in_english_and_lifts_the_paper_on_that_disease(
    retrieval: KbRetrieval,
) -> None:
    papers_only = {"types": ["paper"]}  # top_k counts hits: five papers are five documents
    failed, herb_only = await _search(retrieval, {"query": "โสม", "filters": papers_only, "top_k": 5})
    assert not failed, herb_only
    failed, body = await _search(retrieval, {"query": "โสมกับเบาหวาน", "filters": papers_only, "top_k": 5})  # ginseng, diabetes
    assert not failed, body
    assert body["entity_ids"] == [GINSENG] and body["untranslated"] == []
    # The herb's names (Panax ginseng, Ginseng, Panax) are searched with each word once.
    assert body["query_en"] == "Panax ginseng diabetes"

    def papers(found: dict[str, Any]) -> list[str]:
        return [hit["pmid"] for hit in found["hits"] if hit["type"] == "paper"]

    # The herb name alone ranks the antiviral ginseng paper above the diabetes one; the disease word
    # puts the two ginseng papers on diabetes first.
    assert papers(body).index(GINSENG_DIABETES_PAPER) < papers(herb_only).index(GINSENG_DIABETES_PAPER)
    assert set(papers(body)[:2]) == {GINSENG_DIABETES_PAPER, GINSENG_AMPK_PAPER}
    # Without a herb, a Thai disease phrase still reaches the English literature: มะเร็งตับ, liver cancer.
    failed, body = await _search(retrieval, {"query": "มะเร็งตับ", "filters": papers_only, "top_k": 5})
    assert not failed and body["query_en"] == "liver cancer hepatoma"
    # Found, though below the papers that name liver cancer or hepatoma (coverage-scaled scores).
    assert LIVER_METASTASES_PAPER in papers(body)


def test_language_detection_by_script() -> None:
    assert detect_lang("ฟ้าทะลายโจร") == "th"
    assert detect_lang("Andrographis paniculata for the common cold") == "en"
    assert detect_lang("ฟ้าทะลายโจรกับ warfarin") == "th"
    assert detect_lang("Andrographis paniculata (ฟ้า)") == "en"
    assert detect_lang("12345") == "en"


def test_segmentation_keeps_graph_names_whole(data_dir) -> None:
    text = "ฟ้าทะลายโจรรักษาไข้หวัด"
    assert segment(text)[0] != "ฟ้าทะลายโจร"  # pythainlp's own dictionary splits the herb name
    lexicon = build_lexicon(herb_names(data_dir))
    assert segment(text, lexicon)[0] == "ฟ้าทะลายโจร"
    query = cross_lingual("ขมิ้นชันกับ warfarin", "auto", lexicon)
    assert query.lang == "th" and query.entity_ids == ("mesh:D030024",)
    assert "warfarin" in query.search_text_en and "Curcuma longa" in query.search_text_en
    english = cross_lingual("turmeric and ginger for nausea", "auto", lexicon)
    assert english.lang == "en" and set(english.entity_ids) == {"mesh:D030024", "mesh:D020939"}


async def test_auto_detects_thai_and_english_queries(retrieval: KbRetrieval) -> None:
    failed, thai = await _search(retrieval, {"query": "ฟ้าทะลายโจร", "lang": "auto", "top_k": 3})
    assert not failed and thai["lang"] == "th"
    failed, english = await _search(retrieval, {"query": "Andrographis paniculata cancer prevention", "top_k": 3})
    assert not failed and english["lang"] == "en"
    _check_shape(english)
    papers = [hit for hit in english["hits"] if hit["type"] == "paper"]
    assert papers[0]["pmid"] == ANDROGRAPHIS_PAPER
    # The English query names the plant too (its scientific name, and the MeSH linker's Andrographis).
    herbs = [hit for hit in english["hits"] if hit["type"] == "herb"]
    assert herbs and herbs[0]["id"] == ANDROGRAPHIS and herbs[0]["title"].startswith("Andrographis paniculata")


async def test_an_english_query_about_another_plant_finds_its_papers(retrieval: KbRetrieval) -> None:
    failed, body = await _search(retrieval, {"query": "garlic", "lang": "en", "top_k": 5})
    assert not failed
    herbs = [hit["id"] for hit in body["hits"] if hit["type"] == "herb"]
    assert "mesh:D005737" in herbs  # Allium sativum: "Garlic" in the herb table and in MeSH
    papers = [hit for hit in body["hits"] if hit["type"] == "paper"]
    assert papers and "garlic" in (papers[0]["title"] + papers[0]["snippet"]).lower()


async def test_type_filters_keep_only_the_types_asked_for(retrieval: KbRetrieval) -> None:
    for types in (["herb"], ["paper"], ["chunk"], ["paper", "chunk"]):
        failed, body = await _search(retrieval, {"query": "ฟ้าทะลายโจร", "filters": {"types": types}, "top_k": 4})
        assert not failed and body["hits"]
        assert {hit["type"] for hit in body["hits"]} == set(types)
    # PPR abstracts carry no publication year: a year filter excludes them inside the index search.
    failed, body = await _search(retrieval, {"query": "ฟ้าทะลายโจร", "filters": {"year_from": 2000}})
    assert not failed and body["hits"] and {hit["type"] for hit in body["hits"]} == {"herb"}


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "ฟ้าทะลายโจร", "lang": "fr"}, "lang"),
        ({"query": "ฟ้าทะลายโจร", "top_k": 0}, "top_k"),
        ({"query": "ฟ้าทะลายโจร", "top_k": 21}, "top_k"),
        ({"query": "ฟ้าทะลายโจร", "top_k": "5"}, "top_k"),
        ({"query": "ฟ้าทะลายโจร", "filters": {"colour": "red"}}, "colour"),
        ({"query": "ฟ้าทะลายโจร", "filters": {"types": ["drug"]}}, "types"),
        ({"query": "ฟ้าทะลายโจร", "filters": {"year_from": 2020, "year_to": 2010}}, "year"),
        ({"lang": "th"}, "query"),
    ],
)
async def test_bad_arguments_are_validation_errors_naming_the_field(
    retrieval: KbRetrieval, arguments: dict[str, Any], field: str
) -> None:
    failed, body = await _search(retrieval, arguments)
    assert failed
    assert body["error"]["code"] == "VALIDATION" and body["audit"]["status"] == "error"
    assert field in json.dumps(body["error"], ensure_ascii=False)


async def test_an_empty_corpus_says_so_and_how_to_fill_it(tmp_path, graph_indexer) -> None:
    settings = evidence_settings(tmp_path)
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, embed_in_background=False, graph=graph_indexer)
    await service.open()
    try:
        failed, body = await _search(KbRetrieval(service), {"query": "aspirin stroke"})
    finally:
        await service.aclose()
        await eutils.aclose()
    assert not failed and body["hits"] == [] and body["note"] == EMPTY_CORPUS_NOTE
