"""Reading the evidence relations (HAS_CONSTITUENT, TREATS, CAUSES, INTERACTS_WITH, HAS_INGREDIENT)
with their `kg_relation_evidence` rows and the quality of the documents behind them, whoever wrote
them (a sync's relation extractors, or `bio-mcp kg import`), and the tier each is shown in: stated,
or mentioned together (`tier_of`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.features.evidence.strength import (
    Strength,
    SupportingDocument,
    evidence_strength,
    indexes_animals,
)
from bio_mcp.graph.adverse_effects import CAUSES_EXTRACTOR, CAUSES_LEAD_EXTRACTOR, QUALIFIER_EXTRACTOR
from bio_mcp.graph.elements import HAS_CONSTITUENT
from bio_mcp.graph.evidence_store import IMPORT_EXTRACTOR, EvidenceRow
from bio_mcp.graph.interactions import INDEXED_EXTRACTOR, INTERACTION_EXTRACTOR
from bio_mcp.graph.linking import term_key
from bio_mcp.graph.names import EntityName, names_of
from bio_mcp.graph.relation_cues import CUE_EXTRACTOR
from bio_mcp.graph.relations import CONSTITUENT_EXTRACTOR, EXTRACTOR
from bio_mcp.graph.vocabulary import Vocabulary
from bio_mcp.store.database import in_batches
from bio_mcp.store.schema import documents, kg_edges, kg_nodes, kg_relation_evidence

_PMID_SOURCE = re.compile(r"^(?:pmid|pubmed):([0-9]{1,16})$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RelationEdge:
    src: str
    type: str
    dst: str
    weight: float
    props: dict[str, Any]

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.src, self.type, self.dst)


@dataclass(frozen=True, slots=True)
class StoredEvidence(EvidenceRow):
    """An evidence row as read back: the id it was stored under (imports use their own id formula)
    and the PubMed id behind it (from its Document node, or a `pmid:N` source), if any."""

    row_id: str = ""
    pmid: str | None = None

    @property
    def id(self) -> str:
        return self.row_id


@dataclass(frozen=True, slots=True)
class EntityInfo:
    id: str
    type: str | None
    title: str
    names: tuple[EntityName, ...]

    def name(self, lang: str) -> str | None:
        """The preferred name in `lang`, else its first common name; None if it has none in `lang`."""
        for kind in ("preferred", "common", "scientific"):
            for name in self.names:
                if name.lang == lang and name.kind == kind:
                    return name.name
        return None

    @property
    def label(self) -> str:
        return self.name("en") or self.title


def entities(connection: Connection, ids: Iterable[str]) -> dict[str, EntityInfo]:
    """The stored nodes among `ids` with their type, title and imported names."""
    wanted = sorted(set(ids))
    found: dict[str, EntityInfo] = {}
    named = names_of(connection, wanted)
    for batch in in_batches(wanted):
        for row in connection.execute(
            sa.select(kg_nodes.c.id, kg_nodes.c.type, kg_nodes.c.title).where(kg_nodes.c.id.in_(batch))
        ):
            found[row.id] = EntityInfo(row.id, row.type, row.title or row.id, tuple(named.get(row.id, ())))
    return found


def known_entities(connection: Connection, ids: Iterable[str], vocabulary: Vocabulary | None) -> dict[str, EntityInfo]:
    """`entities`, plus the MeSH descriptors among `ids` the graph has no node for yet (a herb or disease
    no imported fact or synced document names): known, with nothing recorded about them."""
    wanted = set(ids)
    found = entities(connection, wanted)
    for entity_id in sorted(wanted - set(found)):
        concept = vocabulary.get(entity_id) if vocabulary is not None and entity_id.startswith("mesh:") else None
        if concept is not None:
            found[entity_id] = EntityInfo(concept.id, concept.type, concept.name, ())
    return found


def relation_edges(
    connection: Connection, ids: Sequence[str], types: Sequence[str], direction: Literal["out", "in"] = "out"
) -> list[RelationEdge]:
    """The edges of `types` leaving (or entering) `ids`, in a stable order: best weight, then ids."""
    end = kg_edges.c.src if direction == "out" else kg_edges.c.dst
    found: list[RelationEdge] = []
    for batch in in_batches(sorted(set(ids))):
        statement = sa.select(kg_edges).where(end.in_(batch), kg_edges.c.type.in_(list(types)))
        found += [RelationEdge(row.src, row.type, row.dst, float(row.weight), dict(row.props or {}))
                  for row in connection.execute(statement)]
    return sorted(found, key=lambda e: (-e.weight, e.src, e.type, e.dst))


def evidence_of(connection: Connection, keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], list[StoredEvidence]]:
    """Each edge's evidence rows, most confident first (then by id), with the PMID behind each."""
    wanted = set(keys)
    rows: list[Any] = []
    for batch in in_batches(sorted({src for src, _, _ in wanted})):
        statement = sa.select(kg_relation_evidence).where(kg_relation_evidence.c.src.in_(batch))
        rows += [row for row in connection.execute(statement) if (row.src, row.type, row.dst) in wanted]
    document_pmids = _pmids_of_documents(connection, {row.document_id for row in rows if row.document_id})
    grouped: dict[tuple[str, str, str], list[StoredEvidence]] = {}
    for row in rows:
        cited = _PMID_SOURCE.match(row.source or "")
        pmid = document_pmids.get(row.document_id or "") or (cited.group(1) if cited else None)
        grouped.setdefault((row.src, row.type, row.dst), []).append(StoredEvidence(
            row_id=row.id, src=row.src, type=row.type, dst=row.dst, document_id=row.document_id, section_id=row.section_id,
            source=row.source, sentence=row.sentence, start=row.start, end=row.end, extractor=row.extractor,
            confidence=float(row.confidence), pmid=pmid,
        ))
    for group in grouped.values():
        group.sort(key=lambda r: (-r.confidence, r.pmid is None, r.id))
    return grouped


