"""tool.rag_answer on real data: PubMedQA questions over their abstracts among SciFact distractors,
with the real MeSH linker and the shipped embedding model. Answered with >= 3 verified citations
when the question's abstract is indexed, withheld with a reason when it is removed; every span is
the stored text; a tampered span is dropped; τ honoured; bad arguments are VALIDATION; the MCP
sampling path keeps only sentences whose citations check out."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

from bio_mcp.eval.corpus_fill import chunk_uuids_of
from bio_mcp.eval.pubmedqa import PubMedQaItem
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.answer import AnswerContext, AnswerService, rag_answer
from bio_mcp.features.evidence.answer_models import RagAnswerRequest
from bio_mcp.features.evidence.citation_checks import answer_sentences, chunk_id_of, pmid_of, verify_citations
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.search.chunking import chunk_uuid
from bio_mcp.server.app import build_server
from bio_mcp.server.sampling import SamplingAnswerWriter
from bio_mcp.server.toolset import Toolset, call_tool
from bio_mcp.server.toolsets.evidence import answer_tools
from bio_mcp.sources.ncbi.client import EutilsClient
from tests.evidence.answer_fixtures import answer_settings

pytestmark = pytest.mark.anyio
THAI = "\u0e01-\u0e5b"


def first(pubmedqa: list[PubMedQaItem]) -> PubMedQaItem:
    # "Can tailored interventions increase mammography use among HMO women?"
    return pubmedqa[0]


def stored_text(context: AnswerContext, pmid: str, anchor: str) -> str:
    with context.kb.store.read() as tx:
        return tx.chunks.get_many([chunk_uuid(pmid, chunk_id_of(anchor))])[chunk_uuid(pmid, chunk_id_of(anchor))].text


async def test_an_indexed_abstract_is_cited_at_least_three_times_and_answered(answer_context, pubmedqa) -> None:
    item = first(pubmedqa)
    response = await rag_answer(RagAnswerRequest(question=item.question), answer_context)
    assert not response.withheld and response.reason is None, response.scores
    assert len(response.citations) >= 3
    assert f"pmid:{item.pmid}" in {c.id for c in response.citations}
    assert 0.6 <= response.scores.answer_conf <= 1 and 0 <= response.scores.retrieval <= 1
    for citation in response.citations:
        text = stored_text(answer_context, pmid_of(citation.id), citation.anchor)
        assert text[citation.start : citation.end] == citation.quote
        assert citation.span == f"{citation.anchor}:{citation.start}-{citation.end}"
        assert f"“{citation.quote}” [{citation.number}]" in response.answer
    assert all(checked for _, checked in answer_sentences(response))
    # The quotes, and the verdict first: the question is a yes/no one.
    assert len(answer_sentences(response)) == len(response.citations) + 1


async def test_the_same_question_without_its_abstract_is_withheld_with_a_reason(answer_context, pubmedqa) -> None:
    item = first(pubmedqa)
    index = answer_context.kb.index
    uuids = chunk_uuids_of(index, item.pmid)
    answered = await rag_answer(RagAnswerRequest(question=item.question), answer_context)
    index.apply(uuids, [])
    response = await rag_answer(RagAnswerRequest(question=item.question), answer_context)
    assert response.withheld and response.answer == ""
    assert response.reason is not None and response.reason.code in ("low_confidence", "too_few_citations")
    assert response.reason.message
    assert response.citations and f"pmid:{item.pmid}" not in {c.id for c in response.citations}
    assert response.scores.answer_conf < answered.scores.answer_conf
    assert answer_sentences(response) == []


async def test_a_tampered_span_is_dropped(answer_context, pubmedqa) -> None:
    response = await rag_answer(RagAnswerRequest(question=first(pubmedqa).question), answer_context)
    good = response.citations
    shifted = good[0].model_copy(update={"start": good[0].start + 1, "span": f"{good[0].anchor}:{good[0].start + 1}-{good[0].end}"})
    misquoted = good[1].model_copy(update={"quote": good[1].quote.replace("a", "o", 1) + " "})
    elsewhere = good[2].model_copy(update={"anchor": "chunk-99", "span": f"chunk-99:{good[2].start}-{good[2].end}"})
    kept, dropped = verify_citations(answer_context.kb.store, [shifted, misquoted, elsewhere, *good[3:]])
    assert dropped == [shifted, misquoted, elsewhere] and kept == list(good[3:])
    assert verify_citations(answer_context.kb.store, good) == (list(good), [])


async def test_tau_is_honoured(answer_home, pubmedqa) -> None:
    item = first(pubmedqa)
    for tau, withheld in ((1.0, True), (0.0, False)):
        corpus = CorpusService(answer_settings(answer_home, ANSWER_CONF_TAU=tau), EutilsClient(answer_settings(answer_home)),
                               embed_in_background=False, follow_changes=False)
        try:
            response = await AnswerService(KbRetrieval(corpus)).answer(RagAnswerRequest(question=item.question))
        finally:
            await corpus.aclose()
        assert response.withheld is withheld
        if withheld:
            assert response.reason is not None and response.reason.code == "low_confidence"
            assert f"{tau:.2f}" in response.reason.message and response.citations


async def test_thai_framing_keeps_the_quotes_in_english(answer_context, pubmedqa) -> None:
    response = await rag_answer(RagAnswerRequest(question=first(pubmedqa).question, lang="th"), answer_context)
    assert response.lang == "th" and not response.withheld
    # The frame (the verdict, then the lead) is Thai; the quotes keep their English.
    lines = response.answer.split("\n")
    frame, quotes = [line for line in lines if not line.startswith("“")], [line for line in lines if line.startswith("“")]
    assert len(frame) == 2 and quotes and lines[: len(frame)] == frame
    assert all(any(chr(0x0E01) <= ch <= chr(0x0E5B) for ch in line) for line in frame)
    assert all(not any(chr(0x0E01) <= ch <= chr(0x0E5B) for ch in quote) for quote in quotes)
    withheld = await rag_answer(RagAnswerRequest(question="ซซซซ", lang="auto"), answer_context)
    assert withheld.lang == "th" and withheld.withheld
    assert withheld.reason is not None and any(chr(0x0E01) <= ch <= chr(0x0E5B) for ch in withheld.reason.message)


# ---- through the server ------------------------------------------------------------------------


@pytest.fixture
async def corpus(answer_home):
    def make(**extra: Any) -> CorpusService:
        settings = answer_settings(answer_home, **extra)
        made = CorpusService(settings, EutilsClient(settings), embed_in_background=False, follow_changes=False)
        opened.append(made)
        return made

    opened: list[CorpusService] = []
    yield make
    for service in opened:
        await service.aclose()


def server_for(service: CorpusService):
    tools = answer_tools(AnswerService(KbRetrieval(service), writer=SamplingAnswerWriter()))
    return build_server([Toolset(name="evidence", tools=tools)])


async def test_bad_arguments_are_validation_errors_naming_the_field(corpus) -> None:
    spec = answer_tools(AnswerService(KbRetrieval(corpus())))[0]
    for arguments, field in (
        ({"question": ""}, "question"), ({}, "question"), ({"question": "q", "lang": "fr"}, "lang"),
        ({"question": "q", "retrieval": {"top_k": 0}}, "retrieval"), ({"question": "q", "retrieval": {"top_k": 21}}, "retrieval"),
        ({"question": "q", "extra": 1}, "extra"), ({"question": "x" * 2001}, "question"),
    ):
        result = await call_tool(spec, arguments)
        body = json.loads(result.content[0].text)
        assert result.is_error and body["error"]["code"] == "VALIDATION", arguments
        assert field in json.dumps(body["error"]["details"]), (arguments, body)
        assert body["audit"]["status"] == "error"


def sampler(replies: list[str], calls: list[CreateMessageRequestParams]):
    async def sample(context, params: CreateMessageRequestParams) -> CreateMessageResult:
        calls.append(params)
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=replies[0]), model="test-model")

    return sample


async def test_sampling_keeps_only_sentences_whose_citations_check_out(corpus, pubmedqa) -> None:
    item = first(pubmedqa)
    calls: list[CreateMessageRequestParams] = []
    async with Client(server_for(corpus(BIO_MCP_ANSWER_SAMPLING="true"))) as plain:
        extractive = (await plain.call_tool("tool_rag_answer", {"question": item.question})).structured_content
    quote = extractive["citations"][0]["quote"]
    written = [
        "Telephone counseling raised on-schedule mammography use [1].",
        f"The trial reported: \"{quote}\" [1][2]",
        "It also cured every cancer [9].",
        "Tailored print was useless.",
        "The study states \"mammograms are harmful\" [2].",
    ]
    reply = " ".join(written)
    # Sampling needs a back-channel in the middle of a call: a handshake-era connection.
    async with Client(server_for(corpus(BIO_MCP_ANSWER_SAMPLING="true")), sampling_callback=sampler([reply], calls),
                      mode="legacy") as client:
        result = await client.call_tool("tool_rag_answer", {"question": item.question})
    body = result.structured_content
    assert not result.is_error and len(calls) == 1
    assert "[1]" in calls[0].messages[0].content.text and quote in calls[0].messages[0].content.text
    assert body["mode"] == "sampled" and body["dropped_sentences"] == 3
    # The verdict opens a written answer too; the model's checked sentences follow.
    assert body["verdict"] is not None and body["answer"].startswith("Verdict: ")
    assert body["answer"].endswith(f" {written[0]} {written[1]}")
    assert body["citations"] == extractive["citations"] and body["audit"]["status"] == "ok"
    assert body["answer"] in result.content[0].text


async def test_without_sampling_the_answer_is_extractive(corpus, pubmedqa) -> None:
    item = first(pubmedqa)
    calls: list[CreateMessageRequestParams] = []
    # Sampling off: the client's model is never asked.
    async with Client(server_for(corpus()), sampling_callback=sampler(["Anything [1]."], calls)) as client:
        off = (await client.call_tool("tool_rag_answer", {"question": item.question})).structured_content
    assert calls == [] and off["mode"] == "extractive"
    # On, but the client declares no sampling capability.
    async with Client(server_for(corpus(BIO_MCP_ANSWER_SAMPLING="true")), mode="legacy") as client:
        unable = (await client.call_tool("tool_rag_answer", {"question": item.question})).structured_content
    assert unable["mode"] == "extractive" and unable["answer"] == off["answer"]
    # On, with a sampling client on a 2026-07-28 connection (no back-channel mid-call).
    async with Client(server_for(corpus(BIO_MCP_ANSWER_SAMPLING="true")), sampling_callback=sampler(["Anything [1]."], calls)) as client:
        modern = (await client.call_tool("tool_rag_answer", {"question": item.question})).structured_content
    assert calls == [] and modern["mode"] == "extractive" and modern["answer"] == off["answer"]
    # On, and every written sentence fails its check: the extractive answer stands.
    async with Client(server_for(corpus(BIO_MCP_ANSWER_SAMPLING="true")),
                      sampling_callback=sampler(["Unsupported claim [7]. Another one."], calls), mode="legacy") as client:
        failed = (await client.call_tool("tool_rag_answer", {"question": item.question})).structured_content
    assert len(calls) == 1 and failed["mode"] == "extractive" and failed["answer"] == off["answer"]
    assert {k: v for k, v in off.items() if k != "audit"} == {k: v for k, v in failed.items() if k != "audit"}
    assert off["audit"]["out_hash"] == failed["audit"]["out_hash"]


async def test_on_an_empty_corpus_the_withheld_answer_says_how_to_fill_it(tmp_path, pubmedqa) -> None:
    settings = answer_settings(tmp_path)
    service = CorpusService(settings, EutilsClient(settings), embed_in_background=False, follow_changes=False)
    try:
        spec = answer_tools(AnswerService(KbRetrieval(service)))[0]
        for lang, phrase in (("en", "The local corpus is empty"), ("th", "คลังข้อมูลยังว่างอยู่")):
            result = await call_tool(spec, {"question": pubmedqa[0].question, "lang": lang})
            body = result.structured_content
            assert not result.is_error and body["withheld"] and body["reason"]["code"] == "no_evidence"
            assert phrase in body["reason"]["message"] and "pubmed.sync_delta" in body["reason"]["message"]
            assert phrase in result.content[0].text
    finally:
        await service.aclose()
