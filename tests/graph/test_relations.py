"""Relation extraction on real text: PPR's dev split scored end to end (own linking, own sentences),
plant names from Dr. Duke's tables, and the evidence rows and edges a document graph writes."""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
import sqlalchemy as sa

from bio_mcp.eval.ppr import PprDocument, read_ppr
from bio_mcp.features.corpus.records import chunk_records
from bio_mcp.graph.build import DocumentSource, SectionSource, write_document_graphs
from bio_mcp.graph.elements import CAUSES, EVIDENCE_RELATIONS, HAS_CONSTITUENT, TREATS
from bio_mcp.graph.evidence_store import SqlEvidenceStore
from bio_mcp.graph.harm_cues import ASSOCIATED, HARM, HEDGED, NEGATED, benefit_denied, harm_between
from bio_mcp.graph.ids import document_node_id, pubmed_source_uri
from bio_mcp.graph.indexer import GraphIndexer, load_catalog
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.graph.plant_names import duke_plant_names, plant_descriptors
from bio_mcp.graph.relation_kinds import DECREASE, POSITIVE
from bio_mcp.graph.relations import RelationExtractor, RelationModel, extractor_of, train_relation_model
from bio_mcp.graph.relations_eval import evaluate
from bio_mcp.graph.sentences import is_quotable, sentence_spans
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch
from bio_mcp.store.metadata_store import MetadataStore
from bio_mcp.store.schema import kg_edges, kg_nodes, kg_relation_evidence

# Measured on PPR dev: F1 0.6614 (P 0.7167, R 0.614); pairs baseline F1 0.5527. The floor leaves room
# for small changes of the linker, never for a broken extractor (which falls to the baseline or below).
DEV_F1_FLOOR = 0.62


@pytest.fixture(scope="module")
def dev(data_dir: Path) -> list[PprDocument]:
    return read_ppr(data_dir / "bench" / "ppr" / "PPR_dev_corpus.txt")


def test_ppr_dev_relations_are_found_end_to_end_above_the_floor(indexer: GraphIndexer,
    dev: list[PprDocument]) -> None:
    extractor = indexer.extractors[0]
    assert isinstance(extractor, RelationExtractor)
    report = evaluate(dev, indexer.linker, extractor)
    model, baseline = report["extractor"]["overall"], report["pairs_baseline"]["overall"]
    assert report["gold_relations"] == 886
    assert model["f1"] >= DEV_F1_FLOOR
    # The cue model must beat stating every pair, mostly by precision.
    assert model["f1"] > baseline["f1"] + 0.05 and model["precision"] > baseline["precision"] + 0.15


def test_sentences_of_ppr_abstracts_are_found_again(dev: list[PprDocument]) -> None:
    found = total = 0
    for document in dev:
        gold = {(offset, offset + len(s.text)) for s, offset in zip(document.sentences, document.offsets)}
        found += len(gold & set(sentence_spans(document.text)))
        total += len(gold)
    assert found / total >= 0.9


def test_duke_names_map_binomial_common_and_abbreviated_names_to_one_mesh_plant(data_dir: Path, indexer: GraphIndexer) -> None:
    names = duke_plant_names(data_dir / "herbs" / "duke", indexer.catalog.vocabulary)
    plants = plant_descriptors(indexer.catalog.vocabulary)
    entity, sensitive = names["Hibiscus sabdariffa"]
    assert sensitive and entity in plants
    assert names["roselle"] == (entity, False)
    assert names["H. sabdariffa"][0] == entity
    # Turmeric: MeSH has the genus Curcuma only, and the species is filed under it.
    assert names["Curcuma longa"][0] == names["turmeric"][0] == "mesh:D030024"


def test_a_plant_inhibiting_tumour_growth_is_an_indication_with_its_sentence(indexer: GraphIndexer, dev: list[PprDocument]) -> None:
    document = next(d for d in dev if d.pmid == "10226574")
    text = document.text
    relations = indexer.extract_text(text, indexer.link_text(text))
    first = document.sentences[0].text  # "Extract of Solanum muricatum (Pepino/CSG) inhibits tumor growth ..."
    in_first = [r for r in relations if r.start == 0]
    assert in_first and text[in_first[0].start : in_first[0].end] == first
    solanum = indexer.extractors[0].names.spans("Solanum muricatum")[0].entity_id
    assert any(r.src == solanum and r.type == TREATS and indexer.catalog.describe(r.dst) for r in in_first)
    assert all(0.0 < r.confidence <= 1.0 and r.type in EVIDENCE_RELATIONS for r in relations)
    assert not any(r.type == CAUSES for r in in_first)


