"""EFetch rettype=medline: MEDLINE text generated from a held record.

Layout as NCBI prints it: a four-character tag padded with spaces, "- ", the value, and
continuation lines indented six spaces, wrapped at 80 columns; records separated by a blank line.
"""

from __future__ import annotations

import textwrap
from datetime import date, datetime

from bio_mcp.testing.pubmed_records import MONTHS, PubmedArticle, PubmedRecord

WIDTH = 80
INDENT = " " * 6


def _line(tag: str, value: str) -> list[str]:
    prefix = f"{tag:<4}- "
    wrapped = textwrap.wrap(
        value,
        width=WIDTH,
        initial_indent=prefix,
        subsequent_indent=INDENT,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return wrapped or [prefix.rstrip()]


def _compact(day: date | None) -> str:
    return day.strftime("%Y%m%d") if day else ""


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y/%m/%d %H:%M")


def _electronic_date(article: PubmedArticle) -> str:
    epub = article.epub_date
    if epub is None:
        return ""
    parts = [str(epub.year)]
    if epub.month:
        parts.append(MONTHS[epub.month - 1])
    if epub.day:
        parts.append(str(epub.day))
    return " ".join(parts)


def _source(article: PubmedArticle) -> str:
    if article.is_book:
        where = ": ".join(part for part in (article.publisher_location, article.publisher_name) if part)
        return (
            f"{article.book_title}. {where}; {article.pub_date.text}."
            if where
            else f"{article.book_title}. {article.pub_date.text}."
        )
    citation = f"{article.medline_ta or article.iso_abbreviation}. {article.pub_date.text}"
    if article.volume:
        citation += f";{article.volume}"
    if article.issue:
        citation += f"({article.issue})"
    if article.pages:
        citation += f":{article.pages}"
    citation += "."
    doi = next((value for kind, value in article.elocations if kind == "doi"), "") or article.article_id(
        "doi"
    )
    if doi:
        citation += f" doi: {doi}."
    if article.pub_model == "Print-Electronic" and article.epub_date is not None:
        citation += f" Epub {_electronic_date(article)}."
    return citation


def medline_record(record: PubmedRecord) -> str:
    article = record.article
    lines: list[str] = []

    def add(tag: str, value: str) -> None:
        if value:
            lines.extend(_line(tag, value))

    add("PMID", record.pmid)
    add("OWN", article.owner)
    add("STAT", article.status)
    add("DCOM", _compact(article.date_completed))
    add("LR", _compact(article.date_revised))
    for issn, issn_type in article.issns:
        add("IS", f"{issn} ({issn_type})" if issn_type else issn)
    if article.issn_linking:
        add("IS", f"{article.issn_linking} (Linking)")
    add("VI", article.volume)
    add("IP", article.issue)
    add("DP", article.pub_date.text)
    add("TI", article.title)
    if article.is_book:
        add("BTI", article.book_title)
    add("PG", article.pages)
    for kind, value in article.elocations:
        add("LID", f"{value} [{kind}]")
    add("AB", article.abstract)
    add("CI", article.copyright)
    for author in article.authors:
        if author.collective_name:
            add("CN", author.collective_name)
            continue
        add("FAU", author.full_name)
        add("AU", author.display_name)
        if author.orcid:
            add("AUID", f"ORCID: {author.orcid}")
        for affiliation in author.affiliations:
            add("AD", affiliation)
    for language in article.languages:
        add("LA", language)
    for accession in article.databanks:
        add("SI", "/".join(accession))
    for grant_id, acronym, agency, country in article.grants:
        add("GR", "/".join(part for part in (grant_id, acronym, agency, country) if part))
    for publication_type in article.publication_types:
        add("PT", publication_type)
    if article.epub_date is not None:
        add("DEP", _compact(article.epub_date.as_date))
    add("PL", article.country or article.publisher_location)
    add("TA", article.medline_ta)
    add("JT", article.journal_title)
    add("JID", article.nlm_unique_id)
    for registry_number, name in article.substances:
        add("RN", f"{registry_number} ({name})" if registry_number else name)
    for subset in article.citation_subsets:
        add("SB", subset)
    for heading in article.mesh:
        descriptor = ("*" if heading.major else "") + heading.descriptor
        qualifiers = "/".join(("*" if major else "") + name for name, major in heading.qualifiers)
        add("MH", f"{descriptor}/{qualifiers}" if qualifiers else descriptor)
    if article.keywords:
        add("OTO", article.keyword_owner or "NOTNLM")
    for keyword in article.keywords:
        add("OT", keyword)
    add("COIS", article.coi_statement)
    history = dict(record.history)
    add("EDAT", _stamp(record.entrez_date))
    if "medline" in history:
        add("MHDA", _stamp(history["medline"]))
    add("CRDT", _stamp(history.get("entrez", record.entrez_date)))
    for status, moment in record.history:
        add("PHST", f"{_stamp(moment)} [{status}]")
    for kind, value in article.article_ids:
        if kind not in ("pubmed", "pmc", "mid") and value:
            add("AID", f"{value} [{kind}]")
    add("PMC", article.article_id("pmc"))
    add("PST", article.publication_status)
    add("SO", _source(article))
    return "\n".join(lines)


def medline_text(records: list[PubmedRecord]) -> str:
    """The body EFetch returns: each record preceded by a blank line, as NCBI does."""
    return "".join("\n" + medline_record(record) + "\n" for record in records)
