"""Free questions end to end over the fake E-utilities and ClinicalTrials.gov serving real recorded
records: a plan of literature search, records and trials; an answer that quotes each publication
verbatim with its PMID, says when evidence is thin or absent (silence, not a finding), and reports
an outage as an outage.

The recording holds no metformin record or study, and none on turmeric by that name: those two
questions (the issue's) truthfully find nothing. One record (PMID 26585812) is about curcumin and
inflammation: that question shows a quoted, thin answer."""

from __future__ import annotations

import gzip
from datetime import date

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.ask import orchestrate
from bio_mcp.features.analyst.models import AskRequest
from bio_mcp.features.analyst.quotes import best_quote, on_question

pytestmark = pytest.mark.anyio

TODAY = date(2026, 8, 11)
PLAN = [("search_pubs", "pubmed.search"), ("hydrate", "pubmed.get"), ("find_trials", "ctgov.search")]


async def ask(analyst, question: str):
    request = AskRequest(question=question, fetch_policy="network_only", time_budget_ms=30_000)
    return await orchestrate(request, analyst, today=TODAY)


@pytest.mark.parametrize(
    "question", ["Is metformin associated with lower cancer risk?", "ขมิ้นชันช่วยลดการอักเสบหรือไม่"]
)
async def test_the_issues_questions_are_planned_and_say_nothing_was_found(
    fakes, analyst, question: str
) -> None:
    response = await ask(analyst, question)
    assert [(s.id, s.tool) for s in response.trace.plan.steps] == PLAN
    assert all(step.status == "ok" for step in response.trace.steps)
    searched = [a.param("term") for a in fakes.eutils.requests if a.path.endswith("esearch.fcgi")]
    assert searched == [f"({response.trace.frame.entities.topic})"]
    assert fakes.ctgov.requests[0].param("query.term") == response.trace.frame.entities.topic
    assert "Evidence: none found" in response.answer and "silence, not a negative finding" in response.answer
    assert "No registered trial matched" in response.answer and "[PMID" not in response.answer


async def test_a_found_publication_is_quoted_verbatim_and_thin_evidence_is_said(
    fakes, analyst, data_dir
) -> None:
    response = await ask(analyst, "Does curcumin reduce inflammation?")
    quote = (
        "The various activities of curcumin, including anticancer, anti-inflammation, antioxidation, and "
        "immunomodulation, have been investigated extensively."
    )
    assert f'- [PMID 26585812] "{quote}"' in response.answer
    assert "Evidence is thin: 1 publication(s)" in response.answer and "not a verdict" in response.answer
    assert (
        quote in gzip.decompress((data_dir / "pubmed" / "pubmed_real_records.xml.gz").read_bytes()).decode()
    )


async def test_pubmed_down_is_said_and_both_down_is_an_outage(fakes, analyst) -> None:
    fakes.eutils.inject(fakes.eutils.server_error(503), times=None)
    response = await ask(analyst, "Does curcumin reduce inflammation?")
    assert "PubMed could not be searched" in response.answer and "Evidence: none found" not in response.answer
    assert [f.step for f in response.failures] == ["search_pubs"]
    fakes.ctgov.inject(fakes.ctgov.server_error(503), times=None)
    with pytest.raises(BioMcpError) as raised:
        await ask(analyst, "Does curcumin reduce inflammation?")
    assert raised.value.code is ErrorCode.UPSTREAM


def test_a_sentence_naming_only_part_of_the_question_is_not_quoted() -> None:
    # PMID 26585812's sentence names curcumin and inflammation, and nothing about metformin.
    sentence = ("The various activities of curcumin, including anticancer, anti-inflammation, antioxidation, and "
                "immunomodulation, have been investigated extensively.")
    article = {"title": "", "abstract": [{"label": None, "text": sentence}]}
    assert on_question(best_quote(article, "curcumin inflammation")[1], "curcumin inflammation")
    assert not on_question(best_quote(article, "metformin inflammation")[1], "metformin inflammation")
    assert not on_question(best_quote(article, "curcumin cancer risk")[1], "curcumin cancer risk")
