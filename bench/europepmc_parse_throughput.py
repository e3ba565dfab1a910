"""Europe PMC search parse throughput beside the PubMed EFetch parser's, same run, same machine load.

Europe PMC: the ten recorded `cursor_chain_cancer` lite pages (1,000 records) and the recorded core
page (25 records with abstracts), each parsed by `parse_search` into `EpmcRecord`s. PubMed: the shared
corpus of real records (`pubmed/pubmed_real_records.xml.gz`) as one EFetch answer, parsed by
`parse_efetch` into `Article`s. The two are not the same work (JSON lite records carry a dozen fields,
MEDLINE XML records every author, MeSH heading and grant), so figures are records/s and MB/s each.

Each round parses every input once, after a `gc.collect()`; rates use the median round (other
processes on a shared machine only add time).

    python bench/europepmc_parse_throughput.py [--data DIR] [--rounds 11]

One JSON line per figure: {"name", "value", "unit", "params"}.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bio_mcp.sources.europepmc.parse import parse_search
from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch

REPO_ROOT = Path(__file__).resolve().parents[1]


def default_data_dir() -> Path:
    return Path(os.environ.get("BIO_MCP_DATA", REPO_ROOT.parent / "shared" / "data"))


def timed(parse: Callable[[bytes], Any], bodies: list[bytes]) -> tuple[float, int]:
    gc.collect()
    started = time.perf_counter()
    records = 0
    for body in bodies:
        parsed = parse(body)
        records += len(parsed.records) if hasattr(parsed, "records") else len(parsed)
    return time.perf_counter() - started, records


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--data", type=Path, default=default_data_dir())
    arguments.add_argument("--rounds", type=int, default=11)
    options = arguments.parse_args()
    data = options.data
    inputs: dict[str, tuple[Callable[[bytes], Any], list[bytes]]] = {
        "europepmc_lite": (parse_search, [p.read_bytes() for p in sorted((data / "europepmc/cursor_chain_cancer").glob("*.json"))]),
        "europepmc_core": (parse_search, [(data / "europepmc/search_core_cancer_page1.json").read_bytes()]),
        "pubmed_efetch": (parse_efetch, [gzip.decompress((data / "pubmed/pubmed_real_records.xml.gz").read_bytes())]),
    }
    times: dict[str, list[float]] = {name: [] for name in inputs}
    counts: dict[str, int] = {}
    for _ in range(options.rounds):
        for name, (parse, bodies) in inputs.items():
            elapsed, counts[name] = timed(parse, bodies)
            times[name].append(elapsed)
    for name, (_, bodies) in inputs.items():
        size = sum(len(b) for b in bodies)
        median = statistics.median(times[name])
        params = {"records": counts[name], "bytes": size, "documents": len(bodies), "rounds": options.rounds,
                  "statistic": "median round", "python": platform.python_version()}
        print(json.dumps({"name": f"parse.{name}", "value": round(counts[name] / median, 1), "unit": "records/s",
                          "params": params}))
        print(json.dumps({"name": f"parse.{name}.bytes", "value": round(size / median / 1e6, 2), "unit": "MB/s",
                          "params": params}))


if __name__ == "__main__":
    main()
