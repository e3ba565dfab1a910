"""The graph's one storage interface, and its implementation on the corpus's SQL store.

`GraphStore` is all the rest of the code knows of where the graph lives: write a document's graph,
bulk-insert nodes and edges, read a hop's neighbours in one batched query, look nodes and entity
mentions up, count. `SqlGraphStore` keeps it in the `kg_nodes`, `kg_edges` and `kg_mentions` (the
MENTIONS edges) tables of the metadata store (SQLite or PostgreSQL), bound to one transaction, so a
sync writes the graph in the same transaction as the documents and chunks. A Neo4j implementation
can be added behind the same interface once one can run and be tested here.

Every write that may change MENTIONS (a document's graph, an insert with MENTIONS edges, a clear)
also gives `kg_meta[MENTIONS_VERSION_KEY]` a new random version in the same transaction, so what is
derived from all MENTIONS (RELATED_TO) can tell whether it is still in step by comparing the version
it was computed from (`mentions_version`) with the current one: one row upserted per transaction.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any, Literal, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.graph.bulk_rows import BulkRows, json_text
from bio_mcp.graph.elements import MENTIONS, DocumentGraph, Edge, Node
from bio_mcp.graph.facts import DocumentFacts
from bio_mcp.store.database import dialect_of, in_batches, upsert_insert
from bio_mcp.store.schema import (
    KG_DOCUMENT_OWN_EDGE_TYPES,
    KG_EDGES_NOT_DOCUMENT_OWN,
    kg_document_facts,
    kg_edges,
    kg_mentions,
    kg_meta,
    kg_names,
    kg_nodes,
    kg_relation_evidence,
    utc_now,
)

Direction = Literal["out", "in", "both"]

_NODE_COLUMNS = (
    "id", "label", "type", "title", "source_uri", "source_type", "version", "last_edited",
    "document_id", "chunk_uuid", "level", "order", "anchor",
)
_NODE_ROW = (*_NODE_COLUMNS, "created_at", "updated_at")
_EDGE_ROW = Edge._fields
_EDGE_KEY = ("src", "type", "dst")
_MENTION_ROW = ("src", "dst", "weight", "document_id", "props")
# SQLite calls the progress handler every this many virtual-machine steps (about 0.1 ms of work).
_PROGRESS_STEPS = 1000
# Compound SELECTs per statement: SQLite's default limit is 500 terms.
_MAX_TERMS = 400
# The kg_meta row whose {"version": ...} every write of MENTIONS renews.
MENTIONS_VERSION_KEY = "mentions"


@dataclass(frozen=True, slots=True)
class Neighbour:
    """One edge of a hop, seen from the frontier node `origin`; `node_*` describe the other end."""

    origin: str
    other: str
    type: str
    weight: float
    direction: Literal["out", "in"]
    node_label: str
    node_type: str | None
    node_title: str | None
    node_document_id: str | None


@dataclass(frozen=True, slots=True)
class MentionSample:
    """One MENTIONS edge of an entity: the document (node id, source_uri), the section (node id,
    title) and the edge's props (spans, linker, linkers)."""

    document_id: str
    source_uri: str | None
    section_id: str
    section_title: str | None
    props: dict[str, Any]


def props_of(value: Any) -> dict[str, Any]:
    """Props as stored (JSON text on SQLite, already decoded on PostgreSQL) as a dict."""
    if value is None:
        return {}
    return json.loads(value) if isinstance(value, str) else dict(value)


@dataclass(frozen=True)
class GraphCounts:
    nodes: dict[str, int]
    edges: dict[str, int]

    @property
    def total_nodes(self) -> int:
        return sum(self.nodes.values())

    @property
    def total_edges(self) -> int:
        return sum(self.edges.values())


class QueryTimeout(Exception):
    """A graph read ran past its statement timeout and was cancelled."""


