"""The analyst's cache rows: CT.gov studies and searches, PubMed searches, analyst checkpoints; idempotent upserts."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bio_mcp.canonical import canonical_sha256
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import CtgovStudy, MetadataStore, ctgov_search_key, pubmed_search_key

FETCHED = datetime(2026, 8, 11, 12, 0, tzinfo=UTC)


def normalised_study(study: dict[str, Any]) -> dict[str, Any]:
    """The reduced row the CT.gov client keeps of a recorded v2 study."""
    protocol = study["protocolSection"]
    return {
        "nct_id": protocol["identificationModule"]["nctId"],
        "brief_title": protocol["identificationModule"]["briefTitle"],
        "overall_status": protocol["statusModule"]["overallStatus"],
        "conditions": protocol.get("conditionsModule", {}).get("conditions", []),
    }


@pytest.fixture
def studies(data_dir: Path) -> list[dict[str, Any]]:
    page = json.loads((data_dir / "ctgov" / "biomcp" / "search_keytruda_limit3_20260811.json").read_text())
    return [normalised_study(study) for study in page["studies"]]


@pytest.fixture
def esearch(data_dir: Path) -> tuple[str, list[str], int]:
    body = json.loads(
        (data_dir / "ncbi" / "biomcp" / "esearch_json_and_429" / "esearch_MLH1_G67E.json").read_text()
    )
    result = body["esearchresult"]
    return result["querytranslation"], result["idlist"], int(result["count"])


def test_ctgov_studies_upsert_idempotently(store: MetadataStore, studies: list[dict[str, Any]]) -> None:
    rows = [CtgovStudy(study["nct_id"], study, blob_uri=None, fetched_at=FETCHED) for study in studies]
    for _ in range(2):
        with store.transaction() as tx:
            tx.upstream.upsert_ctgov_studies(rows)
    with store.read() as tx:
        cached = tx.upstream.get_ctgov_studies([study["nct_id"] for study in studies] + ["NCT00000000"])
    assert sorted(cached) == sorted(study["nct_id"] for study in studies)
    first = cached[studies[0]["nct_id"]]
    assert first.payload == studies[0] and first.fetched_at == FETCHED and len(first.content_sha256) == 64


def test_a_newer_fetch_replaces_and_an_older_one_does_not(
    store: MetadataStore, studies: list[dict[str, Any]]
) -> None:
    study = studies[0]
    nct_id = study["nct_id"]
    completed = study | {"overall_status": "COMPLETED"}
    with store.transaction() as tx:
        tx.upstream.upsert_ctgov_studies([CtgovStudy(nct_id, study, fetched_at=FETCHED)])
        tx.upstream.upsert_ctgov_studies(
            [
                CtgovStudy(
                    nct_id, completed, blob_uri="s3://b/raw/ctgov/x", fetched_at=FETCHED + timedelta(days=1)
                )
            ]
        )
        tx.upstream.upsert_ctgov_studies([CtgovStudy(nct_id, study, fetched_at=FETCHED - timedelta(days=1))])
        cached = tx.upstream.get_ctgov_studies([nct_id])[nct_id]
    assert cached.payload["overall_status"] == "COMPLETED"
    assert cached.blob_uri == "s3://b/raw/ctgov/x"
    assert cached.fetched_at == FETCHED + timedelta(days=1)


def test_nct_ids_are_validated(store: MetadataStore, studies: list[dict[str, Any]]) -> None:
    with store.transaction() as tx, pytest.raises(BioMcpError) as caught:
        tx.upstream.upsert_ctgov_studies([CtgovStudy("nct123", studies[0])])
    assert caught.value.code is ErrorCode.VALIDATION


def test_pubmed_searches_are_cached_under_a_normalised_key(
    store: MetadataStore, esearch: tuple[str, list[str], int]
) -> None:
    query, pmids, count = esearch
    params = {"retmax": 20, "sort": "relevance"}
    assert pubmed_search_key(query, params) == pubmed_search_key(
        f"  {query.replace(' AND ', '  AND ')} ", params
    )
    assert pubmed_search_key(query, params) != pubmed_search_key(query.replace(" AND ", " and "), params)
    with store.transaction() as tx:
        assert tx.upstream.get_pubmed_search(query, params) is None
        stored = tx.upstream.put_pubmed_search(query, params, pmids, count, fetched_at=FETCHED)
        again = tx.upstream.put_pubmed_search(
            query, dict(reversed(params.items())), pmids, count, fetched_at=FETCHED
        )
        older = tx.upstream.put_pubmed_search(query, params, [], 0, fetched_at=FETCHED - timedelta(hours=1))
    assert stored == again == older
    assert (stored.pmids, stored.count, stored.params) == (pmids, count, params)
    with store.read() as tx:
        assert tx.upstream.get_pubmed_search(f"{query} ", params) == stored


def test_ctgov_searches_are_cached_apart_from_pubmed_searches(
    store: MetadataStore, studies: list[dict[str, Any]], data_dir: Path
) -> None:
    body = (data_dir / "ctgov" / "biomcp" / "search_keytruda_limit3_20260811.json").read_bytes()
    params = {"format": "json", "pageSize": 3, "query.intr": "Keytruda"}
    nct_ids = [study["nct_id"] for study in studies]
    digest = canonical_sha256(json.loads(body))
    assert ctgov_search_key(params) == ctgov_search_key(dict(reversed(params.items())))
    assert ctgov_search_key(params) != ctgov_search_key(params | {"pageSize": 4})
    with store.transaction() as tx:
        assert tx.upstream.get_ctgov_search(params) is None
        stored = tx.upstream.put_ctgov_search(params, nct_ids, None, digest, blob_uri="file:///b/x", fetched_at=FETCHED)
        again = tx.upstream.put_ctgov_search(params, nct_ids, None, digest, blob_uri="file:///b/x", fetched_at=FETCHED)
        older = tx.upstream.put_ctgov_search(params, [], 0, "0" * 64, fetched_at=FETCHED - timedelta(hours=1))
        newer = tx.upstream.put_ctgov_search(
            params, nct_ids[:1], 1, "1" * 64, fetched_at=FETCHED + timedelta(hours=1)
        )
    assert stored == again == older
    assert (stored.nct_ids, stored.total_count, stored.params, stored.content_sha256) == (nct_ids, None, params, digest)
    assert (newer.nct_ids, newer.total_count) == (nct_ids[:1], 1)
    with store.read() as tx:
        assert tx.upstream.get_ctgov_search(params) == newer
        # The PubMed search cache is a different table: the same parameters are not found there.
        assert tx.upstream.get_pubmed_search("ctgov.search", params) is None
    with store.transaction() as tx, pytest.raises(BioMcpError) as caught:
        tx.upstream.put_ctgov_search(params, ["nct1"], 1, digest)
    assert caught.value.code is ErrorCode.VALIDATION


def test_analyst_checkpoints_resolve_and_never_change(
    store: MetadataStore, esearch: tuple[str, list[str], int]
) -> None:
    query, pmids, _ = esearch
    document = {
        "tool_versions": {"pubmed.search": "v1", "pubmed.get": "v1"},
        "registry_version": 1,
        "inputs": {"query": query},
        "watermarks": {"pubmed": "2026-08-11T00:00:00Z"},
        "blob_uris": ["s3://bio-mcp/raw/pubmed/esearch/ab/ab.json"],
        "pmids": pmids,
    }
    with store.transaction() as tx:
        first = tx.analyst_checkpoints.put("ckpt_0123abcd", document)
        again = tx.analyst_checkpoints.put("ckpt_0123abcd", dict(reversed(document.items())))
        assert first == again
        with pytest.raises(BioMcpError) as caught:
            tx.analyst_checkpoints.put("ckpt_0123abcd", document | {"registry_version": 2})
        assert caught.value.code is ErrorCode.INVARIANT_FAILURE
    with store.read() as tx:
        resolved = tx.analyst_checkpoints.get("ckpt_0123abcd")
        assert tx.analyst_checkpoints.get("ckpt_unknown") is None
    assert resolved is not None and resolved.document == document
