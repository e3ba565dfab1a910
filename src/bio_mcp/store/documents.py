"""Normalised PubMed documents (the record behind `rag.get`) and their versioned upsert.

Invariants (seed 000): each PMID exists once; a known PMID is updated, with version + 1, when its
content hash changed or its LR (last revised) advanced; anything else is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from sqlalchemy.engine import Connection, Row, RowMapping

from bio_mcp.canonical import canonical_sha256
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store.database import in_batches, upsert_insert
from bio_mcp.store.document_keys import DOCUMENT_KEY_PATTERN, is_document_key
from bio_mcp.store.schema import documents, utc_now
from bio_mcp.store.timestamps import normalise_iso_utc

# A PMID, or the `file:` key of an ingested file (`store.document_keys`).
Pmid = Annotated[str, Field(pattern=DOCUMENT_KEY_PATTERN)]
UpsertOutcome = Literal["inserted", "updated", "skipped"]
_Decision = Literal["update", "skip", "stale"]

# What a reader sees of an article. EDAT and LR are excluded (LR is compared on its own; EDAT never
# changes) and so is quality, whose recency part moves with the calendar and would bump every version.
CONTENT_FIELDS = (
    "title",
    "abstract",
    "journal",
    "journal_iso",
    "pub_types",
    "mesh",
    "citation_subsets",
    "language",
    "pdat",
    "year",
    "pmcid",
    "doi",
    "retracted",
)


class QualityScores(BaseModel):
    """The quality breakdown of `rag.get`, computed by the caller."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    design: int | None = None
    recency: int | None = None
    journal: int | None = None
    human: int | None = None
    total: int


class DocumentRecord(BaseModel):
    """One article as the corpus sync hands it to the store."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pmid: Pmid
    title: str | None = None
    abstract: str | None = None
    journal: str | None = None
    journal_iso: str | None = None
    pub_types: list[str] = Field(default_factory=list)
    mesh: list[str] = Field(default_factory=list)
    citation_subsets: list[str] = Field(default_factory=list)
    language: str | None = None
    pdat: Annotated[str, Field(pattern=r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$")] | None = None
    year: Annotated[int, Field(ge=1, le=9999)] | None = None
    edat: str | None = None
    lr: str | None = None
    pmcid: Annotated[str, Field(pattern=r"^PMC[0-9]+$")] | None = None
    doi: str | None = None
    retracted: bool = False
    quality: QualityScores

    @field_validator("edat", "lr")
    @classmethod
    def _iso_utc(cls, value: str | None) -> str | None:
        return None if value is None else normalise_iso_utc(value)

    @model_validator(mode="before")
    @classmethod
    def _year_from_pdat(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("year") is None and isinstance(data.get("pdat"), str):
            head = data["pdat"][:4]
            if head.isdigit():
                return data | {"year": int(head)}
        return data

    @model_validator(mode="after")
    def _year_matches_pdat(self) -> DocumentRecord:
        if self.pdat is not None and self.year != int(self.pdat[:4]):
            raise ValueError(f"year {self.year} disagrees with pdat {self.pdat}")
        return self

    @property
    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON of the content fields.

        Computed on each access, not cached: `model_copy(update=...)` copies an instance's cache.
        """
        return canonical_sha256(self.model_dump(include=set(CONTENT_FIELDS), mode="json"))


class StoredDocument(DocumentRecord):
    """A document as stored: the record plus its version and bookkeeping."""

    version: Annotated[int, Field(ge=1)]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class UpsertResult:
    """Per-PMID outcome of one upsert batch, with the counts `pubmed.sync_delta` reports."""

    outcomes: dict[str, UpsertOutcome]
    versions: dict[str, int]
    max_edat_seen: str | None
    # Skipped because their LR is older than the stored one: a replay of stale data, worth a warning.
    stale: list[str] = field(default_factory=list)

    @property
    def inserted(self) -> int:
        return sum(1 for outcome in self.outcomes.values() if outcome == "inserted")

    @property
    def updated(self) -> int:
        return sum(1 for outcome in self.outcomes.values() if outcome == "updated")

    @property
    def skipped(self) -> int:
        return sum(1 for outcome in self.outcomes.values() if outcome == "skipped")

    @property
    def pmids_processed(self) -> int:
        return len(self.outcomes)

    def changed_pmids(self) -> list[str]:
        """Inserted or updated PMIDs, sorted: the documents whose chunks must be (re)built."""
        return sorted(pmid for pmid, outcome in self.outcomes.items() if outcome != "skipped")


