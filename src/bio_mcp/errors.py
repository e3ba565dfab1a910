"""The one exception type of Bio-MCP and the error envelope of seed 000.

Every layer raises `BioMcpError` with a code from the envelope's enum; the server maps it to
`{"error": {"code", "message", "details"}}` so no stack trace ever reaches a client.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    RATE_LIMIT = "RATE_LIMIT"
    UPSTREAM = "UPSTREAM"
    VALIDATION = "VALIDATION"
    NOT_FOUND = "NOT_FOUND"
    INVARIANT_FAILURE = "INVARIANT_FAILURE"
    STORE = "STORE"
    EMBEDDINGS = "EMBEDDINGS"
    WEAVIATE = "WEAVIATE"
    ENTREZ = "ENTREZ"
    UNKNOWN = "UNKNOWN"


class BioMcpError(Exception):
    """A failure with a code a client can act on and a message a person can read."""

    def __init__(self, code: ErrorCode | str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.details = details

    def envelope(self) -> dict[str, Any]:
        return {"error": {"code": self.code.value, "message": self.message, "details": self.details}}

    def __repr__(self) -> str:
        return f"BioMcpError({self.code.value}, {self.message!r})"


def validation_error_details(exc: Any) -> list[dict[str, Any]]:
    """The parts of a pydantic ValidationError a caller needs, without echoing large inputs."""
    return [
        {"loc": ".".join(str(p) for p in err["loc"]), "msg": err["msg"], "type": err["type"]}
        for err in exc.errors()
    ]
