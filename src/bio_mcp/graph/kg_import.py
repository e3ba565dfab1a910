"""`bio-mcp kg import FILE`: herbs, formulations and curated relations from a table, each with its source.

Two layouts, one meaning. A TSV file (UTF-8, tab-separated, a header line, `#` comment lines and
blank lines skipped) holds one kind, named by its header's first column; a JSONL file holds one
object per line whose `kind` names it, so kinds may mix. Columns (JSON keys) per kind:

| kind | header starts with | columns (* required) |
|---|---|---|
| herb | `scientific_name` | scientific_name*, thai_name, english_name, mesh_ui (D-number: the MeSH plant that covers it), mesh_name (checked against mesh_ui), source |
| formulation | `formulation_id` | formulation_id* ([a-z0-9_-]), thai_name, english_name, herbs* (the column whose name starts with `herbs`: scientific names or herb ids, `;` between; a JSON list in JSONL), source |
| relation | `subject` | subject*, relation* (constituent, indication, adverse_effect, contraindication, interaction), object*, evidence* (the sentence), source* (e.g. `pmid:16475702`, a URL, a book), part (the plant part, `;` between) |

- Herbs: the id is `mesh:<mesh_ui>` when given, else the MeSH plant named exactly so (a variety or
  subspecies dropped), else `herb:<slug>`. Names go to `kg_names`: `th`, `en` and the scientific
  name (`la`); an entity's first name per language is its preferred one, later ones common names.
- Formulations are `formulation:<id>` nodes (type Concept) with HAS_INGREDIENT edges to their herbs,
  named by a scientific name already imported (or a MeSH plant), or by an id.
- Relations: `subject` is an entity id (`mesh:D...`, `herb:...`, `formulation:...`) or a name an
  imported herb goes by; `object` is a MeSH descriptor (`mesh:D...`, `D...` or its exact name or
  entry term): a Chemical for constituent and interaction, a disease for indication and adverse_effect;
  any descriptor for a contraindication (a disease, or a state such as Pregnancy). They become
  HAS_CONSTITUENT, TREATS, CAUSES (adverse effects and contraindications: the edge's `relations` prop
  says which) and INTERACTS_WITH edges
  with one `kg_relation_evidence` row per line: extractor `import`, the line's `source` as the fact's
  source (a `pmid:N` source also names its PubMed Document node, so the strength of the evidence can
  read that record's quality once it is in the corpus), the sentence as given.
- The `source` of names is the line's `source`, else the file's name.

Every line is checked before anything is written; a file with any bad line writes nothing and the
error lists each one as `FILE:LINE: what is wrong`. Importing the same file again adds nothing: names,
nodes, edges and evidence rows are keyed by what they say (an evidence row by its edge, source and
sentence), not by the line they came from.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.data_files import THAI_FORMULATIONS, THAI_HERB_NAMES
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.graph.build import entity_graph
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.duke_farmacy import CHEMICAL_PREFIX
from bio_mcp.graph.elements import CAUSES, HAS_CONSTITUENT, HAS_INGREDIENT, INTERACTS_WITH, TREATS, Edge, Node
from bio_mcp.graph.evidence_store import IMPORT_EXTRACTOR, SqlEvidenceStore
from bio_mcp.graph.herb_catalog import SCIENTIFIC_LANG, PlantIndex, herb_slug_id
from bio_mcp.graph.ids import mesh_entity_id, sha256_hex
from bio_mcp.graph.names import EntityName, all_names, write_names
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.graph.vocabulary import search_key
from bio_mcp.store.database import upsert_insert
from bio_mcp.store.metadata_store import MetadataStore
from bio_mcp.store.schema import kg_edges, kg_names, kg_relation_evidence

RELATION_EDGES = {
    "constituent": HAS_CONSTITUENT,
    "indication": TREATS,
    "adverse_effect": CAUSES,
    "contraindication": CAUSES,
    "interaction": INTERACTS_WITH,
}
# The MeSH types an object of each relation may have (None: any descriptor). Concept is a disease
# whose descriptor carries no C tree in the file (Cardiovascular Diseases).
_OBJECT_TYPES: dict[str, tuple[str, ...] | None] = {
    "constituent": ("Chemical",), "indication": ("Disease", "Concept"), "adverse_effect": ("Disease", "Concept"),
    "contraindication": None, "interaction": ("Chemical",),
}
_KIND_OF_FIRST_COLUMN = {"scientific_name": "herb", "formulation_id": "formulation", "subject": "relation"}
_REQUIRED = {
    "herb": ("scientific_name",),
    "formulation": ("formulation_id", "herbs"),
    "relation": ("subject", "relation", "object", "evidence", "source"),
}
_KNOWN = {
    "herb": {"scientific_name", "thai_name", "english_name", "mesh_ui", "mesh_name", "source"},
    "formulation": {"formulation_id", "thai_name", "english_name", "herbs", "source"},
    "relation": {"subject", "relation", "object", "evidence", "source", "part"},
}
_MESH_UI = re.compile(r"^(?:mesh:)?([DC][0-9]{6,9})$", re.IGNORECASE)
_FORMULATION_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
_PMID_SOURCE = re.compile(r"^(?:pmid|pubmed)[: ]\s*([0-9]{1,16})$", re.IGNORECASE)


@dataclass(frozen=True)
class ImportLine:
    file: str
    line: int
    kind: str
    fields: dict[str, Any]

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class ImportReport:
    file: str
    lines: dict[str, int] = field(default_factory=dict)
    nodes: int = 0
    names_added: int = 0
    edges_added: int = 0
    evidence_added: int = 0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class _Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.items.append(f"{where}: {message}")

    def raise_if_any(self, file: str) -> None:
        if self.items:
            # In line order, whichever check found them.
            self.items.sort(key=lambda item: int(item.split(": ", 1)[0].rsplit(":", 1)[1]))
            count = len(self.items)
            raise BioMcpError(
                ErrorCode.VALIDATION,
                f"{file}: {count} invalid line{'s' if count > 1 else ''}, nothing imported; first: {self.items[0]}",
                {"file": file, "errors": self.items},
            )


# ---- reading and checking the lines -----------------------------------------------------------


def read_import_file(path: Path) -> tuple[list[ImportLine], _Problems]:
    """The file's well-formed lines, and the problems of the others (a bad header or an unreadable file
    raises VALIDATION at once)."""
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BioMcpError(ErrorCode.VALIDATION, f"{name}: no such file", {"file": name}) from None
    except UnicodeDecodeError as exc:
        raise BioMcpError(ErrorCode.VALIDATION, f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})",
                          {"file": name}) from None
    problems = _Problems()
    lines = _read_jsonl(name, text, problems) if path.suffix.lower() in (".jsonl", ".ndjson") else _read_tsv(name, text, problems)
    if not lines:
        problems.raise_if_any(name)
        raise BioMcpError(ErrorCode.VALIDATION, f"{name}: no data lines", {"file": name})
    return [line for line in lines if _check_fields(line, problems)], problems


def _read_tsv(name: str, text: str, problems: _Problems) -> list[ImportLine]:
    rows = [(number, line) for number, line in enumerate(text.splitlines(), start=1)
            if line.strip() and not line.lstrip().startswith("#")]
    if not rows:
        return []
    header_number, header_line = rows[0]
    header = [column.strip() for column in header_line.split("\t")]
    kind = _KIND_OF_FIRST_COLUMN.get(header[0])
    if kind is None:
        problems.add(f"{name}:{header_number}", f"the header's first column {header[0]!r} names no kind; expected one "
                     f"of {', '.join(sorted(_KIND_OF_FIRST_COLUMN))} (herb, formulation, relation tables)")
        return []
    # A column whose name starts with "herbs" is the formulation's herbs, whatever its note says.
    columns = ["herbs" if kind == "formulation" and column.startswith("herbs") else column for column in header]
    unknown = [column for column in columns if column not in _KNOWN[kind]]
    if unknown:
        problems.add(f"{name}:{header_number}", f"unknown column(s) for a {kind} table: {', '.join(unknown)}; "
                     f"known: {', '.join(sorted(_KNOWN[kind]))}")
        return []
    lines: list[ImportLine] = []
    for number, raw in rows[1:]:
        values = next(csv.reader(io.StringIO(raw), delimiter="\t", quoting=csv.QUOTE_NONE))
        if len(values) > len(columns):
            problems.add(f"{name}:{number}", f"{len(values)} fields for {len(columns)} columns")
            continue
        fields = {column: value.strip() for column, value in zip(columns, values, strict=False) if value.strip()}
        lines.append(ImportLine(name, number, kind, fields))
    return lines


def _read_jsonl(name: str, text: str, problems: _Problems) -> list[ImportLine]:
    lines: list[ImportLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.add(f"{name}:{number}", f"not JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(value, dict):
            problems.add(f"{name}:{number}", "not a JSON object")
            continue
        kind = value.pop("kind", None)
        if kind not in _KNOWN:
            problems.add(f"{name}:{number}", f"kind {kind!r} is not one of herb, formulation, relation")
            continue
        fields: dict[str, Any] = {}
        for key, item in value.items():
            if key not in _KNOWN[kind]:
                problems.add(f"{name}:{number}", f"unknown field {key!r} for a {kind}")
            elif isinstance(item, list) and key in ("herbs", "part"):
                fields[key] = "; ".join(str(part) for part in item)
            elif isinstance(item, str):
                if item.strip():
                    fields[key] = item.strip()
            elif item is not None:
                problems.add(f"{name}:{number}", f"{key} must be a string")
        lines.append(ImportLine(name, number, kind, fields))
    return lines


def _check_fields(line: ImportLine, problems: _Problems) -> bool:
    """Whether the line has its kind's required fields in their forms; each problem is added."""
    before = len(problems.items)
    for column in _REQUIRED[line.kind]:
        if not line.fields.get(column):
            problems.add(line.where, f"{column} is empty (required for a {line.kind})")
    if line.kind == "herb" and line.fields.get("mesh_ui") and not _MESH_UI.match(line.fields["mesh_ui"]):
        problems.add(line.where, f"mesh_ui {line.fields['mesh_ui']!r} is not a MeSH descriptor id (D followed by digits)")
    formulation_id = line.fields.get("formulation_id") if line.kind == "formulation" else None
    if formulation_id and not _FORMULATION_ID.match(formulation_id.removeprefix("formulation:")):
        problems.add(line.where, f"formulation_id {formulation_id!r} must be lower-case letters, digits, '_' or '-'")
    if line.kind == "relation" and line.fields.get("relation") and line.fields["relation"] not in RELATION_EDGES:
        problems.add(line.where, f"relation {line.fields['relation']!r} is not one of {', '.join(RELATION_EDGES)}")
    return len(problems.items) == before


