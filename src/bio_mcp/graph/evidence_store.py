"""Relation evidence in the store: `kg_relation_evidence` rows, and the `kg_edges` they support.

A relation edge (src, type, dst) of EVIDENCE_RELATIONS is one row of `kg_edges` however many
documents state it, so it is derived from its evidence, never written on its own:
- weight: 1 - prod(1 - confidence) over its evidence rows (noisy-or: more, surer sentences weigh
  more), in [0, 1];
- document_id: the smallest id among the documents stating it, so the document writes that delete a
  document's edges delete it too, and it is derived again from the evidence that is left; None when
  an imported row (extractor `import`, never tied to a document) backs it, so a re-synced document
  never takes an imported fact's edge, or the props its import gave it, away;
- props: how many evidence rows and documents back it, and which extractors, merged over the props
  an import gave the edge (its relation kinds, parts).

`replace_documents` makes each document's evidence exactly that of its new version (in the
caller's transaction, after `GraphStore.write_documents` removed the old version's edges) and
re-derives every edge whose evidence changed; an edge with no evidence left is deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.graph.ids import sha256_hex
from bio_mcp.store.database import in_batches, upsert_insert
from bio_mcp.store.schema import kg_edges, kg_relation_evidence

EdgeKey = tuple[str, str, str]

# The extractor of facts `bio-mcp kg import` loaded: their rows outlive document writes and rebuilds.
IMPORT_EXTRACTOR = "import"


@dataclass(frozen=True, slots=True)
class EvidenceRow:
    """One sentence (or imported line) stating src -[type]-> dst."""

    src: str
    type: str
    dst: str
    document_id: str | None
    section_id: str | None
    source: str
    sentence: str
    start: int | None
    end: int | None
    extractor: str
    confidence: float

    @property
    def id(self) -> str:
        return sha256_hex(
            f"{self.src}|{self.type}|{self.dst}|{self.document_id}|{self.section_id}|{self.source}|"
            f"{self.start}|{self.end}|{self.extractor}"
        )

    def row(self) -> dict[str, Any]:
        return {
            "id": self.id, "src": self.src, "type": self.type, "dst": self.dst, "document_id": self.document_id,
            "section_id": self.section_id, "source": self.source, "sentence": self.sentence, "start": self.start,
            "end": self.end, "extractor": self.extractor, "confidence": round(max(0.0, min(1.0, self.confidence)), 6),
        }


class SqlEvidenceStore:
    """Evidence rows and their edges, bound to one transaction's connection."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def replace_documents(self, document_ids: Sequence[str], rows: Iterable[EvidenceRow]) -> None:
        """Each of `document_ids` is stated by exactly `rows` (theirs) from now on; edges follow."""
        table = kg_relation_evidence
        affected: set[EdgeKey] = set()
        for batch in in_batches(sorted(set(document_ids))):
            query = sa.select(table.c.src, table.c.type, table.c.dst).where(table.c.document_id.in_(batch)).distinct()
            affected.update((row[0], row[1], row[2]) for row in self._connection.execute(query))
            self._connection.execute(sa.delete(table).where(table.c.document_id.in_(batch)))
        unique = {row.id: row for row in rows}
        if unique:
            self._connection.execute(sa.insert(table), [unique[key].row() for key in sorted(unique)])
        affected.update((row.src, row.type, row.dst) for row in unique.values())
        self.derive_edges(affected)

    def derive_edges(self, keys: Iterable[EdgeKey]) -> None:
        """Write (or delete) the edge of each key from the evidence stored for it."""
        wanted = sorted(set(keys))
        if not wanted:
            return
        table = kg_relation_evidence
        evidence: dict[EdgeKey, list[Any]] = {key: [] for key in wanted}
        for batch in in_batches(sorted({key[0] for key in wanted})):
            query = sa.select(table.c.src, table.c.type, table.c.dst, table.c.document_id, table.c.extractor,
                              table.c.confidence).where(table.c.src.in_(batch))
            for row in self._connection.execute(query):
                key = (row[0], row[1], row[2])
                if key in evidence:
                    evidence[key].append(row)
        gone = [key for key in wanted if not evidence[key]]
        for src, edge_type, dst in gone:
            self._connection.execute(
                sa.delete(kg_edges).where(kg_edges.c.src == src, kg_edges.c.type == edge_type, kg_edges.c.dst == dst)
            )
        stored: dict[EdgeKey, dict[str, Any]] = {}
        for batch in in_batches(sorted({key[0] for key in wanted})):
            query = sa.select(kg_edges.c.src, kg_edges.c.type, kg_edges.c.dst, kg_edges.c.props).where(
                kg_edges.c.src.in_(batch), kg_edges.c.type.in_(sorted({key[1] for key in wanted})))
            for row in self._connection.execute(query):
                stored[(row[0], row[1], row[2])] = dict(row[3] or {})
        rows = [_edge_row(key, evidence[key], stored.get(key, {})) for key in wanted if evidence[key]]
        if rows:
            statement = upsert_insert(self._connection, kg_edges)
            statement = statement.on_conflict_do_update(
                index_elements=["src", "type", "dst"],
                set_={name: statement.excluded[name] for name in ("weight", "document_id", "props")},
            )
            self._connection.execute(statement, rows)

    def derive_all_edges(self) -> None:
        """Every evidence-backed edge again (after a graph rebuild cleared the edge table)."""
        table = kg_relation_evidence
        keys = self._connection.execute(sa.select(table.c.src, table.c.type, table.c.dst).distinct())
        self.derive_edges((row[0], row[1], row[2]) for row in keys)

    def clear_documents(self) -> None:
        """Drop the evidence extracted from documents (imported rows, without a document, stay)."""
        self._connection.execute(sa.delete(kg_relation_evidence).where(kg_relation_evidence.c.document_id.is_not(None)))


def _edge_row(key: EdgeKey, evidence: Sequence[Any], stored_props: dict[str, Any]) -> dict[str, Any]:
    doubt = 1.0
    for row in evidence:
        doubt *= 1.0 - max(0.0, min(1.0, float(row.confidence)))
    documents = sorted({row.document_id for row in evidence if row.document_id is not None})
    imported = any(row.extractor == IMPORT_EXTRACTOR for row in evidence)
    return {
        "src": key[0], "type": key[1], "dst": key[2], "weight": round(1.0 - doubt, 6),
        "document_id": None if imported or not documents else documents[0],
        "props": {**stored_props, "evidence": len(evidence), "documents": len(documents),
                  "extractors": sorted({row.extractor for row in evidence})},
    }
