"""PubTator3's annotations as MENTIONS of the knowledge graph, linker `pubtator3`.

PubTator3 (NCBI) annotates PubMed records with genes, variants, species, cell lines, chemicals and
diseases; the MeSH linker covers only the last two (and organisms by MeSH). Each annotation counts
characters of PubTator3's BioC passages (title at 0, abstract after it); the graph's MENTIONS count
characters of the stored chunk texts (the title, then section lines with their labels, whitespace
collapsed, split into overlapping chunks). `place_mentions` maps one to the other through the
non-space characters the two share, one chunk line at a time, and keeps a mention only where the
stored text at the mapped offsets is exactly the annotated text: a mention that does not line up is
counted and skipped, never written at a wrong offset.

Entity ids: genes `ncbigene:<NCBI Gene id>`, variants `dbsnp:<rs id>` (else `hgvs:<gene id>:<HGVS>`
as PubTator3 normalises it), species the MeSH organism descriptor of the taxa literature names most
(`graph/taxa.py`: 9606 is mesh:D006801 Humans), else `ncbitaxon:<NCBI Taxonomy id>` (type Organism,
as MeSH's organisms), cell lines `cellosaurus:CVCL_<id>`, chemicals and diseases `mesh:<UI>`: the same
entities the MeSH linker and NLM's indexing name (a supplementary concept the linker files under a
descriptor is that descriptor here too), so no entity is made twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from bio_mcp.graph.build import EntityCatalog, entity_graph
from bio_mcp.graph.elements import MENTIONS, Edge
from bio_mcp.graph.ids import document_node_id, mesh_entity_id, section_node_id
from bio_mcp.graph.mentions import EntityMentions, EntityType, Mention, group_mentions
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.graph.taxa import MESH_ORGANISM_OF_TAXON

LINKER = "pubtator3"
# PubTator3 gives no score per mention. Its normalisers report F1 of about 0.9 on their benchmarks
# (Wei et al., NAR 2024), so a PubTator3 mention weighs as a good dictionary match does.
CONFIDENCE = 0.9
_MAX_ID = 80
_ID_SEPARATORS = re.compile(r"[;,|]")
_MESH = re.compile(r"^MESH:([CD][0-9]{6,9})$", re.IGNORECASE)
_CELLOSAURUS = re.compile(r"^CVCL[:_]([A-Z0-9]{4})$", re.IGNORECASE)
# A chunk's section line starts with its label (`search/chunking.py`): upper case, then ": ".
_LABEL_PREFIX = re.compile(r"^[A-Z][A-Z0-9 ,&/()'-]*: ")


class TextPassage(NamedTuple):
    """A BioC passage: where it starts in the document and its text."""

    offset: int
    text: str


class TaggedSpan(NamedTuple):
    """One PubTator3 annotation: document offset and length, the annotated text, its type, its
    identifier as PubTator3 gives it, its normalised name and (a variant's) gene id."""

    offset: int
    length: int
    text: str
    type: str
    identifier: str | None
    name: str | None
    gene: str | None = None


class GraphEntity(NamedTuple):
    entity_id: str
    entity_type: EntityType
    name: str


@dataclass
class PlacementCounts:
    """Annotations placed in at least one chunk, annotations whose span did not line up with the
    stored text (skipped), and annotations with no graph entity (not normalised by PubTator3)."""

    placed: int = 0
    mismatched: int = 0
    unnormalised: int = 0

    def add(self, other: PlacementCounts) -> None:
        self.placed += other.placed
        self.mismatched += other.mismatched
        self.unnormalised += other.unnormalised


@dataclass
class Placement:
    """One document's PubTator3 mentions per chunk id, the entities they name, and the counts."""

    mentions: dict[str, list[Mention]] = field(default_factory=dict)
    entities: dict[str, GraphEntity] = field(default_factory=dict)
    counts: PlacementCounts = field(default_factory=PlacementCounts)


def _ids(identifier: str) -> list[str]:
    return [part.strip() for part in _ID_SEPARATORS.split(identifier) if part.strip()]


def graph_entities(span: TaggedSpan, current: Mapping[str, str]) -> list[GraphEntity]:
    """The graph entities an annotation names (none when PubTator3 did not normalise it)."""
    identifier = (span.identifier or "").strip()
    if not identifier or identifier == "-":
        return []
    found: list[GraphEntity] = []
    if span.type == "Gene":
        ids = [value for value in _ids(identifier) if value.isdigit()]
        name = span.name if span.name and len(ids) == 1 else span.text
        found = [GraphEntity(f"ncbigene:{value}", "Gene", name) for value in ids]
    elif span.type == "Variant":
        name = span.name or span.text
        if identifier.lower().startswith("rs") and identifier[2:].isdigit():
            found = [GraphEntity(f"dbsnp:{identifier.lower()}", "Variant", name)]
        else:
            scope = f"{span.gene}:" if span.gene else ""
            found = [GraphEntity(f"hgvs:{scope}{identifier}", "Variant", name)]
    elif span.type == "Species":
        for value in _ids(identifier):
            if value in MESH_ORGANISM_OF_TAXON:
                entity_id = mesh_entity_id(MESH_ORGANISM_OF_TAXON[value])
                found.append(GraphEntity(current.get(entity_id, entity_id), "Organism", span.text))
            elif value.isdigit():
                found.append(GraphEntity(f"ncbitaxon:{value}", "Organism", f"NCBI Taxonomy {value}"))
    elif span.type == "CellLine":
        for value in _ids(identifier):
            match = _CELLOSAURUS.match(value)
            if match:
                found.append(GraphEntity(f"cellosaurus:CVCL_{match.group(1).upper()}", "CellLine", span.text))
    elif span.type in ("Chemical", "Disease"):
        for value in _ids(identifier):
            match = _MESH.match(value)
            if match:
                entity_id = mesh_entity_id(match.group(1).upper())
                found.append(GraphEntity(current.get(entity_id, entity_id), span.type, span.name or span.text))
    return [entity for entity in found if len(entity.entity_id) <= _MAX_ID]


class _Stream(NamedTuple):
    """A text's non-space characters, and where each one stands in the text."""

    chars: str
    positions: list[int]


def _stream(text: str, base: int = 0) -> _Stream:
    positions = [base + index for index, char in enumerate(text) if not char.isspace()]
    return _Stream("".join(text[p - base] for p in positions), positions)


def _document_stream(passages: Sequence[TextPassage]) -> _Stream:
    chars: list[str] = []
    positions: list[int] = []
    for passage in sorted(passages, key=lambda p: p.offset):
        stream = _stream(passage.text, passage.offset)
        chars.append(stream.chars)
        positions.extend(stream.positions)
    return _Stream("".join(chars), positions)


class _Segment(NamedTuple):
    """A run of a chunk's text lined up with the document: document stream indexes [start, end)
    and the chunk offset of each of its non-space characters."""

    start: int
    end: int
    chunk_positions: list[int]


def _segments(chunk_text: str, document: _Stream) -> list[_Segment]:
    """Each line of the chunk (without its section label when the label is not in the document
    there: a chunk that continues a section repeats its label) found in the document, in order."""
    segments: list[_Segment] = []
    searched_from = 0
    offset = 0
    for line in chunk_text.split("\n"):
        candidates = [(offset, line)]
        label = _LABEL_PREFIX.match(line)
        if label:
            candidates.append((offset + label.end(), line[label.end():]))
        for start, text in candidates:
            stream = _stream(text, start)
            if not stream.chars:
                break
            found = document.chars.find(stream.chars, searched_from)
            if found >= 0:
                segments.append(_Segment(found, found + len(stream.chars), stream.positions))
                searched_from = found + len(stream.chars)
                break
        offset += len(line) + 1
    return segments


def place_mentions(
    chunks: Sequence[tuple[str, str]],
    passages: Sequence[TextPassage],
    spans: Sequence[TaggedSpan],
    current: Mapping[str, str] | None = None,
) -> Placement:
    """Each annotation as a Mention of every chunk (chunk_id, text) whose text holds it, at the
    chunk's offsets; an annotation is kept only where the chunk's text there is the annotated text."""
    current = current or {}
    document = _document_stream(passages)
    index_of = {position: index for index, position in enumerate(document.positions)}
    segments = {chunk_id: _segments(text, document) for chunk_id, text in chunks}
    texts = dict(chunks)
    placement = Placement()
    for span in spans:
        entities = graph_entities(span, current)
        if not entities:
            placement.counts.unnormalised += 1
            continue
        first = index_of.get(span.offset)
        last = index_of.get(span.offset + span.length - 1)
        if first is None or last is None or not _own_text_matches(span, passages):
            placement.counts.mismatched += 1
            continue
        placed = False
        for chunk_id, found in segments.items():
            for segment in found:
                if not (segment.start <= first and last < segment.end):
                    continue
                start = segment.chunk_positions[first - segment.start]
                end = segment.chunk_positions[last - segment.start] + 1
                if texts[chunk_id][start:end] != span.text:
                    continue
                placed = True
                for entity in entities:
                    placement.mentions.setdefault(chunk_id, []).append(
                        Mention(start, end, span.text, entity.entity_id, entity.entity_type, LINKER, CONFIDENCE)
                    )
                    placement.entities.setdefault(entity.entity_id, entity)
        if placed:
            placement.counts.placed += 1
        else:
            placement.counts.mismatched += 1
    return placement


def _own_text_matches(span: TaggedSpan, passages: Sequence[TextPassage]) -> bool:
    """PubTator3's own passage holds the annotated text at the annotation's offset."""
    for passage in passages:
        if passage.offset <= span.offset and span.offset + span.length <= passage.offset + len(passage.text):
            start = span.offset - passage.offset
            return passage.text[start : start + span.length] == span.text
    return False


def _merged_props(stored: str | dict[str, object] | None, added: EntityMentions) -> tuple[float, str]:
    """A stored MENTIONS edge with PubTator3's spans added: spans united in text order, `linkers`
    naming every linker that found the entity there, `linker`/`confidence` the most confident's."""
    new = json.loads(added.props)
    if stored is None:
        return added.weight, json.dumps({**new, "linkers": [LINKER]}, sort_keys=True, separators=(",", ":"))
    old = json.loads(stored) if isinstance(stored, str) else dict(stored)
    spans = {(int(s[0]), int(s[1])): [int(s[0]), int(s[1]), s[2]] for s in [*old.get("spans", []), *new["spans"]]}
    linkers = sorted({*old.get("linkers", [old.get("linker")]), LINKER} - {None})
    best = old if float(old.get("confidence", 0.0)) >= float(new["confidence"]) else new
    props = {**old, "spans": [spans[key] for key in sorted(spans)], "linkers": linkers,
             "linker": best["linker"], "confidence": best["confidence"]}
    weight = round(max(0.0, min(1.0, float(best["confidence"]))), 6)
    return weight, json.dumps(props, sort_keys=True, separators=(",", ":"))


def write_placements(
    store: SqlGraphStore, catalog: EntityCatalog, placements: Mapping[str, Placement]
) -> int:
    """Add each document's (by source_uri) placed mentions to its stored sections' MENTIONS (merged
    into an edge another linker wrote for the same entity), and the entities the graph lacks;
    returns the MENTIONS edges written. Idempotent: writing the same placement again changes nothing."""
    found: list[tuple[str, str, EntityMentions]] = []
    claimed_types: dict[str, str] = {}
    claimed_names: dict[str, str] = {}
    for uri, placement in placements.items():
        doc_id = document_node_id(uri)
        for chunk_id, mentions in placement.mentions.items():
            section_id = section_node_id(uri, chunk_id)
            found.extend((section_id, doc_id, grouped) for grouped in group_mentions(mentions))
        for entity in placement.entities.values():
            claimed_types.setdefault(entity.entity_id, entity.entity_type)
            claimed_names.setdefault(entity.entity_id, entity.name)
    # Only stored sections: a placement for a document version no longer stored is dropped.
    sections = store.existing({section_id for section_id, _, _ in found})
    found = [item for item in found if item[0] in sections]
    if not found:
        return 0
    stored = store.mention_props([(section_id, grouped.entity_id) for section_id, _, grouped in found])
    edges = []
    for section_id, doc_id, grouped in found:
        weight, props = _merged_props(stored.get((section_id, grouped.entity_id)), grouped)
        edges.append(Edge(section_id, MENTIONS, grouped.entity_id, weight, doc_id, props))
    store.upsert_mentions(edges)
    missing = store.missing({edge.dst for edge in edges})
    nodes, broader = entity_graph(missing, catalog, claimed_types, claimed_names)
    store.insert(nodes, broader)
    return len(edges)
