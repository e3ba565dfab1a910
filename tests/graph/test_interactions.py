"""Herb-drug interactions on real text: the cue rule on a real open-access abstract's sentence and on
BC5CDR's cranberry-warfarin case report, the sentences of the shared corpora its first form got
wrong, and NLM's interaction headings read when a record's graph is written."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from bio_mcp.eval.pubtator import read_pubtator
from bio_mcp.features.corpus.records import chunk_records, document_facts
from bio_mcp.graph.build import DocumentSource, SectionSource, write_document_graphs
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.elements import INTERACTS_WITH
from bio_mcp.graph.evidence_store import SqlEvidenceStore
from bio_mcp.graph.facts import DocumentFacts
from bio_mcp.graph.indexer import load_catalog, pharm_actions_path
from bio_mcp.graph.interactions import (
    INDEXED_EXTRACTOR,
    INTERACTION_EXTRACTOR,
    InteractionExtractor,
    find_interactions,
    indexed_interactions,
)
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.graph.mentions import group_mentions
from bio_mcp.graph.sentences import sentence_spans
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch
from bio_mcp.store import MetadataStore
from bio_mcp.store.schema import kg_edges, kg_relation_evidence

WARFARIN = "mesh:D014859"
# The shared data holds no record NLM indexed with an interaction heading and a plant, so the
# headings the rule reads are given by the tests: Food-Drug Interactions, Vaccinium macrocarpon, Warfarin.
CRANBERRY_HEADINGS = (("D018565", True), ("D029799", True), ("D014859", False))
CRANBERRY = "mesh:D029799"  # Vaccinium macrocarpon
RECORD = Path(__file__).parents[1] / "evidence" / "records" / "pmid_24790635.xml"


@pytest.fixture(scope="module")
def mesh(data_dir: Path) -> Path:
    return data_dir / "mesh" / "mesh_descriptors_2024.jsonl"


@pytest.fixture(scope="module")
def catalog(mesh: Path, linker_cache: Path) -> MeshCatalog:
    assert pharm_actions_path(mesh).is_file()
    return load_catalog(mesh, linker_cache)


@pytest.fixture(scope="module")
def linker(mesh: Path, linker_cache: Path):
    return load_linker_from(mesh, None, linker_cache)


@pytest.fixture(scope="module")
def bc5cdr(data_dir: Path):
    return {document.pmid: document for document in read_pubtator(data_dir / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt")}


def _sentence_with(text: str, words: str) -> str:
    return next(text[start:end] for start, end in sentence_spans(text) if words in text[start:end])


def test_every_plant_of_a_list_interacts_with_the_drug(catalog, linker) -> None:
    [article] = parse_efetch(RECORD.read_bytes())
    sentence = _sentence_with(article.abstract_text, "major severity interaction with warfarin")
    found = InteractionExtractor(catalog.broader, catalog.pharm_actions).relations(sentence, linker.link(sentence))
    plants = {r.src for r in found if r.dst == WARFARIN}
    # Garlic, Ginkgo, Cranberry, Chamomile, Grapefruit, Cannabis, Lycium, Red clover (MeSH plants).
    assert {"mesh:D005737", "mesh:D020441", CRANBERRY, "mesh:D020843", "mesh:D032083"} <= plants
    assert all(r.type == INTERACTS_WITH and r.extractor == INTERACTION_EXTRACTOR for r in found)
    assert all(sentence[r.start:r.end] == sentence for r in found)


def test_a_case_report_of_cranberry_and_warfarin(catalog, linker, bc5cdr) -> None:
    # "Fatal haemopericardium and gastrointestinal haemorrhage due to possible interaction of
    # cranberry juice with warfarin." (BC5CDR 19058474's title)
    title = bc5cdr["19058474"].text.split(". ")[0] + "."
    found = find_interactions(title, linker.link(title), broader=catalog.broader, pharm_actions=catalog.pharm_actions)
    assert [(r.src, r.dst) for r in found] == [(CRANBERRY, WARFARIN)]


@pytest.mark.parametrize(("pmid", "words"), [
    ("11238818", "stimulation of cytochrome P(450)"),  # garlic and carcinogens: no drug, no induction
    ("21089181", "antagonist of the GABA(B) receptor"),  # receptor pharmacology
    ("15613745", "vegetable glycerin"),  # haemorrhagic pancreatitis; glycerol is no anticoagulant
])
def test_what_the_first_cue_rule_got_wrong_is_no_interaction(catalog, linker, data_dir, pmid, words) -> None:
    corpus = (data_dir / "bench" / "ppr" / "PPR_train_corpus.txt").read_text(encoding="utf-8")
    sentence = next(line.split("\t", 1)[1] for line in corpus.splitlines() if line.startswith(f"{pmid}_") and words in line)
    mentions = linker.link(sentence)
    assert any(m.entity_type == "Organism" for m in mentions) and any(m.entity_type == "Chemical" for m in mentions)
    assert find_interactions(sentence, mentions, broader=catalog.broader, pharm_actions=catalog.pharm_actions) == []


def test_a_negated_sentence_states_no_interaction(catalog, linker) -> None:
    # The cue rule reads negation anywhere in the sentence ("did not", "no"): the real list sentence
    # with its verb negated names the same plants and drug and states nothing.
    [article] = parse_efetch(RECORD.read_bytes())
    sentence = _sentence_with(article.abstract_text, "major severity interaction with warfarin")
    negated = sentence.replace("were evaluated to have", "were not evaluated to have")
    assert find_interactions(negated, linker.link(negated), broader=catalog.broader) == []


def test_nlm_interaction_headings_state_the_pair_in_the_sentence_naming_both(catalog, linker, bc5cdr) -> None:
    document = bc5cdr["19058474"]
    text = document.text
    mentions = {"s1": group_mentions(linker.link(text))}
    facts = DocumentFacts(topics=CRANBERRY_HEADINGS)
    found = indexed_interactions(facts, [("s1", text)], mentions, catalog)
    [relation] = found["s1"]
    assert (relation.src, relation.type, relation.dst, relation.extractor) == (CRANBERRY, INTERACTS_WITH, WARFARIN,
                                                                                INDEXED_EXTRACTOR)
    quote = text[relation.start:relation.end]
    assert re.search("cranberry", quote, re.IGNORECASE) and "warfarin" in quote
    # Without an interaction heading the same headings state nothing.
    assert indexed_interactions(DocumentFacts(topics=facts.topics[1:]), [("s1", text)], mentions, catalog) == {}


def test_drug_interactions_of_two_chemicals_are_no_herb_interaction(catalog, linker, data_dir) -> None:
    # A real record indexed Drug Interactions (DEHP in combination with acetone, in rats): no plant.
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        record = next(a for a in parse_efetch(handle.read()) if a.pmid == "10728921")
    facts = document_facts(record)
    assert ("D004347", False) in facts.topics
    text = f"{record.title} {record.abstract_text}"
    assert indexed_interactions(facts, [("s1", text)], {"s1": group_mentions(linker.link(text))}, catalog) == {}


def test_a_written_record_states_its_indexed_interaction(catalog, linker, bc5cdr, tmp_path) -> None:
    # Every write path (sync, add_articles, rebuild, ingestion) goes through write_document_graphs.
    document = bc5cdr["19058474"]
    title, abstract = document.text.split(". ", 1)
    chunks = chunk_records(document.pmid, title + ".", abstract)
    sections = [SectionSource(c.chunk_id, c.uuid, c.section, c.text, c.position) for c in chunks]
    source = DocumentSource(pmid=document.pmid, title=title, version=1, last_edited=None, sections=sections,
                            facts=DocumentFacts(topics=CRANBERRY_HEADINGS),
                            mentions={c.chunk_id: group_mentions(linker.link(c.text)) for c in chunks})
    store = MetadataStore(f"sqlite:///{tmp_path / 'graph.db'}")
    store.create_schema()
    with store.transaction() as tx:
        write_document_graphs(SqlGraphStore(tx.connection), [source], catalog, SqlEvidenceStore(tx.connection))
    with store.read() as tx:
        rows = tx.connection.execute(kg_relation_evidence.select()).all()
        edges = tx.connection.execute(kg_edges.select().where(kg_edges.c.type == INTERACTS_WITH)).all()
    assert [(r.src, r.dst, r.extractor, r.source) for r in rows] == [(CRANBERRY, WARFARIN, INDEXED_EXTRACTOR, "pubmed:19058474")]
    assert "warfarin" in rows[0].sentence and [(e.src, e.dst) for e in edges] == [(CRANBERRY, WARFARIN)]