@dataclass(frozen=True)
class _Stored:
    version: int
    content_hash: str
    lr: str | None


def _decide(stored_hash: str, stored_lr: str | None, new_hash: str, new_lr: str | None) -> _Decision:
    """What to do with a record arriving on top of a stored one."""
    if stored_lr is not None and new_lr is not None and new_lr < stored_lr:
        # An older revision never overwrites a newer one, whatever its content.
        return "stale"
    if new_hash != stored_hash:
        return "update"
    if new_lr is not None and (stored_lr is None or new_lr > stored_lr):
        return "update"
    return "skip"


def _fold_duplicates(records: Iterable[DocumentRecord]) -> dict[str, tuple[DocumentRecord, str]]:
    """One record per PMID: a later duplicate wins only where it would update the earlier one."""
    winners: dict[str, tuple[DocumentRecord, str]] = {}
    for record in records:
        digest = record.content_hash
        current = winners.get(record.pmid)
        if current is None or _decide(current[1], current[0].lr, digest, record.lr) == "update":
            winners[record.pmid] = (record, digest)
    return winners


def _row_values(record: DocumentRecord, digest: str, version: int) -> dict[str, Any]:
    quality = record.quality
    return {
        "pmid": record.pmid,
        "title": record.title,
        "abstract": record.abstract,
        "journal": record.journal,
        "journal_iso": record.journal_iso,
        "pub_types": list(record.pub_types),
        "mesh": list(record.mesh),
        "citation_subsets": list(record.citation_subsets),
        "language": record.language,
        "pdat": record.pdat,
        "year": record.year,
        "edat": record.edat,
        "lr": record.lr,
        "pmcid": record.pmcid,
        "doi": record.doi,
        "retracted": record.retracted,
        "quality_design": quality.design,
        "quality_recency": quality.recency,
        "quality_journal": quality.journal,
        "quality_human": quality.human,
        "quality_total": quality.total,
        "version": version,
        "content_hash": digest,
    }


def _stored_document(row: RowMapping) -> StoredDocument:
    values = dict(row)
    del values["content_hash"]
    values["quality"] = QualityScores(
        design=values.pop("quality_design"),
        recency=values.pop("quality_recency"),
        journal=values.pop("quality_journal"),
        human=values.pop("quality_human"),
        total=values.pop("quality_total"),
    )
    return StoredDocument.model_validate(values)


def _require_pmids(pmids: Iterable[str]) -> list[str]:
    checked = list(pmids)
    bad = [pmid for pmid in checked if not is_document_key(pmid)]
    if bad:
        raise BioMcpError(
            ErrorCode.VALIDATION, "a document key is a PMID (digits) or an ingested file's file: key", {"invalid": bad[:20]}
        )
    return checked


def lock_document_rows(
    connection: Connection, columns: Sequence[sa.ColumnElement[Any]], pmids: Sequence[str]
) -> Iterator[Row[Any]]:
    """The document rows of `pmids`, locked in PMID order (FOR UPDATE on PostgreSQL), so that two
    writers touching the same documents serialise instead of deadlocking."""
    for batch in in_batches(pmids):
        query = sa.select(*columns).where(documents.c.pmid.in_(batch)).order_by(documents.c.pmid).with_for_update()
        yield from connection.execute(query)


