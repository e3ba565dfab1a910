"""Normalised rows behind the analyst's cache-then-network clients (seed 004): ClinicalTrials.gov
studies and searches, and PubMed search results. The raw responses live in the blob store; rows
point at them.

Writes are idempotent `INSERT ... ON CONFLICT DO UPDATE`, and an older fetch arriving late never
overwrites a newer one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Row, RowMapping

from bio_mcp.canonical import canonical_sha256
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store.database import in_batches, upsert_insert
from bio_mcp.store.schema import ctgov_search_cache, ctgov_studies, pubmed_search_cache, utc_now

_NCT_ID = re.compile(r"^NCT[0-9]{8}$")


@dataclass(frozen=True)
class CtgovStudy:
    """One normalised study as the ClinicalTrials.gov client produced it."""

    nct_id: str
    payload: Mapping[str, Any]
    blob_uri: str | None = None
    fetched_at: datetime = field(default_factory=utc_now)


@dataclass(frozen=True)
class CachedStudy:
    nct_id: str
    payload: dict[str, Any]
    content_sha256: str
    blob_uri: str | None
    fetched_at: datetime


@dataclass(frozen=True)
class CachedSearch:
    cache_key: str
    query: str
    params: dict[str, Any]
    pmids: list[str]
    count: int
    blob_uri: str | None
    fetched_at: datetime


@dataclass(frozen=True)
class CachedCtgovSearch:
    """One `/studies` query's answer: the NCT ids in the order served (rows of `ctgov_studies`)."""

    cache_key: str
    params: dict[str, Any]
    nct_ids: list[str]
    total_count: int | None
    content_sha256: str
    blob_uri: str | None
    fetched_at: datetime


def normalise_query(query: str) -> str:
    # Only whitespace is normalised: PubMed treats AND/OR/NOT as operators only in upper case, so
    # folding case could merge two different searches.
    return " ".join(query.split())


def pubmed_search_key(query: str, params: Mapping[str, Any]) -> str:
    """The cache key of a search: SHA-256 of the canonical JSON of the normalised query and params."""
    return canonical_sha256({"query": normalise_query(query), "params": dict(params)})


def ctgov_search_key(params: Mapping[str, Any]) -> str:
    """The cache key of a `/studies` query: SHA-256 of the canonical JSON of its request parameters.

    Paging parameters belong in `params` too: two pages of one query are two entries.
    """
    return canonical_sha256({"ctgov_params": dict(params)})


def _study(row: Row[Any]) -> CachedStudy:
    return CachedStudy(
        nct_id=row.nct_id,
        payload=dict(row.payload),
        content_sha256=row.content_sha256,
        blob_uri=row.blob_uri,
        fetched_at=row.fetched_at,
    )


def _search(row: RowMapping) -> CachedSearch:
    # By name: `count` on a Row is also the tuple method.
    return CachedSearch(
        cache_key=row["cache_key"],
        query=row["query"],
        params=dict(row["params"]),
        pmids=list(row["pmids"]),
        count=row["count"],
        blob_uri=row["blob_uri"],
        fetched_at=row["fetched_at"],
    )


