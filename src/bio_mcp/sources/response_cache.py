"""Answers of read-only upstream calls kept in memory for a while, so an agent that asks the same
thing twice (it often does, paging back, retrying a tool call, or asking about papers it has just
read) costs the upstream nothing. Every client in sources/ caches through this one class."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from cachetools import TTLCache

from bio_mcp.sources.upstream import Params

MAX_ENTRIES = 256

V = TypeVar("V")


def request_key(path: str, params: Params) -> tuple[str, tuple[tuple[str, str], ...]]:
    """One key for a request whatever the order of its parameters."""
    return path, tuple(sorted((k, str(v)) for k, v in params.items()))


class ResponseCache(Generic[V]):
    """Successful answers by key for `ttl_s` seconds (0 keeps nothing); errors are never kept, so an
    outage must not stick. Keys are whole requests (`request_key`) or, for a client that batches,
    the items a request asks for, so a later batch asks upstream only for what is not kept."""

    def __init__(self, ttl_s: float, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: TTLCache[Hashable, V] | None = TTLCache(max_entries, ttl_s) if ttl_s > 0 else None

    def kept(self, key: Hashable) -> V | None:
        return None if self._entries is None else self._entries.get(key)

    def keep(self, key: Hashable, value: V) -> None:
        if self._entries is not None:
            self._entries[key] = value

    async def get(self, key: Hashable, fetch: Callable[[], Awaitable[V]]) -> V:
        cached = self.kept(key)
        if cached is not None:
            return cached
        value = await fetch()
        self.keep(key, value)
        return value
