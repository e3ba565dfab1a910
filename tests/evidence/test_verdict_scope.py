"""A verdict cites the quotes that support it and says whose finding they report, on real records.

"Does DEHP cause liver cancer?" over the real PubMed records on di(2-ethylhexyl) phthalate: the
abstracts say it causes liver cancer in rats and mice and that there is "little epidemiological
evidence" in humans. The verdict once read "yes, by the quoted evidence [1][2][3][4][5]", citing
the evidence-gap sentences as support and never saying the yes was a rodent finding."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from bio_mcp.eval.corpus_fill import fill_scratch_corpus
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.records import CorpusDocument, corpus_document
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.features.evidence.answer import AnswerContext, rag_answer, summarize, verdict_line
from bio_mcp.features.evidence.answer_focus import QueryReading, read_focus
from bio_mcp.features.evidence.answer_models import RagAnswerRequest
from bio_mcp.features.evidence.answer_verdict import QuotedSentence, read_text, verdict_of
from bio_mcp.graph.indexer import build_graph_indexer
from bio_mcp.search.embeddings import build_embeddings
from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch
from bio_mcp.store import open_metadata_store
from tests.evidence.answer_fixtures import answer_settings, open_answer_context

pytestmark = pytest.mark.anyio

# The real records on DEHP and the liver (pubmed/pubmed_real_records.xml.gz).
DEHP = ("16954067", "22198209", "10388618", "39180124")
# Real records on clofibrate and peroxisome proliferation: 1458550 concludes that "selenium
# deficiency does not have a direct influence on ... peroxisome proliferation, but rather ... the
# pharmacokinetics of clofibrate", 8472324 reports "similar levels of peroxisome proliferation" with
# DEHP, MEHP and clofibrate. Read as negations of clofibrate's effect they made the verdict "no".
CLOFIBRATE = ("9538047", "1458550", "8472324", "6845354")
DISTRACTORS = 60
ON_TOPIC = re.compile(r"clofibr|phthalate|DEHP|peroxisom", re.IGNORECASE)
GAP = "little epidemiological evidence"
NO_CORRELATION = "The physical aspects including hand size, volume and grip power had no correlation with the volume delivered."


def _documents(data_dir: Path) -> list[CorpusDocument]:
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        articles = parse_efetch(handle.read())
    wanted = {*DEHP, *CLOFIBRATE}
    # Distractors on other topics, so the records above are the ones that answer.
    others = [
        a for a in articles if a.pmid not in wanted and not ON_TOPIC.search(f"{a.title} {a.abstract_text}")
    ]
    chosen = [a for a in articles if a.pmid in wanted] + others[:DISTRACTORS]
    assert {a.pmid for a in chosen} >= wanted, (
        "the DEHP or clofibrate records are missing from the shared data"
    )
    return [corpus_document(article, date(2026, 11, 29)) for article in chosen]


@pytest.fixture(scope="module")
def dehp_home(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    home = tmp_path_factory.mktemp("dehp-home")
    settings = answer_settings(home)
    store = open_metadata_store(settings)
    try:
        index = CorpusIndex(store, index_folder(settings), build_embeddings(settings))
        fill_scratch_corpus(
            index, _documents(data_dir), settings.embeddings_batch_size, graph=build_graph_indexer(settings)
        )
    finally:
        store.close()
    return home


@pytest.fixture
def dehp_context(dehp_home: Path) -> Iterator[AnswerContext]:
    yield from open_answer_context(dehp_home)


async def test_a_yes_drawn_from_rodents_says_so_and_cites_only_its_support(dehp_context) -> None:
    response = await rag_answer(RagAnswerRequest(question="Does DEHP cause liver cancer?"), dehp_context)
    assert not response.withheld, response.reason
    assert {c.id for c in response.citations} & {f"pmid:{pmid}" for pmid in DEHP}
    assert response.verdict == "yes"
    assert response.verdict_scope == "animals_or_laboratory"
    first_line = response.answer.splitlines()[0]
    assert first_line.startswith("Verdict: yes") and "none reports it in humans alone" in first_line
    assert summarize(response).splitlines()[0] == first_line
    by_number = {c.number: c for c in response.citations}
    assert response.verdict_citations and set(response.verdict_citations) <= set(by_number)
    for number in response.verdict_citations:
        assert f"[{number}]" in first_line
        # An evidence gap is never cited as support for the yes.
        assert GAP not in by_number[number].quote and "gap in our knowledge" not in by_number[number].quote
    unsupported = set(by_number) - set(response.verdict_citations)
    assert any(GAP in by_number[n].quote or "gap in our knowledge" in by_number[n].quote for n in unsupported)
    for number in unsupported:
        assert f"[{number}]" not in first_line


async def test_a_negation_of_another_agent_does_not_make_the_verdict_no(dehp_context) -> None:
    question = "Does clofibrate cause peroxisome proliferation?"
    response = await rag_answer(RagAnswerRequest(question=question), dehp_context)
    assert not response.withheld, response.reason
    quoted = {c.id for c in response.citations}
    assert "pmid:1458550" in quoted and "pmid:9538047" in quoted
    assert response.verdict == "yes" and response.answer.startswith("Verdict: yes")
    by_number = {c.number: c for c in response.citations}
    support = [by_number[n].quote for n in response.verdict_citations]
    assert any("potently causes peroxisome proliferation" in quote for quote in support)
    # The selenium sentence is quoted, but never as support: it denies something of selenium.
    assert not any("does not have a direct influence" in quote for quote in support)
    assert response.verdict_scope == "animals_or_laboratory"


def test_a_finding_in_people_is_scoped_to_humans() -> None:
    # Real sentences: the abstract of PubMedQA's "Can you deliver accurate tidal volume by manual
    # resuscitator?" (labelled no), and the DEHP record 22198209's (an animal finding, a human gap).
    no = verdict_of(
        [
            QuotedSentence(s, s, 0)
            for s in (
                NO_CORRELATION,
                "114 individuals trained in basic life support and bag-valve-mask ventilation participated in this study.",
                "The manual resuscitator is not a suitable device for accurate ventilation.",
            )
        ]
    )
    assert no.verdict == "no" and no.supporting == (0, 2) and no.scope == "unstated"
    people = verdict_of(
        [
            QuotedSentence(s, s, 0)
            for s in (
                "114 individuals trained in basic life support and bag-valve-mask ventilation participated in this study.",
                "Subjects completed three procedures: one-handed, two-handed and two-handed half-compression.",
            )
        ]
    )
    assert people.verdict == "yes" and people.scope == "humans"
    animals = "There is sufficient evidence for carcinogenicity of DEHP in the liver in both rats and mice"
    gap = "there is little epidemiological evidence on possible associations between exposure to DEHP and liver cancer in humans."
    reading = verdict_of(
        [QuotedSentence(s, s, 0) for s in (f"{animals}.", gap, f"{animals}; however, {gap}")]
    )
    # The whole sentence is hedged by its gap: only the animal finding supports the yes.
    assert (
        reading.verdict == "yes" and reading.supporting == (0,) and reading.scope == "animals_or_laboratory"
    )


def test_a_yes_names_which_of_its_quotes_report_animals_when_the_others_name_no_population() -> None:
    # Real sentences the shared records gave "Does semaglutide reduce body weight?": a meta-analysis
    # (PMID 29915538) naming no population and a rat study (PMID 8838637). The answer once said
    # "These quotes report findings in animals or laboratory models" of all of them.
    reading = verdict_of([QuotedSentence(s, s, 0) for s in (
        "The capacity of glycaemic and body weight control of semaglutide appeared more effective than other "
        "add-on therapies including other GLP-1 receptor agonists of exenatide release and dulaglutide.",
        "At 500 mg/kg/day in the rat there was reduced body weight gain (6% male, 7% female).",
    )])
    assert reading.verdict == "yes" and reading.supporting == (0, 1)
    assert reading.scope == "animals_or_laboratory" and reading.in_models == (1,)
    line = verdict_line(reading.verdict, [1, 2], "en", reading.scope, [2])
    assert line == ("Verdict: yes, by the quoted evidence [1][2]. Of these, findings in animals or laboratory "
                    "models are reported by [2] and no population is named by the others; none reports it in "
                    "humans alone.")
    assert "[2]" in verdict_line(reading.verdict, [1, 2], "th", reading.scope, [2]).split("ในจำนวนนี้")[1]
    # When every supporting quote is an animal or laboratory finding, the answer says so of them all.
    assert verdict_line("yes", [1, 2], "en", "animals_or_laboratory", [1, 2]).endswith(
        "These quotes report findings in animals or laboratory models; none reports it in humans alone.")


async def test_a_safety_question_gets_no_all_clear_while_a_quote_reports_harm(dehp_context) -> None:
    # The verdict once read "yes, by the quoted evidence [1][2][4][5]": a sentence saying DEHP's
    # routes of exposure "are of concern for human health" cited as saying it is safe.
    response = await rag_answer(RagAnswerRequest(question="Is DEHP safe for humans?"), dehp_context)
    assert not response.withheld, response.reason
    assert response.verdict != "yes"
    by_number = {c.number: c for c in response.citations}
    support = [by_number[n].quote for n in response.verdict_citations]
    harms = [q for q in support if re.search(r"concern|carcinogen|contaminant|toxic", q, re.IGNORECASE)]
    assert harms, support
    if response.verdict == "mixed":
        assert any("unlikely" in q or "safe" in q for q in support)
    first_line = response.answer.splitlines()[0]
    assert not first_line.startswith("Verdict: yes")


# Real sentences the shared records gave "Is phthalate exposure safe during pregnancy?": three of the
# NTP report on dibutyl phthalate (PMID 12209194) say what was studied and how people are exposed,
# and one of PMID 2635147 reports harm in pregnant rats. The answer once read "no, by the quoted
# evidence [1][2][3][4]", the three cited as reports of harm ("concern", "contamination", "toxicity
# study") and the rat finding read as one in people ("pregnancy").
NTP_TITLE = ("NTP technical report on the toxicity studies of Dibutyl Phthalate (CAS No. 84-74-2) Administered in "
             "Feed to F344/N Rats and B6C3F1 Mice.")
NTP_SENTENCES = (
    "Furthermore, due to concern over the potential for pervasive exposure of humans to dibutyl phthalate, "
    "additional perinatal studies examined rats and mice exposed as pups in utero, for the 4 weeks of lactation, "
    "and for an additional 4 weeks postweaning.",
    "Concomitant with this extensive worldwide use is the high potential for human exposure to dibutyl phthalate in "
    "the workplace and the home environment through direct sources as well as indirectly, through contamination of "
    "water, air, and foodstuffs.",
    "In the subsequent subchronic toxicity study of dibutyl phthalate with perinatal exposure, dams were administered "
    "diets containing 0 or the MPE concentration (10,000 ppm) during gestation and lactation, and weaned pups were "
    "administered the same diets as their dams received for an additional 4 weeks, until the beginning of the "
    "13-week exposure phase.",
)
FETAL_LIVER_TITLE = ("Biochemical alterations in rat fetal liver following in utero exposure to "
                     "di(2-ethylhexyl)phthalate (DEHP).")
FETAL_LIVER = ("The data indicate that exposure of mothers to DEHP during pregnancy could adversely affect the fetal "
               "livers by interfering with bioenergetics of the cell.")


def test_a_safety_no_needs_a_quote_reporting_harm_and_is_scoped_by_the_study() -> None:
    design = [QuotedSentence(s, s, 0, NTP_TITLE) for s in NTP_SENTENCES]
    # What a study measured, why it was done and how people are exposed report no harm.
    assert verdict_of(design, safety=True).verdict == "insufficient"
    reading = verdict_of([*design, QuotedSentence(FETAL_LIVER, FETAL_LIVER, 0, FETAL_LIVER_TITLE)], safety=True)
    assert reading.verdict == "no" and reading.supporting == (3,)
    # The sentence names mothers and pregnancy, not the species: its title says rats.
    assert reading.scope == "animals_or_laboratory" and reading.in_models == (3,)
    untitled = verdict_of([QuotedSentence(FETAL_LIVER, FETAL_LIVER, 0)], safety=True)
    assert untitled.verdict == "no" and untitled.scope == "unstated"
    # A stated concern still reports harm (PMID 22198209).
    concern = ("Both occupational and environmental routes of exposure to DEHP are of concern for human health.")
    assert verdict_of([QuotedSentence(concern, concern, 0)], safety=True).verdict == "no"


def test_how_the_subject_is_met_is_no_outcome_a_quote_may_stand_on(dehp_context) -> None:
    question = "Is DEHP exposure safe during pregnancy?"
    focus = read_focus(question, QueryReading(question), dehp_context.kb.linker, dehp_context.kb.catalog)
    assert focus.describe() == ("DEHP", "pregnancy")
    assert focus.admits(FETAL_LIVER)
    # PMID 10388618: it names DEHP and exposure, and nothing of pregnancy.
    assert not focus.admits("Exposure of the general human population to DEHP is approximately 30 microg/kg body "
                            "wt/day, the major source being from residues in food.")


def test_not_only_but_also_affirms() -> None:
    # A real conclusion (PubMedQA 15223725's abstract): read as a negation, it turned the verdict of
    # "Does blood pressure change ... depending on whether it is measured by a physician or a nurse?"
    # to no, against its abstract's yes.
    sentence = ("Blood pressure determination by the nurse is desirable not only for diagnosis but also to evaluate "
                "the level of control of blood pressure during the follow-up of treated hypertensive patients.")
    assert not read_text(sentence, True).negated
    assert read_text("Blood pressure determination by the nurse is not desirable.", True).negated