# ---- resolving and writing ----------------------------------------------------------------------


class _Resolver:
    """Names and ids in a file -> graph entity ids, against MeSH and the names already imported."""

    def __init__(self, connection: Connection, catalog: MeshCatalog) -> None:
        self.catalog = catalog
        self.plants = PlantIndex(catalog.vocabulary)
        self.named: dict[str, set[str]] = {}
        for name in all_names(connection):
            self.named.setdefault(_name_key(name.name), set()).add(name.entity_id)
        self.known_ids: set[str] = set()

    def learn(self, entity_id: str, names: Iterable[str | None]) -> None:
        self.known_ids.add(entity_id)
        for name in names:
            if name:
                self.named.setdefault(_name_key(name), set()).add(entity_id)

    def mesh(self, value: str) -> tuple[str, str, str] | None:
        """(id, name, type) of a MeSH descriptor given by id, exact name or entry term."""
        vocabulary = self.catalog.vocabulary
        if vocabulary is None:
            return None
        match = _MESH_UI.match(value.strip())
        if match:
            concept = vocabulary.get(match.group(1))
            return (concept.id, concept.name, concept.type) if concept else None
        hits = vocabulary.search(value, limit=1)
        if hits and hits[0].how in ("name", "synonym"):
            return hits[0].concept.id, hits[0].concept.name, hits[0].concept.type
        return None

    def herb(self, value: str, connection: Connection) -> str | None | list[str]:
        """An herb by id or imported name (a list when the name is ambiguous), else the MeSH plant so named."""
        if value.startswith(("mesh:", "herb:", "formulation:")):
            if value in self.known_ids or SqlGraphStore(connection).existing([value]):
                return value
            found = self.mesh(value) if value.startswith("mesh:") else None
            return found[0] if found else None
        ids = sorted(self.named.get(_name_key(value), ()))
        if len(ids) == 1:
            return ids[0]
        if len(ids) > 1:
            return ids
        return self.plants.find(value)


