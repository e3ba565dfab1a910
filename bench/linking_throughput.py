"""Entity-linking throughput: BC5CDR development abstracts linked on one core, after one build.

    PYTHONPATH=src python bench/linking_throughput.py [--repeat 10] [--data FILE.PubTator.txt]

Prints JSON lines: the linker's load time (from the BIO_MCP_HOME cache when present) and the
abstracts (title + abstract) linked per second over the file's documents repeated `--repeat` times.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.eval.pubtator import read_pubtator
from bio_mcp.features.analyst.service import mesh_path_of
from bio_mcp.graph.linking import load_linker_from, training_path_of

DEFAULT_DATA = Path("..") / "shared" / "data" / "bench" / "bc5cdr" / "CDR_DevelopmentSet.PubTator.txt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    settings = load_settings()
    mesh_path = mesh_path_of(settings)
    if mesh_path is None:
        raise SystemExit("MeSH descriptors not found: set BIO_MCP_MESH_PATH")
    texts = [document.text for document in read_pubtator(args.data)]
    params = {"data": str(args.data), "documents": len(texts), "repeat": args.repeat,
              "mean_chars": round(sum(map(len, texts)) / len(texts))}

    started = time.perf_counter()
    linker = load_linker_from(mesh_path, training_path_of(settings), settings.home / "cache")
    load_s = time.perf_counter() - started
    emit("linker_load", load_s, "s", params)

    for text in texts[:50]:  # warm caches before timing
        linker.link(text)
    mentions = 0
    started = time.process_time()
    for _ in range(args.repeat):
        for text in texts:
            mentions += len(linker.link(text))
    cpu_s = time.process_time() - started
    linked = len(texts) * args.repeat
    emit("linking_throughput", round(linked / cpu_s, 1), "abstracts/s", params, clock="process CPU time, one thread")
    emit("linking_mentions_per_abstract", mentions / linked, "mentions", params)


if __name__ == "__main__":
    main()
