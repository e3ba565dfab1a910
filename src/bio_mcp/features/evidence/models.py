"""What every seed-003 result shares: the audit in its body."""

from __future__ import annotations

from bio_mcp.audit import Audit
from bio_mcp.models import ToolOutput


class AuditedOutput(ToolOutput):
    """A seed-003 result. The server fills `audit` after the call (its out_hash covers the body
    without it), so a feature function leaves it empty; it is declared so that a client validating
    structured content against the output schema accepts it."""

    audit: Audit | None = None
