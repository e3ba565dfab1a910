"""Which chemicals Dr. Duke's phytochemical database says each plant contains, by the plant's graph id.

A sentence such as "quercetin, isolated from X" reads as a constituent, but one that names a plant
and a chemical near "contains" or "extracted from" is often about something else (the extraction
solvent, a drug given beside the extract). The plant relation extractor states HAS_CONSTITUENT
only where these tables agree that the plant contains the chemical (`graph/relations.py`);
`tool.query_kg` types a chemical a constituent only by such a sentence or a curated import.

    contents = load_duke_constituents(farmacy_dir, vocabulary)   # {"mesh:D...": frozenset({"curcumin", ...})}

From `duke_plant_constituents.csv` (USDA ARS, CC0; `../shared/data/herbs/duke_farmacy/SOURCES.md`):
each Latin name is mapped as Duke's taxa are (`graph/plant_names.py`: the MeSH plant descriptor of the
species, else of the genus, else `herb:<slug>`), each chemical name folded (`term_key`: "Bornyl
Acetate" and "bornyl-acetate" are one key). The folder lives beside Dr. Duke's taxa (`BIO_MCP_DUKE_DIR`'s
sibling `duke_farmacy/`).

This module is the one reader of that table (`constituent_rows`): `graph/duke_farmacy.py` writes the
same rows as HAS_CONSTITUENT edges.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bio_mcp.data_files import member, open_text, table
from bio_mcp.graph.linking import term_key
from bio_mcp.graph.plant_names import herb_id, plant_descriptors
from bio_mcp.graph.vocabulary import Vocabulary, search_key

FARMACY_DIR = "duke_farmacy"
CONSTITUENTS = "duke_plant_constituents.csv"


def farmacy_dir_of(duke_dir: Path | None) -> Path | None:
    """The `duke_farmacy/` folder beside Dr. Duke's taxa (so in the package, as in the shared data),
    if it holds the constituent table, plain or compressed."""
    if duke_dir is None:
        return None
    path = duke_dir.parent / FARMACY_DIR
    return path if member(path, CONSTITUENTS) is not None else None


@dataclass(frozen=True)
class ConstituentRow:
    latin_name: str
    part: str
    chemical: str


def constituent_rows(farmacy_dir: Path) -> Iterator[ConstituentRow]:
    """The table's rows, spaces collapsed, one at a time (99,029 of them: a list of them all held
    about 30 MB while it was read); rows without a Latin name or a chemical are left out."""
    with open_text(table(farmacy_dir, CONSTITUENTS), newline="") as handle:
        for row in csv.DictReader(handle):
            found = ConstituentRow(" ".join(row["latin_name"].split()), " ".join(row["plant_part"].split()),
                                   " ".join(row["chemical"].split()))
            if found.latin_name and found.chemical:
                yield found


def load_duke_constituents(farmacy_dir: Path | None, vocabulary: Vocabulary | None) -> dict[str, frozenset[str]]:
    """Plant entity id (and `herb:<slug>` of each Latin name) -> the folded names of the chemicals
    Duke lists for it (empty without the table)."""
    if farmacy_dir is None:
        return {}
    mesh: dict[str, str] = {}
    if vocabulary is not None:
        for entity_id in sorted(plant_descriptors(vocabulary)):
            concept = vocabulary.concepts[entity_id]
            for name in (concept.name, *concept.synonyms):
                mesh.setdefault(search_key(name), entity_id)
    contents: dict[str, set[str]] = {}
    ids: dict[str, str] = {}
    # One string per chemical name and one set per distinct list: quercetin is listed for hundreds
    # of plants, and a plant's MeSH id and its herb slug mostly list the same (18 MB of the server
    # held as copies).
    names: dict[str, str] = {}
    lists: dict[frozenset[str], frozenset[str]] = {}
    for row in constituent_rows(farmacy_dir):
        latin = " ".join(row.latin_name.split()[:2])
        if latin not in ids:
            genus = latin.split(" ", 1)[0]
            ids[latin] = mesh.get(search_key(latin)) or mesh.get(search_key(genus)) or herb_id(latin)
        key = term_key(row.chemical)
        key = names.setdefault(key, key)
        if key:
            # Under the Latin name's slug too: a text's plant the graph has no MeSH id for
            # ("Morus alba L.") is looked up by its name.
            for entity_id in {ids[latin], herb_id(latin)}:
                contents.setdefault(entity_id, set()).add(key)
    return {entity_id: lists.setdefault(frozenset(keys), frozenset(keys)) for entity_id, keys in contents.items()}