def import_lines(
    connection: Connection, lines: list[ImportLine], catalog: MeshCatalog, source_name: str, problems: _Problems
) -> ImportReport:
    """Resolve and write checked lines in one transaction; VALIDATION (nothing written) if any line
    had a problem, here or in `problems` already."""
    resolver = _Resolver(connection, catalog)
    report = ImportReport(file=source_name)
    names: list[EntityName] = []
    nodes: dict[str, Node] = {}
    mesh_ids: set[str] = set()
    edges: dict[tuple[str, str, str], dict[str, Any]] = {}
    evidence: dict[str, dict[str, Any]] = {}
    preferred = _preferred_langs(connection)

    def name(entity_id: str, lang: str, text: str | None, source: str, scientific: bool = False) -> None:
        if not text:
            return
        kind = "scientific" if scientific else ("common" if (entity_id, lang) in preferred else "preferred")
        preferred.add((entity_id, lang))
        names.append(EntityName(entity_id, lang, text, kind, source))

    for line in lines:
        report.lines[line.kind] = report.lines.get(line.kind, 0) + 1
        fields = line.fields
        source = fields.get("source") or Path(line.file).name
        if line.kind == "herb":
            entity_id = _herb_id(line, resolver, problems)
            if entity_id is None:
                continue
            if entity_id.startswith("mesh:"):
                mesh_ids.add(entity_id)
            else:
                nodes[entity_id] = Node(id=entity_id, label="Entity", type="Organism", title=fields["scientific_name"])
            name(entity_id, "th", fields.get("thai_name"), source)
            name(entity_id, "en", fields.get("english_name"), source)
            name(entity_id, SCIENTIFIC_LANG, fields["scientific_name"], source, scientific=True)
            resolver.learn(entity_id, [fields["scientific_name"], fields.get("thai_name"), fields.get("english_name")])
        elif line.kind == "formulation":
            entity_id = "formulation:" + fields["formulation_id"].removeprefix("formulation:")
            herbs = [part.strip() for part in fields["herbs"].split(";") if part.strip()]
            ingredients: list[tuple[str, str]] = []
            for herb in herbs:
                found = resolver.herb(herb, connection)
                if isinstance(found, list):
                    problems.add(line.where, f"herb {herb!r} names several entities ({', '.join(found)}): use an id")
                elif found is None:
                    problems.add(line.where, f"herb {herb!r} is neither an imported herb nor a MeSH plant: import it "
                                 "in a herb table first, or give its id")
                else:
                    ingredients.append((herb, found))
            if len(ingredients) < len(herbs):
                continue
            nodes[entity_id] = Node(id=entity_id, label="Entity", type="Concept",
                                    title=fields.get("english_name") or fields["formulation_id"])
            name(entity_id, "th", fields.get("thai_name"), source)
            name(entity_id, "en", fields.get("english_name"), source)
            resolver.learn(entity_id, [fields.get("thai_name"), fields.get("english_name")])
            for herb, found in ingredients:
                props = edges.setdefault((entity_id, HAS_INGREDIENT, found), {"names": set()})
                props["names"].add(herb)
                if found.startswith("mesh:"):
                    mesh_ids.add(found)
                # The recipe is a fact with a source too: kept as evidence, so a graph rebuild restores it.
                _add_evidence(evidence, entity_id, HAS_INGREDIENT, found, source, f"{fields['formulation_id']}: {fields['herbs']}")
        else:
            _relation(line, resolver, connection, problems, edges, evidence, mesh_ids)
    problems.raise_if_any(source_name)
    store = SqlGraphStore(connection)
    missing_mesh = store.missing(mesh_ids)
    mesh_nodes, mesh_edges = entity_graph(missing_mesh, catalog, {})
    absent = store.missing(nodes)
    new_nodes = [node for node in nodes.values() if node.id in absent]
    store.insert([*mesh_nodes, *new_nodes], mesh_edges)
    report.nodes = len(mesh_nodes) + len(new_nodes)
    report.names_added = write_names(connection, names)
    report.edges_added = _merge_edges(connection, edges)
    report.evidence_added = _insert_evidence(connection, evidence)
    # Weight and evidence counts of a relation edge come from all its evidence, imported or extracted.
    SqlEvidenceStore(connection).derive_edges({(row["src"], row["type"], row["dst"]) for row in evidence.values()})
    return report


