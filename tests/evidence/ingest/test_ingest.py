"""tool.ingest.run on real text: PPR abstracts as PDFs with a text layer, Markdown and HTML; dry runs,
writes into the corpus and graph, re-ingestion, refusals, and jobs that survive a restart."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.models import RagSearchRequest
from bio_mcp.features.evidence.ingest_models import IngestRunRequest
from bio_mcp.features.kb.models import KbSearchRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.graph.ids import document_node_id
from bio_mcp.store.schema import (
    chunks,
    documents,
    ingest_jobs,
    ingested_files,
    kg_edges,
    kg_mentions,
    kg_nodes,
)
from tests.evidence.ingest.conftest import IngestEnv, with_names
from tests.evidence.ingest.documents import SampleDocument, ppr_abstracts, text_pdf

pytestmark = pytest.mark.anyio


def _request(*paths: Path, dry_run: bool, **extra: object) -> IngestRunRequest:
    return IngestRunRequest.model_validate(
        {"dry_run": dry_run, "batch": [{"uri": path.as_uri()} for path in paths], **extra}
    )


def _rows(service, table: sa.Table) -> int:
    with service.corpus.store.read() as tx:
        return int(tx.connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def _markdown(document: SampleDocument) -> str:
    return f"# {document.title}\n\n## Abstract\n\n" + "\n\n".join(document.paragraphs) + "\n"


def _html(document: SampleDocument) -> str:
    body = "".join(f"<p>{paragraph}</p>" for paragraph in document.paragraphs)
    return (
        f"<html><head><title>{document.title}</title><style>p {{color: red}}</style></head>"
        f"<body><h1>{document.title}</h1><h2>Results</h2>{body}<script>var x = 1;</script></body></html>"
    )


async def test_dry_run_reports_what_it_would_write_and_writes_nothing(
    ingest_env: IngestEnv, data_dir: Path, pdf_tools: None
) -> None:
    (_, first), (_, second), (_, third) = ppr_abstracts(data_dir, 3)
    pdf = text_pdf(ingest_env.root / "first.pdf", first)
    markdown = ingest_env.root / "second.md"
    markdown.write_text(_markdown(second), encoding="utf-8")
    html = ingest_env.root / "third.html"
    html.write_text(_html(third), encoding="utf-8")
    service = await with_names(ingest_env.make(), data_dir)

    response = await service.run(_request(pdf, markdown, html, dry_run=True))

    assert response.status == "done" and response.dry_run
    assert [f.status for f in response.files] == ["would_write"] * 3
    assert [f.doc_type for f in response.files] == ["pdf", "markdown", "html"]
    pdf_report, md_report, html_report = response.files
    assert pdf_report.pages == 1 and pdf_report.ocr_pages == 0
    assert pdf_report.characters >= len("".join(first.text.split())) * 0.9
    assert md_report.sections == 1 and html_report.sections == 1
    # PPR abstracts are about plants and phenotypes: the MeSH linker finds entities in each.
    assert all(f.entities > 0 and f.chunks > 0 for f in response.files)
    assert response.counts.files == 3 and response.counts.written == 0
    for table in (documents, chunks, kg_nodes, kg_edges, kg_mentions, ingested_files):
        assert _rows(service, table) == 0, table.name
    with service.corpus.store.read() as tx:
        assert tx.changes.head() == 0
    log = await service.job_log(response.job_id)
    assert "first.pdf" in log and "done" in log


async def test_written_file_is_a_graph_document_searchable_by_kb_search_and_reingest_is_a_no_op(
    ingest_env: IngestEnv, data_dir: Path, database_url: str | None, pdf_tools: None
) -> None:
    pmid, abstract = ppr_abstracts(data_dir, 1)[0]
    pdf = text_pdf(ingest_env.root / f"ppr-{pmid}.pdf", abstract)
    service = await with_names(ingest_env.make(database_url), data_dir)

    response = await service.run(_request(pdf, dry_run=False))

    assert response.status == "done", response.error
    report = response.files[0]
    assert report.status == "written" and report.doc_id and report.doc_id.startswith("file:")
    assert report.source_uri == pdf.resolve().as_uri()
    doc_node = document_node_id(pdf.resolve().as_uri())
    with service.corpus.store.read() as tx:
        node = tx.connection.execute(sa.select(kg_nodes).where(kg_nodes.c.id == doc_node)).mappings().one()
        assert node["label"] == "Document" and node["source_uri"] == pdf.resolve().as_uri()
        assert node["source_type"] == "file" and node["title"] == abstract.title
        sections = tx.connection.execute(
            sa.select(kg_nodes.c.id).where(kg_nodes.c.label == "Section", kg_nodes.c.document_id == doc_node)
        ).scalars().all()
        assert len(sections) == report.chunks > 0
        mentions = tx.connection.execute(
            sa.select(kg_mentions.c.dst).where(kg_mentions.c.src.in_(sections))
        ).scalars().all()
        assert len(set(mentions)) == report.entities
        stored = tx.documents.get(report.doc_id)
        assert stored is not None and stored.version == 1
        head = tx.changes.head()

    # The corpus's one index serves the file to kb.search, under its file URI...
    query = " ".join(abstract.title.split()[:8])
    found = await KbRetrieval(service.corpus).search(KbSearchRequest(query=query, top_k=5))
    uris = [item.metadata.doc_uri for item in found.evidence]
    assert pdf.resolve().as_uri() in uris
    item = found.evidence[uris.index(pdf.resolve().as_uri())]
    assert item.metadata.doc_id == report.doc_id and item.section_id in sections
    # ...while rag.search keeps its PubMed contract (doc ids pmid:N only).
    rag = await service.corpus.search(RagSearchRequest(query=query, top_k=5))
    assert all(result.doc_id.startswith("pmid:") for result in rag.results)

    again = await service.run(_request(pdf, dry_run=False))
    assert again.status == "done" and again.files[0].status == "unchanged"
    assert again.files[0].entities == report.entities
    with service.corpus.store.read() as tx:
        assert tx.changes.head() == head
        assert tx.documents.get(report.doc_id).version == 1  # type: ignore[union-attr]


async def test_a_changed_file_is_written_again_as_a_new_version(
    ingest_env: IngestEnv, data_dir: Path, pdf_tools: None
) -> None:
    (_, first), (_, second) = ppr_abstracts(data_dir, 2)
    path = ingest_env.root / "paper.md"
    path.write_text(_markdown(first), encoding="utf-8")
    service = ingest_env.make()
    written = await service.run(_request(path, dry_run=False))
    path.write_text(_markdown(second), encoding="utf-8")
    rewritten = await service.run(_request(path, dry_run=False))
    assert rewritten.files[0].status == "written" and rewritten.files[0].doc_id == written.files[0].doc_id
    with service.corpus.store.read() as tx:
        stored = tx.documents.get(written.files[0].doc_id)  # type: ignore[arg-type]
        assert stored is not None and stored.version == 2 and stored.title == second.title
    assert _rows(service, ingested_files) == 1


def _encrypted(source: Path, target: Path) -> Path:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(source).pages:
        writer.add_page(page)
    writer.encrypt(user_password="secret", owner_password="owner")
    with target.open("wb") as handle:
        writer.write(handle)
    return target


async def test_refusals_are_clear_and_write_nothing(ingest_env: IngestEnv, data_dir: Path, pdf_tools: None) -> None:
    (_, abstract), = ppr_abstracts(data_dir, 1)
    good = text_pdf(ingest_env.root / "good.pdf", abstract)
    outside = text_pdf(ingest_env.outside / "outside.pdf", abstract)
    link = ingest_env.root / "link.pdf"
    link.symlink_to(outside)
    encrypted = _encrypted(good, ingest_env.root / "locked.pdf")
    truncated = ingest_env.root / "truncated.pdf"
    truncated.write_bytes(good.read_bytes()[:400])
    not_pdf = ingest_env.root / "notes.pdf"
    not_pdf.write_text(abstract.text, encoding="utf-8")
    service = ingest_env.make(BIO_MCP_INGEST_MAX_BYTES=good.stat().st_size + 1)
    big = ingest_env.root / "big.txt"
    big.write_text(abstract.text * 10, encoding="utf-8")

    cases = {
        outside: "outside the ingestion roots",
        link: "symlink leading outside",
        big: "over the ingestion limit",
        encrypted: "encrypted PDF",
        truncated: "not a readable PDF",
        not_pdf: "not a readable PDF",
    }
    for path, message in cases.items():
        with pytest.raises(BioMcpError) as caught:
            # The good file first: one bad file refuses the whole batch before anything runs.
            await service.run(_request(good, path, dry_run=False))
        assert caught.value.code is ErrorCode.VALIDATION, path
        assert message in caught.value.message, (path, caught.value.message)
    for table in (documents, chunks, kg_nodes, ingested_files, ingest_jobs):
        assert _rows(service, table) == 0, table.name


async def test_a_folder_is_ingested_file_by_file(ingest_env: IngestEnv, data_dir: Path) -> None:
    """A folder stands for its PDF, text, Markdown and HTML files, subfolders included; other files and
    hidden ones are passed over. `bio-mcp ingest FOLDER` had refused it as "not a regular file"."""
    (first_pmid, first), (second_pmid, second), (_, third) = ppr_abstracts(data_dir, 3)
    folder = ingest_env.root / "papers"
    (folder / "2024").mkdir(parents=True)
    (folder / f"{first_pmid}.md").write_text(_markdown(first), encoding="utf-8")
    (folder / "2024" / f"{second_pmid}.html").write_text(_html(second), encoding="utf-8")
    (folder / "notes.csv").write_text("not, a, paper\n", encoding="utf-8")
    (folder / ".draft.txt").write_text(third.title, encoding="utf-8")
    service = ingest_env.make()
    response = await service.run(_request(folder, dry_run=False))
    assert response.status == "done", response.error
    assert [report.uri for report in response.files] == [
        (folder / f"{first_pmid}.md").as_uri(), (folder / "2024" / f"{second_pmid}.html").as_uri()]
    assert response.counts.files == 2 and response.counts.written == 2
    assert _rows(service, ingested_files) == 2
    # Only the HTML files of the folder, when the batch item asks for html.
    only_html = await service.run(_request(folder, dry_run=True, batch=[{"uri": folder.as_uri(), "doc_type": "html"}]))
    assert [report.uri for report in only_html.files] == [(folder / "2024" / f"{second_pmid}.html").as_uri()]
    empty = ingest_env.root / "empty"
    empty.mkdir()
    with pytest.raises(BioMcpError, match="holds no PDF, text, Markdown or HTML files") as caught:
        await service.run(_request(empty, dry_run=True))
    assert caught.value.code is ErrorCode.VALIDATION
    with pytest.raises(BioMcpError, match="outside the ingestion roots"):
        await service.run(_request(ingest_env.outside, dry_run=True))


async def test_no_roots_means_no_ingestion(ingest_env: IngestEnv, data_dir: Path) -> None:
    path = ingest_env.root / "a.txt"
    path.write_text(ppr_abstracts(data_dir, 1)[0][1].text, encoding="utf-8")
    service = ingest_env.make(BIO_MCP_INGEST_ROOTS="")
    with pytest.raises(BioMcpError, match="BIO_MCP_INGEST_ROOTS") as caught:
        await service.run(_request(path, dry_run=True))
    assert caught.value.code is ErrorCode.VALIDATION


async def test_a_job_left_running_by_a_dead_server_is_resumed_on_restart(
    ingest_env: IngestEnv, data_dir: Path, pdf_tools: None
) -> None:
    (_, first), (_, second) = ppr_abstracts(data_dir, 2)
    done_path = text_pdf(ingest_env.root / "done.pdf", first)
    pending_path = text_pdf(ingest_env.root / "pending.pdf", second)
    before = ingest_env.make()
    written = await before.run(_request(done_path, dry_run=False))
    # A server died mid-job: the row says running, the first file is written, the second is not.
    request = _request(done_path, pending_path, dry_run=False)
    with before.corpus.store.transaction() as tx:
        tx.ingest_jobs.create("0" * 32, request.model_dump(mode="json"), dry_run=False)
        tx.ingest_jobs.update("0" * 32, status="running", log_lines=["job running (writing)"])
    await before.aclose()
    await before.corpus.aclose()

    after = ingest_env.make()
    assert await after.resume() == ["0" * 32]
    job = await after.wait("0" * 32, timeout_s=300)

    assert job.status == "done", job.error
    assert [f.status for f in job.files] == ["unchanged", "written"]
    assert job.files[0].doc_id == written.files[0].doc_id
    assert "resumed after a restart (was running)" in await after.job_log("0" * 32)
    assert _rows(after, ingested_files) == 2
    assert await after.resume() == []


async def test_graph_rebuild_keeps_ingested_files_under_their_file_uri(
    ingest_env: IngestEnv, data_dir: Path, graph_indexer
) -> None:
    from bio_mcp.features.kb.rebuild import rebuild_graph

    (_, abstract), = ppr_abstracts(data_dir, 1)
    path = ingest_env.root / "abstract.md"
    path.write_text(_markdown(abstract), encoding="utf-8")
    service = ingest_env.make()
    written = await service.run(_request(path, dry_run=False))
    doc_node = document_node_id(path.resolve().as_uri())

    def graph_of() -> tuple[dict, list[str]]:
        with service.corpus.store.read() as tx:
            node = dict(tx.connection.execute(sa.select(kg_nodes).where(kg_nodes.c.id == doc_node)).mappings().one())
            sections = sorted(tx.connection.execute(
                sa.select(kg_nodes.c.id).where(kg_nodes.c.document_id == doc_node)
            ).scalars())
        return node, sections

    before, sections_before = graph_of()
    report = rebuild_graph(service.corpus.store, graph_indexer)
    after, sections_after = graph_of()

    assert report.documents == 1
    assert after["source_uri"] == before["source_uri"] == path.resolve().as_uri() and after["source_type"] == "file"
    assert sections_after == sections_before and len(sections_after) == written.files[0].chunks


async def test_the_server_resumes_left_over_jobs_when_it_starts(bio_home: Path, tmp_path: Path, data_dir: Path) -> None:
    from bio_mcp.config import load_settings
    from bio_mcp.server.composition import build_toolsets
    from bio_mcp.server.runtime import Runtime
    from bio_mcp.store import open_metadata_store

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (_, abstract), = ppr_abstracts(data_dir, 1)
    path = inbox / "left-over.md"
    path.write_text(_markdown(abstract), encoding="utf-8")
    settings = load_settings(
        BIO_MCP_HOME=str(bio_home), BIO_MCP_EMBEDDINGS_PROVIDER="hash", BIO_MCP_INGEST_ROOTS=str(inbox),
        BIO_MCP_GRAPH_LINKING="false",
    )
    store = open_metadata_store(settings)
    with store.transaction() as tx:
        tx.ingest_jobs.create("a" * 32, _request(path, dry_run=False).model_dump(mode="json"), dry_run=False)
    store.close()

    async with Runtime(settings) as runtime:
        await runtime.warm_up(build_toolsets(runtime, ["evidence"]))
        job = await runtime.ingest.wait("a" * 32, timeout_s=300)

    assert job.status == "done" and job.files[0].status == "written", job.error
