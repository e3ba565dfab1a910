"""Structured JSON-line logs to stderr (and LOGS_DIR), with a correlation id per request.

The correlation id lives in a context variable, so every upstream call made while serving a
tool call logs the id of that call without passing it around. Secrets never reach a record:
`redact` masks tokens and keys in anything logged as a field.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

correlation_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("correlation_id", default=None)

_SECRET_KEYS = {"api_key", "authorization", "token", "access_token", "secret", "password", "mcp_auth_secret_key"}
_LOGGER_NAME = "bio_mcp"


def redact(fields: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key.lower() in _SECRET_KEYS and value:
            out[key] = "***"
        elif isinstance(value, dict):
            out[key] = redact(value)
        else:
            out[key] = value
    return out


class JsonLineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        cid = getattr(record, "correlation_id", None) or correlation_id.get()
        if cid:
            entry["correlation_id"] = cid
        fields = getattr(record, "fields", None)
        if fields:
            entry.update(redact(fields))
        if record.exc_info:
            entry["exc_type"] = record.exc_info[0].__name__ if record.exc_info[0] else None
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def configure_logging(level: str = "info", logs_dir: Path | None = None) -> None:
    """Send every log record to JSON lines on stderr (and LOGS_DIR): ours at `level`, others at WARNING.

    stdout is never used: on the stdio transport it carries the protocol. Handlers go on the root
    logger so that the SDK's own logging set-up (basicConfig) finds them and adds nothing.
    """
    formatter = JsonLineFormatter()
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if logs_dir is not None:
        logs_dir.mkdir(parents=True, exist_ok=True)
        handlers.append(RotatingFileHandler(logs_dir / "bio-mcp.jsonl", maxBytes=10_000_000, backupCount=5))
    root = logging.getLogger()
    root.handlers.clear()
    for handler in handlers:
        handler.setFormatter(formatter)
        root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger(_LOGGER_NAME).setLevel(level.upper())
    # uvicorn's own records (started, listening, shutting down, errors) at our level, through the
    # same JSON handlers: the server passes log_config=None so uvicorn adds no handlers of its own.
    logging.getLogger("uvicorn").setLevel(level.upper())
    # The HTTP client logs every request URL at INFO, and an NCBI URL carries the api_key: our own
    # upstream log lines show the URL with secrets removed instead.
    for name in ("httpx2", "httpcore2"):
        logging.getLogger(name).setLevel(logging.WARNING)


def get_logger(name: str) -> logging.Logger:
    return logging.getLogger(f"{_LOGGER_NAME}.{name}")


def log_event(logger: logging.Logger, level: int, msg: str, **fields: Any) -> None:
    logger.log(level, msg, extra={"fields": fields})


@contextmanager
def correlation_scope(cid: str | None = None) -> Iterator[str]:
    value = cid or uuid.uuid4().hex
    token = correlation_id.set(value)
    try:
        yield value
    finally:
        correlation_id.reset(token)
