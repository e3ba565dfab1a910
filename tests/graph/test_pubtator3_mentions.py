"""PubTator3's annotations joining the knowledge graph (BIO_MCP_PUBTATOR3_MENTIONS): a sync on the fake
E-utilities over the real PubMed records and the fake PubTator3 over its real recorded exports (PMID
22663011, trametinib in BRAF-mutated melanoma, is in both), the real MeSH linker; SQLite and PostgreSQL
where the graph is written."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.features.corpus.pubtator3_annotations import Pubtator3Run, _passages, _spans
from bio_mcp.features.corpus.records import corpus_document
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.features.kb.entities import find_entities
from bio_mcp.features.kb.models import EntitiesRequest
from bio_mcp.features.kb.rebuild import rebuild_graph
from bio_mcp.graph.build import entity_graph
from bio_mcp.graph.ids import document_node_id, pubmed_source_uri, section_node_id
from bio_mcp.graph.listed_genes import gene_names, resolved_symbols
from bio_mcp.graph.pubtator3_mentions import graph_entities, place_mentions
from bio_mcp.graph.store import SqlGraphStore, props_of
from bio_mcp.graph.taxa import MESH_ORGANISM_OF_TAXON
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.parsers import parse_requested
from bio_mcp.sources.pubtator3.parse import parse_biocjson_texts
from bio_mcp.store.schema import chunks, kg_edges, kg_mentions, kg_nodes, kg_pubtator3
from tests.corpus.corpus_fixtures import SPREAD, UNTIL, corpus_settings

pytestmark = pytest.mark.anyio

PMID = "22663011"
# Records of the fake that match the term; only PMID 22663011 is among PubTator3's recorded exports.
TERM = "melanoma"
BRAF, V600E, MELANOMA = "ncbigene:673", "dbsnp:rs113488022", "mesh:D008545"
HUMANS = "mesh:D006801"


@pytest.fixture
async def make(bio_home: Path, corpus_fakes, graph_indexer):
    opened: list[tuple[CorpusService, EutilsClient]] = []

    def build(database_url: str | None = None, enabled: bool = True) -> CorpusService:
        settings = corpus_settings(
            bio_home, corpus_fakes, database_url, PUBTATOR3_BASE_URL=corpus_fakes.pubtator3_base_url,
            PUBTATOR3_MAX_RETRIES=0, BIO_MCP_PUBTATOR3_MENTIONS=enabled,
        )
        eutils = EutilsClient(settings)
        service = CorpusService(
            settings, eutils, sync_options=SyncOptions(until=UNTIL, batch_size=100, since=SPREAD[0].date()),
            embed_in_background=False, graph=graph_indexer,
        )
        opened.append((service, eutils))
        return service

    yield build
    for service, eutils in opened:
        await service.aclose()
        await eutils.aclose()


def pubtator3_mentions(connection) -> list[tuple[str, str, dict]]:
    """(section id, entity id, props) of every MENTIONS edge a PubTator3 span went into."""
    rows = connection.execute(sa.select(kg_mentions.c.src, kg_mentions.c.dst, kg_mentions.c.props))
    return [(row.src, row.dst, props_of(row.props)) for row in rows if "pubtator3" in props_of(row.props).get("linkers", [])]


def chunk_texts(connection, pmid: str) -> dict[str, str]:
    uri = pubmed_source_uri(pmid)
    rows = connection.execute(sa.select(chunks.c.chunk_id, chunks.c.text).where(chunks.c.pmid == pmid))
    return {section_node_id(uri, row.chunk_id): row.text for row in rows}


def entity_nodes(connection, prefix: str) -> dict[str, tuple[str, str]]:
    rows = connection.execute(
        sa.select(kg_nodes.c.id, kg_nodes.c.type, kg_nodes.c.title).where(kg_nodes.c.id.like(f"{prefix}%"))
    )
    return {row.id: (row.type, row.title) for row in rows}


async def test_enabled_genes_and_variants_become_entities_at_the_stored_offsets(make, corpus_fakes, database_url) -> None:
    service = make(database_url)
    response = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    report = response.pubtator3
    assert report is not None and report.error is None and report.pending == 0
    assert report.annotated == 1 and report.absent == response.pmids_processed - 1 > 0
    assert report.mismatched == 0 and report.mentions > 0
    # One batch, one request: PubTator3's limit is per request.
    assert [r.param("pmids").count(",") + 1 for r in corpus_fakes.pubtator3.requests] == [response.pmids_processed]
    with service.store.read() as tx:
        texts = chunk_texts(tx.connection, PMID)
        found = pubtator3_mentions(tx.connection)
        genes = entity_nodes(tx.connection, "ncbigene:")
        variants = entity_nodes(tx.connection, "dbsnp:")
        humans = entity_nodes(tx.connection, HUMANS)
        taxa = entity_nodes(tx.connection, "ncbitaxon:")
        melanoma_nodes = tx.connection.execute(
            sa.select(sa.func.count()).where(kg_nodes.c.label == "Entity", kg_nodes.c.title == "Melanoma")
        ).scalar_one()
    assert genes[BRAF] == ("Gene", "BRAF") and variants[V600E] == ("Variant", "p.V600E")
    assert {src for src, _, _ in found} <= set(texts)
    # Every span written is the stored text at its offsets.
    for src, _, props in found:
        for start, end, text in props["spans"]:
            assert texts[src][start:end] == text
    first = section_node_id(pubmed_source_uri(PMID), "0")
    spans = {dst: props["spans"] for src, dst, props in found if src == first}
    assert [510, 515, "V600E"] in spans[V600E] and [139, 143, "BRAF"] in spans[BRAF]
    # Melanoma is the MeSH linker's own entity: one node, one edge per section, both linkers named.
    melanoma = next(props for src, dst, props in found if src == first and dst == MELANOMA)
    assert melanoma_nodes == 1 and len(melanoma["linkers"]) == 2 and "pubtator3" in melanoma["linkers"]
    # PubTator3's patients (NCBI Taxonomy 9606) are MeSH's Humans, the entity NLM's indexing names.
    assert humans == {HUMANS: ("Organism", "Humans")} and taxa == {}
    assert {text for src, dst, props in found if dst == HUMANS for _, _, text in props["spans"]} == {"patients", "Patients"}
    entities = find_entities(EntitiesRequest(query="BRAF"), service.store, service.graph.catalog)
    braf = entities.entities[0]
    assert (braf.id, braf.type, braf.match, braf.mentions) == (BRAF, "Gene", "name", 1)
    assert braf.mentioned_in and all(
        m.linker == "pubtator3" and m.source_uri == f"pubmed:{PMID}"
        and m.document_id == document_node_id(pubmed_source_uri(PMID)) for m in braf.mentioned_in
    )
    assert any(span[2] == "BRAF" for m in braf.mentioned_in for span in m.spans)


async def test_disabled_no_pubtator3_entity_and_no_request(make, corpus_fakes) -> None:
    service = make(enabled=False)
    response = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    assert response.pubtator3 is None and response.pmids_processed > 0
    assert corpus_fakes.pubtator3.requests == []
    with service.store.read() as tx:
        assert pubtator3_mentions(tx.connection) == []
        assert entity_nodes(tx.connection, "ncbigene:") == entity_nodes(tx.connection, "dbsnp:") == {}


async def test_turning_the_mentions_on_reaches_the_records_synced_before(make, corpus_fakes) -> None:
    before = make(enabled=False)
    first = await before.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    await before.aclose()
    assert first.pmids_processed > 0 and corpus_fakes.pubtator3.requests == []
    service = make()
    # Nothing new to sync: the records already stored are the ones PubTator3 is asked about.
    response = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    assert response.inserted == 0
    assert response.pubtator3 is not None and response.pubtator3.annotated == 1 and response.pubtator3.pending == 0
    asked = {pmid for request in corpus_fakes.pubtator3.requests for pmid in request.param("pmids").split(",")}
    assert PMID in asked
    with service.store.read() as tx:
        assert entity_nodes(tx.connection, "ncbigene:")[BRAF] == ("Gene", "BRAF")


async def test_an_outage_leaves_the_sync_whole_and_the_annotations_pending_until_a_later_sync(make, corpus_fakes) -> None:
    service = make()
    corpus_fakes.pubtator3.inject(corpus_fakes.pubtator3.server_error(503), times=None)
    down = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    report = down.pubtator3
    assert down.inserted == down.pmids_processed > 0
    assert report is not None and report.error and report.annotated == report.absent == 0
    assert report.pending == down.pmids_processed
    assert any("pending" in warning and "not the same as having none" in warning for warning in down.warnings)
    assert len(corpus_fakes.pubtator3.requests) == 1  # no retries configured, and one batch
    with service.store.read() as tx:
        assert pubtator3_mentions(tx.connection) == [] and entity_nodes(tx.connection, "ncbigene:") == {}
    corpus_fakes.pubtator3.faults.reset()
    again = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    assert again.skipped == again.pmids_processed  # the records did not change: the pending list filled them
    assert again.pubtator3 is not None and again.pubtator3.pending == 0
    assert again.pubtator3.filled == down.pmids_processed and again.pubtator3.annotated == 1
    assert not any("PubTator3" in warning for warning in again.warnings)
    with service.store.read() as tx:
        texts = chunk_texts(tx.connection, PMID)
        found = pubtator3_mentions(tx.connection)
        assert entity_nodes(tx.connection, "ncbigene:")[BRAF] == ("Gene", "BRAF")
    assert found and all(texts[src][s:e] == t for src, _, props in found for s, e, t in props["spans"])


async def test_add_articles_marks_pending_in_an_outage_and_a_sync_fills_it(make, corpus_fakes, data_dir) -> None:
    service = make()
    body = (data_dir / "ncbi" / "biomcp" / "pubmed" / f"efetch_citation_{PMID}.xml").read_bytes()
    articles = parse_requested(body, {PMID}).records
    corpus_fakes.pubtator3.inject(corpus_fakes.pubtator3.server_error(503), times=None)
    await service.add_articles(articles)
    with service.store.read() as tx:
        assert entity_nodes(tx.connection, "ncbigene:") == {}
    corpus_fakes.pubtator3.faults.reset()
    response = await service.sync_delta(SyncDeltaRequest(query_key="other", term="xyzzy12345nonexistent"))
    assert response.pubtator3 is not None and response.pubtator3.filled == 1 and response.pubtator3.pending == 0
    with service.store.read() as tx:
        assert BRAF in entity_nodes(tx.connection, "ncbigene:")
        assert SqlGraphStore(tx.connection).mention_counts([BRAF, V600E]) == {BRAF: 1, V600E: 1}


async def test_a_graph_rebuild_leaves_the_annotations_pending_for_the_next_sync(make) -> None:
    service = make()
    await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    rebuild_graph(service.store, service.graph)
    with service.store.read() as tx:
        assert entity_nodes(tx.connection, "ncbigene:") == {}
    again = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    assert again.pubtator3 is not None and again.pubtator3.filled == again.pubtator3.annotated == 1
    with service.store.read() as tx:
        assert entity_nodes(tx.connection, "ncbigene:")[BRAF] == ("Gene", "BRAF")


def age_absent(connection, days: float) -> None:
    """Every absent record as if PubTator3 had last been asked about it `days` ago."""
    connection.execute(
        sa.update(kg_pubtator3).where(kg_pubtator3.c.status == "absent")
        .values(updated_at=datetime.now(UTC) - timedelta(days=days))
    )


def asked_pmids(corpus_fakes) -> list[set[str]]:
    return [set(request.param("pmids").split(",")) for request in corpus_fakes.pubtator3.requests]


async def test_an_absent_record_is_asked_again_once_it_has_been_absent_a_while(make, corpus_fakes, database_url, monkeypatch) -> None:
    # PubTator3 has not annotated PMID 22663011 yet (as with a record of this week): absent.
    recorded = corpus_fakes.pubtator3.abstracts[PMID]
    monkeypatch.delitem(corpus_fakes.pubtator3.abstracts, PMID)
    service = make(database_url)
    first = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    assert first.pubtator3 is not None and first.pubtator3.annotated == 0
    assert first.pubtator3.absent == first.pmids_processed > 1 and first.pubtator3.rechecked == 0
    # A week later PubTator3's update holds it.
    monkeypatch.setitem(corpus_fakes.pubtator3.abstracts, PMID, recorded)
    soon = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    assert soon.pubtator3 is not None and soon.pubtator3.rechecked == soon.pubtator3.annotated == 0
    # Absent for less than the recheck delay: only the record the sync's overlap window meets again is asked.
    assert len(asked_pmids(corpus_fakes)) == 2 and PMID not in asked_pmids(corpus_fakes)[1]
    with service.store.transaction() as tx:
        age_absent(tx.connection, 8)
    later = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    report = later.pubtator3
    assert report is not None and later.skipped == later.pmids_processed
    assert report.rechecked == first.pmids_processed and report.annotated == 1
    assert report.absent == first.pmids_processed - 1 and report.filled == 0 and report.pending == 0
    # One request: the record the sync meets again keeps the answer it was just given, counted once.
    assert len(asked_pmids(corpus_fakes)) == 3 and asked_pmids(corpus_fakes)[-1] == asked_pmids(corpus_fakes)[0]
    with service.store.read() as tx:
        assert entity_nodes(tx.connection, "ncbigene:")[BRAF] == ("Gene", "BRAF")
        # Asked again now: the records still absent wait another week.
        assert tx.connection.execute(
            sa.select(sa.func.count()).where(kg_pubtator3.c.updated_at < datetime.now(UTC) - timedelta(days=1))
        ).scalar_one() == 0
    again = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    assert again.pubtator3 is not None and again.pubtator3.rechecked == again.pubtator3.annotated == 0
    assert len(asked_pmids(corpus_fakes)) == 4 and asked_pmids(corpus_fakes)[-1] == asked_pmids(corpus_fakes)[1]


async def test_the_recheck_is_bounded_per_sync_pending_first(make, corpus_fakes) -> None:
    service = make()
    first = await service.sync_delta(SyncDeltaRequest(query_key="pt", term=TERM))
    assert first.pubtator3 is not None and first.pubtator3.absent == 2
    with service.store.transaction() as tx:
        age_absent(tx.connection, 30)
        pending, absent = sorted(tx.connection.execute(
            sa.select(kg_pubtator3.c.pmid).where(kg_pubtator3.c.status == "absent")
        ).scalars())
        tx.connection.execute(sa.update(kg_pubtator3).where(kg_pubtator3.c.pmid == pending).values(status="pending"))
    bounded = Pubtator3Run(service.pubtator3)
    await bounded.ask_again(service.store, service.graph, limit=1)
    assert (bounded.tally.filled, bounded.tally.rechecked, bounded.tally.absent) == (1, 0, 1)
    assert asked_pmids(corpus_fakes)[-1] == {pending}
    after = Pubtator3Run(service.pubtator3)
    await after.ask_again(service.store, service.graph, limit=1)
    assert (after.tally.filled, after.tally.rechecked, after.tally.absent) == (0, 1, 1)
    assert asked_pmids(corpus_fakes)[-1] == {absent}
    # Both asked now: a week to wait.
    done = Pubtator3Run(service.pubtator3)
    await done.ask_again(service.store, service.graph)
    assert done.tally.rechecked == 0 and len(asked_pmids(corpus_fakes)) == 3


def topic_edges(connection, pmid: str) -> dict[str, dict]:
    doc_id = document_node_id(pubmed_source_uri(pmid))
    rows = connection.execute(
        sa.select(kg_edges.c.dst, kg_edges.c.props).where(kg_edges.c.src == doc_id, kg_edges.c.type == "HAS_TOPIC")
    )
    return {row.dst: props_of(row.props) for row in rows}


async def test_a_listed_gene_symbol_is_the_gene_pubtator3_names_in_the_record(make, corpus_fakes, data_dir, database_url) -> None:
    """MEDLINE kept GeneSymbolLists for 1991-1995 records only, and PubTator3's recorded exports are
    of later ones, so the real 2012 record is given the list its genes would have had: BRAF (which
    PubTator3 names, NCBI Gene 673) and NRAS (which it does not)."""
    service = make(database_url)
    body = (data_dir / "ncbi" / "biomcp" / "pubmed" / f"efetch_citation_{PMID}.xml").read_bytes()
    [article] = parse_requested(body, {PMID}).records
    listed = article.model_copy(update={"gene_symbols": ["BRAF", "NRAS"]})
    # PubTator3 down when the record is added: the listed symbols are genes by symbol only.
    corpus_fakes.pubtator3.inject(corpus_fakes.pubtator3.server_error(503), times=None)
    await service.add_articles([listed])
    with service.store.read() as tx:
        assert {"gene:BRAF", "gene:NRAS"} <= set(topic_edges(tx.connection, PMID))
        assert BRAF not in entity_nodes(tx.connection, "ncbigene:")
    corpus_fakes.pubtator3.faults.reset()
    response = await service.sync_delta(SyncDeltaRequest(query_key="other", term="xyzzy12345nonexistent"))
    assert response.pubtator3 is not None and response.pubtator3.filled == 1
    with service.store.read() as tx:
        topics = topic_edges(tx.connection, PMID)
        genes = entity_nodes(tx.connection, "gene:")
        mentions = SqlGraphStore(tx.connection).mention_counts([BRAF])
    # The document's listed BRAF is NCBI Gene 673, where it came from kept; NRAS stays a symbol.
    assert "gene:BRAF" not in topics and topics[BRAF] == {
        "major": False, "source": "GeneSymbolList", "symbol": "BRAF", "resolved_by": "pubtator3"
    }
    assert topics["gene:NRAS"] == {"major": False, "source": "GeneSymbolList"}
    assert set(genes) == {"gene:NRAS"} and mentions == {BRAF: 1}
    found = find_entities(EntitiesRequest(query="BRAF"), service.store, service.graph.catalog).entities
    assert [entity.id for entity in found if entity.type == "Gene"] == [BRAF]
    # A rebuild lists the symbol again until the next sync resolves it again.
    rebuild_graph(service.store, service.graph)
    with service.store.read() as tx:
        assert "gene:BRAF" in topic_edges(tx.connection, PMID)
    await service.sync_delta(SyncDeltaRequest(query_key="other", term="xyzzy12345nonexistent"))
    with service.store.read() as tx:
        topics = topic_edges(tx.connection, PMID)
        assert BRAF in topics and "gene:BRAF" not in topics and "gene:BRAF" not in entity_nodes(tx.connection, "gene:")


def test_spans_that_do_not_line_up_are_skipped_never_misplaced(data_dir) -> None:
    body = (data_dir / "ncbi" / "biomcp" / "pubmed" / f"efetch_citation_{PMID}.xml").read_bytes()
    document = corpus_document(parse_requested(body, {PMID}).records[0], date(2025, 1, 15))
    stored = [(chunk.chunk_id, chunk.text) for chunk in document.chunks]
    exports = data_dir / "pubtator3"
    [own] = parse_biocjson_texts((exports / f"export_biocjson_pmid{PMID}.json").read_bytes())
    placed = place_mentions(stored, _passages(own), _spans(own))
    assert placed.counts.placed == len(own.annotations.annotations) and placed.counts.mismatched == 0
    # Another record's annotations (BRCA1, 20516115) against this record's stored text: none fits.
    [other] = parse_biocjson_texts((exports / "export_biocjson_pmid20516115.json").read_bytes())
    misplaced = place_mentions(stored, _passages(other), _spans(other))
    assert misplaced.mentions == {} and misplaced.counts.placed == 0
    assert misplaced.counts.mismatched + misplaced.counts.unnormalised == len(other.annotations.annotations)


def test_common_taxa_are_their_mesh_organisms_the_rest_keep_their_id(data_dir, graph_indexer) -> None:
    catalog = graph_indexer.catalog
    # Every descriptor of the table is an organism of the shipped MeSH.
    for taxon, ui in MESH_ORGANISM_OF_TAXON.items():
        described = catalog.describe(f"mesh:{ui}")
        assert described is not None and described[1] == "Organism", (taxon, ui)
    # The full-text export of PMID 22429397 names human, mouse and Bacillus cereus.
    [text] = parse_biocjson_texts((data_dir / "pubtator3" / "export_biocjson_pmid22429397_full_true.json").read_bytes())
    species = {(entity.entity_id, span.text) for span in _spans(text) if span.type == "Species"
               for entity in graph_entities(span, graph_indexer.current_ids)}
    assert ("mesh:D006801", "human") in species and ("mesh:D051379", "mouse") in species
    assert ("ncbitaxon:1396", "Bacillus cereus") in species
    nodes, _ = entity_graph({entity_id for entity_id, _ in species}, catalog, {}, {})
    titles = {node.id: (node.type, node.title) for node in nodes if node.id in {e for e, _ in species}}
    assert titles["mesh:D006801"] == ("Organism", "Humans") and titles["mesh:D051379"] == ("Organism", "Mice")


def record_gene_names(data_dir: Path, name: str) -> dict[str, set[str]]:
    [text] = parse_biocjson_texts((data_dir / "pubtator3" / name).read_bytes())
    return gene_names([
        (entity.entity_id, value) for span in _spans(text) if span.type == "Gene"
        for entity in graph_entities(span, {}) for value in (entity.name, span.text)
    ])


def test_a_listed_symbol_is_resolved_only_to_one_gene(data_dir) -> None:
    own = record_gene_names(data_dir, f"export_biocjson_pmid{PMID}.json")
    # By PubTator3's symbol or by a mention's text, case aside; a symbol it does not name stays.
    assert resolved_symbols(["braf", "MEK", "NRAS"], own) == {"braf": BRAF, "MEK": "ncbigene:5609"}
    # PMID 22429397's full text names human and mouse vimentin (NCBI Gene 7431 and 22352): a listed
    # Vim could be either, so it stays a symbol.
    both = record_gene_names(data_dir, "export_biocjson_pmid22429397_full_true.json")
    assert both["vim"] == {"ncbigene:7431", "ncbigene:22352"} and resolved_symbols(["Vim"], both) == {}
