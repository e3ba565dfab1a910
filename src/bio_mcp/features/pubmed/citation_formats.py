"""Citation formats made by the server from a parsed EFetch record: RIS, BibTeX, APA, MLA and Vancouver strings.

The prose styles cap author lists as the styles themselves do (APA 7: up to 20, else the first
19, an ellipsis and the last; MLA 9: three or more become "et al."; Vancouver/NLM: more than six
become the first six and "et al."). RIS and BibTeX are data for reference managers and keep
every author.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bio_mcp.sources.ncbi.models import Article, Author

APA_MAX_AUTHORS = 20
VANCOUVER_MAX_AUTHORS = 6


def _authors(article: Article) -> list[Author]:
    if article.authors:
        return article.authors
    return article.book.authors if article.book else []


def _year(article: Article) -> str | None:
    date = article.journal_info.publication_date if article.journal_info else (
        article.book.publication_date if article.book else None)
    return str(date.year) if date and date.year else None


def _title(article: Article) -> str:
    return (article.title or (article.book.book_title if article.book else "")).strip()


def _end_with_period(text: str) -> str:
    return text if text.endswith((".", "?", "!")) else text + "."


def ris(article: Article) -> str:
    info = article.journal_info
    lines = [f"TY  - {'JOUR' if info else 'CHAP' if article.book and article.book.chapter_title else 'BOOK'}"]
    for author in _authors(article):
        if author.collective_name:
            lines.append(f"AU  - {author.collective_name}")
        elif author.last_name:
            lines.append(f"AU  - {author.last_name}, {author.first_name or author.initials or ''}".rstrip(", "))
    lines.append(f"TI  - {_title(article)}")
    if info:
        lines += [f"JO  - {info.title}"] if info.title else []
        lines += [f"JA  - {info.iso_abbreviation}"] if info.iso_abbreviation else []
        lines += [f"VL  - {info.volume}"] if info.volume else []
        lines += [f"IS  - {info.issue}"] if info.issue else []
        if info.pages:
            start, _, end = info.pages.partition("-")
            lines.append(f"SP  - {start}")
            lines += [f"EP  - {end}"] if end else []
        lines += [f"SN  - {info.issn}"] if info.issn else []
    elif article.book:
        lines += [f"PB  - {article.book.publisher_name}"] if article.book.publisher_name else []
        lines += [f"CY  - {article.book.publisher_location}"] if article.book.publisher_location else []
    year = _year(article)
    lines += [f"PY  - {year}"] if year else []
    lines += [f"DO  - {article.doi}"] if article.doi else []
    lines += [f"AB  - {article.abstract_text}"] if article.abstract_text else []
    lines += [f"KW  - {kw}" for kw in article.keywords]
    lines.append(f"AN  - PMID:{article.pmid}")
    lines.append(f"UR  - https://pubmed.ncbi.nlm.nih.gov/{article.pmid}/")
    lines.append("ER  - ")
    return "\n".join(lines) + "\n"


def _bibtex_escape(text: str) -> str:
    return re.sub(r"([&%$#_{}])", r"\\\1", text)


def bibtex(article: Article) -> str:
    info = article.journal_info
    first = next((a for a in _authors(article) if a.last_name), None)
    key = re.sub(r"[^A-Za-z0-9]", "", (first.last_name if first else "pmid")) + (_year(article) or "") + article.pmid
    names = [a.collective_name and "{" + a.collective_name + "}" or f"{a.last_name}, {a.first_name or a.initials or ''}".rstrip(", ")
             for a in _authors(article) if a.collective_name or a.last_name]
    fields: list[tuple[str, str | None]] = [
        ("author", " and ".join(names) or None),
        ("title", "{" + _bibtex_escape(_title(article)) + "}"),
        ("journal", _bibtex_escape(info.title) if info and info.title else None),
        ("booktitle", _bibtex_escape(article.book.book_title) if article.book and article.title else None),
        ("publisher", article.book.publisher_name if article.book else None),
        ("year", _year(article)),
        ("month", info.publication_date.month.lower() if info and info.publication_date.month else None),
        ("volume", info.volume if info else None),
        ("number", info.issue if info else None),
        ("pages", info.pages.replace("-", "--") if info and info.pages else None),
        ("doi", article.doi),
        ("pmid", article.pmid),
        ("pmcid", article.pmcid),
    ]
    kind = "article" if info else "incollection" if article.book and article.title else "book"
    body = ",\n".join(f"  {name} = {{{value}}}" if not value.startswith("{") else f"  {name} = {value}"
                      for name, value in fields if value)
    return f"@{kind}{{{key},\n{body}\n}}\n"


def _apa_author(author: Author) -> str:
    if author.collective_name:
        return author.collective_name
    initials = " ".join(f"{ch}." for ch in (author.initials or ""))
    return f"{author.last_name}, {initials}".rstrip(", ")


def apa_string(article: Article) -> str:
    authors = [_apa_author(a) for a in _authors(article) if a.collective_name or a.last_name]
    if len(authors) > APA_MAX_AUTHORS:
        names = ", ".join(authors[: APA_MAX_AUTHORS - 1]) + ", . . . " + authors[-1]
    elif len(authors) > 1:
        names = ", ".join(authors[:-1]) + ", & " + authors[-1]
    else:
        names = authors[0] if authors else ""
    parts = [f"{names} ({_year(article) or 'n.d.'})." if names else f"({_year(article) or 'n.d.'})."]
    parts.append(_end_with_period(_title(article)))
    info = article.journal_info
    if info and info.title:
        source = f"*{info.title}*"
        if info.volume:
            source += f", *{info.volume}*"
        if info.issue:
            source += f"({info.issue})"
        if info.pages:
            source += f", {info.pages}"
        parts.append(source + ".")
    elif article.book and article.book.publisher_name:
        parts.append(article.book.publisher_name + ".")
    if article.doi:
        parts.append(f"https://doi.org/{article.doi}")
    return " ".join(parts)


def mla_string(article: Article) -> str:
    authors = [a for a in _authors(article) if a.collective_name or a.last_name]
    if not authors:
        names = ""
    elif authors[0].collective_name:
        names = authors[0].collective_name
    else:
        names = f"{authors[0].last_name}, {authors[0].first_name or authors[0].initials or ''}".rstrip(", ")
    if len(authors) == 2:
        second = authors[1]
        names += ", and " + (second.collective_name or f"{second.first_name or second.initials or ''} {second.last_name}".strip())
    elif len(authors) > 2:
        names += ", et al"
    parts = [_end_with_period(names)] if names else []
    parts.append(f"\u201c{_end_with_period(_title(article))}\u201d")
    info = article.journal_info
    if info and info.title:
        source = f"*{info.title}*"
        if info.volume:
            source += f", vol. {info.volume}"
        if info.issue:
            source += f", no. {info.issue}"
        date = info.publication_date
        when = " ".join(p for p in (str(date.day) if date.day else None, date.month, str(date.year) if date.year else None) if p)
        if when:
            source += f", {when}"
        if info.pages:
            source += f", pp. {info.pages}"
        parts.append(source + ".")
    if article.doi:
        parts.append(f"https://doi.org/{article.doi}.")
    return " ".join(parts)


def _vancouver_author(author: Author) -> str:
    if author.collective_name:
        return author.collective_name
    return f"{author.last_name} {author.initials or ''}".strip()


def vancouver_string(article: Article) -> str:
    """NLM/ICMJE style, e.g. `Shi FH, Li H, ... et al. Title. Front Pharmacol. 2018 Jun 12;9:576. doi: ... PMID: ...`."""
    authors = [_vancouver_author(a) for a in _authors(article) if a.collective_name or a.last_name]
    names = ", ".join(authors[:VANCOUVER_MAX_AUTHORS])
    if len(authors) > VANCOUVER_MAX_AUTHORS:
        names += ", et al"
    parts = [_end_with_period(names)] if names else []
    parts.append(_end_with_period(_title(article)))
    info = article.journal_info
    if info and (info.iso_abbreviation or info.title):
        date = info.publication_date
        when = " ".join(p for p in (str(date.year) if date.year else None, date.month,
                                    str(date.day) if date.day else None) if p) or date.medline_date or ""
        source = f"{info.iso_abbreviation or info.title}. {when}"
        if info.volume:
            source += f";{info.volume}"
        if info.issue:
            source += f"({info.issue})"
        if info.pages:
            source += f":{info.pages}"
        parts.append(source.strip() + ".")
    elif article.book:
        place = ": ".join(p for p in (article.book.publisher_location, article.book.publisher_name) if p)
        parts.append(_end_with_period(" ".join(p for p in (place + ";" if place else None, _year(article)) if p)))
    if article.doi:
        parts.append(f"doi: {article.doi}.")
    parts.append(f"PMID: {article.pmid}.")
    return " ".join(parts)


FORMATTERS: dict[str, Callable[[Article], str]] = {
    "ris": ris,
    "bibtex": bibtex,
    "apa_string": apa_string,
    "mla_string": mla_string,
    "vancouver": vancouver_string,
}


def citation_block(style: str, text: str) -> list[str]:
    """Markdown lines for one formatted citation: data formats fenced, prose styles as they read."""
    if style in ("ris", "bibtex"):
        return ["```" + style, text.rstrip("\n"), "```"]
    return [text]
