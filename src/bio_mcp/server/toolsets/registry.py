"""Toolset factories by name: a later toolset plugs in with one line here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bio_mcp.server.toolset import Toolset
from bio_mcp.server.toolsets.analyst import analyst_toolset
from bio_mcp.server.toolsets.corpus import corpus_toolset
from bio_mcp.server.toolsets.evidence import evidence_toolset
from bio_mcp.server.toolsets.kb import kb_toolset
from bio_mcp.server.toolsets.pubmed import pubmed_toolset

if TYPE_CHECKING:
    from bio_mcp.server.runtime import Runtime

FACTORIES: dict[str, Callable[[Runtime], Toolset]] = {
    "pubmed": pubmed_toolset,
    "corpus": corpus_toolset,
    "analyst": analyst_toolset,
    "kb": kb_toolset,
    "evidence": evidence_toolset,
}