def import_file(connection: Connection, path: Path, catalog: MeshCatalog) -> ImportReport:
    """Read, check, resolve and write one import file (see the module docstring)."""
    lines, problems = read_import_file(path)
    return import_lines(connection, lines, catalog, str(path), problems)


def _preferred_langs(connection: Connection) -> set[tuple[str, str]]:
    statement = sa.select(kg_names.c.entity_id, kg_names.c.lang).where(kg_names.c.kind == "preferred").distinct()
    return {(row.entity_id, row.lang) for row in connection.execute(statement)}


def _herb_id(line: ImportLine, resolver: _Resolver, problems: _Problems) -> str | None:
    fields = line.fields
    ui = fields.get("mesh_ui")
    if ui:
        if resolver.catalog.vocabulary is None:
            return mesh_entity_id(_MESH_UI.match(ui).group(1).upper())  # type: ignore[union-attr]
        concept = resolver.catalog.vocabulary.get(ui)
        if concept is None:
            problems.add(line.where, f"mesh_ui {ui!r} is not a MeSH 2024 descriptor")
            return None
        if concept.type != "Organism":
            problems.add(line.where, f"mesh_ui {ui} is {concept.name!r}, a {concept.type}, not a plant")
            return None
        if fields.get("mesh_name") and search_key(fields["mesh_name"]) != search_key(concept.name):
            problems.add(line.where, f"mesh_name {fields['mesh_name']!r} is not the name of {ui} ({concept.name!r})")
            return None
        return concept.id
    return resolver.plants.find(fields["scientific_name"]) or herb_slug_id(fields["scientific_name"])