def _pmids_of_documents(connection: Connection, document_ids: set[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for batch in in_batches(sorted(document_ids)):
        statement = sa.select(kg_nodes.c.id, kg_nodes.c.source_uri).where(kg_nodes.c.id.in_(batch))
        for row in connection.execute(statement):
            if row.source_uri and row.source_uri.startswith("pubmed:"):
                found[row.id] = row.source_uri.split(":", 1)[1]
    return found


def supporting_documents(connection: Connection, rows: Iterable[StoredEvidence]) -> dict[str, SupportingDocument]:
    """The independent documents behind evidence rows, keyed `pmid:N` (quality from the corpus when it holds
    the record) or by the cited source."""
    rows = list(rows)
    pmids = sorted({row.pmid for row in rows if row.pmid})
    quality: dict[str, Any] = {}
    for batch in in_batches(pmids):
        statement = sa.select(documents.c.pmid, documents.c.quality_design, documents.c.quality_human,
                              documents.c.retracted, documents.c.mesh).where(documents.c.pmid.in_(batch))
        quality.update({row.pmid: row for row in connection.execute(statement)})
    found: dict[str, SupportingDocument] = {}
    for row in rows:
        if row.pmid:
            stored = quality.get(row.pmid)
            found[f"pmid:{row.pmid}"] = SupportingDocument(
                key=f"pmid:{row.pmid}",
                design=stored.quality_design if stored else None,
                human=stored.quality_human if stored else None,
                retracted=bool(stored.retracted) if stored else False,
                animals=indexes_animals(stored.mesh or []) if stored else False,
            )
        else:
            found.setdefault(row.source, SupportingDocument(key=row.source))
    return found


def strength_of(rows: Sequence[StoredEvidence], documents_by_key: dict[str, SupportingDocument]) -> Strength:
    keys = {f"pmid:{row.pmid}" if row.pmid else row.source for row in rows}
    return evidence_strength(documents_by_key[key] for key in sorted(keys))


def best_row(rows: Sequence[StoredEvidence], documents_by_key: dict[str, SupportingDocument]) -> StoredEvidence:
    """The sentence to show: from the best-graded document, then the most confident, then by id."""
    rank = {"top": 0, "human": 1, "weak": 2}

    def key(row: StoredEvidence) -> tuple[int, float, str]:
        document = documents_by_key[f"pmid:{row.pmid}" if row.pmid else row.source]
        return (rank[document.grade], -row.confidence, row.id)

    return min(rows, key=key)


# The two tiers a relation is shown in: stated (a sentence that names both ends says it, or a
# curated import lists it), or only mentioned together.
STATED, CO_MENTION = "stated", "co-mention"
CO_MENTION_NOTE = "mentioned together, not a stated relation"
# Extractors whose rows never quote a sentence stating the relation: a pair the title names one
# end of and a later sentence the other (older graphs), MeSH headings indexed together.
CO_MENTION_EXTRACTORS = frozenset((CAUSES_LEAD_EXTRACTOR, QUALIFIER_EXTRACTOR))
# An interaction NLM's indexing gives is quoted by a sentence naming both ends (`graph/interactions.py`).
SENTENCE_EXTRACTORS = frozenset((CAUSES_EXTRACTOR, INTERACTION_EXTRACTOR, INDEXED_EXTRACTOR, EXTRACTOR,
                                 CUE_EXTRACTOR, CONSTITUENT_EXTRACTOR))
# Curated facts (`bio-mcp kg import`): stated whatever their line quotes.
CURATED_EXTRACTORS = frozenset((IMPORT_EXTRACTOR,))
# What makes a chemical a herb's constituent: a curated import, or a sentence's constituent cue
# that Dr. Duke's tables confirm (`graph/duke_constituents.py`; rows extracted before that check
# are re-extracted by `bio-mcp graph rebuild`).
CONSTITUENT_SOURCES = frozenset((IMPORT_EXTRACTOR, CONSTITUENT_EXTRACTOR))


def names_for(info: EntityInfo | None, entity_id: str, vocabulary: Vocabulary | None) -> set[str]:
    """Every folded name an entity goes by: its title, its imported names, its MeSH heading and entry terms."""
    names = {entity_id.split(":", 1)[-1]}
    if info is not None:
        names.add(info.title)
        names.update(name.name for name in info.names)
    concept = vocabulary.get(entity_id) if vocabulary is not None and entity_id.startswith("mesh:") else None
    if concept is not None:
        names.add(concept.name)
        names.update(concept.synonyms)
    return {key for key in (term_key(name) for name in names) if len(key) >= 3}


def names_both(sentence: str, src_names: set[str], dst_names: set[str]) -> bool:
    """Whether `sentence` names both ends, each by any of its names (whole words, case folded)."""
    folded = f" {term_key(sentence)} "
    return any(f" {name} " in folded for name in src_names) and any(f" {name} " in folded for name in dst_names)


def tier_of(rows: Sequence[StoredEvidence], src_names: set[str], dst_names: set[str]) -> str:
    """STATED when some row is curated, or comes from an extractor that states a relation only
    from a sentence its linker found both ends in (`SENTENCE_EXTRACTORS`: the linker knows more
    names than MeSH's, "liver injury" for drug-induced liver injury), or from another extractor
    and quotes a sentence naming both ends by one of their names; else CO_MENTION."""
    for row in rows:
        if row.extractor in CO_MENTION_EXTRACTORS:
            continue
        if row.extractor in CURATED_EXTRACTORS or row.extractor in SENTENCE_EXTRACTORS:
            return STATED
        if names_both(row.sentence or "", src_names, dst_names):
            return STATED
    return CO_MENTION


def curated_constituents(connection: Connection, ids: Iterable[str]) -> set[str]:
    """The `ids` some plant contains by a HAS_CONSTITUENT evidence row of `CONSTITUENT_SOURCES`."""
    wanted = sorted(set(ids))
    found: set[str] = set()
    for batch in in_batches(wanted):
        statement = sa.select(kg_relation_evidence.c.dst).where(
            kg_relation_evidence.c.dst.in_(batch), kg_relation_evidence.c.type == HAS_CONSTITUENT,
            kg_relation_evidence.c.extractor.in_(sorted(CONSTITUENT_SOURCES)))
        found.update(row.dst for row in connection.execute(statement))
    return found
