"""Real PubMed records parsed once into the fields the fake E-utilities search, summarise and format.

A `PubmedArticle` is one recorded PubmedArticle/PubmedBookArticle with everything extracted from it.
A `PubmedRecord` is what the fake holds under a PMID: an article plus the two things tests vary
cheaply (its PMID, for clones, and its entry date); the XML it serves carries both changes.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path

from lxml import etree

REAL_RECORDS = Path("pubmed") / "pubmed_real_records.xml.gz"

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH_NUMBER = {name.lower(): index for index, name in enumerate(MONTHS, start=1)}
_SEASON_MONTH = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}

# PubMed accepts a language by its MEDLINE code or its name ("eng"[la], "english"[la]).
LANGUAGE_NAMES = {
    "eng": "english",
    "fre": "french",
    "ger": "german",
    "spa": "spanish",
    "ita": "italian",
    "jpn": "japanese",
    "chi": "chinese",
    "rus": "russian",
    "por": "portuguese",
    "dut": "dutch",
    "pol": "polish",
    "swe": "swedish",
    "nor": "norwegian",
    "dan": "danish",
    "fin": "finnish",
    "kor": "korean",
    "tur": "turkish",
    "heb": "hebrew",
    "hun": "hungarian",
    "cze": "czech",
}

# What PubMed's summaries print for each MedlineCitation/@Status.
RECORD_STATUS = {
    "MEDLINE": "PubMed - indexed for MEDLINE",
    "PubMed-not-MEDLINE": "PubMed",
    "In-Process": "PubMed - in process",
    "In-Data-Review": "PubMed - in process",
    "Publisher": "PubMed - as supplied by publisher",
}


_WORD = re.compile(r"[a-z0-9]+")


def normalize(text: str) -> str:
    """Lowercase ASCII tokens separated by single spaces: the unit of every text match."""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(_WORD.findall(text.lower()))


def padded(values: Iterable[str]) -> str:
    """Values joined so a phrase can match inside one value but never across two."""
    return " " + " | ".join(normalize(value) for value in values) + " "


def element_text(element: etree._Element | None) -> str:
    if element is None:
        return ""
    return " ".join("".join(element.itertext()).split())


def _text_at(parent: etree._Element | None, path: str) -> str:
    return element_text(parent.find(path)) if parent is not None else ""


@dataclass(frozen=True)
class Author:
    last_name: str = ""
    fore_name: str = ""
    initials: str = ""
    suffix: str = ""
    collective_name: str = ""
    affiliations: tuple[str, ...] = ()
    orcid: str = ""

    @property
    def display_name(self) -> str:
        """The short form PubMed prints: "Goldberg MJ", "Hambrick GW Jr" or the collective name."""
        if self.collective_name:
            return self.collective_name
        return " ".join(part for part in (self.last_name, self.initials, self.suffix) if part)

    @property
    def full_name(self) -> str:
        if self.collective_name:
            return self.collective_name
        return ", ".join(part for part in (self.last_name, self.fore_name) if part)


@dataclass(frozen=True)
class MeshHeading:
    descriptor: str
    ui: str
    major: bool
    qualifiers: tuple[tuple[str, bool], ...] = ()

    @property
    def is_major(self) -> bool:
        return self.major or any(major for _, major in self.qualifiers)


@dataclass(frozen=True)
class PartialDate:
    """A publication date as recorded: any of its parts may be missing."""

    year: int
    month: int | None = None
    day: int | None = None
    text: str = ""

    @property
    def as_date(self) -> date:
        return date(self.year, self.month or 1, self.day or 1)


@dataclass(frozen=True)
class SearchText:
    """Normalised text of one article, per searchable field."""

    title: str
    abstract: str
    title_abstract: str
    all_fields: str
    authors: tuple[str, ...]
    full_authors: tuple[str, ...]
    collectives: tuple[str, ...]
    affiliations: str
    mesh_names: frozenset[str]
    mesh_uis: frozenset[str]
    major_names: frozenset[str]
    major_uis: frozenset[str]
    mesh_with_qualifiers: frozenset[str]
    major_with_qualifiers: frozenset[str]
    qualifiers: frozenset[str]
    keywords: str
    substances: str
    publication_types: frozenset[str]
    languages: frozenset[str]
    journals: frozenset[str]
    accessions: frozenset[str]
    article_ids: frozenset[str]
    content_tokens: frozenset[str]


@dataclass(frozen=True)
class PubmedArticle:
    """Everything the fake needs from one real PubmedArticle or PubmedBookArticle."""

    source_pmid: str
    xml: str
    is_book: bool
    status: str
    owner: str
    title: str
    abstract_sections: tuple[tuple[str, str], ...]
    copyright: str
    authors: tuple[Author, ...]
    journal_title: str
    iso_abbreviation: str
    medline_ta: str
    nlm_unique_id: str
    country: str
    issns: tuple[tuple[str, str], ...]
    issn_linking: str
    volume: str
    issue: str
    pages: str
    elocations: tuple[tuple[str, str], ...]
    pub_model: str
    pub_date: PartialDate
    epub_date: PartialDate | None
    languages: tuple[str, ...]
    publication_types: tuple[str, ...]
    mesh: tuple[MeshHeading, ...]
    keywords: tuple[str, ...]
    keyword_owner: str
    substances: tuple[tuple[str, str], ...]
    databanks: tuple[tuple[str, str], ...]
    grants: tuple[tuple[str, str, str, str], ...]
    citation_subsets: tuple[str, ...]
    coi_statement: str
    date_completed: date | None
    date_revised: date | None
    history: tuple[tuple[str, datetime], ...]
    publication_status: str
    article_ids: tuple[tuple[str, str], ...]
    references: tuple[str, ...]
    publisher_name: str
    publisher_location: str
    book_title: str
    medium: str
    search: SearchText = field(repr=False, compare=False)

    @property
    def abstract(self) -> str:
        return " ".join(f"{label}: {text}" if label else text for label, text in self.abstract_sections)

    @property
    def entrez_date(self) -> datetime:
        """EDAT: the "entrez" history date, else "pubmed", else the publication date."""
        history = dict(self.history)
        return (
            history.get("entrez")
            or history.get("pubmed")
            or datetime.combine(self.pub_date.as_date, datetime.min.time())
        )

    @property
    def modification_date(self) -> date:
        """MDAT: DateRevised, else the latest history date."""
        if self.date_revised is not None:
            return self.date_revised
        latest = max((moment for _, moment in self.history), default=None)
        return latest.date() if latest else self.pub_date.as_date

    @property
    def publication_dates(self) -> tuple[date, ...]:
        """[dp] matches both the print and the electronic date of publication."""
        dates = [self.pub_date.as_date]
        if self.epub_date is not None:
            dates.append(self.epub_date.as_date)
        return tuple(dates)

    def article_id(self, id_type: str) -> str:
        for kind, value in self.article_ids:
            if kind == id_type:
                return value
        return ""


@dataclass(frozen=True)
class PubmedRecord:
    """What the fake serves under one PMID."""

    pmid: str
    article: PubmedArticle
    entrez_date: datetime

    @classmethod
    def of(cls, article: PubmedArticle) -> PubmedRecord:
        return cls(pmid=article.source_pmid, article=article, entrez_date=article.entrez_date)

    @property
    def history(self) -> tuple[tuple[str, datetime], ...]:
        """The article's history with this record's entry date in place of the recorded one."""
        if self.entrez_date == self.article.entrez_date:
            return self.article.history
        replaced = [
            (status, self.entrez_date if status == "entrez" else moment)
            for status, moment in self.article.history
        ]
        if not any(status == "entrez" for status, _ in replaced):
            replaced.append(("entrez", self.entrez_date))
        return tuple(replaced)

    def xml(self) -> str:
        """The recorded XML, with this record's PMID and entry date written in."""
        text = self.article.xml
        if self.pmid != self.article.source_pmid:
            text = _replace_pmid(text, self.article.source_pmid, self.pmid)
        if self.entrez_date != self.article.entrez_date:
            text = _replace_entrez_date(text, self.entrez_date)
        return text


