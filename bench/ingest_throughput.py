"""Ingestion throughput (tool.ingest.run, writing): pages per second from PDFs with a text layer and
from image-only PDFs read by OCR, and OCR's character error rate on the same pages.

    PYTHONPATH=src:. python bench/ingest_throughput.py [--text-docs 20] [--ocr-docs 3] [--split dev]

Documents are PPR abstracts (English, `--split`) and the Thai herb table of the shared data, written
as PDFs by the test builders (`tests/evidence/ingest/documents.py`). Each run ingests into a fresh
BIO_MCP_HOME (SQLite, hash embeddings, the MeSH linker from BIO_MCP_CACHE_DIR); the time is the
whole job: reading, OCR, sections, linking and the corpus and graph writes. Prints JSON lines.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.ingest_jobs import IngestService
from bio_mcp.features.evidence.ingest_models import IngestRunRequest
from bio_mcp.features.evidence.ingest_ocr import OcrOptions
from bio_mcp.features.evidence.ingest_pdf import read_pdf
from bio_mcp.sources.ncbi.client import EutilsClient
from tests.evidence.ingest.documents import (
    character_error_rate,
    image_pdf,
    ppr_abstracts,
    text_pdf,
    thai_herb_document,
)

DEFAULT_DATA = Path("..") / "shared" / "data"


async def ingest(folder: Path, paths: list[Path]) -> tuple[float, int, int]:
    """Seconds to ingest `paths` in one job, with its page and OCR'd page counts."""
    home = folder / f"home-{paths[0].stem}"
    home.mkdir()
    settings = load_settings(
        BIO_MCP_HOME=str(home), BIO_MCP_EMBEDDINGS_PROVIDER="hash", BIO_MCP_INGEST_ROOTS=str(folder),
        BIO_MCP_INGEST_WAIT_S=600,
    )
    eutils = EutilsClient(settings)
    corpus = CorpusService(settings, eutils, embed_in_background=False)
    service = IngestService(settings, corpus)
    try:
        await corpus.open()
        request = IngestRunRequest.model_validate(
            {"dry_run": False, "batch": [{"uri": path.as_uri()} for path in paths]}
        )
        started = time.perf_counter()
        response = await service.run(request)
        if response.status == "running":
            await service.wait(response.job_id, 3600)
        seconds = time.perf_counter() - started
        view = await service.job(response.job_id)
        if view.status != "done":
            raise SystemExit(f"ingestion failed: {view.error}")
        return seconds, view.counts.pages, view.counts.ocr_pages
    finally:
        await service.aclose()
        await corpus.aclose()
        await eutils.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--text-docs", type=int, default=20)
    parser.add_argument("--ocr-docs", type=int, default=3)
    parser.add_argument("--split", default="dev")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bio-mcp-ingest-bench-") as scratch:
        folder = Path(scratch)
        abstracts = ppr_abstracts(args.data, max(args.text_docs, args.ocr_docs), args.split)
        text_paths = [text_pdf(folder / f"text-{pmid}.pdf", doc) for pmid, doc in abstracts[: args.text_docs]]
        ocr_docs = [(f"ocr-{pmid}", doc) for pmid, doc in abstracts[: args.ocr_docs]]
        ocr_docs.append(("ocr-thai-herbs", thai_herb_document(args.data)))
        ocr_paths = [image_pdf(folder / f"{name}.pdf", doc) for name, doc in ocr_docs]

        seconds, pages, _ = asyncio.run(ingest(folder, text_paths))
        params = {"documents": len(text_paths), "pages": pages, "split": args.split, "load_avg_1m": round(load, 2)}
        emit("ingest_text_layer", pages / seconds, "pages/s", params)

        seconds, pages, ocr_pages = asyncio.run(ingest(folder, ocr_paths))
        params = {"documents": len(ocr_paths), "pages": pages, "ocr_pages": ocr_pages, "languages": "tha+eng",
                  "dpi": 300, "load_avg_1m": round(os.getloadavg()[0], 2)}
        emit("ingest_ocr", pages / seconds, "pages/s", params)

        options = OcrOptions(languages="tha+eng", dpi=300, timeout_s=600)
        for lang, chosen in (("en", ocr_docs[:-1]), ("th", ocr_docs[-1:])):
            rates = []
            for name, doc in chosen:
                path = folder / f"{name}.pdf"
                text = "\n".join(page.text for page in read_pdf(path, path.read_bytes(), options, 16, 100))
                rates.append(character_error_rate(doc.text, text))
            emit(f"ocr_cer_{lang}", sum(rates) / len(rates), "ratio",
                 {"documents": len(rates), "max": round(max(rates), 4), "split": args.split})


if __name__ == "__main__":
    main()