class GraphStore(Protocol):
    def write_documents(self, graphs: Sequence[DocumentGraph]) -> None: ...

    def insert(self, nodes: Iterable[Node], edges: Iterable[Edge]) -> None: ...

    def replace_edges_of_type(self, edge_type: str, edges: Iterable[Edge]) -> None: ...

    def clear(self) -> None: ...

    def meta(self, key: str) -> dict[str, Any] | None: ...

    def existing(self, node_ids: Iterable[str]) -> set[str]: ...

    def missing(self, node_ids: Iterable[str]) -> set[str]: ...

    def nodes(self, node_ids: Iterable[str]) -> dict[str, Node]: ...

    def neighbours(
        self, origins: Sequence[str], direction: Direction, types: Sequence[str], per_origin: int
    ) -> list[Neighbour]: ...

    def documents_matching(
        self, document_ids: Iterable[str], topics: Sequence[str], entities: Sequence[str]
    ) -> set[str]: ...

    def mention_counts(self, entity_ids: Iterable[str]) -> dict[str, int]: ...

    def counts(self) -> GraphCounts: ...


def _node_values(node: Node, now: Any) -> tuple[Any, ...]:
    return (*(getattr(node, name) for name in _NODE_COLUMNS), now, now)


def _edge_values(edge: Edge) -> tuple[Any, ...]:
    """The edge's row (an Edge is one already, once its props are JSON text)."""
    return edge if isinstance(edge.props, str) else edge._replace(props=json_text(edge.props))


def _mention_values(edge: Edge) -> tuple[Any, ...]:
    """A MENTIONS edge's `kg_mentions` row."""
    props = edge.props if isinstance(edge.props, str) else json_text(edge.props)
    return (edge.src, edge.dst, edge.weight, edge.document_id, props)


_first = itemgetter(0)
_edge_key = itemgetter(0, 1, 2)


def _node(row: Any) -> Node:
    return Node(**{name: row[name] for name in _NODE_COLUMNS})


