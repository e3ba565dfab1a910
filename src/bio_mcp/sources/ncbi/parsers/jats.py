"""EFetch `db=pmc` (pmc-articleset of JATS `<article>`s): full text in sections.

Each article gives its ids (PMCID, PMID, DOI), title, journal, abstract and body as a flat list of
sections in document order, each with its heading path and level, its paragraphs' text (inline
markup dropped), and the captions of its figures and tables. References are counted, not copied.
Bodies are untrusted: parsing goes through `xml.parse_xml` (no DTD, no entities, no network).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from bio_mcp.sources.ncbi.parsers.body import load_xml
from bio_mcp.sources.ncbi.xml import element_text

# Elements whose text is the section's own prose; everything else under a <sec> is structure.
_PROSE = frozenset({"p", "list", "disp-quote", "statement", "def-list", "boxed-text"})
_CAPTIONED = frozenset({"fig", "table-wrap"})


@dataclass(frozen=True)
class JatsSection:
    title: str
    # 1 for a top-level body section, 2 for its subsections, ...
    level: int
    # The titles from the top-level section down to this one.
    path: tuple[str, ...]
    paragraphs: tuple[str, ...]
    captions: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return "\n\n".join(self.paragraphs)


@dataclass(frozen=True)
class JatsArticle:
    pmcid: str | None
    pmid: str | None
    doi: str | None
    title: str
    journal: str | None
    article_type: str | None
    abstract: str
    sections: tuple[JatsSection, ...]
    reference_count: int
    license: str | None = None
    keywords: tuple[str, ...] = field(default_factory=tuple)


def parse_pmc_articles(body: bytes | str) -> list[JatsArticle]:
    """The articles of an EFetch db=pmc response; NCBI's <ERROR> raises BioMcpError(ENTREZ)."""
    root = load_xml(body, "pmc-articleset", "article")
    articles = [root] if root.tag == "article" else root.findall("article")
    return [_article(article) for article in articles]


def _article_ids(meta: etree._Element | None) -> dict[str, str]:
    ids: dict[str, str] = {}
    for element in meta.findall("article-id") if meta is not None else []:
        kind = element.get("pub-id-type") or ""
        ids.setdefault(kind, element_text(element))
    return ids


def _pmcid(ids: dict[str, str]) -> str | None:
    value = ids.get("pmcid") or ids.get("pmc") or ids.get("pmcaid")
    if not value:
        return None
    return value if value.upper().startswith("PMC") else f"PMC{value}"


def _abstract(meta: etree._Element | None) -> str:
    if meta is None:
        return ""
    abstracts = [a for a in meta.findall("abstract") if a.get("abstract-type") in (None, "structured")]
    chosen = abstracts[0] if abstracts else meta.find("abstract")
    if chosen is None:
        return ""
    parts = []
    for element in chosen.iter("title", "p"):
        text = element_text(element)
        if text:
            parts.append(f"{text}:" if element.tag == "title" else text)
    return " ".join(parts)


def _sections(parent: etree._Element, level: int, path: tuple[str, ...]) -> list[JatsSection]:
    sections: list[JatsSection] = []
    for sec in parent.findall("sec"):
        title = element_text(sec.find("title")) or sec.get("sec-type") or "(untitled)"
        here = (*path, title)
        paragraphs = tuple(text for child in sec if child.tag in _PROSE and (text := element_text(child)))
        captions = tuple(
            text
            for child in sec
            if child.tag in _CAPTIONED
            and (text := " ".join(filter(None, (element_text(child.find("label")), element_text(child.find("caption"))))))
        )
        sections.append(JatsSection(title, level, here, paragraphs, captions))
        sections.extend(_sections(sec, level + 1, here))
    return sections


def _article(article: etree._Element) -> JatsArticle:
    front = article.find("front")
    meta = front.find("article-meta") if front is not None else None
    ids = _article_ids(meta)
    body = article.find("body")
    sections = _sections(body, 1, ()) if body is not None else []
    if body is not None:
        loose = tuple(text for child in body if child.tag in _PROSE and (text := element_text(child)))
        if loose:
            sections.insert(0, JatsSection("(body)", 1, ("(body)",), loose))
    back = article.find("back")
    if back is not None:
        sections.extend(
            section for section in _sections(back, 1, ()) if section.paragraphs
        )
        for tag, title in (("ack", "Acknowledgements"),):
            for element in back.findall(tag):
                paragraphs = tuple(text for child in element if child.tag in _PROSE and (text := element_text(child)))
                if paragraphs:
                    sections.append(JatsSection(element_text(element.find("title")) or title, 1, (title,), paragraphs))
    journal = front.find("journal-meta/journal-title-group/journal-title") if front is not None else None
    license_element = meta.find("permissions/license") if meta is not None else None
    return JatsArticle(
        pmcid=_pmcid(ids),
        pmid=ids.get("pmid") or None,
        doi=ids.get("doi") or None,
        title=element_text(meta.find("title-group/article-title")) if meta is not None else "",
        journal=element_text(journal) or None,
        article_type=article.get("article-type"),
        abstract=_abstract(meta),
        sections=tuple(sections),
        reference_count=len(article.findall("back/ref-list/ref")) + len(article.findall("back/ref-list/ref-list/ref")),
        license=element_text(license_element) or None,
        keywords=tuple(element_text(k) for k in (meta.findall("kwd-group/kwd") if meta is not None else [])),
    )
