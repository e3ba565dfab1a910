"""Bearer-token authentication for the HTTP transport: JWTs checked by the SDK's auth middleware.

HS256 tokens are signed with MCP_AUTH_SECRET_KEY (`bio-mcp token` mints one for development);
RS256 tokens are checked against the keys at MCP_AUTH_JWKS_URL. Expiry is mandatory, and no token
may be meant to live longer than MCP_AUTH_MAX_TOKEN_LIFETIME_S (default 24 h): neither from its
issue (`exp - iat`) nor from now (`exp - now`), so a leaked token cannot stay good for years.
"""

from __future__ import annotations

import time
import uuid

import jwt
from mcp.server.auth.provider import AccessToken

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.logs import get_logger

log = get_logger("auth")

DEFAULT_SCOPES = ("bio-mcp",)
DEFAULT_MAX_LIFETIME_S = 24 * 3600


class TokenLifetimeTooLong(jwt.InvalidTokenError):
    """The token is meant to live longer than the configured maximum."""


class JwtVerifier:
    """The SDK's TokenVerifier for our JWTs. Never logs a token."""

    def __init__(
        self,
        secret: str | None,
        jwks_url: str | None = None,
        audience: str | None = None,
        issuer: str | None = None,
        max_lifetime_s: int = DEFAULT_MAX_LIFETIME_S,
    ) -> None:
        if not secret and not jwks_url:
            raise BioMcpError(ErrorCode.VALIDATION, "JWT auth needs MCP_AUTH_SECRET_KEY or MCP_AUTH_JWKS_URL")
        self._secret = secret
        self._jwks = jwt.PyJWKClient(jwks_url, cache_keys=True) if jwks_url else None
        self._audience = audience
        self._issuer = issuer
        self._max_lifetime_s = max_lifetime_s

    def decode(self, token: str) -> dict[str, object]:
        options = {"require": ["exp", "sub"], "verify_aud": self._audience is not None}
        header = jwt.get_unverified_header(token)
        if header.get("alg") == "HS256" and self._secret:
            claims = jwt.decode(token, self._secret, algorithms=["HS256"], audience=self._audience,
                                issuer=self._issuer, options=options)
        elif header.get("alg") == "RS256" and self._jwks is not None:
            key = self._jwks.get_signing_key_from_jwt(token).key
            claims = jwt.decode(token, key, algorithms=["RS256"], audience=self._audience,
                                issuer=self._issuer, options=options)
        else:
            raise jwt.InvalidAlgorithmError(f"algorithm {header.get('alg')!r} is not accepted")
        self._check_lifetime(claims)
        return claims

    def _check_lifetime(self, claims: dict[str, object]) -> None:
        exp, iat = claims["exp"], claims.get("iat")
        if not isinstance(exp, (int, float)) or (iat is not None and not isinstance(iat, (int, float))):
            raise jwt.InvalidTokenError("exp and iat must be numbers")
        if exp - time.time() > self._max_lifetime_s or (iat is not None and exp - iat > self._max_lifetime_s):
            raise TokenLifetimeTooLong(f"the token lives longer than {self._max_lifetime_s} s")

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            claims = self.decode(token)
        except (jwt.PyJWTError, ValueError) as exc:
            log.info("bearer token rejected", extra={"fields": {"reason": type(exc).__name__}})
            return None
        scope = claims.get("scope")
        scopes = scope.split() if isinstance(scope, str) else list(DEFAULT_SCOPES)
        exp = claims.get("exp")
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id") or claims.get("sub")),
            scopes=scopes,
            expires_at=int(exp) if isinstance(exp, (int, float)) else None,
            subject=str(claims["sub"]),
            claims={k: v for k, v in claims.items() if k in ("iss", "aud", "iat")},
        )


def mint_token(secret: str, subject: str = "developer", ttl_s: int = 3600, audience: str | None = None,
               issuer: str | None = None, max_lifetime_s: int = DEFAULT_MAX_LIFETIME_S) -> str:
    if not 0 < ttl_s <= max_lifetime_s:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"a token's lifetime must be 1..{max_lifetime_s} s (MCP_AUTH_MAX_TOKEN_LIFETIME_S); {ttl_s} was asked for",
            {"ttl_s": ttl_s, "max_lifetime_s": max_lifetime_s},
        )
    now = int(time.time())
    claims: dict[str, object] = {"sub": subject, "iat": now, "exp": now + ttl_s, "jti": uuid.uuid4().hex,
                                 "scope": " ".join(DEFAULT_SCOPES)}
    if audience:
        claims["aud"] = audience
    if issuer:
        claims["iss"] = issuer
    return jwt.encode(claims, secret, algorithm="HS256")
