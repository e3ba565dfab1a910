"""tool.ingest.run (seed 003): request, result, and the job status that `bio-mcp://jobs/{job_id}` serves.

The seed's shapes are kept (`dry_run`, `batch[{uri, lang, doc_type}]`, `ocr`, `ner` in; `job_id`,
`status`, `log_uri`, `audit` out); the counts and per-file reports are additive fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator

from bio_mcp.features.evidence.models import AuditedOutput
from bio_mcp.models import ToolInput

OCR_PROVIDERS = ("tesseract",)
NER_PROVIDERS = ("graph",)
# What each provider's params may set; anything else is refused by name.
OCR_PARAMS = ("languages", "dpi")
NER_PARAMS = ("thai_names",)

# The seed shows "pdf"; the extensions txt, md and htm are accepted too and read as text, markdown, html.
DocType = Literal["auto", "pdf", "text", "markdown", "html", "txt", "md", "htm"]
DOC_TYPE_ALIASES = {"txt": "text", "md": "markdown", "htm": "html"}
JobStatus = Literal["queued", "running", "done", "error"]
FileStatus = Literal["pending", "would_write", "written", "unchanged", "error"]
ParamValue = str | int | float | bool


class IngestItem(ToolInput):
    uri: Annotated[str, Field(min_length=1, max_length=4096)] = Field(
        description="A file:// URI or absolute path under one of the server's BIO_MCP_INGEST_ROOTS: a file, or a "
        "folder (its PDF, text, Markdown and HTML files, subfolders included, up to 1000)"
    )
    lang: Literal["th", "en", "auto"] = Field(
        default="auto", description="The document's language: th, en, or auto (detected from its script)"
    )
    doc_type: DocType = Field(
        default="auto",
        description="pdf, text, markdown, html, or auto (from the file name's extension); txt, md, htm accepted",
    )

    @field_validator("doc_type")
    @classmethod
    def _alias(cls, value: str) -> str:
        return DOC_TYPE_ALIASES.get(value, value)


def _supported(what: str, value: str, supported: Sequence[str]) -> str:
    if value not in supported:
        raise ValueError(f"unsupported {what} {value!r}; supported: {', '.join(supported)}")
    return value


def _known_params(what: str, params: dict[str, ParamValue], supported: Sequence[str]) -> None:
    unknown = sorted(set(params) - set(supported))
    if unknown:
        raise ValueError(f"unsupported {what} params {unknown}; supported: {', '.join(supported)}")


class OcrSpec(ToolInput):
    provider: str = Field(default="tesseract", description="The OCR engine; supported: tesseract")
    params: dict[str, ParamValue] = Field(
        default_factory=dict,
        description="languages (tesseract codes joined by +, e.g. tha+eng), dpi (72-600)",
    )

    @field_validator("provider")
    @classmethod
    def _provider(cls, value: str) -> str:
        return _supported("OCR provider", value, OCR_PROVIDERS)

    @field_validator("params")
    @classmethod
    def _params(cls, value: dict[str, ParamValue]) -> dict[str, ParamValue]:
        _known_params("OCR", value, OCR_PARAMS)
        languages = value.get("languages")
        if languages is not None and not (
            isinstance(languages, str) and all(part.isascii() and part.replace("_", "").isalpha() for part in languages.split("+"))
        ):
            raise ValueError("languages is tesseract language codes joined by +, e.g. tha+eng")
        dpi = value.get("dpi")
        if dpi is not None and not (isinstance(dpi, int) and not isinstance(dpi, bool) and 72 <= dpi <= 600):
            raise ValueError("dpi is an integer from 72 to 600")
        return value


class NerSpec(ToolInput):
    provider: str = Field(
        default="graph",
        description="The entity linker: graph (MeSH plus the herbs' Thai, English and scientific names)",
    )
    params: dict[str, ParamValue] = Field(
        default_factory=dict, description="thai_names (true by default): also link the names of kg_names"
    )

    @field_validator("provider")
    @classmethod
    def _provider(cls, value: str) -> str:
        return _supported("NER provider", value, NER_PROVIDERS)

    @field_validator("params")
    @classmethod
    def _params(cls, value: dict[str, ParamValue]) -> dict[str, ParamValue]:
        _known_params("NER", value, NER_PARAMS)
        if "thai_names" in value and not isinstance(value["thai_names"], bool):
            raise ValueError("thai_names is true or false")
        return value


class IngestRunRequest(ToolInput):
    dry_run: bool = Field(
        default=True,
        description="true (default): report what would be written, write nothing; false: write to the corpus and "
        "the knowledge graph",
    )
    batch: Annotated[list[IngestItem], Field(min_length=1, max_length=100)] = Field(
        description="The files to ingest (1-100)"
    )
    ocr: OcrSpec = Field(default_factory=OcrSpec, description="OCR of pages without a text layer")
    ner: NerSpec = Field(default_factory=NerSpec, description="Entity recognition and linking")


class IngestCounts(BaseModel):
    files: int = Field(default=0, description="Files in the job")
    pages: int = Field(default=0, description="Pages read (a text, Markdown or HTML file is one page)")
    ocr_pages: int = Field(default=0, description="Pages without a text layer, read by OCR")
    characters: int = Field(default=0, description="Characters of text extracted")
    sections: int = Field(default=0, description="Sections found")
    chunks: int = Field(default=0, description="Corpus chunks (graph Section nodes) made of them")
    entities: int = Field(default=0, description="Distinct entities linked, summed over files")
    relations: int = Field(
        default=0, description="Additive: relations the files' sentences state (evidence rows), summed over files"
    )
    written: int = Field(default=0, description="Files written to the corpus and graph")
    unchanged: int = Field(default=0, description="Files already ingested with the same content: nothing written")
    failed: int = Field(default=0, description="Files that failed (see their error)")


class IngestFileReport(BaseModel):
    uri: str = Field(description="The file as requested")
    source_uri: str | None = Field(default=None, description="The graph Document's source_uri (the file's file:// URI)")
    doc_id: str | None = Field(default=None, description="The corpus document key (file:...)")
    doc_type: str | None = Field(default=None, description="pdf, text, markdown or html")
    lang: str | None = Field(default=None, description="th or en")
    status: FileStatus = Field(description="pending, would_write (dry run), written, unchanged, or error")
    pages: int = 0
    ocr_pages: int = 0
    characters: int = 0
    sections: int = 0
    chunks: int = 0
    entities: int = 0
    relations: int = Field(default=0, description="Additive: relations its sentences state (evidence rows)")
    error: str | None = Field(default=None, description="Why this file failed")


class IngestRunResponse(AuditedOutput):
    job_id: str = Field(description="The ingestion job's id")
    status: JobStatus = Field(description="queued, running, done or error")
    log_uri: str = Field(description="The job's log, a resource (bio-mcp://jobs/{job_id}/log)")
    status_uri: str = Field(description="Additive: the job's status and counts as JSON (bio-mcp://jobs/{job_id})")
    dry_run: bool = Field(description="Additive: whether this job writes nothing")
    counts: IngestCounts = Field(description="Additive: totals so far")
    files: list[IngestFileReport] = Field(description="Additive: one report per file of the batch")
    error: str | None = Field(default=None, description="Additive: why the job failed")
