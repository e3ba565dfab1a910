"""Relations from ingested files: a text file and a PDF made of a real BC5CDR training abstract, and a
text file of a real PPR abstract about a herb's harm, state in `kg_relation_evidence` exactly what a
sync of the same text states, with spans of the stored text, in the transaction that writes the
document; tool.query_kg and tool.find_contraindications then quote them (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from mcp import Client

from bio_mcp.eval.pubtator import PubtatorDocument, read_pubtator
from bio_mcp.features.corpus.records import chunk_records
from bio_mcp.features.evidence.herb_knowledge import HerbKnowledge
from bio_mcp.features.evidence.ingest_jobs import IngestService
from bio_mcp.features.evidence.ingest_models import IngestRunRequest
from bio_mcp.features.kb.rebuild import rebuild_graph
from bio_mcp.graph.elements import CAUSES
from bio_mcp.graph.ids import document_node_id, section_node_id
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.server.app import build_server
from bio_mcp.server.toolset import Toolset
from bio_mcp.server.toolsets.evidence import herb_tools
from bio_mcp.store.document_keys import file_document_key
from bio_mcp.store.schema import chunks, documents, ingested_files, kg_edges, kg_nodes, kg_relation_evidence
from tests.evidence.ingest.conftest import IngestEnv
from tests.evidence.ingest.documents import SampleDocument, ppr_abstracts, text_pdf
from tests.evidence.refused_writes import allow_inserts, refuse_inserts

pytestmark = pytest.mark.anyio

# BC5CDR training: "Lidocaine-induced cardiac asystole." (gold CID: lidocaine, heart arrest).
CID_ABSTRACT = "354896"
# PPR training: "... T. wilfordii-induced liver injury ..." (Tripterygium wilfordii's hepatotoxicity).
HERB_HARM_ABSTRACT = "26697674"

Statement = tuple[str, str, str, str]  # src, type, dst, sentence


def _bc5cdr(data_dir: Path, pmid: str) -> PubtatorDocument:
    found = read_pubtator(data_dir / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt")
    return next(document for document in found if document.pmid == pmid)


def _ppr(data_dir: Path, pmid: str) -> SampleDocument:
    return dict(ppr_abstracts(data_dir, 10**6, split="train"))[pmid]


def _synced(graph: GraphIndexer, pmid: str, title: str, abstract: str) -> set[Statement]:
    """What a sync states of this text: the record's chunks annotated as `sync._annotate` does."""
    records = chunk_records(pmid, title, abstract)
    texts = {chunk.chunk_id: chunk.text for chunk in records}
    found = graph.annotate(records).relations
    return {(r.src, r.type, r.dst, texts[chunk_id][r.start : r.end]) for chunk_id, rows in found.items() for r in rows}


def _request(*paths: Path) -> IngestRunRequest:
    return IngestRunRequest.model_validate({"dry_run": False, "batch": [{"uri": path.as_uri()} for path in paths]})


def _stored(service: IngestService, path: Path) -> tuple[set[Statement], list[Any]]:
    """The file document's evidence as statements, after checking every row against its section's
    stored text (sentence = text[start:end]) and its document and source."""
    uri = path.resolve().as_uri()
    with service.corpus.store.read() as tx:
        rows = tx.connection.execute(
            sa.select(kg_relation_evidence).where(kg_relation_evidence.c.document_id == document_node_id(uri))
        ).all()
        texts = {
            section_node_id(uri, row.chunk_id): row.text
            for row in tx.connection.execute(
                sa.select(chunks.c.chunk_id, chunks.c.text).where(chunks.c.pmid == file_document_key(uri))
            )
        }
        edges = {
            (row.src, row.type, row.dst)
            for row in tx.connection.execute(sa.select(kg_edges.c.src, kg_edges.c.type, kg_edges.c.dst))
        }
    for row in rows:
        assert row.source == uri and row.section_id in texts
        assert row.sentence == texts[row.section_id][row.start : row.end] and row.sentence
        assert (row.src, row.type, row.dst) in edges
    return {(row.src, row.type, row.dst, row.sentence) for row in rows}, rows