def _relation(
    line: ImportLine, resolver: _Resolver, connection: Connection, problems: _Problems,
    edges: dict[tuple[str, str, str], dict[str, Any]], evidence: dict[str, dict[str, Any]], mesh_ids: set[str],
) -> None:
    fields = line.fields
    relation = fields["relation"]
    subject = resolver.herb(fields["subject"], connection)
    if subject is None and not fields["subject"].startswith(("herb:", "formulation:")):
        found = resolver.mesh(fields["subject"])
        subject = found[0] if found else None
    if isinstance(subject, list):
        problems.add(line.where, f"subject {fields['subject']!r} names several entities ({', '.join(subject)}): use an id")
        return
    if subject is None:
        problems.add(line.where, f"subject {fields['subject']!r} is not a known entity id, imported herb name or MeSH name")
        return
    target = resolver.mesh(fields["object"])
    if target is None:
        problems.add(line.where, f"object {fields['object']!r} is not a MeSH descriptor (id, exact name or entry term)")
        return
    wanted = _OBJECT_TYPES[relation]
    if wanted is not None and target[2] not in wanted:
        problems.add(line.where, f"object {fields['object']!r} is {target[1]!r}, a {target[2]}; "
                     f"{_article(relation)} {relation} needs a {' or a '.join(wanted)}")
        return
    for entity_id in (subject, target[0]):
        if entity_id.startswith("mesh:"):
            mesh_ids.add(entity_id)
    edge_type = RELATION_EDGES[relation]
    props = edges.setdefault((subject, edge_type, target[0]), {"relations": set(), "parts": set()})
    props["relations"].add(relation)
    props["parts"].update(part.strip().lower() for part in fields.get("part", "").split(";") if part.strip())
    _add_evidence(evidence, subject, edge_type, target[0], fields["source"], fields["evidence"])


