"""Test documents made from real text: PPR abstracts (English) and the Thai names of the shared herb
table (the only Thai text in the shared data), written as PDFs with a text layer (reportlab) or as
images only (Pillow, rendered with a TLWG Thai font), and the character error rate of OCR."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from bio_mcp.eval.ppr import read_ppr

FONT_DIR = Path("/usr/share/fonts/truetype/tlwg")
# Loma has Latin and Thai glyphs, so one font renders both scripts.
FONT = FONT_DIR / "Loma.ttf"
PAGE_W, PAGE_H = 595, 842  # A4 in points
MARGIN = 56
FONT_SIZE = 11
LEADING = 16


@dataclass(frozen=True)
class SampleDocument:
    title: str
    paragraphs: list[str]

    @property
    def text(self) -> str:
        return "\n".join([self.title, *self.paragraphs])


def ppr_abstracts(data_dir: Path, count: int, split: str = "dev") -> list[tuple[str, SampleDocument]]:
    """The first `count` PPR abstracts: (PMID, title = first sentence, one paragraph of the rest)."""
    documents = read_ppr(data_dir / "bench" / "ppr" / f"PPR_{split}_corpus.txt")[:count]
    return [(document.pmid, SampleDocument(title=document.sentences[0].text.strip(),
                                           paragraphs=[" ".join(s.text.strip() for s in document.sentences[1:])]))
            for document in documents]


def thai_herb_document(data_dir: Path) -> SampleDocument:
    """The Thai herb table as a document: the formulation's Thai name as title, one line per herb
    (Thai name, scientific name)."""
    with (data_dir / "herbs" / "thai_formulations.tsv").open(encoding="utf-8") as handle:
        formulation = next(csv.DictReader(handle, delimiter="\t"))
    with (data_dir / "herbs" / "thai_herb_names.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return SampleDocument(
        title=formulation["thai_name"],
        paragraphs=[f"{row['thai_name']} {row['scientific_name']}" for row in rows],
    )


def _wrap(text: str, fits: object) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if current and not fits(candidate):  # type: ignore[operator]
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def _layout(document: SampleDocument, fits: object) -> list[list[str]]:
    """Lines per page: the title, a blank line, then each paragraph wrapped, blank lines between."""
    lines = [*_wrap(document.title, fits), ""]
    for paragraph in document.paragraphs:
        lines += [*_wrap(paragraph, fits), ""]
    per_page = (PAGE_H - 2 * MARGIN) // LEADING
    return [lines[i : i + per_page] for i in range(0, len(lines), per_page)]


def text_pdf(path: Path, document: SampleDocument) -> Path:
    """A PDF with a text layer (reportlab, the TLWG font embedded)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    if "Loma" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("Loma", str(FONT)))
    width = PAGE_W - 2 * MARGIN
    pdf = canvas.Canvas(str(path), pagesize=(PAGE_W, PAGE_H))
    for page in _layout(document, lambda line: pdfmetrics.stringWidth(line, "Loma", FONT_SIZE) <= width):
        pdf.setFont("Loma", FONT_SIZE)
        y = PAGE_H - MARGIN
        for line in page:
            pdf.drawString(MARGIN, y, line)
            y -= LEADING
        pdf.showPage()
    pdf.save()
    return path


def image_pdf(path: Path, document: SampleDocument, dpi: int = 200) -> Path:
    """A PDF of page images only (no text layer): the text rendered by Pillow (raqm shaping of Thai)."""
    from PIL import Image, ImageDraw, ImageFont

    scale = dpi / 72
    font = ImageFont.truetype(str(FONT), round(FONT_SIZE * scale))
    width = (PAGE_W - 2 * MARGIN) * scale
    probe = ImageDraw.Draw(Image.new("L", (1, 1)))
    pages = []
    for page in _layout(document, lambda line: probe.textlength(line, font=font) <= width / scale * scale):
        image = Image.new("L", (round(PAGE_W * scale), round(PAGE_H * scale)), 255)
        draw = ImageDraw.Draw(image)
        y = MARGIN * scale
        for line in page:
            draw.text((MARGIN * scale, y), line, font=font, fill=0)
            y += LEADING * scale
        pages.append(image)
    pages[0].save(path, "PDF", resolution=dpi, save_all=True, append_images=pages[1:])
    return path


def character_error_rate(reference: str, hypothesis: str) -> float:
    """Levenshtein distance over the characters, whitespace removed (OCR's line breaks and Thai's
    absent word spaces are not errors), divided by the reference's length."""
    ref = "".join(reference.split())
    hyp = "".join(hypothesis.split())
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        current = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h))
        previous = current
    return previous[-1] / max(1, len(ref))
