"""kb.search with Thai queries on the real PPR abstracts (English), the real MeSH linker and the real
Thai herb names: a Thai query is searched by its English words, herb names by their English,
scientific and MeSH names and other words through WordNet, as tool.hybrid_search reads it."""

from __future__ import annotations

import pytest
from mcp import Client

from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.kb.language import build_lexicon, cross_lingual, substance_loanwords
from bio_mcp.features.kb.models import KbSearchRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.server.app import build_server
from bio_mcp.server.toolsets.kb import build_kb_toolset
from tests.evidence.evidence_fixtures import ANDROGRAPHIS, ANDROGRAPHIS_PAPER, herb_names

pytestmark = pytest.mark.anyio

GINSENG = "mesh:D005894"
GINSENG_DIABETES_PAPERS = {"pubmed:16951721", "pubmed:24748831"}  # American ginseng and beta cells; ginseng and AMPK
LIVER_METASTASES_PAPER = "pubmed:19445132"  # "Effects of Geranium sibirum extracts on liver metastases ..."


def _documents(found) -> list[str]:
    return [item.metadata.doc_uri for item in found.evidence]


async def test_a_thai_herb_name_finds_the_english_papers_on_the_herb(herbal_corpus: CorpusService) -> None:
    found = await KbRetrieval(herbal_corpus).search(KbSearchRequest(query="ฟ้าทะลายโจร", top_k=5))
    assert _documents(found)[0] == f"pubmed:{ANDROGRAPHIS_PAPER}"
    assert found.note is None and "Andrographis paniculata" in (found.query_en or "")
    assert ANDROGRAPHIS in found.diagnostics.retrieval.query_entities and found.untranslated == []
    # The snippet is cut around the English words the section was found by.
    assert "ndrograph" in found.evidence[0].snippet


async def test_thai_disease_words_are_searched_in_english(herbal_corpus: CorpusService) -> None:
    retrieval = KbRetrieval(herbal_corpus)
    liver_cancer = await retrieval.search(KbSearchRequest(query="มะเร็งตับ", top_k=5))
    # มะเร็งตับ is one Thai WordNet lemma (liver cancer; hepatoma) that the segmenter cuts in two.
    # The paper on liver metastases names neither liver cancer nor hepatoma by any synonym, so its
    # coverage-scaled score ranks it below papers that do; it is still found.
    assert liver_cancer.query_en == "liver cancer hepatoma" and LIVER_METASTASES_PAPER in _documents(liver_cancer)
    ginseng_diabetes = await retrieval.search(KbSearchRequest(query="โสมกับเบาหวาน", top_k=5))
    assert ginseng_diabetes.query_en == "Panax ginseng diabetes"
    assert set(_documents(ginseng_diabetes)[:2]) == GINSENG_DIABETES_PAPERS
    assert GINSENG in ginseng_diabetes.diagnostics.retrieval.query_entities


async def test_thai_words_without_english_are_listed_and_not_read_as_vectors(herbal_corpus: CorpusService) -> None:
    retrieval = KbRetrieval(herbal_corpus)
    sentence = await retrieval.search(KbSearchRequest(query="ฟ้าทะลายโจรรักษาไข้หวัดได้ไหม", top_k=3))
    assert _documents(sentence)[0] == f"pubmed:{ANDROGRAPHIS_PAPER}" and sentence.untranslated == ["รักษา"]
    # ไหม ends the question ("can it ...?"): not Thai WordNet's silkworm.
    assert "silkworm" not in (sentence.query_en or "")
    # Nothing English to search with: the English embedding model cannot read Thai, so only words
    # could match, and no English section holds these.
    nothing = await retrieval.search(KbSearchRequest(query="รักษา"))
    assert nothing.evidence == [] and nothing.untranslated == ["รักษา"] and nothing.query_en is None


async def test_the_tool_says_how_a_thai_query_was_searched_and_english_ones_are_as_before(
    herbal_corpus: CorpusService,
) -> None:
    retrieval = KbRetrieval(herbal_corpus)
    async with Client(build_server([build_kb_toolset(retrieval, herbal_corpus.settings)])) as client:
        thai = await client.call_tool("kb_search", {"query": "ฟ้าทะลายโจรรักษาไข้หวัด", "top_k": 3})
        english = await client.call_tool("kb_search", {"query": "Andrographis paniculata cancer prevention", "top_k": 3})
    assert not thai.is_error and not english.is_error, thai.content[0].text
    body, text = thai.structured_content, thai.content[0].text
    assert body["evidence"][0]["metadata"]["doc_uri"] == f"pubmed:{ANDROGRAPHIS_PAPER}"
    assert body["query_en"] in text and "Searched in English as" in text and "รักษา" in text
    assert "query_en" not in english.structured_content and "untranslated" not in english.structured_content
    assert english.structured_content["evidence"][0]["metadata"]["doc_uri"] == f"pubmed:{ANDROGRAPHIS_PAPER}"


CYCLOSPORINE = "mesh:D016572"
CYCLOSPORINE_ASTHMA_PAPER = "pubmed:16504935"  # "Inhibitory effects of Actinidia polygama extract and cyclosporine A on ..."
METFORMIN = "mesh:D008687"
METFORMIN_PAPER = "pubmed:24748831"  # "... activation of AMPK by metformin ..."