def _add_evidence(evidence: dict[str, dict[str, Any]], src: str, edge_type: str, dst: str, cited: str, sentence: str) -> None:
    pmid = _PMID_SOURCE.match(cited)
    source = f"pmid:{pmid.group(1)}" if pmid else cited
    row_id = sha256_hex(f"{src}|{edge_type}|{dst}|{source}|{sentence}")
    evidence[row_id] = {
        "id": row_id, "src": src, "type": edge_type, "dst": dst,
        # Never tied to a document node: a re-sync of the cited record must not take the fact away.
        "document_id": None,
        "section_id": None, "source": source[:255], "sentence": sentence, "start": None, "end": None,
        "extractor": IMPORT_EXTRACTOR, "confidence": 1.0,
    }


def _name_key(name: str) -> str:
    """Names match case-insensitively with collapsed spaces; not `search_key`, which would cut Thai
    words at their vowel marks (not alphanumeric to Python)."""
    return " ".join(name.casefold().split())


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _merge_edges(connection: Connection, edges: dict[tuple[str, str, str], dict[str, Any]]) -> int:
    """Insert new edges; merge the list props (relations, parts, names, sources) of stored ones. Returns how many are new."""
    added = 0
    for (src, edge_type, dst), props in sorted(edges.items()):
        wanted = {key: sorted(values) for key, values in props.items()}
        row = connection.execute(
            sa.select(kg_edges.c.props).where(kg_edges.c.src == src, kg_edges.c.type == edge_type, kg_edges.c.dst == dst)
        ).first()
        if row is None:
            connection.execute(sa.insert(kg_edges), [{"src": src, "type": edge_type, "dst": dst, "weight": 1.0,
                                                      "document_id": None, "props": wanted}])
            added += 1
            continue
        stored = dict(row.props or {})
        merged = {**stored, **{key: sorted(set(stored.get(key) or []) | set(values)) for key, values in wanted.items()}}
        if merged != stored:
            connection.execute(
                sa.update(kg_edges)
                .where(kg_edges.c.src == src, kg_edges.c.type == edge_type, kg_edges.c.dst == dst)
                .values(props=merged)
            )
    return added


def _insert_evidence(connection: Connection, rows: dict[str, dict[str, Any]]) -> int:
    if not rows:
        return 0
    ids = sorted(rows)
    existing: set[str] = set()
    for start in range(0, len(ids), 500):
        batch = ids[start:start + 500]
        existing |= {row[0] for row in connection.execute(
            sa.select(kg_relation_evidence.c.id).where(kg_relation_evidence.c.id.in_(batch)))}
    new = [rows[key] for key in ids if key not in existing]
    if new:
        connection.execute(upsert_insert(connection, kg_relation_evidence).on_conflict_do_nothing(index_elements=["id"]), new)
    return len(new)


# ---- surviving a graph rebuild ---------------------------------------------------------------------


