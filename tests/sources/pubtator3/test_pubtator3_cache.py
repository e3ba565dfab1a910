"""The PubTator3 client keeps annotations by PMID in the sources' one response cache: a batch that
overlaps an earlier one asks the fake PubTator3 (real recorded exports) only for the PMIDs not kept."""

from __future__ import annotations

import pytest

from bio_mcp.config import load_settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.pubtator3.client import Pubtator3Client

pytestmark = pytest.mark.anyio

BRAF = "22663011"
OTHER = "20516115"


async def test_an_overlapping_batch_asks_only_for_the_pmids_not_kept(fakes, bio_home) -> None:
    client = Pubtator3Client(load_settings(PUBTATOR3_BASE_URL=fakes.pubtator3_base_url))
    try:
        first = await client.annotations([BRAF])
        both = await client.annotations([BRAF, OTHER])
        again = await client.annotations([OTHER, BRAF])
    finally:
        await client.aclose()
    assert list(both) == [BRAF, OTHER] and both[BRAF] == first[BRAF]
    assert list(again) == [OTHER, BRAF]
    assert [r.param("pmids") for r in fakes.pubtator3.requests] == [BRAF, OTHER]


async def test_a_ttl_of_zero_keeps_nothing(fakes, bio_home) -> None:
    client = Pubtator3Client(load_settings(PUBTATOR3_BASE_URL=fakes.pubtator3_base_url, PUBTATOR3_CACHE_TTL_S=0))
    try:
        await client.annotations([BRAF])
        await client.annotations([BRAF])
    finally:
        await client.aclose()
    assert [r.param("pmids") for r in fakes.pubtator3.requests] == [BRAF, BRAF]


async def test_a_failed_request_is_not_kept(fakes, bio_home) -> None:
    fakes.pubtator3.inject(fakes.pubtator3.server_error(503), times=None)
    client = Pubtator3Client(load_settings(PUBTATOR3_BASE_URL=fakes.pubtator3_base_url, PUBTATOR3_MAX_RETRIES=0))
    try:
        with pytest.raises(BioMcpError) as outage:
            await client.annotations([BRAF])
        assert outage.value.code == ErrorCode.UPSTREAM
        fakes.pubtator3.reset()
        found = await client.annotations([BRAF])
    finally:
        await client.aclose()
    assert list(found) == [BRAF]
    assert [r.param("pmids") for r in fakes.pubtator3.requests] == [BRAF]
