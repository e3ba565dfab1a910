"""What a running server owns: settings and the long-lived clients the toolsets share."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx2

from bio_mcp.config import Settings
from bio_mcp.features.analyst.ask import Analyst
from bio_mcp.features.analyst.service import build_analyst
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.server.toolset import Toolset
from bio_mcp.sources.ncbi.client import EutilsClient


class Runtime:
    """One per process. Clients are created on first use and closed by `aclose`."""

    def __init__(self, settings: Settings, transport: httpx2.AsyncBaseTransport | None = None) -> None:
        self.settings = settings
        self.started_at = time.time()
        self._transport = transport
        self._eutils: EutilsClient | None = None
        self._corpus: CorpusService | None = None
        self._analyst: Analyst | None = None

    @property
    def eutils(self) -> EutilsClient:
        if self._eutils is None:
            self._eutils = EutilsClient(self.settings, transport=self._transport)
        return self._eutils

    @property
    def corpus(self) -> CorpusService:
        if self._corpus is None:
            self._corpus = CorpusService(self.settings, self.eutils)
        return self._corpus

    @property
    def analyst(self) -> Analyst:
        if self._analyst is None:
            self._analyst = build_analyst(self.settings, self.eutils)
        return self._analyst

    def toolsets(self, names: list[str] | None = None) -> list[Toolset]:
        from bio_mcp.server.toolsets import registry

        chosen = names or self.settings.toolsets
        factories: dict[str, Callable[[Runtime], Toolset]] = registry.FACTORIES
        unknown = [name for name in chosen if name not in factories]
        if unknown:
            raise BioMcpError(ErrorCode.VALIDATION, f"unknown toolset(s) {unknown}; available: {sorted(factories)}")
        return [factories[name](self) for name in chosen]

    async def aclose(self) -> None:
        if self._analyst is not None:
            await self._analyst.aclose()
        if self._corpus is not None:
            await self._corpus.aclose()
        if self._eutils is not None:
            await self._eutils.aclose()

    async def __aenter__(self) -> Runtime:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()
