"""PubTator3's annotations of the records a sync or `add_articles` writes, into the knowledge graph
(BIO_MCP_PUBTATOR3_MENTIONS): genes, variants, species and cell lines the MeSH linker does not
cover, and chemicals and diseases on its own entities (`graph/pubtator3_mentions.py`).

    run = Pubtator3Run(client, absent_recheck)
    await run.ask_again(store, graph)               # pending ones, then long-absent ones
    fetched = await run.fetch(pmids)                # per batch, before its transaction
    ...commit_documents(..., pubtator3=run.tally)   # placed and written in the batch's transaction

An outage never fails or loses a sync: the first failed request ends PubTator3's part of the run
(later batches do not wait out the same outage), the documents it left out are marked pending in
the store, and the next run fetches them; the sync's result says how many are pending. A record
PubTator3 held no annotations of (mostly one too new: PubTator3 is updated weekly) is asked again by
a later run once it has been absent for `absent_recheck` (BIO_MCP_PUBTATOR3_ABSENT_RECHECK_DAYS),
within the same bound per run as the pending ones, which go first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy.engine import Connection

from bio_mcp.errors import BioMcpError
from bio_mcp.graph.ids import pubmed_source_uri
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.graph.listed_genes import gene_names, resolve_listed_genes
from bio_mcp.graph.pubtator3_mentions import (
    Placement,
    PlacementCounts,
    TaggedSpan,
    TextPassage,
    place_mentions,
    write_placements,
)
from bio_mcp.graph.pubtator3_status import (
    ABSENT,
    ANNOTATED,
    PENDING,
    Status,
    absent_pmids,
    count_pending,
    pending_pmids,
    set_statuses,
    statuses_of,
    unasked_pmids,
)
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.sources.pubtator3.client import Pubtator3Client
from bio_mcp.sources.pubtator3.models import PublicationText
from bio_mcp.store import MetadataStore
from bio_mcp.store.schema import utc_now

# Documents asked about again per run (pending, then long absent), at most: ten requests of 100.
ASK_AGAIN_LIMIT = 1000
DEFAULT_ABSENT_RECHECK = timedelta(days=7)


@dataclass(frozen=True)
class Pubtator3Fetch:
    """What PubTator3 said of one record: its annotated text, or None when it holds none of it;
    `reached` is False when PubTator3 could not be asked (the record goes pending)."""

    reached: bool
    text: PublicationText | None = None


@dataclass
class Pubtator3Tally:
    """A run's PubTator3 work: records annotated (`filled` of them pending before), records
    PubTator3 holds no annotations of, records absent before that were asked again (`rechecked`:
    each also counted as annotated or absent by its new answer), MENTIONS edges written, how the
    annotations lined up with the stored text, records pending in the store after the run, and the
    outage that stopped it; `recorded`: the PMIDs whose status the run wrote (counted once each)."""

    annotated: int = 0
    filled: int = 0
    absent: int = 0
    rechecked: int = 0
    mentions: int = 0
    counts: PlacementCounts = field(default_factory=PlacementCounts)
    pending: int = 0
    error: str | None = None
    recorded: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class AnnotatedDocument:
    """A stored document version, its chunks (chunk_id, text) and what PubTator3 said of it."""

    pmid: str
    version: int
    chunks: Sequence[tuple[str, str]]
    fetched: Pubtator3Fetch


def _passages(text: PublicationText) -> list[TextPassage]:
    return [TextPassage(p.offset, p.text) for p in text.passages]


def _spans(text: PublicationText) -> list[TaggedSpan]:
    return [TaggedSpan(a.offset, a.length, a.text, a.type, a.identifier, a.name, a.gene)
            for a in text.annotations.annotations]


def _gene_names(placement: Placement) -> dict[str, set[str]]:
    """The genes PubTator3 placed in a document, by their names and their mentions' texts."""
    return gene_names([
        *((entity.entity_id, entity.name) for entity in placement.entities.values()),
        *((mention.entity_id, mention.text) for mentions in placement.mentions.values() for mention in mentions),
    ])


