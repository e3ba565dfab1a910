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

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.graph.bulk_rows import BulkRows, json_text
from bio_mcp.graph.ids import sha256_hex
from bio_mcp.store.database import dialect_of, in_batches
from bio_mcp.store.schema import kg_edges, kg_relation_evidence

EdgeKey = tuple[str, str, str]

# The extractor of facts `bio-mcp kg import` loaded: their rows outlive document writes and rebuilds.
IMPORT_EXTRACTOR = "import"
EVIDENCE_COLUMNS = (
    "id", "src", "type", "dst", "document_id", "section_id", "source", "sentence", "start", "end", "extractor",
    "confidence",
)
_EDGE_COLUMNS = ("src", "type", "dst", "weight", "document_id", "props")
# Edge keys per read: their sources, types and targets stay well within a statement's parameters.
_KEYS_PER_QUERY = 300


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

    def values(self) -> tuple[Any, ...]:
        """The row's values in `EVIDENCE_COLUMNS` order."""
        return (
            self.id, self.src, self.type, self.dst, self.document_id, self.section_id, self.source, self.sentence,
            self.start, self.end, self.extractor, round(max(0.0, min(1.0, self.confidence)), 6),
        )


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
        BulkRows(self._connection).insert_new(
            "kg_relation_evidence", EVIDENCE_COLUMNS, [unique[key].values() for key in sorted(unique)]
        )
        affected.update((row.src, row.type, row.dst) for row in unique.values())
        self.derive_edges(affected)

    def derive_edges(self, keys: Iterable[EdgeKey]) -> None:
        """Write (or delete) the edge of each key from the evidence stored for it."""
        wanted = sorted(set(keys))
        if not wanted:
            return
        evidence: dict[EdgeKey, Any] = {}
        stored: dict[EdgeKey, dict[str, Any]] = {}
        for batch in in_batches(wanted, _KEYS_PER_QUERY):
            for row in self._of_keys("kg_relation_evidence", self._evidence_summary(), batch, grouped=True):
                evidence[(row[0], row[1], row[2])] = row
            for row in self._of_keys("kg_edges", "t.props", batch):
                stored[(row[0], row[1], row[2])] = _props(row[3])
        for src, edge_type, dst in (key for key in wanted if key not in evidence):
            self._connection.execute(
                sa.delete(kg_edges).where(kg_edges.c.src == src, kg_edges.c.type == edge_type, kg_edges.c.dst == dst)
            )
        BulkRows(self._connection).upsert(
            "kg_edges", _EDGE_COLUMNS, _EDGE_COLUMNS[:3], (),
            [_edge_values(key, evidence[key], stored.get(key, {})) for key in wanted if key in evidence],
        )

    def _evidence_summary(self) -> str:
        """What an edge is derived from, one row per key: its evidence rows, documents, first
        document, and its rows' extractors and confidences as comma-separated text. A key stated by
        many documents is one row, not one per sentence: every row read hands the GIL over and back."""
        concat = "group_concat({}, ',')" if dialect_of(self._connection) == "sqlite" else "string_agg({}, ',')"
        return (
            f"count(*), count(DISTINCT t.document_id), min(t.document_id), {concat.format('t.extractor')}, "
            f"{concat.format('CAST(t.confidence AS TEXT)')}"
        )

    def _of_keys(self, table: str, columns: str, keys: Sequence[EdgeKey], *, grouped: bool = False) -> list[Any]:
        """(src, type, dst, *columns) of the rows of `table` whose (src, type, dst) is one of `keys`
        (`grouped`: one row per key, `columns` being aggregates).

        The keys join as a VALUES list: one probe of the (src, type, dst) index each. Three IN lists
        would probe every combination of their sources, types and targets (40 times slower), and a
        row-value IN scans the table on SQLite."""
        mark = "?" if dialect_of(self._connection) == "sqlite" else "%s"
        values = ", ".join([f"({mark}, {mark}, {mark})"] * len(keys))
        sql = (
            f"WITH k(src, type, dst) AS (VALUES {values}) SELECT t.src, t.type, t.dst, {columns} FROM k "
            f"JOIN {table} t ON t.src = k.src AND t.type = k.type AND t.dst = k.dst"
            + (" GROUP BY t.src, t.type, t.dst" if grouped else "")
        )
        return list(self._connection.exec_driver_sql(sql, tuple(value for key in keys for value in key)))

    def derive_all_edges(self) -> None:
        """Every evidence-backed edge again (after a graph rebuild cleared the edge table)."""
        table = kg_relation_evidence
        keys = self._connection.execute(sa.select(table.c.src, table.c.type, table.c.dst).distinct())
        self.derive_edges((row[0], row[1], row[2]) for row in keys)

    def clear_documents(self) -> None:
        """Drop the evidence extracted from documents (imported rows, without a document, stay)."""
        self._connection.execute(sa.delete(kg_relation_evidence).where(kg_relation_evidence.c.document_id.is_not(None)))


def _props(value: Any) -> dict[str, Any]:
    """A stored `props` as a dict: SQLite returns JSON text to a plain statement, PostgreSQL the value."""
    decoded = json.loads(value) if isinstance(value, str) else value
    return dict(decoded or {})


def _edge_values(key: EdgeKey, summary: Sequence[Any], stored_props: dict[str, Any]) -> tuple[Any, ...]:
    """The edge's row in `_EDGE_COLUMNS` order, from its `_evidence_summary` (extractor names have
    no commas; confidences are multiplied in sorted order, so the weight does not depend on the
    order rows were read in)."""
    rows, documents, first_document, extractors, confidences = summary[3:8]
    doubt = 1.0
    for confidence in sorted(float(value) for value in confidences.split(",")):
        doubt *= 1.0 - max(0.0, min(1.0, confidence))
    names = set(extractors.split(","))
    props = {**stored_props, "evidence": int(rows), "documents": int(documents), "extractors": sorted(names)}
    document_id = None if IMPORT_EXTRACTOR in names else first_document
    return (*key, round(1.0 - doubt, 6), document_id, json_text(props))
