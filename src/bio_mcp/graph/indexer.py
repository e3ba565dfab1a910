"""What a sync (and a rebuild, `add_articles` and an ingestion) does to the graph: link chunk texts
before the transaction, write the linked documents' graphs inside it.

    annotations = graph.annotate(chunks)               # before the transaction: each chunk's entities
                                                       # and the relations its sentences state (a sync
                                                       # may run it in a worker: annotation_worker.py)
    with store.transaction() as tx:
        ...documents and chunks...
        graph.write(tx.connection, sources)            # same transaction: never ahead or behind
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from sqlalchemy.engine import Connection

from bio_mcp.config import Settings
from bio_mcp.graph.adverse_effects import AdverseEffectExtractor
from bio_mcp.graph.adverse_priors import load_adverse_priors
from bio_mcp.graph.build import DocumentSource, write_document_graphs
from bio_mcp.graph.catalog import EMPTY_CATALOG, MeshCatalog
from bio_mcp.graph.elements import StatedRelation
from bio_mcp.graph.evidence_store import SqlEvidenceStore
from bio_mcp.graph.interactions import InteractionExtractor
from bio_mcp.graph.linking import (
    CurrentIdLinker,
    EntityLinker,
    current_mentions,
    load_linker,
    training_path_of,
)
from bio_mcp.graph.mentions import EntityMentions, Mention, group_mentions
from bio_mcp.graph.relations import load_relation_extractor
from bio_mcp.graph.sentences import is_quotable
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.graph.vocabulary import load_pharm_actions, load_vocabulary
from bio_mcp.mesh_files import mesh_path_of, pharm_actions_path


class SectionText(Protocol):
    """What linking reads of a section: a corpus chunk, or `annotation_worker.Section`."""

    @property
    def chunk_id(self) -> str: ...

    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class Annotations:
    """One document's entities (grouped mentions) and stated relations per chunk id, and the
    seconds each step took."""

    mentions: dict[str, list[EntityMentions]]
    relations: dict[str, list[StatedRelation]]
    link_s: float
    extract_s: float


class TextLinker(Protocol):
    def link(self, text: str) -> list[Mention]: ...


class RelationSource(Protocol):
    """A relation extractor: the relations a linked text's sentences state (offsets into `text`)."""

    def relations(self, text: str, mentions: Sequence[Mention]) -> list[StatedRelation]: ...


