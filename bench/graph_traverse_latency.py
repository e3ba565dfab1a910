"""graph.traverse latency (P50/P95/P99) on a synthetic graph of realistic shape, SQLite.

Builds, through `SqlGraphStore.insert` (bulk), a graph of `--sections` sections: documents of 3
sections each, about `--mentions` MENTIONS per section drawn from a Zipf-like popularity over
`--entities` entities (so a few are hubs mentioned by a large share of the sections, as "Humans"
is), 8 HAS_TOPIC per document, and a BROADER tree over the entities. Then times `--queries`
traversals with the tool's defaults (max_depth 3, max_nodes 150, MENTIONS + HAS_SECTION, frontier
top_k 20), direction both, from seeds drawn half from entities (by popularity, hubs included) and
half from sections, each in its own read transaction with the 2 s query timeout armed, as the
tool runs it. Prints JSON lines.

A graph kept in `--folder` is reused by a later run with the same folder (built.json records its
build), so a long build can run niced with `--build-only` and the queries be timed un-niced:

    python bench/graph_traverse_latency.py --sections 100000
    nice -n 10 python bench/graph_traverse_latency.py --sections 1000000 --folder DIR --build-only
    python bench/graph_traverse_latency.py --sections 1000000 --queries 300 --folder DIR
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np
from figures import emit

from bio_mcp.graph.elements import BROADER, HAS_SECTION, HAS_TOPIC, MENTIONS, Edge, Node
from bio_mcp.graph.ids import document_node_id, pubmed_source_uri, section_node_id
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.graph.traverse import TraversalSpec, traverse
from bio_mcp.store import MetadataStore

SECTIONS_PER_DOCUMENT = 3
TOPICS_PER_DOCUMENT = 8
ENTITY_TYPES = ("Disease", "Chemical", "Organism", "Anatomy", "Concept")



def build(store: MetadataStore, sections: int, entities: int, mentions: int, seed: int) -> tuple[list[str], list[str], int]:
    rng = np.random.default_rng(seed)
    entity_ids = [f"mesh:D{index:06d}" for index in range(entities)]
    # Zipf-like popularity: entity i is drawn with weight 1 / (i + 1).
    popularity = 1.0 / np.arange(1, entities + 1)
    cumulative = np.cumsum(popularity / popularity.sum())

    def draw(count: int) -> list[int]:
        return sorted(set(np.minimum(np.searchsorted(cumulative, rng.random(count)), entities - 1).tolist()))

    edges_written = 0
    with store.transaction() as tx:
        graph = SqlGraphStore(tx.connection)
        nodes = [Node(entity_ids[i], "Entity", ENTITY_TYPES[i % len(ENTITY_TYPES)], f"entity {i}") for i in range(entities)]
        tree = [Edge(entity_ids[i], BROADER, entity_ids[(i - 1) // 8], 1.0) for i in range(1, entities)]
        graph.insert(nodes, tree)
        edges_written += len(tree)
    documents = sections // SECTIONS_PER_DOCUMENT
    section_ids: list[str] = []
    # Large batches: each commit rewrites the index pages it touched, which are most of them.
    batch_documents = 10_000
    for start in range(0, documents, batch_documents):
        nodes, edges = [], []
        for number in range(start, min(documents, start + batch_documents)):
            uri = pubmed_source_uri(str(10_000_000 + number))
            doc_id = document_node_id(uri)
            nodes.append(Node(doc_id, "Document", title=f"document {number}", source_uri=uri, source_type="pubmed", version="1"))
            for topic in draw(TOPICS_PER_DOCUMENT):
                edges.append(Edge(doc_id, HAS_TOPIC, entity_ids[topic], 1.0 if rng.random() < 0.3 else 0.6, doc_id))
            for order in range(SECTIONS_PER_DOCUMENT):
                section_id = section_node_id(uri, str(order))
                section_ids.append(section_id)
                nodes.append(Node(section_id, "Section", title="RESULTS", document_id=doc_id, level=1, order=order))
                edges.append(Edge(doc_id, HAS_SECTION, section_id, 1.0, doc_id))
                count = max(1, int(rng.poisson(mentions)))
                for entity in draw(count):
                    edges.append(Edge(section_id, MENTIONS, entity_ids[entity], round(float(rng.uniform(0.6, 1.0)), 3), doc_id))
        with store.transaction() as tx:
            SqlGraphStore(tx.connection).insert(nodes, edges)
        edges_written += len(edges)
    return entity_ids, section_ids, edges_written


def ids(sections: int, entities: int) -> tuple[list[str], list[str]]:
    """The entity and section ids `build` wrote, in its order."""
    entity_ids = [f"mesh:D{index:06d}" for index in range(entities)]
    section_ids = [
        section_node_id(pubmed_source_uri(str(10_000_000 + number)), str(order))
        for number in range(sections // SECTIONS_PER_DOCUMENT)
        for order in range(SECTIONS_PER_DOCUMENT)
    ]
    return entity_ids, section_ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=100_000)
    parser.add_argument("--entities", type=int, default=20_000)
    parser.add_argument("--mentions", type=int, default=10, help="mean MENTIONS per section")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--folder", type=Path, default=None, help="keep the database here (default: a temporary folder)")
    parser.add_argument("--build-only", action="store_true", help="build the graph in --folder and stop")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.folder or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        store = MetadataStore.open(f"sqlite:///{folder / 'graph.sqlite3'}", lock_dir=folder / "locks")
        params = {"sections": args.sections, "entities": args.entities, "mentions_per_section": args.mentions,
                  "engine": "sqlite", "max_depth": 3, "max_nodes": 150, "top_k": 20, "direction": "both"}
        built = folder / "built.json"
        if built.is_file():
            recorded = json.loads(built.read_text())
            if recorded["params"] != params | {"seed": args.seed}:
                raise SystemExit(f"{folder} holds a graph built with {recorded['params']}")
            entity_ids, section_ids = ids(args.sections, args.entities)
            build_s, edges = recorded["build_s"], recorded["edges"]
        else:
            started = time.perf_counter()
            entity_ids, section_ids, edges = build(store, args.sections, args.entities, args.mentions, args.seed)
            build_s = time.perf_counter() - started
            if args.folder:
                built.write_text(json.dumps({"params": params | {"seed": args.seed}, "build_s": build_s, "edges": edges}))
        emit("graph_build_s", build_s, "s", edges=edges, **params)
        emit("graph_edges", edges, "edges", **params)
        if args.build_only:
            store.close()
            return
        rng = random.Random(args.seed)
        weights = [1.0 / (i + 1) for i in range(len(entity_ids))]
        seeds = [
            rng.choices(entity_ids, weights=weights)[0] if index % 2 == 0 else rng.choice(section_ids)
            for index in range(args.queries)
        ]
        latencies, rows, sizes = [], [], []
        for seed in seeds:
            spec = TraversalSpec(seeds=[seed], direction="both")
            began = time.perf_counter()
            with store.read() as tx:
                graph = SqlGraphStore(tx.connection, timeout_s=2.0)
                try:
                    walk = traverse(graph, spec)
                finally:
                    graph.close()
            latencies.append((time.perf_counter() - began) * 1000)
            rows.append(walk.rows_read)
            sizes.append(len(walk.nodes))
        store.close()
    values = np.array(latencies)
    # The machine is shared: the load average while the queries ran says how far to trust the ms.
    params["load_avg_1m"] = round(os.getloadavg()[0], 1)
    for name, q in (("p50", 50), ("p95", 95), ("p99", 99)):
        emit(f"graph_traverse_{name}_ms", float(np.percentile(values, q)), "ms", queries=args.queries, **params)
    emit("graph_traverse_mean_nodes", float(np.mean(sizes)), "nodes", **params)
    emit("graph_traverse_mean_rows_read", float(np.mean(rows)), "rows", **params)


if __name__ == "__main__":
    main()