def _replace_pmid(xml: str, old: str, new: str) -> str:
    text = xml.replace(f">{old}</PMID>", f">{new}</PMID>", 1)
    return text.replace(
        f'<ArticleId IdType="pubmed">{old}</ArticleId>', f'<ArticleId IdType="pubmed">{new}</ArticleId>', 1
    )


_ENTREZ_DATE = re.compile(r'<PubMedPubDate PubStatus="entrez">.*?</PubMedPubDate>', re.DOTALL)


def _pubmed_pub_date(status: str, moment: datetime) -> str:
    return (
        f'<PubMedPubDate PubStatus="{status}"><Year>{moment.year}</Year><Month>{moment.month}</Month>'
        f"<Day>{moment.day}</Day><Hour>{moment.hour}</Hour><Minute>{moment.minute}</Minute></PubMedPubDate>"
    )


def _replace_entrez_date(xml: str, moment: datetime) -> str:
    element = _pubmed_pub_date("entrez", moment)
    if _ENTREZ_DATE.search(xml):
        return _ENTREZ_DATE.sub(lambda _: element, xml, count=1)
    return xml.replace("<History>", "<History>" + element, 1)


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    text = text.strip()
    if text.isdigit():
        return int(text)
    return _MONTH_NUMBER.get(text[:3].lower())


