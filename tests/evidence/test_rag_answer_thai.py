"""tool.rag_answer on the issue's Thai question over the real PPR abstracts: the Thai herb name is
searched through its English names, and the answer cites the English Andrographis literature (or
withholds), framed in Thai with its quotes in English."""

from __future__ import annotations

import re

import pytest

from bio_mcp.features.evidence.answer import AnswerService
from bio_mcp.features.evidence.answer_focus import QueryReading
from bio_mcp.features.evidence.answer_models import RagAnswerRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from tests.evidence.evidence_fixtures import ANDROGRAPHIS_PAPER

pytestmark = pytest.mark.anyio

QUESTION = "สรรพคุณของฟ้าทะลายโจรคืออะไร"  # what are Andrographis's medicinal properties?


async def test_a_thai_question_cites_the_english_andrographis_papers(retrieval: KbRetrieval) -> None:
    response = await AnswerService(retrieval).answer(RagAnswerRequest(question=QUESTION, lang="th",
                                                                      retrieval={"top_k": 5}))
    cited = {citation.id for citation in response.citations}
    assert f"pmid:{ANDROGRAPHIS_PAPER}" in cited
    assert any(re.search(r"androgra", citation.quote or "", re.IGNORECASE) for citation in response.citations)
    assert response.lang == "th"
    if response.withheld:
        assert response.reason is not None and response.answer == ""
    else:
        assert len(response.citations) >= 3
        # Framed in Thai, quoting the English evidence as it stands.
        assert re.search(r"[\u0E01-\u0E5B]", response.answer) and re.search(r"[A-Za-z]{4,}", response.answer)


async def test_without_the_rewrite_the_thai_question_finds_nothing_to_cite(retrieval: KbRetrieval) -> None:
    class Verbatim:
        def read(self, question: str, lang: str) -> QueryReading:
            return QueryReading(question)

    response = await AnswerService(retrieval, rewriter=Verbatim()).answer(
        RagAnswerRequest(question=QUESTION, lang="th"))
    assert f"pmid:{ANDROGRAPHIS_PAPER}" not in {citation.id for citation in response.citations}
    assert response.withheld
