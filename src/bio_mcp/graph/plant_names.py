"""Plant names beyond MeSH's: Dr. Duke's taxa and common names (CC0), each mapped to a MeSH plant
descriptor where the species or the genus matches one, else to `herb:<slug of the scientific name>`.

Texts about medicinal plants name them by binomial ("Solanum muricatum"), abbreviated genus
("S. muricatum", "P grandiflorum"), genus alone ("Astragalus") or common name ("Pepino"); each form
becomes a key of `PlantNames`. Binomials and genera match only capitalised as written (a genus is
often also an everyday word in lower case); common names match in any case.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

from bio_mcp.data_files import open_text, table
from bio_mcp.graph.vocabulary import Vocabulary, search_key

# MeSH branches whose descriptors texts about medicinal plants call plants: Plants, and Fungi
# (medicinal mushrooms such as Ganoderma are "plants" to the PPR annotators).
PLANT_TREES = ("B01.875", "B01.300")
FNFTAX = "FNFTAX.csv"
COMMON_NAMES = "COMMON_NAMES.csv"
# Duke's common names include a few everyday words that name something else far more often.
_COMMON_STOP = frozenset({"rue", "yam", "sage", "rose", "date", "lime", "mint", "balm"})
_SLUG = re.compile(r"[^a-z0-9]+")


def herb_id(scientific_name: str) -> str:
    return "herb:" + _SLUG.sub("-", scientific_name.lower()).strip("-")


def plant_descriptors(vocabulary: Vocabulary) -> set[str]:
    """The entity ids of MeSH's plant and fungus descriptors."""
    return {
        concept.id for concept in vocabulary.concepts.values()
        if any(tree.startswith(PLANT_TREES) for tree in concept.tree_numbers)
    }


def _read_csv(duke_dir: Path, name: str) -> Iterator[dict[str, str]]:
    # Duke's exports are Latin-1 (accented author names).
    with open_text(table(duke_dir, name), encoding="latin-1", newline="") as handle:
        yield from csv.DictReader(handle)


def _mesh_keys(vocabulary: Vocabulary, plants: set[str]) -> dict[str, str]:
    """Folded plant term -> descriptor id (the first descriptor in id order where two share a term)."""
    keys: dict[str, str] = {}
    for entity_id in sorted(plants):
        concept = vocabulary.concepts[entity_id]
        for term in (concept.name, *concept.synonyms):
            keys.setdefault(search_key(term), entity_id)
    return keys


def duke_plant_names(duke_dir: Path, vocabulary: Vocabulary | None) -> dict[str, tuple[str, bool]]:
    """Every name form of Duke's taxa -> (entity id, case-sensitive)."""
    plants = plant_descriptors(vocabulary) if vocabulary is not None else set()
    mesh = _mesh_keys(vocabulary, plants) if vocabulary is not None else {}
    names: dict[str, tuple[str, bool]] = {}
    by_number: dict[str, str] = {}
    for row in _read_csv(duke_dir, FNFTAX):
        genus, species = row["GENUS"].strip(), row["SPECIES"].strip()
        if not genus or not species or not genus.isalpha():
            continue
        binomial = f"{genus} {species}"
        entity_id = mesh.get(search_key(binomial)) or mesh.get(search_key(genus)) or herb_id(binomial)
        by_number[row["FNFNUM"]] = entity_id
        for form in (binomial, f"{genus[0]}. {species}", f"{genus[0]} {species}", f"{genus} {species.capitalize()}"):
            names.setdefault(form, (entity_id, True))
        genus_id = mesh.get(search_key(genus))
        names.setdefault(genus, (genus_id or herb_id(genus), True))
    for row in _read_csv(duke_dir, COMMON_NAMES):
        name, entity_id = row["CNNAM"].strip(), by_number.get(row["FNFNUM"])
        if entity_id and len(name) > 3 and name.lower() not in _COMMON_STOP:
            names.setdefault(name.lower(), (entity_id, False))
    return names


def mesh_plant_names(vocabulary: Vocabulary) -> dict[str, tuple[str, bool]]:
    """MeSH's own plant terms (the linker finds them too, but types every organism alike)."""
    plants = plant_descriptors(vocabulary)
    return {key: (entity_id, False) for key, entity_id in _mesh_keys(vocabulary, plants).items() if len(key) > 3}
