"""The MeSH vocabulary on the real MeSH 2024 descriptors: types, tree parents, ranked search, cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.graph.vocabulary import entity_type_of, load_pharm_actions, load_vocabulary


@pytest.fixture(scope="module")
def mesh_path(data_dir: Path) -> Path:
    return data_dir / "mesh" / "mesh_descriptors_2024.jsonl"


@pytest.fixture(scope="module")
def vocabulary(mesh_path: Path, tmp_path_factory: pytest.TempPathFactory):
    return load_vocabulary(mesh_path, tmp_path_factory.mktemp("cache"))


def test_a_brand_name_finds_its_descriptor_first(vocabulary) -> None:
    hits = vocabulary.search("tylenol", limit=5)
    assert hits[0].concept.id == "mesh:D000082"
    assert hits[0].concept.name == "Acetaminophen" and hits[0].how == "synonym"
    assert "Paracetamol" in hits[0].concept.synonyms


def test_search_ranks_id_then_name_then_prefix_then_typos(vocabulary) -> None:
    assert [h.concept.id for h in vocabulary.search("D000082", 1)] == ["mesh:D000082"]
    assert vocabulary.search("mesh:d000082", 1)[0].how == "id"
    by_name = vocabulary.search("Hypertension", 3)
    assert by_name[0].concept.id == "mesh:D006973" and by_name[0].how == "name" and by_name[0].score == 1.0
    prefix = vocabulary.search("hypertens", 3)
    assert prefix[0].concept.name == "Hypertension" and prefix[0].how == "prefix"
    typo = vocabulary.search("acetaminofen", 3)
    assert typo[0].concept.id == "mesh:D000082" and typo[0].how == "fuzzy"
    assert all(0 <= h.score <= 1 for h in by_name + prefix + typo)
    assert vocabulary.search("zzqqxxv", 5) == []


def test_types_come_from_the_tree(vocabulary) -> None:
    assert vocabulary.get("mesh:D000082").type == "Chemical"
    assert vocabulary.get("mesh:D006973").type == "Disease"
    assert vocabulary.get("mesh:D051381").type == "Organism"  # Rats
    assert vocabulary.get("mesh:D008099").type == "Anatomy"  # Liver
    assert entity_type_of(["F03.600.300"]) == "Disease"  # mental disorders
    assert entity_type_of(["B01.875.800"]) == "Organism"  # plants
    assert entity_type_of(["E02.760"]) == "Concept"
    assert entity_type_of([]) == "Concept"


def test_parents_are_the_descriptors_one_level_up(vocabulary) -> None:
    assert vocabulary.parents("mesh:D000082") == ("mesh:D000083",)  # Acetanilides
    hypertension_parents = {vocabulary.get(p).name for p in vocabulary.parents("mesh:D006973")}
    assert "Vascular Diseases" in hypertension_parents
    assert vocabulary.parents("mesh:D999999999") == ()


def test_the_cached_vocabulary_answers_like_the_parsed_one(mesh_path: Path, tmp_path: Path) -> None:
    parsed = load_vocabulary(mesh_path, tmp_path)
    assert len(list(tmp_path.glob("mesh-vocabulary-*.pickle"))) == 1
    cached = load_vocabulary(mesh_path, tmp_path)
    assert len(cached) == len(parsed) == 30764
    assert cached.search("breast cancer", 3) == parsed.search("breast cancer", 3)


def test_pharmacological_actions(data_dir: Path) -> None:
    actions = load_pharm_actions(data_dir / "mesh" / "data_pharm_action.tsv")
    assert actions["mesh:D000082"] == ("mesh:D018712", "mesh:D058633")  # analgesic, antipyretic
