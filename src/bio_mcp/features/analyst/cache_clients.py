"""Cache-then-network tool clients (seed 004 M4): `ctgov.search`, `pubmed.search`, `pubmed.get`.

Read path: the SQL store first; on a miss (or always, for network_only) a live fetch paced by the
orchestrator's per-source limiter, whose raw body goes to the blob store (content-addressed key)
and whose normalised rows go to the SQL store by idempotent upserts. cache_only never fetches; a
miss is NOT_FOUND for that step. Each result carries the SHA-256 of the payload it was read from:
content, not time, so an unchanged upstream gives the same checkpoint_id.

Where each tool's answer is cached: `ctgov.search` in the CT.gov search cache (the NCT ids of a
`/studies` query) over the normalised `ctgov_studies` rows; `pubmed.search` in the PubMed search
cache (PMIDs and count of a term); `pubmed.get` in the PubMed search cache too, keyed by its EFetch
request, its row pointing at the raw XML, which is re-parsed on a hit.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Collection
from logging import WARNING
from typing import Any

from bio_mcp.canonical import canonical_sha256
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.executor import StepContext, Tool, ToolResult
from bio_mcp.features.pubmed.details import unrequested_warning
from bio_mcp.logs import get_logger, log_event
from bio_mcp.sources.ctgov.client import CtgovClient, any_of
from bio_mcp.sources.ctgov.models import Study, StudyQuery
from bio_mcp.sources.ctgov.parse import parse_study_body, parse_study_page
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.models import Article
from bio_mcp.sources.ncbi.parsers.efetch import ROOT_TAG, parse_requested, split_requested
from bio_mcp.sources.ncbi.parsers.esearch import parse_esearch
from bio_mcp.sources.ncbi.parsers.off_loop import parse_off_loop
from bio_mcp.store import BlobStore, CachedCtgovSearch, CachedSearch, CachedStudy, CtgovStudy, MetadataStore

STATUS_ENUMS = {
    "Recruiting": "RECRUITING", "Active, not recruiting": "ACTIVE_NOT_RECRUITING",
    "Not yet recruiting": "NOT_YET_RECRUITING", "Enrolling by invitation": "ENROLLING_BY_INVITATION",
    "Completed": "COMPLETED", "Terminated": "TERMINATED", "Suspended": "SUSPENDED", "Withdrawn": "WITHDRAWN",
}
PHASE_ENUMS = {"early_1": "EARLY_PHASE1", "1": "PHASE1", "2": "PHASE2", "3": "PHASE3", "4": "PHASE4"}
# The query under which `pubmed.get` caches its EFetch requests in the PubMed search cache.
EFETCH_CACHE_QUERY = "efetch"


log = get_logger("analyst")


def requested_records_only(body: bytes, wanted: Collection[str]) -> bytes:
    """An EFetch answer cut down to the records whose PMIDs are in `wanted`, each as NCBI sent it."""
    records = split_requested(body, wanted).records
    return b"".join([
        b'<?xml version="1.0" encoding="UTF-8"?>\n<', ROOT_TAG.encode(), b">\n",
        *(xml + b"\n" for _, xml in records), b"</", ROOT_TAG.encode(), b">\n",
    ])


def _sha(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def study_row(study: Study) -> dict[str, Any]:
    return study.model_dump(mode="json") | {"reference_pmids": study.reference_pmids}


def article_row(article: Article) -> dict[str, Any]:
    journal = article.journal_info
    return {
        "pmid": article.pmid,
        "title": article.title or None,
        "journal": (journal.iso_abbreviation or journal.title) if journal else None,
        "date": (journal.publication_date.iso if journal and journal.publication_date.iso else article.article_date),
        "nct_ids": sorted({acc for bank in article.data_banks for acc in bank.accession_numbers if acc.startswith("NCT")}),
        # What a free question's answer quotes from (synth.py), section by section as PubMed labels them.
        "abstract": [{"label": s.label or s.nlm_category, "text": s.text} for s in article.abstract_sections]
        or ([{"label": None, "text": article.abstract_text}] if article.abstract_text else []),
    }


def _content_type(raw: str) -> str:
    return raw.split(";")[0].strip() or "application/octet-stream"


def search_watermark(pmids: list[str], count: int) -> str:
    """What a PubMed search answered, hashed: the same whether it is read live or from the cache."""
    return canonical_sha256({"pmids": pmids, "count": count})


def _miss(tool: str, what: dict[str, Any]) -> BioMcpError:
    return BioMcpError(ErrorCode.NOT_FOUND, f"{tool}: not in the cache (fetch_policy=cache_only)", what)


class AnalystClients:
    """The three tools over one EutilsClient, one CtgovClient, the metadata store and the blob store."""

    def __init__(self, eutils: EutilsClient, ctgov: CtgovClient, store: MetadataStore, blobs: BlobStore) -> None:
        self.eutils = eutils
        self.ctgov = ctgov
        self.store = store
        self.blobs = blobs

    def tools(self) -> dict[str, Tool]:
        return {"ctgov.search": self.ctgov_search, "pubmed.search": self.pubmed_search, "pubmed.get": self.pubmed_get}

    async def aclose(self) -> None:
        await self.ctgov.aclose()

    async def ctgov_search(self, args: dict[str, Any], context: StepContext) -> ToolResult:
        nct_ids = list(args.get("nct_ids") or [])
        if nct_ids:
            return await self._ctgov_get(nct_ids, context)
        unknown = [s for s in args.get("status", []) if s not in STATUS_ENUMS] + [
            p for p in args.get("phase", []) if p not in PHASE_ENUMS
        ]
        if unknown:
            raise BioMcpError(ErrorCode.VALIDATION, f"ctgov.search: unknown status or phase {unknown}")
        condition = args.get("condition")
        if condition and args.get("condition_synonyms"):
            condition = any_of([condition, *args["condition_synonyms"]])
        query = StudyQuery(
            condition=condition, sponsor=args.get("sponsor"), term=args.get("term"), intervention=args.get("intervention"),
            statuses=tuple(sorted(STATUS_ENUMS[s] for s in args.get("status", []))),
            phases=tuple(sorted(PHASE_ENUMS[p] for p in args.get("phase", []))),
            page_size=int(args.get("page_size", 20)),
        )
        params = self.ctgov.search_params(query)
        watermark_key = f"ctgov.search:{canonical_sha256(params)[:16]}"
        if context.fetch_policy != "network_only":
            cached = await asyncio.to_thread(self._read_ctgov_search, params)
            if cached is not None:
                search, studies = cached
                rows = [dict(studies[nct_id].payload) for nct_id in search.nct_ids]
                return ToolResult(
                    payload={"results": rows, "total": search.total_count}, cache_hit=True, rows=len(rows),
                    watermarks={watermark_key: search.content_sha256},
                    blob_uris=[search.blob_uri] if search.blob_uri else [],
                )
        if context.fetch_policy == "cache_only":
            raise _miss("ctgov.search", {"params": params})
        await context.limiter.pace(context.deadline)
        response = await self.ctgov.search(query, timeout_s=max(context.time_left_s(), 0.05))
        page = parse_study_page(response.body)
        digest = _sha(response.body)
        uri = await asyncio.to_thread(
            self._write_ctgov_search, params, page.studies, page.total_count, digest, response.body,
            _content_type(response.content_type),
        )
        return ToolResult(
            payload={"results": [study_row(s) for s in page.studies], "total": page.total_count},
            cache_hit=False, rows=len(page.studies), watermarks={watermark_key: digest}, blob_uris=[uri],
        )

    def _read_ctgov_search(self, params: dict[str, Any]) -> tuple[CachedCtgovSearch, dict[str, CachedStudy]] | None:
        """The cached search and its studies; None when either is missing (a study row lost is a miss)."""
        with self.store.read() as tx:
            search = tx.upstream.get_ctgov_search(params)
            if search is None:
                return None
            studies = tx.upstream.get_ctgov_studies(search.nct_ids)
        return (search, studies) if all(nct_id in studies for nct_id in search.nct_ids) else None

    def _write_ctgov_search(
        self, params: dict[str, Any], studies: list[Study], total: int | None, digest: str, body: bytes,
        content_type: str,
    ) -> str:
        uri = self.blobs.put("ctgov/studies", body, content_type)
        with self.store.transaction() as tx:
            tx.upstream.upsert_ctgov_studies([CtgovStudy(s.nct_id, study_row(s), uri) for s in studies])
            tx.upstream.put_ctgov_search(params, [s.nct_id for s in studies], total, digest, blob_uri=uri)
        return uri

    async def _ctgov_get(self, nct_ids: list[str], context: StepContext) -> ToolResult:
        cached = {} if context.fetch_policy == "network_only" else await asyncio.to_thread(self._read_studies, nct_ids)
        rows: list[dict[str, Any]] = []
        watermarks: dict[str, str] = {}
        uris: list[str] = []
        for nct_id in nct_ids:
            hit = cached.get(nct_id)
            if hit is not None:
                rows.append(dict(hit.payload))
                watermarks[f"ctgov.study:{nct_id}"] = hit.content_sha256
                uris += [hit.blob_uri] if hit.blob_uri else []
                continue
            if context.fetch_policy == "cache_only":
                raise BioMcpError(ErrorCode.NOT_FOUND, f"ctgov.search: {nct_id} is not in the cache (fetch_policy=cache_only)")
            await context.limiter.pace(context.deadline)
            response = await self.ctgov.get_study(nct_id, timeout_s=max(context.time_left_s(), 0.05))
            study = parse_study_body(response.body)
            uri = await asyncio.to_thread(self.blobs.put, "ctgov/study", response.body, "application/json")
            await asyncio.to_thread(self._upsert_studies, [study], uri)
            rows.append(study_row(study))
            # The hash the store keeps of the row, so a warm run reads back the same watermark.
            watermarks[f"ctgov.study:{nct_id}"] = canonical_sha256(study_row(study))
            uris.append(uri)
        return ToolResult(
            payload={"results": rows, "total": len(rows)}, cache_hit=len(cached) == len(nct_ids), rows=len(rows),
            watermarks=watermarks, blob_uris=uris,
        )

    def _read_studies(self, nct_ids: list[str]) -> dict[str, Any]:
        with self.store.read() as tx:
            return tx.upstream.get_ctgov_studies(nct_ids)

    def _upsert_studies(self, studies: list[Study], blob_uri: str) -> None:
        with self.store.transaction() as tx:
            tx.upstream.upsert_ctgov_studies([CtgovStudy(s.nct_id, study_row(s), blob_uri) for s in studies])

    async def pubmed_search(self, args: dict[str, Any], context: StepContext) -> ToolResult:
        term = " ".join(str(args.get("query") or args.get("query_template") or "").split())
        if not term:
            raise BioMcpError(ErrorCode.VALIDATION, "pubmed.search needs a query")
        params = {"retmax": int(args.get("top_k", 20))}
        cached = None
        if context.fetch_policy != "network_only":
            cached = await asyncio.to_thread(self._read_pubmed_search, term, params)
        if cached is None:
            if context.fetch_policy == "cache_only":
                raise _miss("pubmed.search", {"query": term})
            await context.limiter.pace(context.deadline)
            response = await self.eutils.esearch(term, retmax=params["retmax"])
            result = parse_esearch(response.body)
            cached = await asyncio.to_thread(
                self._write_pubmed_search, term, params, list(result.ids), result.count, "pubmed/esearch",
                response.body, _content_type(response.content_type),
            )
            cache_hit = False
        else:
            cache_hit = True
        return ToolResult(
            payload={"results": [{"pmid": pmid} for pmid in cached.pmids], "count": cached.count},
            cache_hit=cache_hit, rows=len(cached.pmids),
            watermarks={f"pubmed.search:{_sha(term.encode())[:16]}": search_watermark(cached.pmids, cached.count)},
            blob_uris=[cached.blob_uri] if cached.blob_uri else [],
        )

    async def pubmed_get(self, args: dict[str, Any], context: StepContext) -> ToolResult:
        pmids = sorted({str(p) for p in args.get("pmids") or []}, key=int)
        if not pmids:
            return ToolResult(payload={"results": []}, cache_hit=True, rows=0)
        params = {"ids": pmids}
        cached = None
        if context.fetch_policy != "network_only":
            cached = await asyncio.to_thread(self._read_pubmed_search, EFETCH_CACHE_QUERY, params)
        wanted = set(pmids)
        uri: str | None
        warnings: list[str] = []
        if cached is not None and cached.blob_uri is not None:
            uri, cache_hit = cached.blob_uri, True
            body = await asyncio.to_thread(self.blobs.get, uri)
            parsed = await parse_off_loop(parse_requested, body, wanted)
        elif context.fetch_policy == "cache_only":
            raise _miss("pubmed.get", {"pmids": pmids})
        else:
            await context.limiter.pace(context.deadline)
            response = await self.eutils.efetch(pmids)
            body, cache_hit = response.body, False
            parsed = await parse_off_loop(parse_requested, body, wanted)
            if parsed.unrequested:
                # Only what was asked for is kept, in the blob as in the rows: the cached answer
                # then reads back the same as this one, and its hash is of what was kept.
                warnings.append(unrequested_warning(parsed.unrequested))
                log_event(log, WARNING, "efetch returned unrequested records", tool="pubmed.get",
                          requested=len(pmids), unrequested=len(parsed.unrequested))
                body = await asyncio.to_thread(requested_records_only, body, wanted)
            stored = await asyncio.to_thread(
                self._write_pubmed_search, EFETCH_CACHE_QUERY, params, [a.pmid for a in parsed.records],
                len(parsed.records), "pubmed/efetch", body, _content_type(response.content_type),
            )
            uri = stored.blob_uri
        articles = [article_row(article) for article in parsed.records]
        return ToolResult(
            payload={"results": articles}, cache_hit=cache_hit, rows=len(articles),
            watermarks={f"pubmed.get:{_sha(','.join(pmids).encode())[:16]}": _sha(body)},
            blob_uris=[uri] if uri else [], warnings=warnings,
        )

    def _read_pubmed_search(self, query: str, params: dict[str, Any]) -> CachedSearch | None:
        with self.store.read() as tx:
            return tx.upstream.get_pubmed_search(query, params)

    def _write_pubmed_search(
        self, query: str, params: dict[str, Any], pmids: list[str], count: int, source: str, body: bytes,
        content_type: str,
    ) -> CachedSearch:
        uri = self.blobs.put(source, body, content_type)
        with self.store.transaction() as tx:
            return tx.upstream.put_pubmed_search(query, params, pmids, count, blob_uri=uri)
