"""Dr. Duke's plant constituents (FARMACY_NEW) and traditional uses (ETHNOBOT), as one project published
them processed (`duke_plant_constituents.csv`: slug, latin_name, family, plant_part, chemical;
`duke_plant_ethnobotany.csv`: slug, latin_name, family, ethnobotanical_use; CC0 data of USDA ARS).

Their Latin names are Dr. Duke's taxa (FNFTAX.csv), so a plant joins the herb the catalog gave that
taxon (`herb_catalog.write_herb_catalog`).

- Constituents become HAS_CONSTITUENT edges (`write_duke_constituents`): the chemical is the MeSH
  Chemical descriptor named so (name or entry term: "Thiamin" is Thiamine, "1,8 Cineole" Eucalyptol),
  else a `chemical:<slug of Duke's name>` node (Allicin, which MeSH lists only as a supplementary
  concept). Each edge is backed by one `kg_relation_evidence` row per taxon (extractor `import`,
  source `duke:FARMACY_NEW`, the table's row as the quote) and says in its props the `parts`, `taxa`
  and Duke's `names`, and whether the chemical is `widespread`: found in at least WIDESPREAD_SHARE of
  Duke's plants (fat, water, calcium, quercetin, limonene). Without amounts (the processing lost
  them) a widespread chemical tells nothing about a herb, so its indications are not carried to one.
- Traditional uses are read at request time (`traditional_uses`), never written as relations: they
  are what was recorded as used, not evidence that it works, and are shown labelled so.
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.config import Settings
from bio_mcp.data_files import DUKE_FARMACY, data_folder, member, open_text, table
from bio_mcp.graph.build import entity_graph
from bio_mcp.graph.bulk_rows import BulkRows, json_text
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.duke_constituents import CONSTITUENTS, ConstituentRow, constituent_rows
from bio_mcp.graph.elements import HAS_CONSTITUENT, Edge
from bio_mcp.graph.evidence_store import EVIDENCE_COLUMNS, IMPORT_EXTRACTOR, SqlEvidenceStore
from bio_mcp.graph.ids import sha256_hex
from bio_mcp.graph.names import names_of
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.graph.vocabulary import Vocabulary, search_key
from bio_mcp.store.database import in_batches
from bio_mcp.store.schema import kg_edges, kg_relation_evidence

ETHNOBOTANY_FILE = "duke_plant_ethnobotany.csv"
CONSTITUENTS_SOURCE = "duke:FARMACY_NEW"
ETHNOBOTANY_SOURCE = "duke:ETHNOBOT"
TRADITIONAL_USE = "traditional use (Dr. Duke's ethnobotany), not evidence"
CHEMICAL_PREFIX = "chemical:"
# In 5% of Duke's 2,289 plants or more: nutrients and proximates (fat, protein, calcium, water,
# ascorbic acid), sugars, fatty acids, ubiquitous terpenes and flavonols (limonene, quercetin):
# 130 of 24,771 chemicals. Curcumin is in 5 plants, allicin in 2, caffeine in 17, berberine in 33.
WIDESPREAD_SHARE = 0.05
_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_QUALIFIED = re.compile(r"^(?P<what>[^()]+)\((?P<where>[^()]+)\)$")
_MAX_ID = 80


def duke_farmacy_dir_of(settings: Settings) -> Path | None:
    """BIO_MCP_DUKE_FARMACY_DIR, else the tables shipped in the package; None if neither has the
    constituent table (plain or compressed)."""
    return data_folder(settings.duke_farmacy_dir, DUKE_FARMACY, CONSTITUENTS)


def chemical_id(name: str) -> str:
    """`chemical:<slug>` of a chemical MeSH has no descriptor for; a slug too long for an id keeps its
    start and a hash of the whole."""
    entity_id = CHEMICAL_PREFIX + _NOT_SLUG.sub("-", name.lower()).strip("-")
    return entity_id if len(entity_id) <= _MAX_ID else f"{entity_id[:_MAX_ID - 13]}-{sha256_hex(entity_id)[:12]}"


def carries_to_herb(props: Mapping[str, Any]) -> bool:
    """Whether what is known of a constituent (its indications, harms, interactions) may be read as its
    herb's, by its HAS_CONSTITUENT edge's props: not when the chemical is widespread and Duke's table
    alone names it (a curated import gives the edge `relations`, a sentence its extractor)."""
    extractors = set(props.get("extractors") or ())
    return not props.get("widespread") or bool(props.get("relations")) or bool(extractors - {IMPORT_EXTRACTOR})


def mesh_chemical(vocabulary: Vocabulary | None, name: str) -> str | None:
    """The MeSH Chemical descriptor named `name` (name, else entry term), the first by id; None if none."""
    if vocabulary is None:
        return None
    found = sorted(i for i in vocabulary.exactly(name) if (concept := vocabulary.get(i)) and concept.type == "Chemical")
    return found[0] if found else None


@dataclass(frozen=True)
class ConstituentReport:
    rows: int
    edges: int
    on_mesh: int
    evidence_added: int


def write_duke_constituents(
    connection: Connection, catalog: MeshCatalog, herb_of_taxon: Callable[[str], str | None], farmacy_dir: Path
) -> ConstituentReport:
    """HAS_CONSTITUENT edges of every herb `herb_of_taxon` (taxon search key -> entity id, or None)
    maps, from Duke's constituent table (see the module docstring); safe to run again."""
    plants_of: dict[str, set[str]] = {}
    plants: set[str] = set()
    rows: list[tuple[str, ConstituentRow]] = []
    total = 0
    for row in constituent_rows(farmacy_dir):
        total += 1
        taxon = search_key(row.latin_name)
        plants_of.setdefault(search_key(row.chemical), set()).add(taxon)
        plants.add(taxon)
        herb = herb_of_taxon(taxon)
        if herb is not None:
            rows.append((herb, row))
    all_plants = len(plants)
    chemical_of: dict[str, str] = {}
    wanted: dict[tuple[str, str], dict[str, set[str]]] = {}
    parts: dict[tuple[str, str, str, str], set[str]] = {}
    for herb, row in rows:
        if row.chemical not in chemical_of:
            chemical_of[row.chemical] = mesh_chemical(catalog.vocabulary, row.chemical) or chemical_id(row.chemical)
        chemical = chemical_of[row.chemical]
        props = wanted.setdefault((herb, chemical), {"parts": set(), "taxa": set(), "names": set(), "widespread": set()})
        props["parts"].add(row.part.lower())
        props["taxa"].add(row.latin_name)
        props["names"].add(row.chemical)
        props["widespread"].add(str(len(plants_of[search_key(row.chemical)]) >= WIDESPREAD_SHARE * all_plants))
        parts.setdefault((herb, chemical, row.latin_name, row.chemical), set()).add(row.part)
    names: dict[str, str] = {}
    for duke_name, chemical in sorted(chemical_of.items()):
        if chemical.startswith(CHEMICAL_PREFIX):
            names.setdefault(chemical, duke_name)
    nodes, vocabulary_edges = entity_graph(
        {chemical for _, chemical in wanted}, catalog, dict.fromkeys(names, "Chemical"), names
    )
    # The herbs' nodes are the catalog's, written before.
    SqlGraphStore(connection).insert(nodes, vocabulary_edges)
    _merge_props(connection, wanted)
    evidence = {}
    for (herb, chemical, latin_name, duke_name), found in parts.items():
        sentence = f"{latin_name}, {', '.join(sorted(found))}: {duke_name}"
        row_id = sha256_hex(f"{herb}|{HAS_CONSTITUENT}|{chemical}|{CONSTITUENTS_SOURCE}|{sentence}")
        evidence[row_id] = (row_id, herb, HAS_CONSTITUENT, chemical, None, None, CONSTITUENTS_SOURCE, sentence, None,
                            None, IMPORT_EXTRACTOR, 1.0)
    stored: set[str] = set()
    for batch in in_batches(sorted(evidence)):
        stored |= {row[0] for row in connection.execute(
            sa.select(kg_relation_evidence.c.id).where(kg_relation_evidence.c.id.in_(batch)))}
    new = [evidence[key] for key in sorted(evidence) if key not in stored]
    BulkRows(connection).insert_new("kg_relation_evidence", EVIDENCE_COLUMNS, new)
    SqlEvidenceStore(connection).derive_edges({(row[1], row[2], row[3]) for row in new})
    return ConstituentReport(
        rows=total, edges=len(wanted), on_mesh=sum(1 for _, chemical in wanted if chemical.startswith("mesh:")),
        evidence_added=len(new),
    )