def _partial_date(element: etree._Element | None) -> PartialDate | None:
    if element is None:
        return None
    medline_date = element.findtext("MedlineDate")
    if medline_date:
        found = re.search(r"\d{4}", medline_date)
        if not found:
            return None
        after = medline_date[found.end() :].strip()
        return PartialDate(
            year=int(found.group()), month=_int(after[:3]) if after else None, text=medline_date
        )
    year = _int(element.findtext("Year"))
    if year is None:
        return None
    month = _int(element.findtext("Month"))
    day = _int(element.findtext("Day"))
    season = element.findtext("Season")
    if month is None and season:
        month = _SEASON_MONTH.get(season.split("-")[0].strip().lower())
        text = f"{year} {season}"
    else:
        text = " ".join(str(part) for part in (year, MONTHS[month - 1] if month else None, day) if part)
    return PartialDate(year=year, month=month, day=day, text=text)


def _full_date(element: etree._Element | None) -> date | None:
    partial = _partial_date(element)
    return partial.as_date if partial else None


def _authors(container: etree._Element | None) -> tuple[Author, ...]:
    if container is None:
        return ()
    authors = []
    for author in container.iterfind("Author"):
        if author.get("ValidYN", "Y") == "N":
            continue
        orcid = ""
        for identifier in author.iterfind("Identifier"):
            if identifier.get("Source") == "ORCID":
                orcid = (identifier.text or "").strip()
        authors.append(
            Author(
                last_name=element_text(author.find("LastName")),
                fore_name=element_text(author.find("ForeName")),
                initials=element_text(author.find("Initials")),
                suffix=element_text(author.find("Suffix")),
                collective_name=element_text(author.find("CollectiveName")),
                affiliations=tuple(element_text(a) for a in author.iterfind("AffiliationInfo/Affiliation")),
                orcid=orcid,
            )
        )
    return tuple(authors)


def _history(container: etree._Element | None) -> tuple[tuple[str, datetime], ...]:
    if container is None:
        return ()
    dates = []
    for entry in container.iterfind("History/PubMedPubDate"):
        year, month, day = (_int(entry.findtext(part)) for part in ("Year", "Month", "Day"))
        if not (year and month and day):
            continue
        hour = _int(entry.findtext("Hour")) or 0
        minute = _int(entry.findtext("Minute")) or 0
        dates.append((entry.get("PubStatus", ""), datetime(year, month, day, hour, minute)))
    return tuple(dates)


