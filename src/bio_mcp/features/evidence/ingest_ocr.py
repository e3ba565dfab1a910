"""OCR of PDF pages without a text layer: poppler's `pdftoppm` rasterises the page, Tesseract reads it.

Both are Debian packages run as subprocesses with a timeout (`apt-get install tesseract-ocr
tesseract-ocr-tha tesseract-ocr-eng poppler-utils`); Tesseract is Apache-2.0 and poppler's tools
are GPL programs run as separate processes, so neither's license reaches this code.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.thai_script import THAI_CHARS

INSTALL_HINT = "apt-get install tesseract-ocr tesseract-ocr-tha tesseract-ocr-eng poppler-utils"
# Tesseract's Thai model puts spaces between the glyph clusters of one word; Thai separates words by
# nothing, so a space between two Thai characters is dropped (one between phrases goes too: a cost
# to search of far less than a word cut in pieces).
_THAI_GAP = re.compile(f"(?<=[{THAI_CHARS}]) +(?=[{THAI_CHARS}])")


@dataclass(frozen=True)
class OcrOptions:
    languages: str
    dpi: int
    timeout_s: float


def _binary(name: str, package: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BioMcpError(
            ErrorCode.INVARIANT_FAILURE,
            f"OCR needs `{name}` (Debian package {package}), which is not installed: {INSTALL_HINT}",
            {"binary": name},
        )
    return found


@lru_cache(maxsize=1)
def installed_languages() -> frozenset[str]:
    """The language models Tesseract has (`tesseract --list-langs`)."""
    result = subprocess.run(
        [_binary("tesseract", "tesseract-ocr"), "--list-langs"], capture_output=True, text=True, timeout=30, check=False
    )
    lines = (result.stdout + result.stderr).splitlines()
    return frozenset(line.strip() for line in lines[1:] if line.strip() and " " not in line.strip())


def check_ocr(options: OcrOptions) -> None:
    """Fails with what to install when the binaries or a language model are missing."""
    _binary("pdftoppm", "poppler-utils")
    missing = [lang for lang in options.languages.split("+") if lang not in installed_languages()]
    if missing:
        packages = " ".join(f"tesseract-ocr-{lang.replace('_', '-').lower()}" for lang in missing)
        raise BioMcpError(
            ErrorCode.INVARIANT_FAILURE,
            f"Tesseract lacks the language model(s) {missing}: apt-get install {packages}",
            {"languages": missing},
        )


def _run(command: list[str], timeout_s: float, what: str) -> subprocess.CompletedProcess[bytes]:
    # One OpenMP thread: Tesseract's default team oversubscribes a busy machine (a page took 28 s
    # with it and 6 s without at load 11 on 2 cores); jobs already run one page at a time.
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        result = subprocess.run(command, capture_output=True, timeout=timeout_s, check=False, env=env)
    except subprocess.TimeoutExpired:
        raise BioMcpError(
            ErrorCode.UPSTREAM, f"{what} took longer than {timeout_s:g} s (BIO_MCP_INGEST_OCR_TIMEOUT_S)",
            {"timeout_s": timeout_s},
        ) from None
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise BioMcpError(
            ErrorCode.UPSTREAM, f"{what} failed: {message[-1] if message else f'exit {result.returncode}'}",
            {"exit_code": result.returncode},
        )
    return result


def recognise_image(image: Path, options: OcrOptions) -> str:
    """Tesseract's text of one image, Thai glyph gaps closed."""
    command = [_binary("tesseract", "tesseract-ocr"), str(image), "stdout", "-l", options.languages, "--psm", "3"]
    result = _run(command, options.timeout_s, f"Tesseract on {image.name}")
    return _THAI_GAP.sub("", result.stdout.decode("utf-8", errors="replace"))


def ocr_pdf_page(pdf: Path, page_number: int, options: OcrOptions) -> str:
    """The text of page `page_number` (1-based) of `pdf`, rasterised at options.dpi and read by Tesseract."""
    with tempfile.TemporaryDirectory(prefix="bio-mcp-ocr-") as folder:
        prefix = Path(folder) / "page"
        command = [
            _binary("pdftoppm", "poppler-utils"), "-r", str(options.dpi), "-gray", "-png",
            "-f", str(page_number), "-l", str(page_number), "-singlefile", str(pdf), str(prefix),
        ]
        _run(command, options.timeout_s, f"rasterising page {page_number} of {pdf.name}")
        return recognise_image(prefix.with_suffix(".png"), options)
