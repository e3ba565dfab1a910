"""Analyst checkpoints (seed 004): a deterministic `checkpoint_id` resolves to the JSON document of
what an answer referenced (tool versions, registry version, inputs, source watermarks, blob URIs).

The id is a hash of that document, so storing it twice is a no-op, and one id stored with two
different documents is an invariant failure, never a silent overwrite.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bio_mcp.canonical import canonical_json
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store.database import upsert_insert
from bio_mcp.store.schema import analyst_checkpoints, utc_now


@dataclass(frozen=True)
class AnalystCheckpoint:
    checkpoint_id: str
    document: dict[str, Any]
    created_at: datetime


class AnalystCheckpointRepository:
    """Analyst checkpoints, bound to one transaction."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def put(self, checkpoint_id: str, document: Mapping[str, Any]) -> AnalystCheckpoint:
        """Store the document of `checkpoint_id` once; returns the stored row (the first one's time)."""
        if not checkpoint_id or len(checkpoint_id) > 128:
            raise BioMcpError(ErrorCode.VALIDATION, "checkpoint_id must have 1 to 128 characters")
        self._connection.execute(
            upsert_insert(self._connection, analyst_checkpoints)
            .values(checkpoint_id=checkpoint_id, document=dict(document), created_at=utc_now())
            .on_conflict_do_nothing(index_elements=[analyst_checkpoints.c.checkpoint_id])
        )
        stored = self.get(checkpoint_id)
        if stored is None:
            raise BioMcpError(ErrorCode.INVARIANT_FAILURE, "a checkpoint vanished inside its transaction")
        # Compared as canonical JSON: tuples and lists, or key order, are not real differences.
        if canonical_json(stored.document) != canonical_json(dict(document)):
            raise BioMcpError(
                ErrorCode.INVARIANT_FAILURE,
                f"checkpoint {checkpoint_id!r} is already stored with a different document",
                {"checkpoint_id": checkpoint_id},
            )
        return stored

    def get(self, checkpoint_id: str) -> AnalystCheckpoint | None:
        query = sa.select(analyst_checkpoints).where(analyst_checkpoints.c.checkpoint_id == checkpoint_id)
        row = self._connection.execute(query).one_or_none()
        if row is None:
            return None
        return AnalystCheckpoint(
            checkpoint_id=row.checkpoint_id, document=dict(row.document), created_at=row.created_at
        )