class GraphIndexer:
    """Links sections with `linker` (None: no mentions), extracts relations with each of
    `extractors` and writes graphs, describing entities with `catalog`.

    `extractors` may be a function giving them, called when a text is first extracted from: a
    server that syncs nothing never holds them (20 MB of its resident memory, and a second and a
    half of its warm-up, for the plant-name matcher and Dr. Duke's constituents of every plant)."""

    def __init__(self, catalog: MeshCatalog, linker: TextLinker | None,
                 extractors: Sequence[RelationSource] | Callable[[], Sequence[RelationSource]] = ()) -> None:
        self._current: dict[str, str] = {}
        if isinstance(linker, EntityLinker):
            # The entities the linker finds beyond the vocabulary are written, and found, by its
            # names; the graph and its queries name the promoted ones by their descriptors.
            catalog = catalog.with_names(linker.names)
            self._current = linker.current_ids
        self.catalog = catalog
        # The relation extractors were trained on the linker's own ids: they read `_raw`.
        self._raw = linker
        self.linker: TextLinker | None = CurrentIdLinker(linker) if self._current else linker
        self._extractors = extractors if callable(extractors) else tuple(extractors)
        self._extractors_lock = threading.Lock()

    @property
    def current_ids(self) -> Mapping[str, str]:
        """The ids the vocabulary in force supersedes (a supplementary concept now filed under a
        descriptor) and the ids the graph names them by."""
        return self._current

    @property
    def extractors(self) -> tuple[RelationSource, ...]:
        with self._extractors_lock:
            if callable(self._extractors):
                self._extractors = tuple(self._extractors())
            return self._extractors

    def link_text(self, text: str) -> list[Mention]:
        return self.linker.link(text) if self.linker is not None else []

    def link(self, chunks: Sequence[SectionText]) -> dict[str, list[EntityMentions]]:
        """chunk_id -> the entities its text mentions, as the graph stores them."""
        return {chunk.chunk_id: group_mentions(self.link_text(chunk.text)) for chunk in chunks}

    def extract_text(self, text: str, mentions: Sequence[Mention]) -> list[StatedRelation]:
        """What the extractors state, less what a span that is no sentence would be quoted for."""
        return [relation for extractor in self.extractors for relation in extractor.relations(text, mentions)
                if is_quotable(text, relation.start, relation.end)]

    def extract(
        self, chunks: Sequence[SectionText], mentions: Mapping[str, Sequence[Mention]]
    ) -> dict[str, list[StatedRelation]]:
        """chunk_id -> the relations its text states (chunks with none are left out)."""
        if not self.extractors:
            return {}
        found = {chunk.chunk_id: self.extract_text(chunk.text, mentions.get(chunk.chunk_id, ())) for chunk in chunks}
        return {chunk_id: relations for chunk_id, relations in found.items() if relations}

    def annotate(self, chunks: Sequence[SectionText], also: TextLinker | None = None) -> Annotations:
        """Each chunk's entities and the relations its sentences state. `also` (an ingestion's
        names linker) adds the entities it finds to the mentions only: the extractors read the
        linker's own mentions, as in a sync, so a text states the same relations whichever way it
        was written."""
        started = time.perf_counter()
        raw, current = self._raw, self._current
        mentions = {chunk.chunk_id: raw.link(chunk.text) if raw is not None else [] for chunk in chunks}
        grouped = {
            chunk.chunk_id: group_mentions(
                [*current_mentions(mentions[chunk.chunk_id], current), *(also.link(chunk.text) if also else ())]
            )
            for chunk in chunks
        }
        linked = time.perf_counter()
        relations = self.extract(chunks, mentions)
        if current:
            relations = {key: [_current_relation(r, current) for r in found] for key, found in relations.items()}
        return Annotations(grouped, relations, linked - started, time.perf_counter() - linked)

    def write(self, connection: Connection, sources: Sequence[DocumentSource]) -> None:
        store = SqlGraphStore(connection)
        write_document_graphs(store, sources, self.catalog, SqlEvidenceStore(connection))
        store.save_facts({source.pmid: (source.version, source.facts) for source in sources})


def _current_relation(relation: StatedRelation, current: Mapping[str, str]) -> StatedRelation:
    if relation.src not in current and relation.dst not in current:
        return relation
    return replace(relation, src=current.get(relation.src, relation.src), dst=current.get(relation.dst, relation.dst))


@lru_cache(maxsize=4)
def load_catalog(mesh_path: Path | None, cache_dir: Path | None) -> MeshCatalog:
    """The MeSH catalog of the descriptor file (and the pharmacological actions beside it), once per process."""
    if mesh_path is None or not mesh_path.is_file():
        return EMPTY_CATALOG
    actions_path = pharm_actions_path(mesh_path)
    actions = load_pharm_actions(actions_path) if actions_path is not None else {}
    return MeshCatalog(load_vocabulary(mesh_path, cache_dir=cache_dir), actions)


def build_graph_indexer(settings: Settings) -> GraphIndexer:
    """The graph writer a sync uses: the MeSH vocabulary (`mesh_files.mesh_path_of`) and, with
    BIO_MCP_GRAPH_LINKING on, the dictionary linker over it and the relation extractors (each needs the
    linker's mentions; without PPR's training split the plant one is the untrained cue rules), loaded
    by the first extraction."""
    catalog = load_catalog(mesh_path_of(settings), settings.caches)
    linker = load_linker(settings) if settings.graph_linking and catalog.vocabulary is not None else None
    if linker is None:
        return GraphIndexer(catalog, None)

    def extractors() -> list[RelationSource]:
        return [
            load_relation_extractor(settings, linker, catalog.vocabulary),
            AdverseEffectExtractor(catalog.broader, load_adverse_priors(training_path_of(settings))),
            InteractionExtractor(catalog.broader, catalog.pharm_actions),
        ]

    return GraphIndexer(catalog, linker, extractors)