# kg_meta: {"table": sha256 of the constituent table} once every taxon's constituents are written
# (`bio-mcp kg herbs`), and under `_herb_key` once one herb's are (`write_herb_constituents`).
ALL_CONSTITUENTS_KEY = "duke_constituents"


@lru_cache(maxsize=4)
def constituents_digest(farmacy_dir: Path) -> str:
    """The constituent table's hash: a release shipping another table writes the herbs' edges again."""
    return hashlib.sha256(table(farmacy_dir, CONSTITUENTS).read_bytes()).hexdigest()


def _herb_key(herb_id: str) -> str:
    return f"{ALL_CONSTITUENTS_KEY}:{sha256_hex(herb_id)[:40]}"  # kg_meta keys are 64 characters at most


def mark_all_constituents_written(connection: Connection, farmacy_dir: Path) -> None:
    SqlGraphStore(connection).set_meta(ALL_CONSTITUENTS_KEY, {"table": constituents_digest(farmacy_dir)})


def constituents_pending(connection: Connection, herb_ids: Iterable[str], farmacy_dir: Path) -> list[str]:
    """The herbs whose constituents this table has not yet been written for, in order."""
    store = SqlGraphStore(connection)
    digest = constituents_digest(farmacy_dir)
    if (store.meta(ALL_CONSTITUENTS_KEY) or {}).get("table") == digest:
        return []
    return [herb for herb in dict.fromkeys(herb_ids) if (store.meta(_herb_key(herb)) or {}).get("table") != digest]


