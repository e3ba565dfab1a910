"""kb.search latency per verbosity on a synthetic corpus and graph of matching size, as JSON lines.

    PYTHONPATH=src python bench/kb_search_latency.py --sizes 100000 --scratch /tmp/kb-latency

Builds, per size N: N documents of one ~150-word section each (Zipf vocabulary, `search_latency.
Synthetic`) in a SQLite metadata store, their vectors ("embedding-like", stored under the hash
provider's model id, so the query is embedded by the hash provider as in a hash-embedded corpus),
the corpus's `HybridIndex` rebuilt from the store, and the knowledge graph: a Document and a
Section node per document, HAS_SECTION, and 10 MENTIONS per section to 5,000 entities drawn from a
Zipf law (hub entities with tens of thousands of mentions, as real MeSH concepts have). Each query
is 6 words plus one entity name; the query linker is a dictionary of the synthetic entity names
(the real MeSH linker is not exercised: its cost is measured by the graph helper's linking bench).

Then `features.kb.search.search_kb` (the tool's function: retrieval, fetch, entity boost, graph walk,
diagnostics write) runs `--queries` times per verbosity after a warm-up; prints P50 / P95 / P99 ms
per verbosity with the seed's bar (snippet 200, full 350, graph 450 ms P95) and build times. In the
same run it times the hybrid search alone (rag.search's path, top 20) and prints each verbosity's
P50 / P95 over it: on a shared, loaded machine the ratio says more than the milliseconds (the load
average is in every line's params). A built corpus is reused from `--scratch` (built.json), so a
long build can run niced with `--build-only` and the queries be timed by a second, un-niced run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import emit
from search_latency import Synthetic

from bio_mcp.config import load_settings
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.service import index_folder
from bio_mcp.features.kb.models import KbSearchRequest
from bio_mcp.features.kb.providers import ProviderRegistry
from bio_mcp.features.kb.search import KbContext, search_kb
from bio_mcp.graph.elements import HAS_SECTION, MENTIONS, Edge, Node
from bio_mcp.graph.ids import document_node_id, pubmed_source_uri, section_node_id
from bio_mcp.graph.mentions import Mention
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.search.embeddings import HashEmbeddings
from bio_mcp.store import ChunkRecord, ChunkSet, DocumentRecord, QualityScores, open_metadata_store

ENTITIES = 5_000
MENTIONS_PER_SECTION = 10
BATCH = 5_000
BARS_MS = {"snippet": 200, "full": 350, "graph": 450}
NAMESPACE = uuid.UUID("0b6f7d0e-3c1a-5e8e-9f0a-6b1d2c3e4f50")



class NameLinker:
    """The synthetic entities by name: every query word that names one."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names

    def link(self, text: str) -> list[Mention]:
        found, offset = [], 0
        for word in text.split():
            start = text.index(word, offset)
            offset = start + len(word)
            if word in self.names:
                found.append(Mention(start, offset, word, self.names[word], "Concept", "bench", 1.0))
        return found


