"""A document's title and sections, from the text of PDF pages, plain text, Markdown or HTML.

Plain text (and a PDF's pages) has no markup, so a heading is recognised by its shape: a short line
without a closing full stop that is numbered ("2. Methods", "III. RESULTS"), written in capitals,
or one of the usual section names of papers (English and Thai). The title is the first line when
it is not itself a heading. Wrapped lines are joined (a word hyphenated at a line end is rejoined;
Thai lines join without a space, as Thai has none between words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.html

from bio_mcp.thai_script import THAI_CHAR

HEADING_MAX_CHARS = 80
TITLE_MAX_CHARS = 300
_NUMBERED = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.)\s+\S")
_KNOWN = frozenset(
    {
        "abstract", "summary", "introduction", "background", "methods", "materials and methods", "methodology",
        "results", "results and discussion", "discussion", "conclusion", "conclusions", "references",
        "acknowledgements", "acknowledgments", "objective", "objectives", "keywords",
        "บทคัดย่อ", "บทนำ", "ความเป็นมา", "วัตถุประสงค์", "วิธีการ", "วิธีการศึกษา", "ผลการศึกษา", "ผลการวิจัย",
        "อภิปราย", "อภิปรายผล", "สรุป", "สรุปผล", "เอกสารอ้างอิง", "คำสำคัญ",
    }
)
_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_MARK = re.compile(r"(\*\*|__|\*|_|`+|~~)(?=\S)(.+?)(?<=\S)\1")


@dataclass(frozen=True)
class TextSection:
    label: str | None
    text: str


@dataclass(frozen=True)
class SectionedText:
    title: str | None
    sections: list[TextSection]

    @property
    def characters(self) -> int:
        return sum(len(section.text) for section in self.sections) + len(self.title or "")


def detect_lang(text: str) -> str:
    """th when a fifth or more of the letters are Thai, else en."""
    letters = [char for char in text if char.isalpha()]
    thai = sum(1 for char in letters if THAI_CHAR.match(char))
    return "th" if letters and thai * 5 >= len(letters) else "en"


def _is_heading(line: str) -> bool:
    stripped = line.strip()
    if not stripped or len(stripped) > HEADING_MAX_CHARS or stripped.endswith((".", ",", ";")):
        return False
    bare = stripped.rstrip(":").strip()
    if bare.casefold() in _KNOWN:
        return True
    if _NUMBERED.match(stripped) and len(stripped.split()) <= 10:
        return True
    letters = [char for char in bare if char.isalpha()]
    return len(letters) >= 4 and all(char.isupper() for char in letters if char.isascii()) and all(
        char.isascii() for char in letters
    ) and len(bare.split()) <= 8


def join_lines(lines: list[str]) -> str:
    """Wrapped lines as one paragraph text."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and line[:1].islower():
            out = out[:-1] + line
        elif THAI_CHAR.match(out[-1]) and THAI_CHAR.match(line[0]):
            out += line
        else:
            out += " " + line
    return out


def _assemble(blocks: list[tuple[str | None, list[str]]], title: str | None) -> SectionedText:
    sections = []
    for label, lines in blocks:
        text = join_lines(lines)
        if text:
            sections.append(TextSection(label, text))
    return SectionedText(title=title, sections=sections)


def sections_of_plain(text: str) -> SectionedText:
    lines = text.splitlines()
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    title = None
    # A first line longer than a title can be is the text itself (a one-paragraph file): kept as
    # text, never cut to a title's length.
    if first is not None and not _is_heading(lines[first]) and len(lines[first].strip()) <= TITLE_MAX_CHARS:
        title = lines[first].strip()
        lines = lines[first + 1 :]
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in lines:
        if _is_heading(line):
            blocks.append((line.strip().rstrip(":").strip(), []))
        else:
            blocks[-1][1].append(line)
    return _assemble(blocks, title)


def _markdown_inline(text: str) -> str:
    text = _MD_LINK.sub(r"\1", text)
    previous = None
    while previous != text:
        previous, text = text, _MD_MARK.sub(r"\2", text)
    return text


def sections_of_markdown(text: str) -> SectionedText:
    title = None
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    fenced = False
    for line in text.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        heading = None if fenced else _MD_HEADING.match(line)
        if heading:
            label = _markdown_inline(heading.group(2)).strip()
            if title is None and len(heading.group(1)) == 1 and not any(lines for _, lines in blocks):
                title = label[:TITLE_MAX_CHARS]
                continue
            blocks.append((label or None, []))
            continue
        body = line if fenced else re.sub(r"^\s{0,3}(?:[-*+]|\d+\.|>)\s+", "", line)
        blocks[-1][1].append(_markdown_inline(body) if not fenced else body)
        if not line.strip():
            # A blank line ends a paragraph: keep paragraphs apart as sentences.
            blocks[-1][1].append("")
    if title is None and len(blocks) == 1:
        # No heading at all: read like plain text, whose first line is the title.
        return sections_of_plain("\n".join(blocks[0][1]))
    return _assemble(blocks, title)


_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = frozenset({"p", "div", "li", "td", "th", "pre", "blockquote", "section", "article", "br", "tr", "dd", "dt"})


def sections_of_html(text: str) -> SectionedText:
    """`text` is decoded already (`ingest_charset`): lxml is handed its UTF-8 and told so, which
    overrides a <meta charset> (or an XML declaration) inside it."""
    parser = lxml.html.HTMLParser(encoding="utf-8")
    document = lxml.html.document_fromstring(text.encode("utf-8"), parser=parser)
    for element in document.xpath("//script|//style|//noscript|//template|//head/*[not(self::title)]"):
        element.drop_tree()
    titles = document.xpath("//title/text()")
    title = " ".join(titles[0].split())[:TITLE_MAX_CHARS] if titles and titles[0].strip() else None
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    body = document.body if document.find("body") is not None else document
    for element in body.iter():
        if not isinstance(element.tag, str):
            continue
        if element.tag in _HEADINGS:
            label = " ".join(element.text_content().split())
            if title is None and element.tag == "h1":
                title = label[:TITLE_MAX_CHARS]
            elif label and label != title:
                blocks.append((label, []))
            continue
        if any(ancestor.tag in _HEADINGS for ancestor in element.iterancestors()):
            continue
        if element.text and element.text.strip():
            blocks[-1][1].append(element.text)
        if element.tail and element.tail.strip() and element.getparent() is not None and element.getparent().tag not in _HEADINGS:
            blocks[-1][1].append(element.tail)
        if element.tag in _BLOCKS:
            blocks[-1][1].append("")
    return _assemble(blocks, title)
