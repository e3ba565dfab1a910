"""No bearer token may be meant to live longer than MCP_AUTH_MAX_TOKEN_LIFETIME_S."""

from __future__ import annotations

import time

import jwt
import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.server.auth import JwtVerifier, mint_token

pytestmark = pytest.mark.anyio

SECRET = "s" * 40
HOUR = 3600


def token(iat: int | None, exp: int) -> str:
    claims = {"sub": "d", "exp": exp} | ({"iat": iat} if iat is not None else {})
    return jwt.encode(claims, SECRET, "HS256")


@pytest.mark.parametrize(
    ("iat_offset", "exp_offset", "accepted"),
    [
        (0, HOUR, True),
        (0, 23 * HOUR, True),
        (None, 23 * HOUR, True),
        (0, 25 * HOUR, False),
        (None, 25 * HOUR, False),  # no iat: the lifetime left is what counts
        (-10 * 24 * HOUR, HOUR, False),  # issued ten days ago for eleven days
        # The year 3000: an id of its own, since the offset (computed at collection) differs between
        # the test workers that each collect the suite.
        pytest.param(0, 32503680000 - int(time.time()), False, id="year-3000"),
    ],
)
async def test_lifetime_beyond_the_maximum_is_refused(iat_offset, exp_offset, accepted) -> None:
    now = int(time.time())
    verifier = JwtVerifier(SECRET, max_lifetime_s=24 * HOUR)
    issued = None if iat_offset is None else now + iat_offset
    result = await verifier.verify_token(token(issued, now + exp_offset))
    assert (result is not None) is accepted


async def test_the_maximum_is_a_setting() -> None:
    now = int(time.time())
    assert await JwtVerifier(SECRET, max_lifetime_s=48 * HOUR).verify_token(token(now, now + 30 * HOUR))
    assert await JwtVerifier(SECRET, max_lifetime_s=HOUR).verify_token(token(now, now + 2 * HOUR)) is None


def test_mint_refuses_a_lifetime_past_the_maximum() -> None:
    with pytest.raises(BioMcpError) as info:
        mint_token(SECRET, ttl_s=25 * HOUR)
    assert info.value.code is ErrorCode.VALIDATION
    claims = jwt.decode(mint_token(SECRET, ttl_s=25 * HOUR, max_lifetime_s=48 * HOUR), SECRET, algorithms=["HS256"])
    assert claims["exp"] - claims["iat"] == 25 * HOUR
