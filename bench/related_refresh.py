"""RELATED_TO's refresh after a sync (`graph/related_refresh.py`): the snapshot read that computes
the edges, the write transaction that stores them, the staleness check, and what the MENTIONS
version costs a sync's write transaction. JSON lines.

The graph is `bench/graph_traverse_latency.py`'s synthetic one (documents of 3 sections, about 10
MENTIONS per section over 20,000 entities of Zipf-like popularity): the one kept in `--folder` by
its `--build-only`, else built here into a temporary SQLite file or a fresh schema of
`--database-url` (PostgreSQL, dropped afterwards). Each of `--rounds` rounds renews the MENTIONS
version (as a sync's write does) and times `refresh_related_if_stale`; the CPU seconds are this
process's (SQLite computes in it; on PostgreSQL the server does, and they are not counted).

    python bench/graph_traverse_latency.py --sections 100000 --folder /tmp/rel100k --build-only
    python bench/related_refresh.py --folder /tmp/rel100k
    python bench/related_refresh.py --sections 100000 --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from figures import emit
from graph_traverse_latency import build

from bio_mcp.graph.related_refresh import refresh_related_if_stale, related_is_stale
from bio_mcp.graph.store import MENTIONS_VERSION_KEY, SqlGraphStore
from bio_mcp.store import MetadataStore

# What the mentions-version upsert is compared with: a sync commits this many records per transaction.
SYNC_BATCH = 200



@contextmanager
def opened(args: argparse.Namespace) -> Iterator[tuple[MetadataStore, dict[str, object]]]:
    """The store holding the graph, and the parameters it was built with."""
    params: dict[str, object] = {"entities": 20_000, "mentions_per_section": 10}
    if args.folder is not None:
        recorded = json.loads((args.folder / "built.json").read_text())["params"]
        params |= {"sections": recorded["sections"], "engine": "sqlite"}
        store = MetadataStore.open(f"sqlite:///{args.folder / 'graph.sqlite3'}", lock_dir=args.folder / "locks")
        try:
            yield store, params
        finally:
            store.close()
        return
    params |= {"sections": args.sections, "engine": "postgresql" if args.database_url else "sqlite"}
    with tempfile.TemporaryDirectory() as scratch:
        if args.database_url is None:
            url, schema = f"sqlite:///{Path(scratch) / 'graph.sqlite3'}", None
        else:
            schema = f"bench_{uuid.uuid4().hex[:12]}"
            with sa.create_engine(args.database_url).begin() as connection:
                connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
            url = f"{args.database_url}{'&' if '?' in args.database_url else '?'}options=-csearch_path%3D{schema}"
        store = MetadataStore.open(url, lock_dir=Path(scratch) / "locks")
        try:
            started = time.perf_counter()
            build(store, args.sections, 20_000, 10, 7)
            emit("graph_build_s", time.perf_counter() - started, "s", **params)
            yield store, params
        finally:
            store.close()
            if schema is not None:
                engine = sa.create_engine(args.database_url)
                with engine.begin() as connection:
                    connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
                engine.dispose()


def renew_mentions_version(store: MetadataStore) -> None:
    """What every sync's graph write does to the MENTIONS version (`SqlGraphStore.write_documents`)."""
    with store.transaction() as tx:
        SqlGraphStore(tx.connection).set_meta(MENTIONS_VERSION_KEY, {"version": uuid.uuid4().hex})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=None, help="a graph built by graph_traverse_latency.py --build-only")
    parser.add_argument("--sections", type=int, default=100_000, help="without --folder: build this many sections")
    parser.add_argument("--database-url", default=None, help="without --folder: build in PostgreSQL")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with opened(args) as (store, params):
        for round_number in range(args.rounds):
            renew_mentions_version(store)
            cpu = time.process_time()
            done = refresh_related_if_stale(store)
            cpu = time.process_time() - cpu
            assert done.status == "written", done
            # The machine is shared: the load while the round ran says how far to trust wall seconds.
            shown = params | {"round": round_number, "load_avg_1m": round(os.getloadavg()[0], 2),
                              "edges": done.edges, "pairs": done.pairs}
            emit("related_refresh_read_s", done.read_s, "s", **shown)
            emit("related_refresh_write_s", done.write_s, "s", **shown)
            emit("related_refresh_cpu_s", cpu, "s", **shown)

        checks = []
        for _ in range(200):
            began = time.perf_counter()
            with store.read() as tx:
                assert not related_is_stale(tx.connection)
            checks.append((time.perf_counter() - began) * 1000)
        emit("related_stale_check_p50_ms", statistics.median(checks), "ms", **params)

        # The upsert every graph write adds to its transaction, timed inside one transaction (the
        # commit is the sync's own either way).
        upserts = 2000
        with store.transaction() as tx:
            graph = SqlGraphStore(tx.connection)
            began = time.perf_counter()
            for _ in range(upserts):
                graph.set_meta(MENTIONS_VERSION_KEY, {"version": uuid.uuid4().hex})
            each_us = (time.perf_counter() - began) / upserts * 1e6
        emit("mentions_version_upsert_us", each_us, "us", **params)
        emit("mentions_version_upsert_us_per_record", each_us / SYNC_BATCH, "us", batch=SYNC_BATCH, **params)


if __name__ == "__main__":
    main()