def herb_taxa(connection: Connection, herb_id: str, vocabulary: Vocabulary | None) -> list[str]:
    """The names Duke may list a herb under: its imported scientific names and, for a MeSH plant, its
    heading and entry terms (MeSH lists "Allium sativum" under Garlic)."""
    taxa = [name.name for name in names_of(connection, [herb_id]).get(herb_id, []) if name.kind == "scientific"]
    concept = vocabulary.get(herb_id) if vocabulary is not None else None
    return taxa + ([concept.name, *concept.synonyms] if concept is not None else [])


def write_herb_constituents(
    connection: Connection, catalog: MeshCatalog, herb_id: str, taxa: Iterable[str], farmacy_dir: Path
) -> ConstituentReport:
    """One herb's constituents, as `bio-mcp kg herbs` writes every taxon's: the rows of the taxa named
    (a variety's rows too: "Allium sativum var. sativum" is Allium sativum's). A server writes them
    on a herb's first read (0.6 s for garlic's 443), so a fresh install lists them with no command,
    without writing the 82,000 edges of Duke's 99,029 rows for herbs nobody asks about."""
    keys = {search_key(taxon) for taxon in taxa}

    def herb_of(taxon: str) -> str | None:
        return herb_id if taxon in keys or " ".join(taxon.split()[:2]) in keys else None

    store = SqlGraphStore(connection)
    if herb_id.startswith("mesh:"):  # a MeSH plant the graph may have no node for yet
        store.insert(*entity_graph([herb_id], catalog, {}))
    report = write_duke_constituents(connection, catalog, herb_of, farmacy_dir)
    store.set_meta(_herb_key(herb_id), {"herb": herb_id, "table": constituents_digest(farmacy_dir)})
    return report


