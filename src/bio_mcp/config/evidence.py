"""Settings of the evidence toolset."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings

from bio_mcp.config.fields import SETTINGS_CONFIG, CsvPaths


class EvidenceSettings(BaseSettings):
    """The evidence toolset: cited answers, document ingestion with OCR, paper fetches, evaluation."""

    model_config = SETTINGS_CONFIG

    # tool.rag_answer (seed 003): answers whose answer_conf is below this are withheld (the seed's τ).
    answer_conf_tau: float = Field(
        default=0.6, ge=0.0, le=1.0, validation_alias="ANSWER_CONF_TAU",
        description='tool.rag_answer withholds answers whose answer_conf is below this.',
    )
    # tool.rag_answer may ask the client's model (MCP sampling) to write the answer from the numbered
    # evidence, when the client supports sampling; every sentence's citations are checked.
    answer_sampling: bool = Field(
        default=False, validation_alias="BIO_MCP_ANSWER_SAMPLING",
        description="tool.rag_answer asks the client's model (MCP sampling) to write the answer from the evidence.",
    )
    # Document ingestion (seed 003, tool.ingest.run): files are read and written only under these
    # directories (comma-separated; none: every ingestion is refused), up to this size. OCR runs
    # Debian's `tesseract` (languages joined by +) on pages rasterised by poppler's `pdftoppm`.
    ingest_roots: CsvPaths = Field(
        default_factory=list, validation_alias="BIO_MCP_INGEST_ROOTS",
        description='Comma-separated folders files may be ingested from (none: ingestion refused).',
    )
    ingest_max_bytes: int = Field(
        default=50 * 1024 * 1024, ge=1, le=2**34, validation_alias="BIO_MCP_INGEST_MAX_BYTES",
        description='Largest file ingested, in bytes.',
    )
    ingest_max_pages: int = Field(
        default=2000, ge=1, validation_alias="BIO_MCP_INGEST_MAX_PAGES",
        description='Most pages of a file ingested.',
    )
    ingest_ocr_languages: str = Field(
        default="tha+eng", pattern=r"^[a-z_]{3,16}(\+[a-z_]{3,16})*$",
        validation_alias="BIO_MCP_INGEST_OCR_LANGUAGES",
        description='Tesseract languages for OCR, joined by +.',
    )
    ingest_ocr_dpi: int = Field(
        default=300, ge=72, le=600, validation_alias="BIO_MCP_INGEST_OCR_DPI",
        description='Resolution pages are rasterised at for OCR.',
    )
    # Per page, for rasterising and for recognising each.
    ingest_ocr_timeout_s: float = Field(
        default=120.0, gt=0, le=3600, validation_alias="BIO_MCP_INGEST_OCR_TIMEOUT_S",
        description='Seconds per page for rasterising and for recognising it.',
    )
    # A page whose text layer has fewer characters than this is treated as an image and OCR'd.
    ingest_ocr_min_chars: int = Field(
        default=16, ge=0, validation_alias="BIO_MCP_INGEST_OCR_MIN_CHARS",
        description="A page with fewer text-layer characters than this is OCR'd.",
    )
    # How long tool.ingest.run waits for its job before answering with the job still queued or running.
    ingest_wait_s: float = Field(
        default=20.0, ge=0, le=600, validation_alias="BIO_MCP_INGEST_WAIT_S",
        description='Seconds tool.ingest.run waits for its job before answering with it still running.',
    )
    # Evidence toolset (seed 003). paper://pmid/{id} fetches a paper absent from the corpus from
    # E-utilities and stores it (the pubmed toolset reaches NCBI anyway, so on by default); off, an
    # absent paper is NOT_FOUND and nothing leaves the machine.
    paper_fetch: bool = Field(
        default=True, validation_alias="BIO_MCP_PAPER_FETCH",
        description='paper://pmid/{id} fetches a paper absent from the corpus from E-utilities and stores it.',
    )
    # tool.eval.run's curated set: a folder holding BEIR-layout (scifact/), pubmedqa/, bc5cdr/ and ppr/.
    eval_data: Path | None = Field(
        default=None, validation_alias="BIO_MCP_EVAL_DATA",
        description="Folder of tool.eval.run's curated sets (scifact/, pubmedqa/, bc5cdr/, ppr/).",
    )
