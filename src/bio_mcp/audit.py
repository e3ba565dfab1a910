"""Audit metadata for every tool call (seed 003, "Audit & Determinism").

in_hash = sha256(canonical_json(input)); seed = int(in_hash[:16], 16);
out_hash = sha256(canonical_json(output minus audit)); latency_ms; status ok|error.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from bio_mcp.canonical import canonical_sha256


class Audit(BaseModel):
    in_hash: str
    out_hash: str
    latency_ms: int
    seed: int
    status: Literal["ok", "error"]


def audit_record(arguments: Any, output: Any, latency_ms: float, status: Literal["ok", "error"]) -> Audit:
    body = {k: v for k, v in output.items() if k != "audit"} if isinstance(output, dict) else output
    in_hash = canonical_sha256(arguments)
    return Audit(
        in_hash=in_hash,
        out_hash=canonical_sha256(body),
        latency_ms=round(latency_ms),
        seed=int(in_hash[:16], 16),
        status=status,
    )