async def test_a_drug_name_spelt_in_thai_is_searched_by_its_english_and_mesh_names(
    herbal_corpus: CorpusService,
) -> None:
    retrieval = KbRetrieval(herbal_corpus)
    cyclosporine = await retrieval.search(KbSearchRequest(query="ไซโคลสปอรินกับโรคหืด", top_k=3))
    assert _documents(cyclosporine)[0] == CYCLOSPORINE_ASTHMA_PAPER
    # โรคหืด (asthma) is cut into โรค|หืด, and only the whole is a Thai WordNet lemma.
    assert cyclosporine.query_en == "Ciclosporin Cyclosporine asthma" and cyclosporine.untranslated == []
    assert CYCLOSPORINE in cyclosporine.diagnostics.retrieval.query_entities
    # The segmenter cuts เมทฟอร์มิน into เมท|ฟอร์|มิ|น, and WordNet reads เมท as "roommate": the name is
    # read whole instead.
    metformin = await retrieval.search(KbSearchRequest(query="ผู้ป่วยเบาหวานที่ใช้เมทฟอร์มิน", top_k=3))
    assert "Metformin" in (metformin.query_en or "") and "roommate" not in (metformin.query_en or "")
    assert METFORMIN in metformin.diagnostics.retrieval.query_entities and metformin.untranslated == []
    assert METFORMIN_PAPER in _documents(metformin)


@pytest.mark.parametrize(
    "thai",
    ["เด็กวัยเรียน", "อัตราเสี่ยง", "ขึ้นทะเบียน", "ฝีในท้อง", "ที่ราบลุ่ม", "เสียเงิน", "ยาลดไข้สำหรับเด็ก", "ผลข้างเคียงของยาแก้ปวด"],
)
def test_ordinary_thai_words_are_not_read_as_drug_names(thai: str, graph_indexer) -> None:
    # Each of these once read as a drug: school-age children as Dikvertin, risk rate as Atrazine.
    query = cross_lingual(thai, "th", build_lexicon([]), substances=substance_loanwords(graph_indexer.catalog))
    assert not [m for m in query.matches if graph_indexer.catalog.describe(m.entity_id)], query


@pytest.mark.parametrize(
    ("thai", "english"),
    [("ท้องเสีย", "diarrhea"), ("ปวดหัว", "headache"), ("ตับอักเสบ", "hepatitis"), ("หืด", "asthma"),
     ("คลื่นไส้", "nausea")],
)
def test_a_complaint_written_bare_is_read_as_the_disease_or_symptom_wordnet_files_it_under(
    thai: str, english: str
) -> None:
    # Thai WordNet has อาการท้องเสีย (the symptom) and โรคตับอักเสบ (the disease), not the bare words.
    query = cross_lingual(f"ขิงแก้{thai}", "th", build_lexicon([]))
    assert english in query.search_text_en.split() and thai not in query.untranslated, query


@pytest.mark.parametrize(
    ("thai", "wanted", "unwanted"),
    [("ใบบัวบก", {"leaf", "Centella", "asiatica"}, {"bladed"}),
     ("มะระขี้นก", {"Momordica", "charantia"}, {"pigeon", "droppings"}),
     ("ทับทิม", {"pomegranate"}, {"ruby"}),
     ("น้ำตาลในเลือด", {"sugar", "blood"}, {"brown", "gore"}),
     ("ขิงแก้คัน", {"Zingiber", "pruritus"}, {"handle"})],
)
def test_herbs_and_foods_are_read_by_their_names_not_by_literal_wordnet_senses(
    thai: str, wanted: set[str], unwanted: set[str], data_dir
) -> None:
    # Without the graph's names (no `bio-mcp kg import` yet: the shipped herb table) and with them.
    for lexicon in (build_lexicon([]), build_lexicon(herb_names(data_dir))):
        words = set(cross_lingual(thai, "th", lexicon).search_text_en.split())
        assert wanted <= words and not unwanted & words, (thai, words)


# Common complaints as people write them, with the word the literature uses and the WordNet sense
# they were once read by (ไอ, cough, as "vapor"; most others were left untranslated).
COMPLAINTS = {
    "ไอ": ("cough", "vapor"), "ไข้": ("fever", None), "ปวดหัว": ("headache", None),
    "ท้องเสีย": ("diarrhea", None), "เบาหวาน": ("diabetes", None), "ความดัน": ("pressure", None),
    "ความดันโลหิตสูง": ("hypertension", None), "นอนไม่หลับ": ("insomnia", None),
    "ท้องผูก": ("constipation", "costive"), "อาเจียน": ("vomiting", None), "หอบหืด": ("asthma", None),
    "ภูมิแพ้": ("allergy", None), "ซึมเศร้า": ("depression", None), "ริดสีดวง": ("hemorrhoids", None),
    "เวียนหัว": ("dizziness", None), "อ่อนเพลีย": ("fatigue", None), "สิว": ("acne", "pimple"),
    "กรดไหลย้อน": ("reflux", "stolon"), "ไข้เลือดออก": ("dengue", None), "ปวดท้อง": ("abdominal", None),
}


def test_every_shared_thai_herb_with_a_common_complaint_reads_the_complaint_in_its_medical_sense(data_dir) -> None:
    herbs = {name.name for name in herb_names(data_dir) if name.lang == "th"}
    assert len(herbs) > 20
    wrong = []
    for lexicon in (build_lexicon([]), build_lexicon(herb_names(data_dir))):
        for herb in sorted(herbs):
            for thai, (english, literal) in COMPLAINTS.items():
                for query in (f"{herb}กับ{thai}", f"{herb}รักษา{thai}ได้ไหม"):
                    read = cross_lingual(query, "th", lexicon)
                    words = read.search_text_en.lower().split()
                    if english not in words or literal in words or thai in read.untranslated:
                        wrong.append((query, read.search_text_en))
    assert not wrong, wrong[:10]
