"""The untrained plant relation extractor: what an install without PPR's training split runs. A real
PPR sentence's TREATS found with no training file, and PPR's dev split scored end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.config import load_settings
from bio_mcp.eval.ppr import read_ppr
from bio_mcp.graph.elements import CAUSES, HAS_CONSTITUENT, TREATS
from bio_mcp.graph.indexer import load_catalog
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.graph.relation_cues import CUE_CONFIDENCE, CUE_EXTRACTOR
from bio_mcp.graph.relations import RelationExtractor, load_relation_extractor
from bio_mcp.graph.relations_eval import evaluate

# Measured on PPR dev with the cue rules: F1 0.494 (P 0.587, R 0.427); pairs baseline F1 0.467 (P 0.405).
UNTRAINED_DEV_F1_FLOOR = 0.46


@pytest.fixture(scope="module")
def untrained(
    data_dir: Path, tmp_path_factory: pytest.TempPathFactory, linker_cache: Path
) -> tuple[RelationExtractor, object]:
    mesh = data_dir / "mesh" / "mesh_descriptors_2024.jsonl"
    linker = load_linker_from(mesh, data_dir / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt", linker_cache)
    settings = load_settings(BIO_MCP_HOME=str(tmp_path_factory.mktemp("cues-home")),
                             BIO_MCP_RELATIONS_TRAINING=str(tmp_path_factory.mktemp("none") / "PPR_train_corpus.txt"),
                             BIO_MCP_DUKE_DIR=str(data_dir / "herbs" / "duke"))
    extractor = load_relation_extractor(settings, linker, load_catalog(mesh, linker_cache).vocabulary)
    return extractor, linker


def test_without_the_training_file_a_plant_treating_a_tumour_is_found(untrained, data_dir: Path) -> None:
    extractor, linker = untrained
    assert extractor.name == CUE_EXTRACTOR
    document = next(d for d in read_ppr(data_dir / "bench" / "ppr" / "PPR_dev_corpus.txt") if d.pmid == "10226574")
    text = document.text  # "Extract of Solanum muricatum (Pepino/CSG) inhibits tumor growth by inducing apoptosis. ..."
    relations = extractor.relations(text, linker.link(text))
    solanum = extractor.names.spans("Solanum muricatum")[0].entity_id
    first = [r for r in relations if r.start == 0 and r.src == solanum and r.type == TREATS]
    assert first and first[0].extractor == CUE_EXTRACTOR and first[0].confidence == CUE_CONFIDENCE[TREATS]
    assert text[first[0].start : first[0].end] == document.sentences[0].text
    # The phenotype named before the plant, or no cue between: no relation.
    sentence = "Tumor growth was measured in mice given Solanum muricatum and saline."
    assert not [r for r in extractor.relations(sentence, linker.link(sentence)) if r.type == TREATS]


def test_constituent_cues_still_run_untrained(untrained) -> None:
    extractor, linker = untrained
    text = "Curcumin, the main constituent isolated from Curcuma longa, was studied."
    assert any(r.type == HAS_CONSTITUENT and r.src == "mesh:D030024" for r in extractor.relations(text, linker.link(text)))


def test_untrained_rules_on_ppr_dev_beat_stating_every_pair(untrained, data_dir: Path) -> None:
    extractor, linker = untrained
    report = evaluate(read_ppr(data_dir / "bench" / "ppr" / "PPR_dev_corpus.txt"), linker, extractor)
    rules, baseline = report["extractor"]["overall"], report["pairs_baseline"]["overall"]
    assert rules["f1"] >= UNTRAINED_DEV_F1_FLOOR and rules["f1"] > baseline["f1"]
    assert rules["precision"] > baseline["precision"] + 0.1


def test_untrained_rules_state_no_harms(untrained, data_dir: Path) -> None:
    """Increase cues were mostly another agent's ("alloxan-induced"): no CAUSES without training."""
    extractor, linker = untrained
    documents = read_ppr(data_dir / "bench" / "ppr" / "PPR_train_corpus.txt")[:120]
    stated = [r for doc in documents for r in extractor.relations(doc.text, linker.link(doc.text))]
    assert any(r.type == TREATS for r in stated)
    assert not [r for r in stated if r.type == CAUSES]