class DocumentRepository:
    """Documents, bound to one transaction."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def upsert(self, records: Sequence[DocumentRecord]) -> UpsertResult:
        """Insert new PMIDs, version-bump changed ones, skip the rest; a few statements per batch.

        Existing rows are locked (SELECT ... FOR UPDATE on PostgreSQL, the write lock on SQLite) in
        PMID order, so concurrent upserts of the same PMIDs serialise instead of losing a version.
        """
        winners = _fold_duplicates(records)
        pmids = sorted(winners)
        edats = [record.edat for record in records if record.edat is not None]
        now = utc_now()

        stored = self._lock_stored(pmids)
        absent = [pmid for pmid in pmids if pmid not in stored]
        inserted = self._insert_absent([winners[pmid] for pmid in absent], now)
        raced = [pmid for pmid in absent if pmid not in inserted]
        if raced:
            # Inserted by a concurrent transaction since our read: compare against its committed row.
            stored.update(self._lock_stored(raced))

        outcomes: dict[str, UpsertOutcome] = {}
        versions: dict[str, int] = {}
        stale: list[str] = []
        updates: list[dict[str, Any]] = []
        for pmid in pmids:
            record, digest = winners[pmid]
            if pmid in inserted:
                outcomes[pmid], versions[pmid] = "inserted", 1
                continue
            current = stored[pmid]
            decision = _decide(current.content_hash, current.lr, digest, record.lr)
            if decision == "update":
                outcomes[pmid], versions[pmid] = "updated", current.version + 1
                updates.append(_row_values(record, digest, current.version + 1) | {"updated_at": now})
            else:
                outcomes[pmid], versions[pmid] = "skipped", current.version
                if decision == "stale":
                    stale.append(pmid)
        if updates:
            self._write_updates(updates)
        return UpsertResult(
            outcomes=outcomes, versions=versions, max_edat_seen=max(edats, default=None), stale=stale
        )

    def _lock_stored(self, pmids: Sequence[str]) -> dict[str, _Stored]:
        columns = (documents.c.pmid, documents.c.version, documents.c.content_hash, documents.c.lr)
        return {
            row.pmid: _Stored(version=row.version, content_hash=row.content_hash, lr=row.lr)
            for row in lock_document_rows(self._connection, columns, pmids)
        }

    def _insert_absent(self, winners: Sequence[tuple[DocumentRecord, str]], now: datetime) -> set[str]:
        if not winners:
            return set()
        rows = [
            _row_values(record, digest, 1) | {"created_at": now, "updated_at": now}
            for record, digest in winners
        ]
        statement = (
            upsert_insert(self._connection, documents)
            .on_conflict_do_nothing(index_elements=[documents.c.pmid])
            .returning(documents.c.pmid)
        )
        return set(self._connection.execute(statement, rows).scalars())

    def _write_updates(self, rows: list[dict[str, Any]]) -> None:
        statement = upsert_insert(self._connection, documents)
        # created_at is required by the INSERT half but must survive the update, so it is not in set_.
        kept = {"pmid", "created_at"}
        set_ = {
            column.name: statement.excluded[column.name] for column in documents.c if column.name not in kept
        }
        statement = statement.on_conflict_do_update(index_elements=[documents.c.pmid], set_=set_)
        self._connection.execute(statement, [row | {"created_at": row["updated_at"]} for row in rows])

    def get(self, pmid: str) -> StoredDocument | None:
        return self.get_many([pmid]).get(pmid)

    def get_many(self, pmids: Iterable[str]) -> dict[str, StoredDocument]:
        """The stored documents among `pmids`, keyed by PMID; unknown PMIDs are absent."""
        wanted = sorted(set(_require_pmids(pmids)))
        found: dict[str, StoredDocument] = {}
        for batch in in_batches(wanted):
            query = sa.select(documents).where(documents.c.pmid.in_(batch))
            for row in self._connection.execute(query).mappings():
                found[row["pmid"]] = _stored_document(row)
        return found

    def count(self) -> int:
        return int(self._connection.execute(sa.select(sa.func.count()).select_from(documents)).scalar_one())