async def _call(service: IngestService, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    tools, resources = herb_tools(HerbKnowledge(service.corpus))
    async with Client(build_server([Toolset(name="evidence", tools=tools, resources=resources)])) as client:
        await client.list_tools()  # so the client validates the result against the tool's output schema
        result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content[0].text
    return {"structured": result.structured_content, "text": result.content[0].text}


async def test_a_text_file_and_a_pdf_state_what_a_sync_of_their_abstract_states(
    ingest_env: IngestEnv, data_dir: Path, database_url: str | None, sync_graph: GraphIndexer, pdf_tools: None
) -> None:
    abstract = _bc5cdr(data_dir, CID_ABSTRACT)
    synced = _synced(sync_graph, abstract.pmid, abstract.title, abstract.abstract)
    gold = {(f"mesh:{chemical}", CAUSES, f"mesh:{disease}") for _, chemical, disease in abstract.relations}
    assert {(s, t, d) for s, t, d, _ in synced} & gold, "the extractor finds no gold pair of the synced abstract"
    text = ingest_env.root / f"bc5cdr-{abstract.pmid}.txt"
    text.write_text(f"{abstract.title}\n\n{abstract.abstract}\n", encoding="utf-8")
    pdf = text_pdf(ingest_env.root / f"bc5cdr-{abstract.pmid}.pdf", SampleDocument(abstract.title, [abstract.abstract]))
    service = ingest_env.make(database_url, graph=sync_graph)

    response = await service.run(_request(text, pdf))

    assert response.status == "done", response.error
    for path, report in zip((text, pdf), response.files, strict=True):
        stated, rows = _stored(service, path)
        assert stated == synced, path.name
        assert report.relations == len(rows) > 0
    assert response.counts.relations == sum(report.relations for report in response.files)

    # tool.query_kg from the gold disease back to its chemical quotes the two files.
    chemical, _, disease = min({(s, t, d) for s, t, d, _ in synced} & gold)
    answer = await _call(service, "tool.query_kg", {"start": {"type": "indication", "id": disease}, "max_depth": 1})
    paths = answer["structured"]["paths"]
    [index] = [i for i, path in enumerate(paths) if [node["id"] for node in path] == [disease, chemical]]
    [edge] = answer["structured"]["edges"][index]
    assert edge["type"] == CAUSES and edge["documents"] == 2
    sentences = {sentence for s, _, d, sentence in synced if (s, d) == (chemical, disease)}
    assert {evidence["source"] for evidence in edge["evidence"]} <= {text.resolve().as_uri(), pdf.resolve().as_uri()}
    assert {evidence["sentence"] for evidence in edge["evidence"]} <= sentences


async def test_a_herb_harm_in_an_ingested_file_is_what_find_contraindications_states(
    ingest_env: IngestEnv, data_dir: Path, sync_graph: GraphIndexer
) -> None:
    abstract = _ppr(data_dir, HERB_HARM_ABSTRACT)
    path = ingest_env.root / f"ppr-{HERB_HARM_ABSTRACT}.txt"
    path.write_text(abstract.text, encoding="utf-8")
    service = ingest_env.make(graph=sync_graph)

    response = await service.run(_request(path))

    assert response.status == "done", response.error
    stated, rows = _stored(service, path)
    with service.corpus.store.read() as tx:
        plants = set(tx.connection.execute(sa.select(kg_nodes.c.id).where(kg_nodes.c.type == "Organism")).scalars())
    harms = sorted({(s, d) for s, t, d, _ in stated if t == CAUSES and s in plants})
    assert harms, "the extractor states no harm of a plant in the abstract"
    herb = harms[0][0]

    answer = await _call(service, "tool.find_contraindications", {"herb_ids": [herb]})

    results = answer["structured"]["results"]
    own = {(herb, r["target_id"]) for r in results if r["via"] is None and r["relation"] == "adverse_effect"}
    assert own == {harm for harm in harms if harm[0] == herb}
    spans: dict[tuple[str, str, str], list[dict[str, int]]] = {}
    for row in rows:
        spans.setdefault((row.src, row.dst, row.sentence), []).append({"start": row.start, "end": row.end})
    for result in results:
        assert result["source"] == path.resolve().as_uri()
        assert result["span"] in spans[(result["via"] or herb, result["target_id"], result["evidence"])]
    assert "0 finding(s)" not in answer["text"]

    # `bio-mcp graph rebuild` extracts the same rows again from the stored file (same ids).
    rebuild_graph(service.corpus.store, sync_graph)
    assert sorted(row.id for row in _stored(service, path)[1]) == sorted(row.id for row in rows)


async def test_an_ingested_file_saying_garlic_interacts_with_warfarin_is_stated_with_its_sentence(
    ingest_env: IngestEnv, sync_graph: GraphIndexer
) -> None:
    """The issue's case: a file whose text says garlic interacts with warfarin was ingested and
    find_contraindications answered "0 finding(s)". The file here is a real abstract (PMID 24790635,
    CC BY: tests/evidence/records/) that names garlic among the herbs interacting with warfarin."""
    record = (Path(__file__).resolve().parents[1] / "records" / "pmid_24790635.xml").read_text(encoding="utf-8")
    abstract = record.split("<AbstractText>", 1)[1].split("</AbstractText>", 1)[0]
    path = ingest_env.root / "herb-warfarin.txt"
    path.write_text(abstract, encoding="utf-8")
    service = ingest_env.make(graph=sync_graph)

    response = await service.run(_request(path))

    assert response.status == "done", response.error
    answer = await _call(service, "tool.find_contraindications", {"herb_ids": ["garlic"]})
    interactions = [r for r in answer["structured"]["results"] if r["relation"] == "interaction"]
    assert [r["target_id"] for r in interactions] == ["mesh:D014859"]  # Warfarin
    finding = interactions[0]
    assert "Garlic" in finding["evidence"] and "warfarin" in finding["evidence"]
    assert finding["source"] == path.resolve().as_uri() and finding["quote_checked"] is True
    assert abstract[finding["span"]["start"]:finding["span"]["end"]] == finding["evidence"]
    assert not answer["text"].startswith("No interaction or contraindication evidence")


async def test_a_failing_write_leaves_neither_the_document_nor_its_relations(
    ingest_env: IngestEnv, data_dir: Path, database_url: str | None, sync_graph: GraphIndexer
) -> None:
    abstract = _bc5cdr(data_dir, CID_ABSTRACT)
    path = ingest_env.root / f"bc5cdr-{abstract.pmid}.txt"
    path.write_text(f"{abstract.title}\n\n{abstract.abstract}\n", encoding="utf-8")
    key = file_document_key(path.resolve().as_uri())
    service = ingest_env.make(database_url, graph=sync_graph)
    await service.corpus.open()
    # The ingestion's last write (after the document, its chunks, graph and evidence) fails.
    refuse_inserts(service.corpus.store, "ingested_files")

    failed = await service.run(_request(path))

    assert failed.status == "error" and failed.files[0].status == "error"
    with service.corpus.store.read() as tx:
        assert tx.documents.get(key) is None
        for table in (chunks, kg_relation_evidence, kg_nodes):
            assert not tx.connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one(), table.name
        assert not tx.connection.execute(sa.select(sa.func.count()).select_from(kg_edges)).scalar_one()

    # The same write, allowed, stores the document with its relations.
    allow_inserts(service.corpus.store, "ingested_files")
    written = await service.run(_request(path))
    assert written.status == "done", written.error
    stated, rows = _stored(service, path)
    assert stated and written.files[0].relations == len(rows)
    with service.corpus.store.read() as tx:
        assert tx.connection.execute(sa.select(documents.c.pmid)).scalars().all() == [key]
        assert tx.connection.execute(sa.select(ingested_files.c.doc_key)).scalars().all() == [key]
