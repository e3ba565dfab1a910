"""Audit metadata for every tool call (seed 003, "Audit & Determinism").

in_hash = sha256(canonical_json(input)); seed = int(in_hash[:16], 16);
out_hash = sha256(canonical_json(output minus audit)); latency_ms; status ok|error.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no insignificant whitespace, UTF-8: the one byte form that gets hashed."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode()


def sha256_hex(value: Any) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()


class Audit(BaseModel):
    in_hash: str
    out_hash: str
    latency_ms: int
    seed: int
    status: Literal["ok", "error"]


def audit_record(arguments: Any, output: Any, latency_ms: float, status: Literal["ok", "error"]) -> Audit:
    body = {k: v for k, v in output.items() if k != "audit"} if isinstance(output, dict) else output
    in_hash = sha256_hex(arguments)
    return Audit(
        in_hash=in_hash,
        out_hash=sha256_hex(body),
        latency_ms=round(latency_ms),
        seed=int(in_hash[:16], 16),
        status=status,
    )