def imported_edges(connection: Connection) -> list[Edge]:
    """The edges no document wrote (imported relations and recipes), kept across `bio-mcp graph rebuild`."""
    statement = sa.select(kg_edges).where(
        kg_edges.c.document_id.is_(None), kg_edges.c.type.in_([*RELATION_EDGES.values(), HAS_INGREDIENT])
    )
    return [Edge(src=row.src, type=row.type, dst=row.dst, weight=float(row.weight), props=row.props)
            for row in connection.execute(statement)]


def restore_imported(connection: Connection, catalog: MeshCatalog, edges: list[Edge]) -> int:
    """After a rebuild cleared the graph: the nodes of every named entity (`kg_names`) and of every
    imported fact's ends (Dr. Duke's constituents among them), then `edges`. Returns how many nodes
    were written."""
    store = SqlGraphStore(connection)
    ids = {name.entity_id for name in all_names(connection)} | {end for edge in edges for end in (edge.src, edge.dst)}
    ids |= {end for row in connection.execute(
        sa.select(kg_relation_evidence.c.src, kg_relation_evidence.c.dst).where(
            kg_relation_evidence.c.extractor == IMPORT_EXTRACTOR)) for end in row}
    missing = store.missing(ids)
    mesh_nodes, mesh_edges = entity_graph({i for i in missing if i.startswith("mesh:")}, catalog, {})
    named: dict[str, str] = {}
    for name in all_names(connection):
        if name.entity_id in missing and not name.entity_id.startswith("mesh:"):
            wanted = SCIENTIFIC_LANG if name.entity_id.startswith("herb:") else "en"
            if name.lang == wanted:
                named.setdefault(name.entity_id, name.name)
    # Dr. Duke's chemicals MeSH has no descriptor for are named by their constituent edges, as
    # `duke_farmacy` first named them: the first of Duke's names in sorted order.
    chemical_names: dict[str, set[str]] = {}
    for edge in edges:
        if edge.dst.startswith(CHEMICAL_PREFIX) and edge.dst in missing and isinstance(edge.props, dict):
            chemical_names.setdefault(edge.dst, set()).update(edge.props.get("names") or ())
    named.update({chemical: min(names) for chemical, names in chemical_names.items() if names})
    types = {"formulation:": "Concept", "herb:": "Organism", CHEMICAL_PREFIX: "Chemical"}
    own = [
        Node(id=i, label="Entity", type=types[i.split(":", 1)[0] + ":"], title=named.get(i, i))
        for i in sorted(missing) if i.startswith(tuple(types))
    ]
    store.insert([*mesh_nodes, *own], [*mesh_edges, *edges])
    return len(mesh_nodes) + len(own)


# The kg_meta row recording which shipped tables (by their bytes' hash) a store holds.
SHIPPED_TABLES_KEY = "shipped_thai_tables"


def shipped_tables() -> list[Path]:
    """The Thai herb names and formulations the package ships (`bio-mcp kg import` with no file)."""
    return [THAI_HERB_NAMES.path, THAI_FORMULATIONS.path]


def import_shipped_tables(store: MetadataStore, catalog: MeshCatalog) -> list[ImportReport]:
    """The shipped tables imported into `store` once, and again when a new release ships other ones,
    so a server reads herbs by their Thai names with no `bio-mcp kg import` step; [] when it holds them.
    Importing a table again adds nothing, so two servers racing here do no harm."""
    tables = shipped_tables()
    digest = sha256_hex("".join(sha256_hex(path.read_bytes().decode("utf-8")) for path in tables))
    with store.read() as tx:
        if (SqlGraphStore(tx.connection).meta(SHIPPED_TABLES_KEY) or {}).get("sha256") == digest:
            return []
    reports = []
    for path in tables:
        with store.transaction() as tx:
            reports.append(import_file(tx.connection, path, catalog))
    with store.transaction() as tx:
        SqlGraphStore(tx.connection).set_meta(SHIPPED_TABLES_KEY, {"sha256": digest})
    return reports
