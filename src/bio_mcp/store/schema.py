"""The tables of the metadata store, identical on SQLite and PostgreSQL.

EDAT, LR and checkpoint watermarks are stored as fixed-width `YYYY-MM-DDTHH:MM:SSZ` strings (the
contracts' own representation), which sort chronologically as text on both dialects. Bookkeeping
times (created, updated, fetched) are timezone-aware UTC datetimes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

# Bump on any change to existing tables; a later migration reads the stored value to know where to
# start. A new table needs no bump: `create_all` adds it to an existing database on open.
# 2: MENTIONS edges moved from `kg_edges` to `kg_mentions` (`store/migrations.py`).
SCHEMA_VERSION = 2

Json = sa.JSON().with_variant(JSONB(), "postgresql")


class UtcDateTime(TypeDecorator[datetime]):
    """A UTC instant: SQLite stores datetimes without a zone, so the zone is restored on read."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("a naive datetime has no defined instant; pass a timezone-aware UTC datetime")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"expected a datetime from the database, got {type(value).__name__}")
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utc_now() -> datetime:
    return datetime.now(UTC)


metadata = sa.MetaData()

schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
    sa.CheckConstraint("id = 1", name="schema_version_single_row"),
)

documents = sa.Table(
    "documents",
    metadata,
    sa.Column("pmid", sa.String(16), primary_key=True),
    sa.Column("title", sa.Text),
    sa.Column("abstract", sa.Text),
    sa.Column("journal", sa.Text),
    sa.Column("journal_iso", sa.Text),
    sa.Column("pub_types", Json, nullable=False),
    sa.Column("mesh", Json, nullable=False),
    sa.Column("citation_subsets", Json, nullable=False),
    sa.Column("language", sa.String(32)),
    sa.Column("pdat", sa.String(10)),
    sa.Column("year", sa.Integer, index=True),
    sa.Column("edat", sa.String(20), index=True),
    sa.Column("lr", sa.String(20)),
    sa.Column("pmcid", sa.String(32)),
    sa.Column("doi", sa.Text),
    sa.Column("retracted", sa.Boolean, nullable=False),
    sa.Column("quality_design", sa.Integer),
    sa.Column("quality_recency", sa.Integer),
    sa.Column("quality_journal", sa.Integer),
    sa.Column("quality_human", sa.Integer),
    sa.Column("quality_total", sa.Integer, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
    sa.CheckConstraint("version >= 1", name="documents_version_positive"),
)

chunks = sa.Table(
    "chunks",
    metadata,
    sa.Column("uuid", sa.String(36), primary_key=True),
    sa.Column("pmid", sa.String(16), sa.ForeignKey("documents.pmid", ondelete="CASCADE"), nullable=False),
    sa.Column("chunk_id", sa.String(128), nullable=False),
    sa.Column("doc_version", sa.Integer, nullable=False),
    sa.Column("section", sa.Text),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("n_tokens", sa.Integer, nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    # Copied from the document so the derived indexes can be rebuilt from this table alone.
    sa.Column("year", sa.Integer),
    sa.Column("pub_types", Json, nullable=False),
    sa.Column("quality_total", sa.Integer, nullable=False),
    # Little-endian float32, L2-normalised; NULL until embedded by `embed_model`.
    sa.Column("embedding", sa.LargeBinary),
    sa.Column("embed_model", sa.String(255)),
    sa.Column("bm25_indexed", sa.Boolean, nullable=False),
    sa.Column("vector_indexed", sa.Boolean, nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
    sa.UniqueConstraint("pmid", "chunk_id", name="chunks_pmid_chunk_id"),
)

checkpoints = sa.Table(
    "checkpoints",
    metadata,
    sa.Column("query_key", sa.String(255), primary_key=True),
    sa.Column("last_edat", sa.String(20), nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
)

checkpoint_audit = sa.Table(
    "checkpoint_audit",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("query_key", sa.String(255), nullable=False, index=True),
    sa.Column("old_edat", sa.String(20)),
    sa.Column("new_edat", sa.String(20), nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("job_id", sa.String(128)),
    sa.Column("actor", sa.String(255)),
    sa.Column("reason", sa.Text),
    sa.Column("at", UtcDateTime, nullable=False),
    sa.CheckConstraint("kind IN ('auto', 'manual')", name="checkpoint_audit_kind"),
)

# The term a query key syncs: bound by its first sync, changed only by an explicit, audited reset.
query_terms = sa.Table(
    "query_terms",
    metadata,
    sa.Column("query_key", sa.String(255), primary_key=True),
    sa.Column("term", sa.Text, nullable=False),
    sa.Column("bound_at", UtcDateTime, nullable=False),
)

query_term_audit = sa.Table(
    "query_term_audit",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("query_key", sa.String(255), nullable=False, index=True),
    sa.Column("old_term", sa.Text),
    sa.Column("new_term", sa.Text, nullable=False),
    # The watermark the reset cleared: the old term's, meaningless for the new one.
    sa.Column("old_edat", sa.String(20)),
    sa.Column("actor", sa.String(255)),
    sa.Column("at", UtcDateTime, nullable=False),
)

sync_jobs = sa.Table(
    "sync_jobs",
    metadata,
    sa.Column("job_id", sa.String(128), primary_key=True),
    sa.Column("query_key", sa.String(255), nullable=False),
    sa.Column("term", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("window_start", sa.String(20)),
    sa.Column("window_end", sa.String(20)),
    sa.Column("counts", Json, nullable=False),
    sa.Column("warnings", Json, nullable=False),
    sa.Column("error", sa.Text),
    sa.Column("started_at", UtcDateTime, nullable=False),
    sa.Column("finished_at", UtcDateTime),
    sa.CheckConstraint("status IN ('running', 'done', 'failed')", name="sync_jobs_status"),
    sa.Index("sync_jobs_query_key_status", "query_key", "status"),
)

ctgov_studies = sa.Table(
    "ctgov_studies",
    metadata,
    sa.Column("nct_id", sa.String(16), primary_key=True),
    sa.Column("payload", Json, nullable=False),
    sa.Column("content_sha256", sa.String(64), nullable=False),
    sa.Column("blob_uri", sa.Text),
    sa.Column("fetched_at", UtcDateTime, nullable=False),
)

pubmed_search_cache = sa.Table(
    "pubmed_search_cache",
    metadata,
    sa.Column("cache_key", sa.String(64), primary_key=True),
    sa.Column("query", sa.Text, nullable=False),
    sa.Column("params", Json, nullable=False),
    sa.Column("pmids", Json, nullable=False),
    sa.Column("count", sa.Integer, nullable=False),
    sa.Column("blob_uri", sa.Text),
    sa.Column("fetched_at", UtcDateTime, nullable=False),
)

# One row per distinct `/studies` query (its request parameters, hashed); the studies themselves are
# rows of `ctgov_studies`, so a study seen by two searches is stored once and read back normalised.
ctgov_search_cache = sa.Table(
    "ctgov_search_cache",
    metadata,
    sa.Column("cache_key", sa.String(64), primary_key=True),
    sa.Column("params", Json, nullable=False),
    sa.Column("nct_ids", Json, nullable=False),
    sa.Column("total_count", sa.Integer),
    sa.Column("content_sha256", sa.String(64), nullable=False),
    sa.Column("blob_uri", sa.Text),
    sa.Column("fetched_at", UtcDateTime, nullable=False),
)

analyst_checkpoints = sa.Table(
    "analyst_checkpoints",
    metadata,
    sa.Column("checkpoint_id", sa.String(128), primary_key=True),
    sa.Column("document", Json, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)

# Text too large for one tool result (seed 002's scratch resources): content-addressed, so the same
# text always gets the same id, and kept until `expires_at`.
scratch = sa.Table(
    "scratch",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("mime_type", sa.String(128), nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("expires_at", UtcDateTime, nullable=False, index=True),
)

# The corpus's change log: one row per transaction that changed chunks or their vectors, written in
# that transaction. Every process's derived index follows it (`store.changelog`), so a sync in one
# process becomes searchable in all. AUTOINCREMENT on SQLite: an id is never reused after a prune.
corpus_changes = sa.Table(
    "corpus_changes",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(16), nullable=False),
    # Chunk UUIDs to read again from `chunks`: present ones are (re)indexed, absent ones dropped.
    sa.Column("uuids", Json, nullable=False),
    sa.Column("pmids", Json, nullable=False),
    sa.Column("at", UtcDateTime, nullable=False),
    sa.CheckConstraint("kind IN ('chunks', 'vectors', 'rebuild')", name="corpus_changes_kind"),
    sqlite_autoincrement=True,
)

# Indexes earlier versions created that this one does not use: dropped when a store opens (an index
# only, so the stored rows and what queries return stay as they were; no schema version change).
# kg_relation_evidence_dst (dst, type): no query reads evidence by its target (edges are found
# through kg_edges_in, their evidence by source), yet every sentence a sync extracts paid for it.
RETIRED_INDEXES = ("kg_edges_out", "kg_relation_evidence_dst")

# The edge types a document version writes from its own node and sections (graph/build.py), and
# the partial-index predicate that leaves them out; a query must repeat the predicate word for word
# for SQLite to use the index. MENTIONS rows live in `kg_mentions` now, but the predicate stays as
# the indexes of existing databases were created with it.
KG_DOCUMENT_OWN_EDGE_TYPES = ("HAS_SECTION", "HAS_TOPIC", "MENTIONS")
KG_EDGES_NOT_DOCUMENT_OWN = "type NOT IN ({})".format(", ".join(f"'{t}'" for t in KG_DOCUMENT_OWN_EDGE_TYPES))


def _label_index(name: str, label: str, *columns: str) -> sa.Index:
    where = sa.text(f"label = '{label}'")
    return sa.Index(name, *columns, sqlite_where=where, postgresql_where=where)


# ---- The knowledge graph (seed 002): one property-graph node table and one adjacency table. ----
# Every node kind shares `kg_nodes` so a traversal hop reads its neighbours and their labels in one
# query. Columns follow the seed's property names; those a kind does not have stay NULL (a NULL
# source_uri does not collide with another under the unique key, on either dialect). A Section's
# text and vector are its corpus chunk's (`chunk_uuid`), referenced rather than copied.
kg_nodes = sa.Table(
    "kg_nodes",
    metadata,
    sa.Column("id", sa.String(80), primary_key=True),
    # Document, Section (also labelled Chunk) or Entity.
    sa.Column("label", sa.String(16), nullable=False),
    # An Entity's type label: Disease, Chemical, Organism, Anatomy, Gene, Variant, CellLine, Trial or Concept.
    sa.Column("type", sa.String(16)),
    # A Document's or Section's title; an Entity's preferred name.
    sa.Column("title", sa.Text),
    sa.Column("source_uri", sa.String(255)),
    sa.Column("source_type", sa.String(32)),
    sa.Column("version", sa.String(32)),
    sa.Column("last_edited", sa.String(20)),
    sa.Column("document_id", sa.String(80)),
    sa.Column("chunk_uuid", sa.String(36)),
    sa.Column("level", sa.Integer),
    sa.Column("order", sa.Integer),
    sa.Column("anchor", sa.String(128)),
    sa.Column("created_at", UtcDateTime),
    sa.Column("updated_at", UtcDateTime),
    sa.UniqueConstraint("source_uri", name="document_source_uri_unique"),
    sa.CheckConstraint("label IN ('Document', 'Section', 'Entity')", name="kg_nodes_label"),
    # The seed's indexes are per label (`FOR (d:Document) ON (d.source_type)`): partial indexes over
    # that label's rows, so a Section or Entity row (most of the table) is not entered in a
    # Document index as a NULL, and so on.
    _label_index("document_source_type", "Document", "source_type"),
    _label_index("document_version", "Document", "version"),
    _label_index("document_last_edited", "Document", "last_edited"),
    _label_index("section_document_id", "Section", "document_id"),
    _label_index("section_level", "Section", "level"),
    _label_index("section_order", "Section", "order"),
    _label_index("entity_type_title", "Entity", "type", "title"),
    _label_index("kg_nodes_chunk_uuid", "Section", "chunk_uuid"),
)

# One row per (src, type, dst), for every edge type but MENTIONS (`kg_mentions`). `weight` in [0, 1]
# orders a node's edges best first, so a hub is read through an index range with LIMIT instead of
# in full; `document_id` names the document whose sync wrote the edge (NULL for vocabulary and
# co-occurrence edges), so a new version replaces exactly its own edges.
kg_edges = sa.Table(
    "kg_edges",
    metadata,
    sa.Column("src", sa.String(80), primary_key=True),
    sa.Column("type", sa.String(24), primary_key=True),
    sa.Column("dst", sa.String(80), primary_key=True),
    sa.Column("weight", sa.Float, nullable=False),
    sa.Column("document_id", sa.String(80)),
    sa.Column("props", Json),
    # Out-edges best first, for the nodes that can be hubs (entities). A document's own edges
    # (HAS_SECTION, HAS_TOPIC: a few dozen per source) are read through the primary key and sorted.
    sa.Index(
        "kg_edges_entity_out", "src", "type", sa.desc("weight"), "dst",
        sqlite_where=sa.text(KG_EDGES_NOT_DOCUMENT_OWN), postgresql_where=sa.text(KG_EDGES_NOT_DOCUMENT_OWN),
    ),
    sa.Index("kg_edges_in", "dst", "type", sa.desc("weight"), "src"),
    # A document version's own edges (HAS_SECTION and HAS_TOPIC from its node) are found from their
    # source through the primary key; only the other edges a document wrote (relation edges) need
    # this index, which is then a fraction of the table.
    sa.Index(
        "kg_edges_document", "document_id",
        sqlite_where=sa.text(KG_EDGES_NOT_DOCUMENT_OWN), postgresql_where=sa.text(KG_EDGES_NOT_DOCUMENT_OWN),
    ),
    sqlite_with_rowid=False,
)

# The MENTIONS edges, Section -> Entity, one row per (src, dst): about 18 per abstract, half the
# graph's edges and most of what a sync with linking writes. In `kg_edges` each cost two B-tree
# inserts at random places, its whole row in the primary key (clustered by the section's SHA-256 id)
# and again 100 bytes in `kg_edges_in`, and most pages of both were rewritten at every commit. Here
# a row is appended (rowid order); the index by entity holds no section id (it reaches the row by
# rowid, and orders an entity's equally weighted sections newest first by it), and the index by
# section holds the two ids only: storing them takes half the CPU it did. `props` keeps every span
# (offsets, surface text), the linker and its confidence; `document_id` is the section's document.
kg_mentions = sa.Table(
    "kg_mentions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("src", sa.String(80), nullable=False),
    sa.Column("dst", sa.String(80), nullable=False),
    sa.Column("weight", sa.Float, nullable=False),
    sa.Column("document_id", sa.String(80), nullable=False),
    sa.Column("props", Json),
    sa.Index("kg_mentions_in", "dst", sa.desc("weight"), sa.desc("id")),
    sa.Index("kg_mentions_out", "src", "dst", unique=True),
)

# What NLM indexed a document with (MeSH headings with their major-topic flags, DataBankList trial
# ids), per document version: the corpus's `documents.mesh` keeps names only, and a graph rebuild
# must reproduce the HAS_TOPIC edges a sync wrote.
kg_document_facts = sa.Table(
    "kg_document_facts",
    metadata,
    sa.Column("pmid", sa.String(16), sa.ForeignKey("documents.pmid", ondelete="CASCADE"), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("facts", Json, nullable=False),
)

# Where each document stands with PubTator3's annotations (BIO_MCP_PUBTATOR3_MENTIONS): `annotated`
# (its MENTIONS of linker pubtator3 are written, for document `version`), `absent` (PubTator3 held
# no annotations of it when asked) or `pending` (PubTator3 could not be reached: a later sync fetches
# them). A new version of a document replaces its row.
kg_pubtator3 = sa.Table(
    "kg_pubtator3",
    metadata,
    sa.Column("pmid", sa.String(16), sa.ForeignKey("documents.pmid", ondelete="CASCADE"), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
    sa.Index("kg_pubtator3_status", "status", "pmid"),
)

# Bookkeeping of derived graph parts (e.g. when RELATED_TO was last computed, over how many sections).
kg_meta = sa.Table(
    "kg_meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", Json, nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
)

# The names entities go by, per language: MeSH entry terms stay in the linker's vocabulary; these are
# the names imported for herbs and formulations (Thai, English, scientific) that search, answers and
# ingestion match text against. `source` names the table or file a name came from.
kg_names = sa.Table(
    "kg_names",
    metadata,
    sa.Column("entity_id", sa.String(80), primary_key=True),
    sa.Column("lang", sa.String(8), primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    # preferred, common or scientific.
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("source", sa.String(255), nullable=False),
    sa.Index("kg_names_lookup", "lang", "name"),
)

# Every relation edge the evidence toolset reads (HAS_CONSTITUENT, TREATS, CAUSES, INTERACTS_WITH)
# keeps each piece of evidence for it here, one row per sentence or imported line: an edge is never
# without one. `document_id` is the graph Document node (NULL for an imported fact), `source` its
# source_uri or the import file and line; `start`/`end` are the sentence's offsets in the section text.
kg_relation_evidence = sa.Table(
    "kg_relation_evidence",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("src", sa.String(80), nullable=False),
    sa.Column("type", sa.String(24), nullable=False),
    sa.Column("dst", sa.String(80), nullable=False),
    sa.Column("document_id", sa.String(80)),
    sa.Column("section_id", sa.String(80)),
    sa.Column("source", sa.String(255), nullable=False),
    sa.Column("sentence", sa.Text, nullable=False),
    sa.Column("start", sa.Integer),
    sa.Column("end", sa.Integer),
    # The rule (or "import") that produced it, and how sure that rule is, in [0, 1].
    sa.Column("extractor", sa.String(48), nullable=False),
    sa.Column("confidence", sa.Float, nullable=False),
    sa.Index("kg_relation_evidence_edge", "src", "type", "dst"),
    sa.Index("kg_relation_evidence_document", "document_id"),
)

# Files ingested into the corpus (seed 003, tool.ingest.run). Such a document is a `documents` row
# keyed `file:<11 base32 characters of sha256(source_uri)>` (`store.document_keys`), never a PMID;
# this row says which file it is, and the content hash that makes re-ingesting an unchanged file a
# no-op. The counts are what its last ingestion found.
ingested_files = sa.Table(
    "ingested_files",
    metadata,
    sa.Column("doc_key", sa.String(16), sa.ForeignKey("documents.pmid", ondelete="CASCADE"), primary_key=True),
    sa.Column("source_uri", sa.Text, nullable=False, unique=True),
    sa.Column("doc_type", sa.String(16), nullable=False),
    sa.Column("lang", sa.String(8), nullable=False),
    # SHA-256 of the file's bytes and of the pipeline settings that shaped its text (OCR languages...).
    sa.Column("content_sha256", sa.String(64), nullable=False),
    sa.Column("pipeline", sa.String(64), nullable=False),
    sa.Column("size_bytes", sa.BigInteger, nullable=False),
    sa.Column("counts", Json, nullable=False),
    sa.Column("ingested_at", UtcDateTime, nullable=False),
)

# Ingestion jobs (tool.ingest.run), apart from the PubMed `sync_jobs`: a queued or running job is
# picked up again when the server restarts, and `log` is what `bio-mcp://jobs/{job_id}/log` serves.
ingest_jobs = sa.Table(
    "ingest_jobs",
    metadata,
    sa.Column("job_id", sa.String(64), primary_key=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("dry_run", sa.Boolean, nullable=False),
    # The validated request, enough to run the job again after a restart.
    sa.Column("request", Json, nullable=False),
    sa.Column("counts", Json, nullable=False),
    sa.Column("files", Json, nullable=False),
    sa.Column("log", sa.Text, nullable=False),
    sa.Column("error", sa.Text),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
    sa.Column("finished_at", UtcDateTime),
    sa.CheckConstraint("status IN ('queued', 'running', 'done', 'error')", name="ingest_jobs_status"),
    sa.Index("ingest_jobs_status", "status", "created_at"),
)

# What the paper://pmid resource adds to a corpus document: its authors (the corpus rows keep no
# author list), stored when the paper is fetched from E-utilities.
paper_details = sa.Table(
    "paper_details",
    metadata,
    sa.Column("pmid", sa.String(16), primary_key=True),
    sa.Column("authors", Json, nullable=False),
    sa.Column("fetched_at", UtcDateTime, nullable=False),
)

# tool.eval.run's reports (bio-mcp://eval/{report_id}): the Markdown and the JSON of one run.
eval_reports = sa.Table(
    "eval_reports",
    metadata,
    sa.Column("report_id", sa.String(64), primary_key=True),
    sa.Column("eval_set", sa.String(16), nullable=False),
    sa.Column("markdown", sa.Text, nullable=False),
    sa.Column("body", Json, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)
