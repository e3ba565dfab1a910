"""Herb nodes: the medicinal plants of the graph, from MeSH and Dr. Duke's databases.

A herb is an Entity node of type Organism. Its id is the MeSH descriptor's (`mesh:D030024`) for a
plant MeSH covers (tree B01.875, Plants), else `herb:<slug of the scientific name>`.

`bio-mcp kg herbs` writes them (idempotent, `write_herb_catalog`):
- every MeSH descriptor under B01.875 (its MeSH name is the node's title; MeSH terms stay in the
  linker's vocabulary, not in `kg_names`);
- every Dr. Duke taxon (FNFTAX.csv, CC0) with its common names (COMMON_NAMES.csv) as English
  common names and its taxon as the scientific name (`la`). A taxon goes to the entity a curated
  import already gave that scientific name (`bio-mcp kg import`), else to the MeSH plant named so
  (name or entry term, also with a variety dropped: "Allium sativum var. sativum" -> Garlic), else
  to a new `herb:` node with a BROADER edge to its genus when MeSH has the genus.

- with Dr. Duke's plant-to-constituent table (`graph/duke_farmacy.py`), every taxon's constituents
  as HAS_CONSTITUENT edges of the herb the taxon went to.

Dr. Duke's constituent activities (AGGREGAC.csv) are read by `duke_activities`: chemical name ->
the activities Duke lists for it, matched to MeSH chemicals by name.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from sqlalchemy.engine import Connection

from bio_mcp.config import Settings
from bio_mcp.data_files import DUKE, data_folder, member, open_text, table
from bio_mcp.graph.build import entity_graph
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.duke_farmacy import mark_all_constituents_written, write_duke_constituents
from bio_mcp.graph.elements import BROADER, Edge, Node
from bio_mcp.graph.names import EntityName, all_names, write_names
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.graph.vocabulary import Concept, Vocabulary, search_key
from bio_mcp.store.database import analyze_after_bulk_load

PLANTS_TREE = "B01.875"
SCIENTIFIC_LANG = "la"
DUKE_TAXA_SOURCE = "duke:FNFTAX.csv"
DUKE_NAMES_SOURCE = "duke:COMMON_NAMES.csv"
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def herb_slug_id(scientific_name: str) -> str:
    """`herb:<slug>`: 'Zingiber montanum' -> 'herb:zingiber-montanum' (accents folded, lower case)."""
    folded = unicodedata.normalize("NFKD", scientific_name).encode("ascii", "ignore").decode().lower()
    return "herb:" + _NOT_SLUG.sub("-", folded).strip("-")


def is_plant(concept: Concept) -> bool:
    return any(tree.startswith(PLANTS_TREE) for tree in concept.tree_numbers)


class PlantIndex:
    """The MeSH plants by search key of their names and entry terms."""

    def __init__(self, vocabulary: Vocabulary | None) -> None:
        self.plants = sorted(
            (c for c in (vocabulary.concepts.values() if vocabulary else ()) if is_plant(c)), key=lambda c: c.id
        )
        self._by_key: dict[str, str] = {}
        for concept in self.plants:
            for term in (concept.name, *concept.synonyms):
                self._by_key.setdefault(search_key(term), concept.id)

    def find(self, scientific_name: str) -> str | None:
        """The MeSH plant called `scientific_name`, or its species without variety/subspecies; None if none."""
        key = search_key(scientific_name)
        if key in self._by_key:
            return self._by_key[key]
        species = " ".join(key.split()[:2])
        return self._by_key.get(species)

    def genus(self, scientific_name: str) -> str | None:
        words = search_key(scientific_name).split()
        return self._by_key.get(words[0]) if words else None


@dataclass
class DukeTaxon:
    number: str
    taxon: str
    common_names: list[str] = field(default_factory=list)


def read_duke_taxa(duke_dir: Path) -> list[DukeTaxon]:
    taxa: dict[str, DukeTaxon] = {}
    with open_text(table(duke_dir, "FNFTAX.csv"), errors="replace", newline="") as handle:
        for row in csv.DictReader(handle):
            taxon = " ".join((row.get("TAXON") or "").split())
            if taxon:
                taxa[row["FNFNUM"]] = DukeTaxon(row["FNFNUM"], taxon)
    with open_text(table(duke_dir, "COMMON_NAMES.csv"), errors="replace", newline="") as handle:
        for row in csv.DictReader(handle):
            name = " ".join((row.get("CNNAM") or "").split())
            if name and row.get("FNFNUM") in taxa:
                taxa[row["FNFNUM"]].common_names.append(name)
    return [taxa[key] for key in sorted(taxa, key=lambda n: (len(n), n))]


def duke_dir_of(settings: Settings) -> Path | None:
    """BIO_MCP_DUKE_DIR, else the tables shipped in the package; None if the one chosen has no FNFTAX.csv."""
    return data_folder(settings.duke_dir, DUKE, "FNFTAX.csv")


@lru_cache(maxsize=2)
def duke_activities(duke_dir: Path | None) -> dict[str, tuple[str, ...]]:
    """Chemical search key -> the activities Dr. Duke lists for it (AGGREGAC.csv), sorted; {} without data."""
    activities = member(duke_dir, "AGGREGAC.csv") if duke_dir is not None else None
    if activities is None:
        return {}
    found: dict[str, set[str]] = {}
    with open_text(activities, errors="replace", newline="") as handle:
        for row in csv.DictReader(handle):
            chemical, activity = row.get("CHEM") or "", (row.get("ACTIVITY") or "").strip()
            if chemical and activity:
                found.setdefault(search_key(chemical), set()).add(activity)
    return {key: tuple(sorted(values)) for key, values in found.items()}


@dataclass(frozen=True)
class HerbCatalogReport:
    mesh_plants: int
    duke_taxa: int
    duke_on_mesh: int
    duke_on_imported: int
    herb_nodes: int
    names_added: int
    # Dr. Duke's constituent table: its rows, the HAS_CONSTITUENT edges they make (how many of them to
    # a MeSH chemical), the evidence rows this run added. 0 without the table.
    constituent_rows: int = 0
    constituent_edges: int = 0
    constituents_on_mesh: int = 0
    constituent_evidence_added: int = 0


def write_herb_catalog(
    connection: Connection, catalog: MeshCatalog, duke_dir: Path | None, farmacy_dir: Path | None = None
) -> HerbCatalogReport:
    """Write the herb nodes and names, and with `farmacy_dir` their constituents (see the module
    docstring); safe to run again."""
    plants = PlantIndex(catalog.vocabulary)
    imported = {
        search_key(name.name): name.entity_id
        for name in all_names(connection, SCIENTIFIC_LANG)
        if not name.source.startswith("duke:")
    }
    names: list[EntityName] = []
    mesh_ids = {c.id for c in plants.plants}
    herb_nodes: dict[str, Node] = {}
    edges: list[Edge] = []
    taxa = read_duke_taxa(duke_dir) if duke_dir is not None else []
    on_mesh = on_imported = 0
    herb_of_taxon: dict[str, str] = {}
    for taxon in taxa:
        entity_id = imported.get(search_key(taxon.taxon))
        if entity_id is not None:
            on_imported += 1
        else:
            entity_id = plants.find(taxon.taxon)
            if entity_id is not None:
                on_mesh += 1
        if entity_id is None:
            entity_id = herb_slug_id(taxon.taxon)
            herb_nodes[entity_id] = Node(id=entity_id, label="Entity", type="Organism", title=taxon.taxon)
            genus = plants.genus(taxon.taxon)
            if genus is not None:
                edges.append(Edge(src=entity_id, type=BROADER, dst=genus, weight=1.0))
                mesh_ids.add(genus)
        herb_of_taxon[search_key(taxon.taxon)] = entity_id
        names.append(EntityName(entity_id, SCIENTIFIC_LANG, taxon.taxon, "scientific", DUKE_TAXA_SOURCE))
        names += [EntityName(entity_id, "en", name, "common", DUKE_NAMES_SOURCE) for name in taxon.common_names]
    store = SqlGraphStore(connection)
    mesh_nodes, mesh_edges = entity_graph(mesh_ids, catalog, {})
    store.insert([*mesh_nodes, *herb_nodes.values()], [*mesh_edges, *edges])
    added = write_names(connection, names)
    report = HerbCatalogReport(
        mesh_plants=len(plants.plants), duke_taxa=len(taxa), duke_on_mesh=on_mesh, duke_on_imported=on_imported,
        herb_nodes=len(plants.plants) + len(herb_nodes), names_added=added,
    )
    if farmacy_dir is None:
        analyze_after_bulk_load(connection, ("kg_nodes", "kg_edges", "kg_names"))
        return report
    constituents = write_duke_constituents(connection, catalog, herb_of_taxon.get, farmacy_dir)
    mark_all_constituents_written(connection, farmacy_dir)
    analyze_after_bulk_load(connection, ("kg_nodes", "kg_edges", "kg_names", "kg_relation_evidence"))
    return replace(
        report, constituent_rows=constituents.rows, constituent_edges=constituents.edges,
        constituents_on_mesh=constituents.on_mesh, constituent_evidence_added=constituents.evidence_added,
    )

