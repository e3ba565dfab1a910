"""ISO 8601 UTC timestamps as the store keeps them: `YYYY-MM-DDTHH:MM:SSZ`.

One fixed width and zone means the strings sort chronologically, in Python and in SQL alike.
Sub-second parts are dropped: EDAT and LR have minute precision at most.
"""

from __future__ import annotations

import contextlib
import re
from datetime import UTC, datetime

from bio_mcp.errors import BioMcpError, ErrorCode

_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_iso_utc(value: str) -> datetime:
    """The instant of an ISO 8601 timestamp with a zone (or a bare date, taken as midnight UTC).

    Raises ValueError: a timestamp without a zone names no single instant, so it is refused.
    """
    text = value.strip()
    if _DATE_ONLY.match(text):
        return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        raise ValueError("the timestamp has no time zone; append Z for UTC")
    return parsed.astimezone(UTC)


def format_iso_utc(instant: datetime) -> str:
    if instant.tzinfo is None:
        raise ValueError("a naive datetime has no defined instant")
    return instant.astimezone(UTC).replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def normalise_iso_utc(value: str) -> str:
    """`value` as `YYYY-MM-DDTHH:MM:SSZ`; ValueError if it is not an ISO 8601 timestamp with a zone."""
    return format_iso_utc(parse_iso_utc(value))


def require_iso_utc(value: object, field: str) -> str:
    """Like `normalise_iso_utc` but raising BioMcpError(VALIDATION) that names the field."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return normalise_iso_utc(value)
    raise BioMcpError(
        ErrorCode.VALIDATION,
        f"{field} must be an ISO 8601 UTC timestamp such as 2024-06-02T00:00:00Z, got {value!r}",
        {"field": field, "value": value if isinstance(value, str) else repr(value)},
    )