def _sources(indexer: GraphIndexer, documents: list[PprDocument], version: int = 1) -> list[DocumentSource]:
    sources = []
    for document in documents:
        text = document.text
        section = SectionSource("0", f"uuid-{document.pmid}", "Abstract", text, 0)
        annotations = indexer.annotate([section])
        sources.append(DocumentSource(document.pmid, None, version, None, [section], mentions=annotations.mentions,
                                      relations=annotations.relations))
    return sources


def _write(store: MetadataStore, indexer: GraphIndexer, sources: list[DocumentSource]) -> None:
    with store.transaction() as tx:
        write_document_graphs(SqlGraphStore(tx.connection), sources, indexer.catalog, SqlEvidenceStore(tx.connection))


def _evidence(store: MetadataStore) -> list:
    with store.read() as tx:
        return list(tx.connection.execute(sa.select(kg_relation_evidence)))


def _relation_edges(store: MetadataStore) -> dict:
    with store.read() as tx:
        rows = tx.connection.execute(sa.select(kg_edges).where(kg_edges.c.type.in_(EVIDENCE_RELATIONS)))
        return {(row.src, row.type, row.dst): row for row in rows}


def test_document_graphs_write_one_evidence_row_per_sentence_and_edges_derived_from_them(
    store_url: str, indexer: GraphIndexer, dev: list[PprDocument]
) -> None:
    store = MetadataStore(store_url)
    store.create_schema()
    sources = _sources(indexer, dev)
    _write(store, indexer, sources)
    rows, edges = _evidence(store), _relation_edges(store)
    texts = {document_node_id(pubmed_source_uri(s.pmid)): s.sections[0].text for s in sources}
    assert len(rows) >= 300
    for row in rows:
        assert row.sentence == texts[row.document_id][row.start : row.end] and row.source.startswith("pubmed:")
    supported = {(row.src, row.type, row.dst) for row in rows}
    assert set(edges) == supported
    for key, edge in edges.items():
        stating = [row for row in rows if (row.src, row.type, row.dst) == key]
        documents = {row.document_id for row in stating}
        assert 0.0 < edge.weight <= 1.0 and edge.document_id == min(documents)
        assert edge.weight == pytest.approx(1 - math.prod(1 - row.confidence for row in stating), abs=1e-6)
        assert edge.props["documents"] == len(documents) and edge.props["evidence"] == len(stating)
        assert edge.props["extractors"] == sorted({row.extractor for row in stating})
    # Derivation folds several sentences into one edge.
    assert any(edge.props["evidence"] >= 2 for edge in edges.values())
    with store.read() as tx:
        nodes = set(tx.connection.execute(sa.select(kg_nodes.c.id)).scalars())
    assert {end for key in edges for end in (key[0], key[2])} <= nodes

    # A new version of a document stating less replaces its evidence; edges only it backed go.
    changed = next(s for s in sources if len({r.dst for r in s.relations["0"]}) >= 2)
    kept = changed.relations["0"][:1]
    _write(store, indexer, [replace(changed, version=2, relations={"0": kept})])
    doc_id = document_node_id(pubmed_source_uri(changed.pmid))
    after_rows, after_edges = _evidence(store), _relation_edges(store)
    assert {(r.src, r.type, r.dst) for r in after_rows if r.document_id == doc_id} == {(kept[0].src, kept[0].type, kept[0].dst)}
    assert set(after_edges) == {(row.src, row.type, row.dst) for row in after_rows}
    assert len(after_edges) < len(edges)

    # Writing the same versions again changes no id.
    _write(store, indexer, [replace(changed, version=2, relations={"0": kept})])
    assert {r.id for r in _evidence(store)} == {r.id for r in after_rows}
    assert set(_relation_edges(store)) == set(after_edges)


