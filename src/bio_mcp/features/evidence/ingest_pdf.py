"""Text of a PDF, page by page: pypdf's text layer, and OCR for the pages that have none.

pypdf is imported by the first PDF read: with the cryptography package it pulls in, it costs a
server about 24 MB resident, which most servers never ingest a PDF to need.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.evidence.ingest_ocr import OcrOptions, check_ocr, ocr_pdf_page

if TYPE_CHECKING:
    from pypdf import PdfReader


@dataclass(frozen=True)
class PageText:
    number: int
    text: str
    ocr: bool


def _reader_errors() -> tuple[type[Exception], ...]:
    """What pypdf raises on a malformed file: its own errors and, on damaged structures, these builtins."""
    from pypdf.errors import PdfReadError, PyPdfError

    return (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError)


def _malformed(path: Path, exc: Exception) -> BioMcpError:
    return BioMcpError(
        ErrorCode.VALIDATION, f"{path.name} is not a readable PDF ({type(exc).__name__}: {exc}): nothing was written",
        {"field": "batch.uri", "uri": path.as_uri()},
    )


def open_pdf(path: Path, data: bytes, max_pages: int) -> PdfReader:
    """The parsed PDF; VALIDATION errors for an encrypted, malformed or overlong one."""
    if not data.startswith(b"%PDF-"):
        raise _malformed(path, ValueError("no %PDF- header"))
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        encrypted = reader.is_encrypted
        pages = 0 if encrypted else len(reader.pages)
    except _reader_errors() as exc:
        raise _malformed(path, exc) from None
    if encrypted:
        raise BioMcpError(
            ErrorCode.VALIDATION, f"{path.name} is an encrypted PDF: decrypt it first (nothing was written)",
            {"field": "batch.uri", "uri": path.as_uri()},
        )
    if pages == 0:
        raise _malformed(path, ValueError("no pages"))
    if pages > max_pages:
        raise BioMcpError(
            ErrorCode.VALIDATION, f"{path.name} has {pages} pages, over the limit of {max_pages} (BIO_MCP_INGEST_MAX_PAGES)",
            {"field": "batch.uri", "pages": pages, "max_pages": max_pages},
        )
    return reader


def read_pdf(
    path: Path, data: bytes, ocr: OcrOptions, min_chars: int, max_pages: int,
    on_page: Callable[[PageText], None] | None = None,
) -> list[PageText]:
    """Every page's text; a page whose text layer has fewer than `min_chars` non-space characters is OCR'd."""
    reader = open_pdf(path, data, max_pages)
    pages: list[PageText] = []
    for index, page in enumerate(reader.pages):
        try:
            text = page.extract_text() or ""
        except _reader_errors() as exc:
            raise _malformed(path, exc) from None
        if len("".join(text.split())) < min_chars:
            check_ocr(ocr)
            result = PageText(index + 1, ocr_pdf_page(path, index + 1, ocr), ocr=True)
        else:
            result = PageText(index + 1, text, ocr=False)
        pages.append(result)
        if on_page is not None:
            on_page(result)
    return pages