def build(size: int, scratch: Path, synthetic: Synthetic) -> tuple[tuple[KbContext, list[str]], dict[str, float]]:
    settings = load_settings(BIO_MCP_HOME=str(scratch), BIO_MCP_EMBEDDINGS_PROVIDER="hash")
    store = open_metadata_store(settings)
    embeddings = HashEmbeddings()
    rng = np.random.default_rng(size)
    entity_names = [f"ent{word}" for word in synthetic.words[:ENTITIES]]
    entity_ids = [f"mesh:D{900000 + i}" for i in range(ENTITIES)]
    ranks = np.arange(1, ENTITIES + 1)
    entity_p = (1.0 / ranks) / (1.0 / ranks).sum()
    built = scratch / "built.json"
    if built.is_file():
        timings = {name: float(value) for name, value in json.loads(built.read_text()).items()}
        index = CorpusIndex(store, index_folder(settings), embeddings)
        index.reconcile()
        return _context(settings, store, index, entity_names, entity_ids, synthetic, rng, entity_p), timings

    timings = {}
    started = time.perf_counter()
    with store.transaction() as tx:
        SqlGraphStore(tx.connection).insert(
            [Node(id=e, label="Entity", type="Concept", title=n) for e, n in zip(entity_ids, entity_names, strict=True)], []
        )
    for offset in range(0, size, BATCH):
        count = min(BATCH, size - offset)
        texts = synthetic.texts(count, 150)
        vectors = synthetic.vectors(count)
        picks = rng.choice(ENTITIES, size=(count, MENTIONS_PER_SECTION), p=entity_p)
        records, sets, nodes, edges, embedded = [], [], [], [], {}
        for row in range(count):
            pmid = str(offset + row + 1)
            title = " ".join(texts[row].split()[:8])
            mentioned = sorted(set(int(i) for i in picks[row]))
            body = texts[row] + " " + " ".join(entity_names[i] for i in mentioned)
            chunk_uuid = str(uuid.uuid5(NAMESPACE, f"{pmid}:0"))
            records.append(DocumentRecord(pmid=pmid, title=title, abstract=body, quality=QualityScores(total=int(rng.integers(0, 9)))))
            sets.append(ChunkSet(pmid=pmid, version=1, chunks=[ChunkRecord(
                uuid=chunk_uuid, chunk_id="0", section=None, text=f"{title}\n{body}", n_tokens=160, position=0)]))
            embedded[chunk_uuid] = vectors[row]
            uri = pubmed_source_uri(pmid)
            doc_id, section_id = document_node_id(uri), section_node_id(uri, "0")
            nodes.append(Node(id=doc_id, label="Document", title=title, source_uri=uri, source_type="pubmed", version="1"))
            nodes.append(Node(id=section_id, label="Section", title="Abstract", document_id=doc_id, chunk_uuid=chunk_uuid,
                              level=1, order=0, anchor="chunk-0"))
            edges.append(Edge(doc_id, HAS_SECTION, section_id, 1.0, doc_id))
            edges.extend(Edge(section_id, MENTIONS, entity_ids[i], round(float(rng.uniform(0.5, 1.0)), 3), doc_id)
                         for i in mentioned)
        with store.transaction() as tx:
            versions = tx.documents.upsert(records).versions
            tx.chunks.replace_many([ChunkSet(s.pmid, versions[s.pmid], s.chunks) for s in sets])
            tx.chunks.set_embeddings(embedded, embeddings.model_id)
            SqlGraphStore(tx.connection).insert(nodes, edges)
    timings["store_and_graph_s"] = time.perf_counter() - started
    started = time.perf_counter()
    index = CorpusIndex(store, index_folder(settings), embeddings)
    index.rebuild()
    timings["index_rebuild_s"] = time.perf_counter() - started
    (scratch / "built.json").write_text(json.dumps(timings))
    return _context(settings, store, index, entity_names, entity_ids, synthetic, rng, entity_p), timings


def _context(settings, store, index, entity_names, entity_ids, synthetic, rng, entity_p) -> tuple[KbContext, list[str]]:  # type: ignore[no-untyped-def]
    context = KbContext(settings, store, index, ProviderRegistry(settings), NameLinker(dict(zip(entity_names, entity_ids, strict=True))))
    queries = [
        " ".join(words) + " " + entity_names[int(rng.choice(ENTITIES, p=entity_p))]
        for words in (text.split() for text in synthetic.texts(400, 6))
    ]
    return context, queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--build-only", action="store_true", help="build (or reuse) each size's corpus and stop")
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        folder = args.scratch / f"n{size}"
        folder.mkdir(parents=True, exist_ok=True)
        (context, queries), timings = build(size, folder, Synthetic(seed=7))
        params = {"sections": size, "mentions_per_section": MENTIONS_PER_SECTION, "entities": ENTITIES,
                  "top_k": 8, "store": "sqlite"}
        for name, value in timings.items():
            emit(f"kb_search_build_{name}", value, "s", params)
        if args.build_only:
            context.store.close()
            continue
        for query in queries[:10]:
            context.index.search(query, 20, True)
        hybrid = []
        for query in queries[: args.queries]:
            started = time.perf_counter()
            context.index.search(query, 20, True)
            hybrid.append((time.perf_counter() - started) * 1000)
        load = round(os.getloadavg()[0], 1)
        for q in (50, 95):
            emit(f"rag_search_p{q}_ms", float(np.percentile(hybrid, q)), "ms", params | {"load_avg_1m": load})
        for verbosity in ("snippet", "full", "graph"):
            for query in queries[:10]:
                search_kb(KbSearchRequest(query=query, verbosity=verbosity), context)
            samples = []
            for query in queries[: args.queries]:
                started = time.perf_counter()
                search_kb(KbSearchRequest(query=query, verbosity=verbosity), context)
                samples.append((time.perf_counter() - started) * 1000)
            load = round(os.getloadavg()[0], 1)
            for q in (50, 95, 99):
                emit(f"kb_search_p{q}_ms", float(np.percentile(samples, q)), "ms",
                     params | {"verbosity": verbosity, "queries": len(samples), "seed_p95_bar_ms": BARS_MS[verbosity],
                               "load_avg_1m": load})
            for q in (50, 95):
                emit(f"kb_search_over_rag_search_p{q}", float(np.percentile(samples, q) / np.percentile(hybrid, q)),
                     "ratio", params | {"verbosity": verbosity, "load_avg_1m": load})
        context.store.close()


if __name__ == "__main__":
    main()
