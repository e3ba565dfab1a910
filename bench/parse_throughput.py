"""EFetch PubMed XML parse throughput: Bio-MCP's parser against Biopython's Bio.Entrez, same bytes, same run.

The input is the shared corpus of real records (`pubmed/pubmed_real_records.xml.gz`) as one EFetch
response (`--copies` > 1 repeats its records inside that one response), parsed `--rounds` times by
each parser in turn so both see the same machine load. Biopython 1.88 rejects three old records that
carry an article-level <Affiliation> (a pre-2014 MEDLINE layout the DTD the file declares no longer
allows), so both parsers get the other 463.

Each round is timed from bytes to parsed records (Bio-MCP: `Article` models with every field the
tools return; Biopython: its nested dicts). Freeing the previous round's records is not timed and a
`gc.collect()` runs before each round, for both parsers alike. Rates use the median round: other
processes on a shared machine only ever add time, and the median is robust to those spikes without
rewarding one lucky round (the best round is reported in params too).

Biopython reads its DTDs from the shared data (`ncbi/biopython/dtd`) and its downloader is replaced
by one that raises, so it can never touch the network.

    python bench/parse_throughput.py [--data DIR] [--rounds 11] [--copies 1]

One JSON line per figure: {"name", "value", "unit", "params"}.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import io
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from figures import emit
from lxml import etree

from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch
from bio_mcp.sources.ncbi.xml import parse_xml

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path("pubmed") / "pubmed_real_records.xml.gz"
DTD_DIR = Path("ncbi") / "biopython" / "dtd"


def default_data_dir() -> Path:
    return Path(os.environ.get("BIO_MCP_DATA", REPO_ROOT.parent / "shared" / "data"))


def biopython_reader(dtd_dir: Path) -> Callable[[bytes], Any]:
    from Bio import Entrez
    from Bio.Entrez import Parser

    def refuse_network(url: object, *args: object, **kwargs: object) -> None:
        raise RuntimeError(f"the benchmark must not download {url}")

    Parser.DataHandler.local_dtd_dir = str(dtd_dir)
    Parser.urlopen = refuse_network
    return lambda body: Entrez.read(io.BytesIO(body), validate=False)


def comparable_document(corpus: bytes, copies: int) -> tuple[bytes, int, list[str]]:
    """The corpus without the records Biopython cannot read, repeated `copies` times.

    Returns (document, records in it, left-out PMIDs).
    """
    root = parse_xml(corpus)
    left_out = []
    for record in list(root):
        if record.find("MedlineCitation/Article/Affiliation") is not None:
            left_out.append(record.findtext("MedlineCitation/PMID"))
            root.remove(record)
    records = list(root)
    for _ in range(copies - 1):
        root.extend(etree.fromstring(etree.tostring(record)) for record in records)
    tree = root.getroottree()
    document = etree.tostring(tree, encoding="UTF-8", xml_declaration=True, doctype=tree.docinfo.doctype)
    return document, len(root), left_out


def timed_round(parse: Callable[[bytes], Any], document: bytes) -> float:
    gc.collect()
    started = time.perf_counter()
    parsed = parse(document)
    elapsed = time.perf_counter() - started
    del parsed
    return elapsed


def records_parsed(parsed: Any) -> int:
    if isinstance(parsed, list):
        return len(parsed)
    return len(parsed["PubmedArticle"]) + len(parsed["PubmedBookArticle"])


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--data", type=Path, default=default_data_dir())
    arguments.add_argument("--rounds", type=int, default=11, help="parses of the document per parser")
    arguments.add_argument("--copies", type=int, default=1, help="times the records appear in the document")
    options = arguments.parse_args()

    corpus = gzip.decompress((options.data / CORPUS).read_bytes())
    document, records, left_out = comparable_document(corpus, options.copies)
    parsers = {"bio_mcp": parse_efetch, "biopython": biopython_reader(options.data / DTD_DIR)}
    for name, parse in parsers.items():
        found = records_parsed(parse(document))
        if found != records:
            raise SystemExit(f"{name} parsed {found} records, expected {records}")

    rounds: dict[str, list[float]] = {name: [] for name in parsers}
    for _ in range(options.rounds):
        for name, parse in parsers.items():
            rounds[name].append(timed_round(parse, document))

    params = {
        "records_per_document": records,
        "rounds": options.rounds,
        "records_total": records * options.rounds,
        "document_bytes": len(document),
        "left_out_pmids": left_out,
        "statistic": "median round",
        "python": platform.python_version(),
        "lxml": ".".join(map(str, etree.LXML_VERSION)),
        "biopython": __import__("Bio").__version__,
    }
    rates = {name: records / statistics.median(times) for name, times in rounds.items()}
    for name, rate in rates.items():
        best = round(records / min(rounds[name]), 1)
        emit(f"efetch_parse.{name}", round(rate, 1), "records/s", params, best_round_records_per_s=best)
    speedup = round(rates["bio_mcp"] / rates["biopython"], 2)
    emit("efetch_parse.speedup_vs_biopython", speedup, "x", params)


if __name__ == "__main__":
    main()