def parse_article(element: etree._Element) -> PubmedArticle:
    """Extract every field the fake uses from one PubmedArticle or PubmedBookArticle element."""
    is_book = element.tag == "PubmedBookArticle"
    citation = element.find("BookDocument" if is_book else "MedlineCitation")
    if citation is None:
        raise ValueError(f"not a PubMed record: <{element.tag}>")
    pubmed_data = element.find("PubmedBookData" if is_book else "PubmedData")
    article = citation if is_book else citation.find("Article")
    if article is None:
        raise ValueError("PubmedArticle without Article")
    journal = article.find("Journal")
    journal_issue = journal.find("JournalIssue") if journal is not None else None
    book = citation.find("Book") if is_book else None
    journal_info = citation.find("MedlineJournalInfo")

    if is_book:
        title = element_text(citation.find("ArticleTitle")) or element_text(
            book.find("BookTitle") if book is not None else None
        )
        pub_date = _partial_date(book.find("PubDate") if book is not None else None)
        authors = _authors(citation.find("AuthorList[@Type='authors']"))
        if not authors and book is not None:
            authors = _authors(book.find("AuthorList[@Type='authors']"))
    else:
        title = element_text(article.find("ArticleTitle")) or element_text(article.find("VernacularTitle"))
        pub_date = _partial_date(journal_issue.find("PubDate") if journal_issue is not None else None)
        authors = _authors(article.find("AuthorList"))
    history = _history(pubmed_data)
    if pub_date is None:
        first = min((moment for _, moment in history), default=datetime(1900, 1, 1))
        pub_date = PartialDate(year=first.year, text=str(first.year))

    epub = None
    for article_date in article.iterfind("ArticleDate"):
        if article_date.get("DateType", "Electronic") == "Electronic":
            epub = _partial_date(article_date)

    mesh = tuple(
        MeshHeading(
            descriptor=element_text(heading.find("DescriptorName")),
            ui=heading.find("DescriptorName").get("UI", ""),
            major=heading.find("DescriptorName").get("MajorTopicYN") == "Y",
            qualifiers=tuple(
                (element_text(qualifier), qualifier.get("MajorTopicYN") == "Y")
                for qualifier in heading.iterfind("QualifierName")
            ),
        )
        for heading in citation.iterfind("MeshHeadingList/MeshHeading")
        if heading.find("DescriptorName") is not None
    )
    keyword_lists = citation.findall("KeywordList")
    abstract = article.find("Abstract")
    sections = tuple(
        (text_element.get("Label", ""), element_text(text_element))
        for text_element in (abstract.iterfind("AbstractText") if abstract is not None else ())
    )
    id_container = pubmed_data if pubmed_data is not None else citation
    article_ids = tuple(
        (article_id.get("IdType", ""), (article_id.text or "").strip())
        for article_id in id_container.iterfind("ArticleIdList/ArticleId")
    )
    if is_book:
        article_ids += tuple(
            (article_id.get("IdType", ""), (article_id.text or "").strip())
            for article_id in citation.iterfind("ArticleIdList/ArticleId")
        )
    references = tuple(
        dict.fromkeys(
            (reference.text or "").strip()
            for reference in (
                pubmed_data.iterfind(".//ReferenceList/Reference/ArticleIdList/ArticleId[@IdType='pubmed']")
                if pubmed_data is not None
                else ()
            )
        )
    )

    parsed = {
        "source_pmid": citation.findtext("PMID").strip(),
        "xml": etree.tostring(element, encoding="unicode", with_tail=False),
        "is_book": is_book,
        "status": citation.get("Status", ""),
        "owner": citation.get("Owner", ""),
        "title": title,
        "abstract_sections": sections,
        "copyright": _text_at(abstract, "CopyrightInformation"),
        "authors": authors,
        "journal_title": _text_at(journal, "Title"),
        "iso_abbreviation": _text_at(journal, "ISOAbbreviation"),
        "medline_ta": _text_at(journal_info, "MedlineTA"),
        "nlm_unique_id": _text_at(journal_info, "NlmUniqueID"),
        "country": _text_at(journal_info, "Country"),
        "issns": tuple((element_text(issn), issn.get("IssnType", "")) for issn in journal.iterfind("ISSN"))
        if journal is not None
        else (),
        "issn_linking": _text_at(journal_info, "ISSNLinking"),
        "volume": _text_at(journal_issue, "Volume"),
        "issue": _text_at(journal_issue, "Issue"),
        "pages": _pages(article.find("Pagination")),
        "elocations": tuple(
            (location.get("EIdType", ""), element_text(location))
            for location in (book if book is not None else article).iterfind("ELocationID")
            if location.get("ValidYN", "Y") == "Y"
        ),
        "pub_model": article.get("PubModel", "") if not is_book else "",
        "pub_date": pub_date,
        "epub_date": epub,
        "languages": tuple(element_text(language) for language in article.iterfind("Language")),
        "publication_types": tuple(element_text(kind) for kind in article.iterfind(".//PublicationType")),
        "mesh": mesh,
        "keywords": tuple(
            element_text(keyword) for keywords in keyword_lists for keyword in keywords.iterfind("Keyword")
        ),
        "keyword_owner": keyword_lists[0].get("Owner", "") if keyword_lists else "",
        "substances": tuple(
            (element_text(chemical.find("RegistryNumber")), element_text(chemical.find("NameOfSubstance")))
            for chemical in citation.iterfind("ChemicalList/Chemical")
        ),
        "databanks": tuple(
            (element_text(bank.find("DataBankName")), element_text(accession))
            for bank in article.iterfind("DataBankList/DataBank")
            for accession in bank.iterfind("AccessionNumberList/AccessionNumber")
        ),
        "grants": tuple(
            tuple(element_text(grant.find(part)) for part in ("GrantID", "Acronym", "Agency", "Country"))
            for grant in article.iterfind("GrantList/Grant")
        ),
        "citation_subsets": tuple(element_text(subset) for subset in citation.iterfind("CitationSubset")),
        "coi_statement": element_text(citation.find("CoiStatement")),
        "date_completed": _full_date(citation.find("DateCompleted")),
        "date_revised": _full_date(citation.find("DateRevised")),
        "history": history,
        "publication_status": _text_at(pubmed_data, "PublicationStatus"),
        "article_ids": article_ids,
        "references": tuple(reference for reference in references if reference),
        "publisher_name": _text_at(book, "Publisher/PublisherName"),
        "publisher_location": _text_at(book, "Publisher/PublisherLocation"),
        "book_title": _text_at(book, "BookTitle"),
        "medium": _text_at(book, "Medium"),
    }
    return PubmedArticle(**parsed, search=_search_text(parsed))