class SqlGraphStore:
    """The graph in the metadata store's tables, bound to one transaction's connection.

    Reads can run under a statement timeout (`timeout_s`: PostgreSQL's statement_timeout, a
    progress handler on SQLite); a read cut short raises `QueryTimeout`.
    """

    def __init__(self, connection: Connection, *, timeout_s: float | None = None) -> None:
        self._connection = connection
        self._dialect = dialect_of(connection)
        self._rows = BulkRows(connection)
        self._timeout_s = timeout_s
        self._deadline = 0.0
        if timeout_s is not None:
            self._arm_timeout(timeout_s)

    # ---- timeouts ------------------------------------------------------------------------

    def _arm_timeout(self, timeout_s: float) -> None:
        if self._dialect == "postgresql":
            # SET LOCAL ends with the transaction, so the pooled connection keeps no timeout.
            # 0 would mean no timeout at all: anything shorter than 1 ms is 1 ms.
            self._connection.exec_driver_sql(f"SET LOCAL statement_timeout = {max(1, round(timeout_s * 1000))}")
            return
        raw = self._connection.connection.driver_connection
        raw.set_progress_handler(lambda: 1 if time.monotonic() > self._deadline else 0, _PROGRESS_STEPS)

    def close(self) -> None:
        """Remove the SQLite progress handler before the connection returns to the pool."""
        if self._timeout_s is not None and self._dialect == "sqlite":
            self._connection.connection.driver_connection.set_progress_handler(None, _PROGRESS_STEPS)

    def _read(self, sql: str, params: Sequence[Any]) -> list[Any]:
        return self._timed(lambda: list(self._connection.exec_driver_sql(sql, tuple(params)).fetchall()))

    def _select(self, statement: sa.Executable) -> list[Any]:
        return self._timed(lambda: list(self._connection.execute(statement)))

    def _timed(self, run: Callable[[], list[Any]]) -> list[Any]:
        """Runs one statement under its own timeout; a statement cut short raises QueryTimeout."""
        if self._timeout_s is not None:
            self._deadline = time.monotonic() + self._timeout_s
        try:
            return run()
        except sa.exc.OperationalError as exc:
            if _is_timeout(exc):
                raise QueryTimeout(str(exc.orig).splitlines()[0]) from exc
            raise

    def _placeholders(self, count: int) -> str:
        mark = "?" if self._dialect == "sqlite" else "%s"
        return ", ".join([mark] * count)

    # ---- writes --------------------------------------------------------------------------

    def write_documents(self, graphs: Sequence[DocumentGraph]) -> None:
        """Make each document's node, sections and edges exactly those of `graphs`: an older
        version's sections and edges go (only a document stored before has any to delete)."""
        if not graphs:
            return
        now = self._bound_now()
        self._delete_documents(sorted(self.existing(graph.document.id for graph in graphs)))
        documents = {graph.document.id: _node_values(graph.document, now) for graph in graphs}
        self._rows.upsert("kg_nodes", _NODE_ROW, ("id",), ("created_at",), [documents[key] for key in sorted(documents)])
        self._rows.insert_new("kg_nodes", _NODE_ROW, sorted(
            (_node_values(section, now) for graph in graphs for section in graph.sections), key=_first
        ))
        edges = [edge for graph in graphs for edge in graph.edges]
        self._rows.insert_new(
            "kg_edges", _EDGE_ROW, sorted((_edge_values(edge) for edge in edges if edge.type != MENTIONS), key=_edge_key)
        )
        self._rows.insert_new(
            "kg_mentions", _MENTION_ROW, sorted(_mention_values(edge) for edge in edges if edge.type == MENTIONS)
        )
        # Even without a mention now: an older version's may have been deleted.
        self._renew_mentions_version()

    def _delete_documents(self, document_ids: Sequence[str]) -> None:
        """Delete these stored documents' sections and every edge they wrote: their own edges from
        the document node (primary key) and the sections' MENTIONS (`kg_mentions_out`), the others by
        `document_id` (partial index)."""
        for batch in in_batches(document_ids):
            marks = self._placeholders(len(batch))
            sections = self._connection.exec_driver_sql(
                f"SELECT id FROM kg_nodes WHERE label = 'Section' AND document_id IN ({marks})", tuple(batch)
            ).scalars().all()
            self._connection.exec_driver_sql(
                f"DELETE FROM kg_edges WHERE document_id IN ({marks}) AND {KG_EDGES_NOT_DOCUMENT_OWN}", tuple(batch)
            )
            own = ", ".join(f"'{edge_type}'" for edge_type in KG_DOCUMENT_OWN_EDGE_TYPES)
            self._connection.exec_driver_sql(
                f"DELETE FROM kg_edges WHERE src IN ({marks}) AND type IN ({own})", tuple(batch)
            )
            for sources in in_batches(sections):
                self._connection.exec_driver_sql(
                    f"DELETE FROM kg_mentions WHERE src IN ({self._placeholders(len(sources))})", tuple(sources)
                )
            self._connection.exec_driver_sql(
                f"DELETE FROM kg_nodes WHERE label = 'Section' AND document_id IN ({marks})", tuple(batch)
            )

    def insert(self, nodes: Iterable[Node], edges: Iterable[Edge]) -> None:
        """Add nodes and edges; any already stored (same id, same src/type/dst) are left as they are."""
        now = self._bound_now()
        node_rows = {node.id: _node_values(node, now) for node in nodes}
        edge_rows: dict[tuple[str, str, str], tuple[Any, ...]] = {}
        mention_rows: dict[tuple[str, str], tuple[Any, ...]] = {}
        for edge in edges:
            if edge.type == MENTIONS:
                mention_rows[edge.src, edge.dst] = _mention_values(edge)
            else:
                edge_rows[edge.src, edge.type, edge.dst] = _edge_values(edge)
        # In key order: sorted rows append to the key B-trees (the edge table is clustered on its
        # key) instead of splitting pages all over them.
        self._rows.insert_missing("kg_nodes", _NODE_ROW, ("id",), [node_rows[key] for key in sorted(node_rows)])
        self._rows.insert_missing("kg_edges", _EDGE_ROW, _EDGE_KEY, [edge_rows[key] for key in sorted(edge_rows)])
        if mention_rows:
            self._rows.insert_missing(
                "kg_mentions", _MENTION_ROW, ("src", "dst"), [mention_rows[key] for key in sorted(mention_rows)]
            )
            self._renew_mentions_version()

    def upsert_mentions(self, edges: Sequence[Edge]) -> None:
        """Write MENTIONS edges: one already stored for its (section, entity) gets these weight and
        props in place (its row id, hence its place among the entity's sections, is kept)."""
        rows = {(edge.src, edge.dst): _mention_values(edge) for edge in edges}
        self._rows.upsert("kg_mentions", _MENTION_ROW, ("src", "dst"), (), [rows[key] for key in sorted(rows)])
        self._renew_mentions_version()

    def delete_edges(self, keys: Iterable[tuple[str, str, str]]) -> None:
        """Delete these (src, type, dst) edges of `kg_edges` (MENTIONS go with their documents)."""
        for src, edge_type, dst in sorted(set(keys)):
            self._connection.execute(
                sa.delete(kg_edges).where(kg_edges.c.src == src, kg_edges.c.type == edge_type, kg_edges.c.dst == dst)
            )

    def delete_unreferenced_entities(self, entity_ids: Iterable[str]) -> set[str]:
        """Delete those of these Entity nodes no edge, MENTIONS, relation evidence or imported name
        points to any more (an entity another id has replaced); returns the ids deleted."""
        unreferenced: set[str] = set()
        for batch in in_batches(sorted(set(entity_ids))):
            referenced = set(self._connection.execute(
                sa.union(
                    sa.select(kg_edges.c.src).where(kg_edges.c.src.in_(batch)),
                    sa.select(kg_edges.c.dst).where(kg_edges.c.dst.in_(batch)),
                    sa.select(kg_mentions.c.dst).where(kg_mentions.c.dst.in_(batch)),
                    sa.select(kg_relation_evidence.c.src).where(kg_relation_evidence.c.src.in_(batch)),
                    sa.select(kg_relation_evidence.c.dst).where(kg_relation_evidence.c.dst.in_(batch)),
                    sa.select(kg_names.c.entity_id).where(kg_names.c.entity_id.in_(batch)),
                )
            ).scalars())
            gone = [entity_id for entity_id in batch if entity_id not in referenced]
            if gone:
                self._connection.execute(sa.delete(kg_nodes).where(kg_nodes.c.label == "Entity", kg_nodes.c.id.in_(gone)))
                unreferenced.update(gone)
        return unreferenced

    def replace_edges_of_type(self, edge_type: str, edges: Iterable[Edge]) -> None:
        """Every edge of a derived type (RELATED_TO); MENTIONS are replaced with their documents."""
        if edge_type == MENTIONS:
            raise ValueError("MENTIONS are replaced with their document's graph (write_documents)")
        self._connection.exec_driver_sql(f"DELETE FROM kg_edges WHERE type = {self._placeholders(1)}", (edge_type,))
        self._rows.insert_new("kg_edges", _EDGE_ROW, sorted((_edge_values(edge) for edge in edges), key=_edge_key))

    def _bound_now(self) -> Any:
        """utc_now() as the created_at/updated_at columns bind it on this dialect."""
        process = kg_nodes.c.created_at.type.bind_processor(self._connection.dialect)
        now = utc_now()
        return process(now) if process is not None else now

    def clear(self) -> None:
        self._connection.execute(sa.delete(kg_mentions))
        self._connection.execute(sa.delete(kg_edges))
        self._connection.execute(sa.delete(kg_nodes))
        self._renew_mentions_version()

    def _renew_mentions_version(self) -> None:
        # Random rather than a counter: an upsert of a constant needs no read, so two writers cannot
        # both leave the same next value, and a later commit's version differs from every earlier one.
        self.set_meta(MENTIONS_VERSION_KEY, {"version": uuid.uuid4().hex})

    def save_facts(self, facts: Mapping[str, tuple[int, DocumentFacts]]) -> None:
        """Keep what NLM indexed each document version with, for a rebuild to reproduce its HAS_TOPIC edges."""
        if not facts:
            return
        statement = upsert_insert(self._connection, kg_document_facts)
        self._connection.execute(
            statement.on_conflict_do_update(
                index_elements=["pmid"], set_={"version": statement.excluded.version, "facts": statement.excluded.facts}
            ),
            [{"pmid": pmid, "version": version, "facts": value.to_json()} for pmid, (version, value) in facts.items()],
        )

    def facts(self, pmids: Iterable[str]) -> dict[str, tuple[int, DocumentFacts]]:
        found: dict[str, tuple[int, DocumentFacts]] = {}
        for batch in in_batches(sorted(set(pmids))):
            query = sa.select(kg_document_facts).where(kg_document_facts.c.pmid.in_(batch))
            for row in self._connection.execute(query):
                found[row.pmid] = (row.version, DocumentFacts.from_json(row.facts))
        return found

    def set_meta(self, key: str, value: dict[str, Any]) -> None:
        statement = upsert_insert(self._connection, kg_meta)
        self._connection.execute(
            statement.on_conflict_do_update(
                index_elements=["key"], set_={"value": statement.excluded.value, "updated_at": statement.excluded.updated_at}
            ),
            {"key": key, "value": value, "updated_at": utc_now()},
        )

    # ---- reads ---------------------------------------------------------------------------

    def meta(self, key: str) -> dict[str, Any] | None:
        """The bookkeeping `set_meta` recorded under `key`, or None."""
        rows = self._select(sa.select(kg_meta.c.value).where(kg_meta.c.key == key))
        return dict(rows[0][0]) if rows else None

    def edge(self, src: str, edge_type: str, dst: str) -> Edge | None:
        """The stored `kg_edges` edge (src, type, dst), its props decoded, or None."""
        rows = self._select(sa.select(*(kg_edges.c[name] for name in _EDGE_ROW)).where(
            kg_edges.c.src == src, kg_edges.c.type == edge_type, kg_edges.c.dst == dst
        ))
        return Edge(*rows[0][:-1], props_of(rows[0][-1])) if rows else None

    def mention_props(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Any]:
        """The props of the stored MENTIONS edges among (section, entity) `keys`."""
        wanted = set(keys)
        found: dict[tuple[str, str], Any] = {}
        for batch in in_batches(sorted({src for src, _ in wanted})):
            query = sa.select(kg_mentions.c.src, kg_mentions.c.dst, kg_mentions.c.props).where(kg_mentions.c.src.in_(batch))
            for row in self._select(query):
                if (row.src, row.dst) in wanted:
                    found[row.src, row.dst] = row.props
        return found

    def mentions_version(self) -> str | None:
        """The version the last write of MENTIONS left (None: none since this bookkeeping began)."""
        recorded = self.meta(MENTIONS_VERSION_KEY)
        return None if recorded is None else recorded.get("version")

    def existing(self, node_ids: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for batch in in_batches(sorted(set(node_ids))):
            found.update(row[0] for row in self._select(sa.select(kg_nodes.c.id).where(kg_nodes.c.id.in_(batch))))
        return found

    def missing(self, node_ids: Iterable[str]) -> set[str]:
        """Those of `node_ids` that are not stored. Only they are read back: most of the entities a
        sync batch names are stored already, and every row read hands the GIL over and back."""
        found: set[str] = set()
        for batch in in_batches(sorted(set(node_ids))):
            values = ", ".join([f"({self._placeholders(1)})"] * len(batch))
            sql = (
                f"WITH k(id) AS (VALUES {values}) "
                "SELECT k.id FROM k WHERE NOT EXISTS (SELECT 1 FROM kg_nodes n WHERE n.id = k.id)"
            )
            found.update(row[0] for row in self._read(sql, batch))
        return found

    def nodes(self, node_ids: Iterable[str]) -> dict[str, Node]:
        found: dict[str, Node] = {}
        columns = [kg_nodes.c[name] for name in _NODE_COLUMNS]
        for batch in in_batches(sorted(set(node_ids))):
            for row in self._select(sa.select(*columns).where(kg_nodes.c.id.in_(batch))):
                found[row.id] = _node(row._mapping)
        return found

    def neighbours(
        self, origins: Sequence[str], direction: Direction, types: Sequence[str], per_origin: int
    ) -> list[Neighbour]:
        """Each origin's edges of each type, best first (weight, then the other end's id; an
        entity's MENTIONS sections of equal weight newest first, as stored), at most
        `per_origin` per origin, type and direction: one statement of index range scans, so a hub
        costs `per_origin` rows, not its degree."""
        sides: tuple[Literal["out", "in"], ...] = ("out", "in") if direction == "both" else (direction,)
        per_origin_terms = len(types) * len(sides)
        # Whole origins per statement, within SQLite's limit on compound SELECT terms.
        step = max(1, _MAX_TERMS // max(1, per_origin_terms))
        found: list[Neighbour] = []
        for start in range(0, len(origins), step):
            batch = origins[start : start + step]
            sql = _neighbour_sql(self._placeholders(1), tuple(types), sides, len(batch), int(per_origin))
            # Each select binds its origin, and its type unless it reads `kg_mentions`.
            params = [
                value for origin in batch for edge_type in types for _ in sides
                for value in ((origin,) if edge_type == MENTIONS else (origin, edge_type))
            ]
            for row in self._read(sql, params):
                found.append(
                    Neighbour(
                        origin=row[0], other=row[1], type=row[2], weight=float(row[3]), direction=row[4],
                        node_label=row[5], node_type=row[6], node_title=row[7], node_document_id=row[8],
                    )
                )
        return found

    def documents_matching(
        self, document_ids: Iterable[str], topics: Sequence[str], entities: Sequence[str]
    ) -> set[str]:
        """Those of `document_ids` indexed with one of `topics` (HAS_TOPIC) when topics are given,
        and with a section mentioning one of `entities` when entities are given."""
        matching = set(document_ids)
        if topics and matching:
            matching &= self._documents_with("kg_edges", "src", "type = 'HAS_TOPIC' AND ", sorted(matching), topics)
        if entities and matching:
            matching &= self._documents_with("kg_mentions", "document_id", "", sorted(matching), entities)
        return matching

    def _documents_with(
        self, table: str, column: str, scope: str, document_ids: Sequence[str], targets: Sequence[str]
    ) -> set[str]:
        """Those of `document_ids` in `column` of a `table` row (within `scope`, a condition and
        AND) pointing at one of `targets`."""
        found: set[str] = set()
        wanted = sorted(set(targets))
        for batch in in_batches(document_ids, 250):
            sql = (
                f"SELECT DISTINCT {column} FROM {table} WHERE {scope}"
                f"{column} IN ({self._placeholders(len(batch))}) AND dst IN ({self._placeholders(len(wanted))})"
            )
            found.update(row[0] for row in self._read(sql, [*batch, *wanted]))
        return found

    def entities_titled(self, titles: Sequence[str], types: Sequence[str]) -> list[str]:
        """Entities of `types` whose name is one of `titles` exactly (the (type, title) index)."""
        query = (
            sa.select(kg_nodes.c.id)
            .where(kg_nodes.c.label == "Entity", kg_nodes.c.type.in_(list(types)), kg_nodes.c.title.in_(list(titles)))
            .order_by(kg_nodes.c.id)
        )
        return [row[0] for row in self._select(query)]

    def mention_samples(self, entity_ids: Sequence[str], limit: int) -> dict[str, list[MentionSample]]:
        """Each entity's first `limit` MENTIONS edges best first (as a traversal reads them), with
        their sections' documents: where the graph says it is mentioned, and by which linker. One
        statement for a page of entities: a UNION ALL of one index range scan per entity, so an
        entity mentioned everywhere costs `limit` rows, not its degree."""
        section = kg_nodes.alias("section")
        document = kg_nodes.alias("document")
        found: dict[str, list[tuple[float, int, MentionSample]]] = {}
        wanted = sorted(set(entity_ids))
        for start in range(0, len(wanted), _MAX_TERMS):
            members = [
                sa.select(
                    sa.select(kg_mentions.c.dst, kg_mentions.c.weight, kg_mentions.c.id, kg_mentions.c.src,
                              kg_mentions.c.document_id, kg_mentions.c.props, section.c.title, document.c.source_uri)
                    .join(section, section.c.id == kg_mentions.c.src)
                    .join(document, document.c.id == kg_mentions.c.document_id)
                    .where(kg_mentions.c.dst == entity_id)
                    .order_by(kg_mentions.c.weight.desc(), kg_mentions.c.id.desc())
                    .limit(limit)
                    .subquery()
                )
                for entity_id in wanted[start : start + _MAX_TERMS]
            ]
            for row in self._select(sa.union_all(*members)):
                sample = MentionSample(row[4], row[7], row[3], row[6], props_of(row[5]))
                found.setdefault(row[0], []).append((-float(row[1]), -int(row[2]), sample))
        return {entity_id: [sample for *_, sample in sorted(rows, key=lambda r: (r[0], r[1]))]
                for entity_id, rows in found.items()}

    def mention_counts(self, entity_ids: Iterable[str]) -> dict[str, int]:
        """How many documents mention each entity (in any section)."""
        counts: dict[str, int] = {}
        for batch in in_batches(sorted(set(entity_ids))):
            query = (
                sa.select(kg_mentions.c.dst, sa.func.count(sa.distinct(kg_mentions.c.document_id)))
                .where(kg_mentions.c.dst.in_(batch))
                .group_by(kg_mentions.c.dst)
            )
            counts.update({row[0]: int(row[1]) for row in self._select(query)})
        return counts

    def counts(self) -> GraphCounts:
        nodes = {
            str(row[0]): int(row[1])
            for row in self._select(sa.select(kg_nodes.c.label, sa.func.count()).group_by(kg_nodes.c.label))
        }
        edges = {
            str(row[0]): int(row[1])
            for row in self._select(sa.select(kg_edges.c.type, sa.func.count()).group_by(kg_edges.c.type))
        }
        mentions = int(self._select(sa.select(sa.func.count()).select_from(kg_mentions))[0][0])
        if mentions:
            edges[MENTIONS] = mentions
        return GraphCounts(nodes=nodes, edges=edges)

    def ids(self) -> tuple[set[str], set[tuple[str, str, str]]]:
        """Every node id and every (src, type, dst): what a rebuild must reproduce."""
        node_ids = set(self._connection.execute(sa.select(kg_nodes.c.id)).scalars())
        edge_ids = {
            (row[0], row[1], row[2])
            for row in self._connection.execute(sa.select(kg_edges.c.src, kg_edges.c.type, kg_edges.c.dst))
        }
        edge_ids.update(
            (row[0], MENTIONS, row[1]) for row in self._connection.execute(sa.select(kg_mentions.c.src, kg_mentions.c.dst))
        )
        return node_ids, edge_ids


@lru_cache(maxsize=256)
def _neighbour_sql(mark: str, types: tuple[str, ...], sides: tuple[str, ...], origins: int, per_origin: int) -> str:
    """One UNION ALL of index range scans, one per origin, type and side, each best first with LIMIT.

    Cached by shape, so a hop reuses the SQL text (and SQLite its prepared statement)."""
    selects = []
    for _ in range(origins):
        for edge_type in types:
            for side in sides:
                near, far = ("src", "dst") if side == "out" else ("dst", "src")
                if edge_type == MENTIONS:
                    # An entity's sections in `kg_mentions_in` order: equal weights newest first.
                    table, kind, ties = "kg_mentions", f"'{MENTIONS}'", "e.id DESC" if side == "in" else "e.dst"
                    where = f"e.{near} = {mark}"
                else:
                    table, kind, ties = "kg_edges", "e.type", f"e.{far}"
                    # The partial index of entities' out-edges serves a query that repeats its predicate.
                    hub = f" AND e.{KG_EDGES_NOT_DOCUMENT_OWN}" if side == "out" and edge_type not in KG_DOCUMENT_OWN_EDGE_TYPES else ""
                    where = f"e.{near} = {mark} AND e.type = {mark}{hub}"
                selects.append(
                    f"SELECT * FROM (SELECT e.{near} AS origin, e.{far} AS other, {kind} AS type, e.weight AS weight, "
                    f"'{side}' AS direction, n.label AS label, n.type AS node_type, n.title AS title, "
                    f"n.document_id AS document_id FROM {table} e JOIN kg_nodes n ON n.id = e.{far} "
                    f"WHERE {where} ORDER BY e.weight DESC, {ties} LIMIT {per_origin}) AS t{len(selects)}"
                )
    return " UNION ALL ".join(selects)


def _is_timeout(exc: sa.exc.OperationalError) -> bool:
    message = str(exc.orig).lower()
    sqlstate = getattr(exc.orig, "sqlstate", None)
    return sqlstate == "57014" or "interrupted" in message or "statement timeout" in message