class UpstreamCache:
    """Cached upstream rows, bound to one transaction."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def upsert_ctgov_studies(self, studies: Sequence[CtgovStudy]) -> None:
        latest: dict[str, CtgovStudy] = {}
        for study in studies:
            if not _NCT_ID.match(study.nct_id):
                raise BioMcpError(
                    ErrorCode.VALIDATION, "an NCT id is NCT followed by 8 digits", {"nct_id": study.nct_id}
                )
            # One row per key per statement: PostgreSQL refuses to update a row twice in one upsert.
            kept = latest.get(study.nct_id)
            if kept is None or study.fetched_at >= kept.fetched_at:
                latest[study.nct_id] = study
        if not latest:
            return
        rows = [
            {
                "nct_id": study.nct_id,
                "payload": dict(study.payload),
                "content_sha256": canonical_sha256(dict(study.payload)),
                "blob_uri": study.blob_uri,
                "fetched_at": study.fetched_at,
            }
            for _, study in sorted(latest.items())
        ]
        statement = upsert_insert(self._connection, ctgov_studies)
        statement = statement.on_conflict_do_update(
            index_elements=[ctgov_studies.c.nct_id],
            set_={
                name: statement.excluded[name]
                for name in ("payload", "content_sha256", "blob_uri", "fetched_at")
            },
            where=statement.excluded.fetched_at >= ctgov_studies.c.fetched_at,
        )
        self._connection.execute(statement, rows)

    def get_ctgov_studies(self, nct_ids: Iterable[str]) -> dict[str, CachedStudy]:
        found: dict[str, CachedStudy] = {}
        for batch in in_batches(sorted(set(nct_ids))):
            for row in self._connection.execute(
                sa.select(ctgov_studies).where(ctgov_studies.c.nct_id.in_(batch))
            ):
                found[row.nct_id] = _study(row)
        return found

    def put_pubmed_search(
        self,
        query: str,
        params: Mapping[str, Any],
        pmids: Sequence[str],
        count: int,
        *,
        blob_uri: str | None = None,
        fetched_at: datetime | None = None,
    ) -> CachedSearch:
        """Cache one search's result; returns the row now stored under its key."""
        bad = [pmid for pmid in pmids if not (pmid.isascii() and pmid.isdigit())]
        if bad or count < 0:
            raise BioMcpError(
                ErrorCode.VALIDATION,
                "a search result is digit PMIDs and a non-negative count",
                {"invalid": bad[:20]},
            )
        key = pubmed_search_key(query, params)
        statement = upsert_insert(self._connection, pubmed_search_cache).values(
            cache_key=key,
            query=normalise_query(query),
            params=dict(params),
            pmids=list(pmids),
            count=count,
            blob_uri=blob_uri,
            fetched_at=fetched_at or utc_now(),
        )
        statement = statement.on_conflict_do_update(
            index_elements=[pubmed_search_cache.c.cache_key],
            set_={name: statement.excluded[name] for name in ("pmids", "count", "blob_uri", "fetched_at")},
            where=statement.excluded.fetched_at >= pubmed_search_cache.c.fetched_at,
        )
        self._connection.execute(statement)
        cached = self.get_pubmed_search_by_key(key)
        if cached is None:
            raise BioMcpError(ErrorCode.INVARIANT_FAILURE, "a cached search vanished inside its transaction")
        return cached

    def get_pubmed_search(self, query: str, params: Mapping[str, Any]) -> CachedSearch | None:
        return self.get_pubmed_search_by_key(pubmed_search_key(query, params))

    def get_pubmed_search_by_key(self, cache_key: str) -> CachedSearch | None:
        query = sa.select(pubmed_search_cache).where(pubmed_search_cache.c.cache_key == cache_key)
        row = self._connection.execute(query).mappings().one_or_none()
        return None if row is None else _search(row)

    def put_ctgov_search(
        self,
        params: Mapping[str, Any],
        nct_ids: Sequence[str],
        total_count: int | None,
        content_sha256: str,
        *,
        blob_uri: str | None = None,
        fetched_at: datetime | None = None,
    ) -> CachedCtgovSearch:
        """Cache one `/studies` query's answer; returns the row now stored under its key."""
        bad = [nct_id for nct_id in nct_ids if not _NCT_ID.match(nct_id)]
        if bad or (total_count is not None and total_count < 0):
            raise BioMcpError(
                ErrorCode.VALIDATION,
                "a CT.gov search result is NCT ids and a non-negative total",
                {"invalid": bad[:20], "total_count": total_count},
            )
        key = ctgov_search_key(params)
        statement = upsert_insert(self._connection, ctgov_search_cache).values(
            cache_key=key,
            params=dict(params),
            nct_ids=list(nct_ids),
            total_count=total_count,
            content_sha256=content_sha256,
            blob_uri=blob_uri,
            fetched_at=fetched_at or utc_now(),
        )
        statement = statement.on_conflict_do_update(
            index_elements=[ctgov_search_cache.c.cache_key],
            set_={
                name: statement.excluded[name]
                for name in ("nct_ids", "total_count", "content_sha256", "blob_uri", "fetched_at")
            },
            where=statement.excluded.fetched_at >= ctgov_search_cache.c.fetched_at,
        )
        self._connection.execute(statement)
        cached = self.get_ctgov_search(params)
        if cached is None:
            raise BioMcpError(ErrorCode.INVARIANT_FAILURE, "a cached CT.gov search vanished inside its transaction")
        return cached

    def get_ctgov_search(self, params: Mapping[str, Any]) -> CachedCtgovSearch | None:
        query = sa.select(ctgov_search_cache).where(ctgov_search_cache.c.cache_key == ctgov_search_key(params))
        row = self._connection.execute(query).mappings().one_or_none()
        if row is None:
            return None
        return CachedCtgovSearch(
            cache_key=row["cache_key"],
            params=dict(row["params"]),
            nct_ids=list(row["nct_ids"]),
            total_count=row["total_count"],
            content_sha256=row["content_sha256"],
            blob_uri=row["blob_uri"],
            fetched_at=row["fetched_at"],
        )