def _pages(pagination: etree._Element | None) -> str:
    if pagination is None:
        return ""
    medline = element_text(pagination.find("MedlinePgn"))
    if medline:
        return medline
    start, end = element_text(pagination.find("StartPage")), element_text(pagination.find("EndPage"))
    return f"{start}-{end}" if start and end else start


def _search_text(fields: dict) -> SearchText:
    authors: tuple[Author, ...] = fields["authors"]
    mesh: tuple[MeshHeading, ...] = fields["mesh"]
    abstract = " ".join(text for _, text in fields["abstract_sections"])
    journals = [
        fields[name]
        for name in ("journal_title", "iso_abbreviation", "medline_ta", "nlm_unique_id", "issn_linking")
    ]
    journals += [issn for issn, _ in fields["issns"]]
    if fields["is_book"]:
        journals.append(fields["book_title"])
    qualifier_pairs = [
        (heading, qualifier, major) for heading in mesh for qualifier, major in heading.qualifiers
    ]
    languages = set()
    for code in fields["languages"]:
        languages.add(normalize(code))
        if code.lower() in LANGUAGE_NAMES:
            languages.add(LANGUAGE_NAMES[code.lower()])
    accessions = set()
    for bank, accession in fields["databanks"]:
        accessions.add(normalize(accession))
        accessions.add(normalize(f"{bank}/{accession}"))
    affiliations = [affiliation for author in authors for affiliation in author.affiliations]
    all_values = [fields["title"], abstract]
    all_values += [heading.descriptor for heading in mesh] + [
        qualifier for _, qualifier, _ in qualifier_pairs
    ]
    all_values += (
        list(fields["keywords"])
        + [author.display_name for author in authors]
        + [author.full_name for author in authors]
    )
    all_values += journals + list(fields["publication_types"]) + [name for _, name in fields["substances"]]
    all_values += [accession for _, accession in fields["databanks"]] + affiliations
    content = normalize(f"{fields['title']} {abstract}").split() + [f"mesh:{heading.ui}" for heading in mesh]
    return SearchText(
        title=padded([fields["title"]]),
        abstract=padded([abstract]),
        title_abstract=padded([fields["title"], abstract]),
        all_fields=padded(value for value in all_values if value),
        authors=tuple(normalize(author.display_name) for author in authors if not author.collective_name),
        full_authors=tuple(
            normalize(f"{author.last_name} {author.fore_name}")
            for author in authors
            if not author.collective_name
        ),
        collectives=tuple(normalize(author.collective_name) for author in authors if author.collective_name),
        affiliations=padded(affiliations),
        mesh_names=frozenset(normalize(heading.descriptor) for heading in mesh),
        mesh_uis=frozenset(heading.ui for heading in mesh),
        major_names=frozenset(normalize(heading.descriptor) for heading in mesh if heading.is_major),
        major_uis=frozenset(heading.ui for heading in mesh if heading.is_major),
        mesh_with_qualifiers=frozenset(
            normalize(f"{heading.descriptor} {qualifier}") for heading, qualifier, _ in qualifier_pairs
        ),
        major_with_qualifiers=frozenset(
            normalize(f"{heading.descriptor} {qualifier}")
            for heading, qualifier, major in qualifier_pairs
            if major or heading.major
        ),
        qualifiers=frozenset(normalize(qualifier) for _, qualifier, _ in qualifier_pairs),
        keywords=padded(fields["keywords"]),
        substances=padded(name for _, name in fields["substances"]),
        publication_types=frozenset(normalize(kind) for kind in fields["publication_types"]),
        languages=frozenset(languages),
        journals=frozenset(normalize(journal) for journal in journals if journal),
        accessions=frozenset(accessions),
        article_ids=frozenset(normalize(value) for _, value in fields["article_ids"] if value),
        content_tokens=frozenset(token for token in content if len(token) >= 3 and not token.isdigit()),
    )


def iter_article_elements(xml: bytes) -> Iterator[etree._Element]:
    """Each PubmedArticle/PubmedBookArticle in a PubmedArticleSet, or the single record given."""
    root = etree.fromstring(xml, parser=etree.XMLParser(resolve_entities=False, huge_tree=True))
    if root.tag in ("PubmedArticle", "PubmedBookArticle"):
        yield root
        return
    for child in root:
        if child.tag in ("PubmedArticle", "PubmedBookArticle"):
            yield child


def parse_articles(xml: bytes) -> list[PubmedArticle]:
    return [parse_article(element) for element in iter_article_elements(xml)]


@lru_cache(maxsize=4)
def load_real_articles(data_dir: Path) -> tuple[PubmedArticle, ...]:
    """The recorded corpus of `data_dir` (parsed once per process: the fakes copy, never mutate, it)."""
    path = data_dir / REAL_RECORDS
    if not path.is_file():
        raise FileNotFoundError(f"real PubMed records not found at {path}")
    with gzip.open(path, "rb") as stream:
        return tuple(parse_articles(stream.read()))