def test_a_model_built_once_extracts_as_training_in_the_server_does(data_dir, linker_cache) -> None:
    # `bio-mcp data build-vocabularies --relation-model FILE` writes this; BIO_MCP_RELATIONS_TRAINING=FILE
    # then serves it without retraining (PPR itself, and so the model, are never shipped).
    mesh = data_dir / "mesh" / "mesh_descriptors_2024.jsonl"
    linker = load_linker_from(mesh, data_dir / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt", linker_cache)
    vocabulary = load_catalog(mesh, linker_cache).vocabulary
    duke = data_dir / "herbs" / "duke"
    model = train_relation_model(read_ppr(data_dir / "bench" / "ppr" / "PPR_train_corpus.txt"), linker, vocabulary, duke)
    trained = extractor_of(model, vocabulary, duke)
    served = extractor_of(RelationModel.from_json(json.loads(json.dumps(model.to_json()))), vocabulary, duke)
    assert served.dropped == trained.dropped and served.confidence == trained.confidence
    found = 0
    for document in read_ppr(data_dir / "bench" / "ppr" / "PPR_dev_corpus.txt")[:40]:
        mentions = linker.link(document.text)
        expected = trained.relations(document.text, mentions)
        assert served.relations(document.text, mentions) == expected
        found += len(expected)
    assert found > 20


@pytest.fixture(scope="module")
def train(data_dir: Path) -> list[PprDocument]:
    return read_ppr(data_dir / "bench" / "ppr" / "PPR_train_corpus.txt")


def test_a_sentence_saying_a_plant_caused_a_disease_never_yields_treats(indexer: GraphIndexer,
                                                                       dev: list[PprDocument],
                                                                       train: list[PprDocument]) -> None:
    """Every pair of PPR (train and dev) whose words say the plant causes, induces or worsens the
    disease ("T. wilfordii-induced liver injury", "esparto fibers may also cause occupational
    asthma") is never a Decrease, so never a TREATS; on dev, few gold harms are read as treatments."""
    extractor = indexer.extractors[0]
    assert isinstance(extractor, RelationExtractor)
    harms = 0
    for document in [*train, *dev]:
        text = document.text
        mentions = indexer.linker.link(text)
        treats = {(r.src, r.dst, r.start) for r in extractor.relations(text, mentions) if r.type == TREATS}
        diseases = [m for m in mentions if m.entity_type == "Disease"]
        # A positive phenotype ("anti-arrhythmic effects") is a benefit whatever verb brings it.
        for finding in (f for f in extractor.findings(text, mentions) if f.phenotype.kind != POSITIVE):
            reading = harm_between(text, (finding.plant.start, finding.plant.end),
                                   (finding.phenotype.start, finding.phenotype.end))
            if reading is None:
                continue
            harms += 1
            assert finding.label != DECREASE, (document.pmid, text[finding.sentence[0]:finding.sentence[1]])
            for disease in diseases:
                if finding.phenotype.start <= disease.start and disease.end <= finding.phenotype.end:
                    assert (finding.plant.entity_id, disease.entity_id, finding.sentence[0]) not in treats, (
                        text[finding.sentence[0]:finding.sentence[1]], finding, disease)
    assert harms >= 50
    report = evaluate(dev, indexer.linker, extractor)["confusion"]
    # Measured: 1 of 24 gold harms read as a treatment, 7 Increase as Decrease, 4 the reverse (3, 9 and 13 before).
    assert report["gold_harms"] == 24 and report["harm_as_treatment"] <= 2
    assert report["increase_as_decrease"] <= 8 and report["decrease_as_increase"] <= 6


@pytest.mark.parametrize(("sentence", "plant", "disease", "reading"), [
    # PPR training sentences.
    ("On the other hand esparto fibers may also cause occupational asthma.", "esparto", "occupational asthma", HEDGED),
    (("It is generally accepted that T. wilfordii-induced liver injury is a result of the combined effects of toxic "
     "elements of T. wilfordii."), "T. wilfordii", "liver injury", HARM),
    (("Our results show that chilli supplementation promotes colon carcinogenesis, whereas cumin or black pepper "
     "suppresses colon carcinogensis in the presence of the procarcinogen DMH."), "chilli", "colon carcinogenesis", HARM),
    (("Cannabis use is a risk factor for schizophrenia and increases positive symptoms in schizophrenia patients but "
     "diminishes negative symptoms."), "Cannabis", "schizophrenia", ASSOCIATED),
    (("RESULTS: Observationally, high coffee intake was associated with low risk of obesity, metabolic syndrome and "
     "type 2 diabetes."), "coffee", "obesity", None),
    (("Treatment with Pelargonium sidoides was not associated with a statistically significant differences in fever "
     "and muscle aches (p>0.05, Chi-square test)."), "Pelargonium sidoides", "fever", NEGATED),
    (("Kuding tea significantly induced apoptosis in TCA8113 cancer cells (P<0.05) by upregulating Bax, caspase-3 and "
     "caspase-9 expression, and downregulating Bcl-2 expression."), "Kuding tea", "cancer", None),
    # BC5CDR training sentences: another subject's negation; a question.
    (("In contrast, SSR103800 failed to affect hyperactivity induced by amphetamine or naturally observed in dopamine "
      "transporter (DAT(-/-)) knockout mice (10-30 mg/kg p.o.)."), "amphetamine", "hyperactivity", HARM),
    ("Does paracetamol cause urothelial cancer or renal papillary necrosis?", "paracetamol", "urothelial cancer",
     HEDGED),
])
def test_harm_cues_read_real_sentences(sentence: str, plant: str, disease: str, reading: str | None) -> None:
    start, end = sentence.index(plant), sentence.index(disease)
    assert harm_between(sentence, (start, start + len(plant)), (end, end + len(disease))) == reading


def test_a_constituent_is_stated_only_where_duke_lists_it_for_the_plant(indexer: GraphIndexer,
                                                                        train: list[PprDocument]) -> None:
    """PPR training sentences with a constituent cue: colchicine in Colchicum autumnale (Duke lists
    it) is stated; "Green tea contains many polyphenols" (a class Duke does not list) is not."""
    extractor = indexer.extractors[0]
    stated: dict[str, set[tuple[str, str]]] = {}
    for document in train:
        for relation in extractor.relations(document.text, indexer.linker.link(document.text)):
            if relation.type == HAS_CONSTITUENT:
                stated.setdefault(document.text[relation.start:relation.end], set()).add((relation.src, relation.dst))
    colchicum = next(pairs for sentence, pairs in stated.items() if "Colchicum autumnale" in sentence)
    assert ("mesh:D003079", "mesh:D003078") in colchicum
    assert not [s for s in stated if s.startswith("Green tea contains many polyphenols")]
    assert len(stated) < 20  # of the 70 pairs the cues alone state


@pytest.mark.parametrize(("sentence", "plant", "disease", "denied"), [
    # PPR training sentences.
    (("The results indicated that dehulled adlay did not inhibit colon tumors in spite of a slight suppressing effect "
     "in the proximal colon."), "adlay", "colon tumors", True),
    (("These findings suggest that dehulled adlay suppresses early events in colon carcinogenesis but not the formation "
     "of tumors."), "adlay", "tumors", True),
    (("These findings suggest that dehulled adlay suppresses early events in colon carcinogenesis but not the formation "
     "of tumors."), "adlay", "colon carcinogenesis", False),
])
def test_a_denied_benefit_is_read(sentence: str, plant: str, disease: str, denied: bool) -> None:
    start, end = sentence.index(plant), sentence.index(disease)
    assert benefit_denied(sentence, (start, start + len(plant)), (end, end + len(disease))) is denied


def test_a_piece_of_an_abstract_book_is_no_sentence_to_quote(indexer: GraphIndexer, data_dir: Path) -> None:
    # PMID 27454254, "Abstracts from the 3rd International Genomic Medicine Conference": poster titles
    # and author lists without a stop for 30,651 characters, which the corpus cuts into chunks. The
    # extractors read "P7 Inhibition of AChE and BuChE with the natural compounds of Bacopa monerri
    # for the treatment of Alzheimer's disease" in one such piece; it is quoted for nothing.
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as records:
        articles = {article.pmid: article for article in parse_efetch(records.read())}
    book = articles["27454254"]
    raw, kept = [], []
    for chunk in chunk_records(book.pmid, book.title, book.abstract_text):
        mentions = indexer.link_text(chunk.text)
        raw += [(chunk.text, r) for extractor in indexer.extractors for r in extractor.relations(chunk.text, mentions)]
        kept += [(chunk.text, r) for r in indexer.extract_text(chunk.text, mentions)]
    assert any(not is_quotable(text, r.start, r.end) for text, r in raw)
    assert kept == [(text, r) for text, r in raw if is_quotable(text, r.start, r.end)]
    # A long sentence that ends as one stays quotable (780 characters of semaglutide's effects).
    review = articles["29915538"]
    text = f"{review.title} {review.abstract_text}"
    start, end = max(sentence_spans(text), key=lambda span: span[1] - span[0])
    assert end - start > 700 and is_quotable(text, start, end)