def record_annotations(
    connection: Connection, graph: GraphIndexer, documents: Sequence[AnnotatedDocument], tally: Pubtator3Tally
) -> None:
    """In the caller's transaction (after the documents' own graphs): each fetched document's
    mentions placed and written (with its GeneSymbolList resolved to PubTator3's genes,
    `graph/listed_genes.py`), and every document's status (annotated, absent or pending). A
    document whose mentions are written for its version already, or whose status this run wrote
    for its version already (a sync's batch meeting a record asked again before it), is left as it is."""
    stored = statuses_of(connection, [document.pmid for document in documents])
    statuses: dict[str, tuple[int, Status]] = {}
    placements: dict[str, Placement] = {}
    genes: dict[str, tuple[int, dict[str, set[str]]]] = {}
    for document in documents:
        before = stored.get(document.pmid)
        if before == (document.version, ANNOTATED):
            continue
        if before is not None and before[0] == document.version and document.pmid in tally.recorded:
            continue
        was_pending = before is not None and before[1] == PENDING
        if not document.fetched.reached:
            statuses[document.pmid] = (document.version, PENDING)
            continue
        if was_pending:
            tally.filled += 1
        text = document.fetched.text
        if text is None:
            statuses[document.pmid] = (document.version, ABSENT)
            tally.absent += 1
            continue
        placement = place_mentions(document.chunks, _passages(text), _spans(text), graph.current_ids)
        placements[pubmed_source_uri(document.pmid)] = placement
        genes[document.pmid] = (document.version, _gene_names(placement))
        statuses[document.pmid] = (document.version, ANNOTATED)
        tally.annotated += 1
        tally.counts.add(placement.counts)
    store = SqlGraphStore(connection)
    tally.mentions += write_placements(store, graph.catalog, placements)
    resolve_listed_genes(store, genes)
    set_statuses(connection, statuses)
    tally.recorded.update(statuses)


class Pubtator3Run:
    """One sync's (or `add_articles` call's) use of PubTator3."""

    def __init__(self, client: Pubtator3Client, absent_recheck: timedelta = DEFAULT_ABSENT_RECHECK) -> None:
        self.client = client
        self.absent_recheck = absent_recheck
        self.tally = Pubtator3Tally()
        self._answers: dict[str, Pubtator3Fetch] = {}

    async def fetch(self, pmids: Sequence[str]) -> dict[str, Pubtator3Fetch]:
        """Each PMID's annotated text (None: PubTator3 has none), asked once per run; those not
        asked yet all unreached once PubTator3 failed."""
        wanted = [pmid for pmid in dict.fromkeys(pmids) if pmid not in self._answers]
        if wanted and self.tally.error is None:
            try:
                texts = await self.client.texts(wanted)
            except BioMcpError as exc:
                self.tally.error = exc.message
            else:
                self._answers.update({pmid: Pubtator3Fetch(True, texts.get(pmid)) for pmid in wanted})
        return {pmid: self._answers.get(pmid, Pubtator3Fetch(False)) for pmid in pmids}

    async def ask_again(self, store: MetadataStore, graph: GraphIndexer, limit: int = ASK_AGAIN_LIMIT) -> None:
        """Fetch and write the annotations of documents an earlier outage left pending, then (within
        the same `limit`) of documents PubTator3 was never asked about (synced while its mentions
        were off), then of documents PubTator3 held none of when last asked, `absent_recheck` ago."""
        with store.read() as tx:
            pmids = pending_pmids(tx.connection, limit)
            if len(pmids) < limit:
                pmids += unasked_pmids(tx.connection, limit - len(pmids))
            if len(pmids) < limit:
                asked_before = utc_now() - self.absent_recheck
                pmids += absent_pmids(tx.connection, asked_before, limit - len(pmids))
            asked = statuses_of(tx.connection, pmids)
        if not pmids:
            return
        fetched = await self.fetch(pmids)
        if self.tally.error is not None:
            return

        def write() -> None:
            with store.transaction() as tx:
                still = statuses_of(tx.connection, pmids)
                documents = []
                for pmid in pmids:
                    # Another run may have written it since: only a document still as it was is written.
                    if still.get(pmid) != asked.get(pmid):
                        continue
                    if pmid in still and still[pmid][1] == ABSENT:
                        self.tally.rechecked += 1
                    chunks = tx.chunks.for_document(pmid)
                    if not chunks and pmid not in still:
                        continue
                    version = chunks[0].doc_version if chunks else still[pmid][0]
                    documents.append(
                        AnnotatedDocument(pmid, version, [(c.chunk_id, c.text) for c in chunks], fetched[pmid])
                    )
                record_annotations(tx.connection, graph, documents, self.tally)

        await asyncio.to_thread(write)

    def count_pending(self, store: MetadataStore) -> int:
        with store.read() as tx:
            self.tally.pending = count_pending(tx.connection)
        return self.tally.pending

    def warnings(self) -> list[str]:
        tally = self.tally
        found = []
        if tally.pending:
            cause = f" (PubTator3 could not be reached: {tally.error})" if tally.error else ""
            found.append(
                f"PubTator3 annotations of {tally.pending} documents are pending{cause}: their genes, variants and "
                "other PubTator3 entities are not in the graph yet (which is not the same as having none); the next "
                "sync fetches them"
            )
        if tally.counts.mismatched:
            found.append(
                f"{tally.counts.mismatched} PubTator3 mentions did not line up with the stored text and were skipped"
            )
        return found
