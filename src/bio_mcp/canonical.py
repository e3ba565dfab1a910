"""Canonical JSON, the one byte form the product hashes: audit hashes (seed 003), content hashes of
stored documents and cached upstream payloads, checkpoint and report ids.

Sorted keys, no insignificant whitespace, UTF-8. A value JSON has no form for (a date, a path) is
hashed by its `str`, so hashing never fails on the way to an answer.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode()


def canonical_sha256(value: Any) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()