def _merge_props(connection: Connection, wanted: Mapping[tuple[str, str], Mapping[str, set[str]]]) -> None:
    """Write each edge with Duke's props merged into what it has (an edge a curated import or a
    document made keeps its own); an edge whose props already say it all is left alone."""
    stored: dict[tuple[str, str], dict[str, Any]] = {}
    for batch in in_batches(sorted({herb for herb, _ in wanted})):
        statement = sa.select(kg_edges.c.src, kg_edges.c.dst, kg_edges.c.weight, kg_edges.c.document_id,
                              kg_edges.c.props).where(kg_edges.c.src.in_(batch), kg_edges.c.type == HAS_CONSTITUENT)
        stored.update({(row.src, row.dst): {"weight": row.weight, "document_id": row.document_id,
                                            "props": dict(row.props or {})} for row in connection.execute(statement)})
    rows = []
    for key in sorted(wanted):
        before = stored.get(key, {"weight": 1.0, "document_id": None, "props": {}})
        props = dict(before["props"])
        for name, values in wanted[key].items():
            if name == "widespread":
                props[name] = "True" in values
            else:
                props[name] = sorted(set(props.get(name) or []) | values)
        if key not in stored or props != before["props"]:
            rows.append(Edge(key[0], HAS_CONSTITUENT, key[1], float(before["weight"]), before["document_id"],
                             json_text(props)))
    BulkRows(connection).upsert("kg_edges", Edge._fields, ("src", "type", "dst"), (), rows)


@dataclass(frozen=True)
class TraditionalUse:
    use: str
    # The MeSH disease the use names, where Duke's term is one (name or entry term): "Ache(Tooth)"
    # is Toothache; "Carminative" names none.
    disease_id: str | None
    taxon: str


@lru_cache(maxsize=2)
def ethnobotany(farmacy_dir: Path | None) -> dict[str, tuple[str, ...]]:
    """Taxon search key -> Duke's recorded uses, in the table's order; {} without the table. A variety's
    uses are its species' too ("Allium sativum var. sativum" under "allium sativum"), as a herb's
    imported scientific name is the binomial."""
    if farmacy_dir is None or member(farmacy_dir, ETHNOBOTANY_FILE) is None:
        return {}
    found: dict[str, list[str]] = {}
    with open_text(table(farmacy_dir, ETHNOBOTANY_FILE), newline="") as handle:
        for row in csv.DictReader(handle):
            use = " ".join((row.get("ethnobotanical_use") or "").split())
            latin = row.get("latin_name") or ""
            for key in {search_key(latin), search_key(" ".join(latin.split()[:2]))}:
                uses = found.setdefault(key, [])
                if use and use not in uses:
                    uses.append(use)
    return {key: tuple(values) for key, values in found.items()}


def use_disease(vocabulary: Vocabulary | None, use: str) -> str | None:
    """The MeSH disease Duke's term names: as written ("Asthma"), else a qualified term read both ways
    ("Ache(Tooth)": "Tooth Ache", "Toothache"); None when none is a Disease descriptor."""
    if vocabulary is None:
        return None
    forms = [use]
    qualified = _QUALIFIED.match(use)
    if qualified:
        what, where = qualified.group("what").strip(), qualified.group("where").strip()
        forms += [f"{where} {what}", f"{where}{what.lower()}"]
    for form in forms:
        found = sorted(i for i in vocabulary.exactly(form) if (concept := vocabulary.get(i)) and concept.type == "Disease")
        if found:
            return found[0]
    return None


def traditional_uses(farmacy_dir: Path | None, taxa: list[str], vocabulary: Vocabulary | None) -> list[TraditionalUse]:
    """Duke's recorded uses of the taxa (a herb's scientific names), each once, under the most specific
    taxon that records it (a variety before its species), by taxon then in order."""
    table = ethnobotany(farmacy_dir)
    found: dict[str, TraditionalUse] = {}
    for taxon in sorted(set(taxa), key=lambda name: (-len(name.split()), name)):
        for use in table.get(search_key(taxon), ()):
            found.setdefault(use, TraditionalUse(use, use_disease(vocabulary, use), taxon))
    return list(found.values())
