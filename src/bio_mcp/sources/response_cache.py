"""Answers of read-only upstream calls kept in memory for a while, so an agent that asks the same
page twice (it often does, paging back or retrying a tool call) costs the upstream nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from cachetools import TTLCache

from bio_mcp.sources.upstream import Params, UpstreamResponse

MAX_ENTRIES = 256


class ResponseCache:
    """Successful responses by path and parameters; errors are never kept (an outage must not stick)."""

    def __init__(self, ttl_s: float) -> None:
        self._entries: TTLCache[tuple[str, tuple[tuple[str, str], ...]], UpstreamResponse] | None = (
            TTLCache(MAX_ENTRIES, ttl_s) if ttl_s > 0 else None
        )
        self.hits = 0

    async def get(
        self, path: str, params: Params, fetch: Callable[[], Awaitable[UpstreamResponse]]
    ) -> UpstreamResponse:
        if self._entries is None:
            return await fetch()
        key = (path, tuple(sorted((k, str(v)) for k, v in params.items())))
        cached = self._entries.get(key)
        if cached is not None:
            self.hits += 1
            return cached
        response = await fetch()
        self._entries[key] = response
        return response
