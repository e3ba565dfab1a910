"""tool.rag_answer cites an ingested file like a PubMed record: its `file:` key, its file URI, a
span checked against its stored chunk, and the graph Section of the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.features.evidence.answer import AnswerService
from bio_mcp.features.evidence.answer_models import RagAnswerRequest
from bio_mcp.features.evidence.ingest_models import IngestRunRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.graph.ids import section_node_id
from tests.evidence.ingest.conftest import IngestEnv, with_names
from tests.evidence.ingest.documents import ppr_abstracts

pytestmark = pytest.mark.anyio


async def test_an_answer_cites_the_ingested_file_it_quotes(ingest_env: IngestEnv, data_dir: Path) -> None:
    documents = ppr_abstracts(data_dir, 4)
    paths = []
    for pmid, abstract in documents:
        path = ingest_env.root / f"ppr-{pmid}.md"
        path.write_text(f"# {abstract.title}\n\n" + "\n\n".join(abstract.paragraphs) + "\n", encoding="utf-8")
        paths.append(path)
    service = await with_names(ingest_env.make(), data_dir)
    response = await service.run(IngestRunRequest.model_validate(
        {"dry_run": False, "batch": [{"uri": path.as_uri()} for path in paths]}))
    assert response.status == "done", response.error
    keys = {report.source_uri: report.doc_id for report in response.files}

    title = documents[0][1].title
    answer = await AnswerService(KbRetrieval(service.corpus)).answer(RagAnswerRequest(question=title))

    cited = [c for c in answer.citations if c.uri == paths[0].resolve().as_uri()]
    assert cited, [c.uri for c in answer.citations]
    for citation in cited:
        assert citation.id == keys[citation.uri] and citation.id.startswith("file:")
        assert citation.section_id == section_node_id(citation.uri, citation.anchor.removeprefix("chunk-"))
        with service.corpus.store.read() as tx:
            chunk = next(c for c in tx.chunks.for_document(citation.id) if f"chunk-{c.chunk_id}" == citation.anchor)
        assert chunk.text[citation.start:citation.end] == citation.quote


@pytest.mark.model
async def test_a_sentence_two_documents_share_is_quoted_once(ingest_env: IngestEnv, data_dir: Path) -> None:
    # The same paper stored twice (as a PDF's text and as Markdown, or as a PubMed record and a file)
    # quoted each of its best sentences twice, filling the answer's citations with repeats.
    pmid, abstract = ppr_abstracts(data_dir, 1)[0]
    text = f"# {abstract.title}\n\n" + "\n\n".join(abstract.paragraphs) + "\n"
    paths = [ingest_env.root / f"ppr-{pmid}.md", ingest_env.root / f"copy-of-{pmid}.md"]
    for path in paths:
        path.write_text(text, encoding="utf-8")
    # The real model: the hash embedder's sentence vectors hide the repeats behind low relevance.
    service = await with_names(ingest_env.make(BIO_MCP_EMBEDDINGS_PROVIDER="onnx"), data_dir)
    response = await service.run(IngestRunRequest.model_validate(
        {"dry_run": False, "batch": [{"uri": path.as_uri()} for path in paths]}))
    assert response.status == "done", response.error

    answer = await AnswerService(KbRetrieval(service.corpus)).answer(RagAnswerRequest(question=abstract.title))

    quotes = [" ".join(citation.quote.split()) for citation in answer.citations]
    assert len(quotes) >= 2 and len(set(quotes)) == len(quotes), quotes
