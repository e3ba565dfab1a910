"""Typed results of the E-utilities parsers.

Field names are snake_case in Python and camelCase on the wire (seed 001 §3.2 `articles[]`), so
`model_dump(by_alias=True)` gives the contract's shape. A publication date keeps its parts (and any
free-text MedlineDate or Season verbatim) beside one ISO form (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`);
other dates are ISO strings.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field
from pydantic.alias_generators import to_camel


class NcbiModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


# --- EFetch: PubmedArticle / PubmedBookArticle -------------------------------------------------


class PublicationDate(NcbiModel):
    """A PubDate: its parts (month as 'Mar' however NCBI spelled it), MedlineDate/Season verbatim, and `iso`."""

    year: int | None = None
    month: str | None = Field(default=None, description="Three-letter English month, e.g. 'Mar'")
    day: int | None = None
    season: str | None = None
    medline_date: str | None = Field(default=None, description="Free-text date, e.g. '1998 Dec-1999 Jan'")
    iso: str | None = None


class Author(NcbiModel):
    last_name: str | None = None
    first_name: str | None = None
    initials: str | None = None
    suffix: str | None = None
    collective_name: str | None = None
    affiliation: str | None = Field(default=None, description="The first affiliation")
    affiliations: list[str] = Field(default_factory=list)
    orcid: str | None = Field(default=None, description="Bare ORCID iD, e.g. 0000-0002-1825-0097")


class JournalInfo(NcbiModel):
    title: str | None = None
    iso_abbreviation: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publication_date: PublicationDate = Field(default_factory=PublicationDate)
    issn: str | None = None
    issn_type: str | None = None
    issn_linking: str | None = None
    nlm_unique_id: str | None = None
    medline_ta: str | None = None
    country: str | None = None


class AbstractSection(NcbiModel):
    label: str | None = None
    nlm_category: str | None = None
    text: str


class MeshQualifier(NcbiModel):
    name: str
    ui: str | None = None
    is_major_topic: bool = False


class MeshHeading(NcbiModel):
    """Deeply immutable (a tuple of qualifiers), so records of one EFetch response share each heading."""

    descriptor_name: str
    descriptor_ui: str | None = None
    is_major_topic: bool = Field(default=False, description="The descriptor's own major-topic flag")
    descriptor_type: str | None = Field(default=None, description="e.g. 'Geographic'")
    qualifiers: tuple[MeshQualifier, ...] = ()


class MeshTerm(NcbiModel):
    """One descriptor/qualifier pair, the seed's flat shape; major when either part is."""

    descriptor_name: str
    qualifier_name: str | None = None
    is_major_topic: bool = False
    ui: str | None = None


class Chemical(NcbiModel):
    """A substance of the record's ChemicalList: its MeSH name and id (a descriptor `D...` or a
    supplementary concept `C...`) and its registry number (CAS, UNII or EC; None where NLM has none)."""

    name: str
    ui: str | None = None
    registry_number: str | None = None


class Grant(NcbiModel):
    grant_id: str | None = None
    agency: str | None = None
    country: str | None = None
    acronym: str | None = None


class ArticleId(NcbiModel):
    id_type: str
    value: str


class CommentCorrection(NcbiModel):
    ref_type: str = Field(description="e.g. RetractionIn, RetractionOf, ErratumIn, CommentOn, UpdateOf")
    ref_source: str | None = None
    pmid: str | None = None


class DataBank(NcbiModel):
    name: str
    accession_numbers: list[str] = Field(default_factory=list)


class BookInfo(NcbiModel):
    book_title: str
    chapter_title: str | None = None
    publisher_name: str | None = None
    publisher_location: str | None = None
    authors: list[Author] = Field(default_factory=list)
    editors: list[Author] = Field(default_factory=list)
    medium: str | None = None
    edition: str | None = None
    volume: str | None = None
    collection_title: str | None = None
    isbns: list[str] = Field(default_factory=list)
    publication_date: PublicationDate = Field(default_factory=PublicationDate)
    beginning_date: str | None = None
    ending_date: str | None = None
    contribution_date: str | None = None


class Article(NcbiModel):
    """One EFetch record; `book` is set (and `journal_info` is None) for a PubmedBookArticle."""

    pmid: str
    record_type: Literal["journal_article", "book_article"] = "journal_article"
    title: str = ""
    vernacular_title: str | None = None
    abstract_text: str | None = None
    abstract_sections: list[AbstractSection] = Field(default_factory=list)
    authors: list[Author] = Field(default_factory=list)
    journal_info: JournalInfo | None = None
    publication_types: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    mesh_headings: list[MeshHeading] = Field(default_factory=list)
    chemicals: list[Chemical] = Field(default_factory=list, description="The ChemicalList: substances NLM indexed")
    gene_symbols: list[str] = Field(default_factory=list, description="The GeneSymbolList (MEDLINE, mostly 1991-1995)")
    grant_list: list[Grant] = Field(default_factory=list)
    doi: str | None = None
    pmcid: str | None = None
    article_ids: list[ArticleId] = Field(default_factory=list)
    languages: list[str] = Field(default_factory=list)
    citation_subsets: list[str] = Field(default_factory=list, description="e.g. AIM (Core Clinical), IM")
    medline_status: str | None = Field(default=None, description="MedlineCitation Status, e.g. MEDLINE")
    publication_status: str | None = Field(default=None, description="e.g. ppublish, epublish, aheadofprint")
    article_date: str | None = Field(default=None, description="Electronic publication date, ISO")
    date_completed: str | None = None
    date_revised: str | None = None
    history: dict[str, str] = Field(default_factory=dict, description="PubStatus -> ISO date")
    comments_corrections: list[CommentCorrection] = Field(default_factory=list)
    retracted: bool = False
    data_banks: list[DataBank] = Field(default_factory=list)
    reference_pmids: list[str] = Field(default_factory=list)
    book: BookInfo | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def mesh_terms(self) -> list[MeshTerm]:
        terms: list[MeshTerm] = []
        for heading in self.mesh_headings:
            if not heading.qualifiers:
                terms.append(
                    MeshTerm(
                        descriptor_name=heading.descriptor_name,
                        is_major_topic=heading.is_major_topic,
                        ui=heading.descriptor_ui,
                    )
                )
            for qualifier in heading.qualifiers:
                terms.append(
                    MeshTerm(
                        descriptor_name=heading.descriptor_name,
                        qualifier_name=qualifier.name,
                        is_major_topic=heading.is_major_topic or qualifier.is_major_topic,
                        ui=heading.descriptor_ui,
                    )
                )
        return terms


# --- ESearch ----------------------------------------------------------------------------------


class Translation(NcbiModel):
    from_: str = Field(alias="from")
    to: str


class TranslationTerm(NcbiModel):
    term: str
    field: str | None = None
    count: int | None = None
    explode: bool | None = None


class SearchWarning(NcbiModel):
    """A non-fatal note from ESearch's ErrorList/WarningList, e.g. PhraseNotFound."""

    kind: str
    text: str


class SearchResult(NcbiModel):
    count: int
    retmax: int | None = None
    retstart: int | None = None
    ids: list[str] = Field(default_factory=list)
    web_env: str | None = None
    query_key: str | None = None
    translation_set: list[Translation] = Field(default_factory=list)
    translation_stack: list[TranslationTerm | str] = Field(
        default_factory=list, description="Terms in postfix order; operators (AND, OR, GROUP...) as strings"
    )
    query_translation: str | None = None
    warnings: list[SearchWarning] = Field(default_factory=list)


# --- EPost ------------------------------------------------------------------------------------


class PostResult(NcbiModel):
    web_env: str
    query_key: str


# --- ESummary ---------------------------------------------------------------------------------


class SummaryAuthor(NcbiModel):
    name: str
    auth_type: str | None = None
    cluster_id: str | None = None


class DocumentSummary(NcbiModel):
    """One ESummary DocSum; `error` is set instead of the fields when NCBI had none for the uid."""

    uid: str
    error: str | None = None
    title: str | None = None
    authors: list[SummaryAuthor] = Field(default_factory=list)
    authors_text: str = Field(default="", description="Author names joined, e.g. 'Doe J, Smith A'")
    last_author: str | None = None
    sort_first_author: str | None = None
    source: str | None = None
    full_journal_name: str | None = None
    pub_date: str | None = None
    pub_date_iso: str | None = None
    epub_date: str | None = None
    epub_date_iso: str | None = None
    sort_pub_date: str | None = Field(default=None, description="ISO date")
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    elocation_id: str | None = None
    languages: list[str] = Field(default_factory=list)
    issn: str | None = None
    essn: str | None = None
    nlm_unique_id: str | None = None
    pub_types: list[str] = Field(default_factory=list)
    record_status: str | None = None
    pub_status: str | None = None
    article_ids: list[ArticleId] = Field(default_factory=list)
    doi: str | None = None
    pmcid: str | None = None
    history: dict[str, str] = Field(default_factory=dict, description="PubStatus -> ISO date")
    attributes: list[str] = Field(default_factory=list)
    has_abstract: bool | None = None
    pmc_ref_count: int | None = None
    doc_type: str | None = None
    book_title: str | None = None


# --- ELink ------------------------------------------------------------------------------------


class Link(NcbiModel):
    id: str
    score: int | None = None


class LinkSetDb(NcbiModel):
    db_to: str
    link_name: str
    links: list[Link] = Field(default_factory=list)
    info: str | None = None


class LinkSetDbHistory(NcbiModel):
    db_to: str
    link_name: str
    query_key: str | None = None
    info: str | None = None


class LinkOutUrl(NcbiModel):
    url: str | None = None
    link_name: str | None = None
    categories: list[str] = Field(default_factory=list)
    attributes: list[str] = Field(default_factory=list)
    subject_types: list[str] = Field(default_factory=list)
    provider_name: str | None = None
    provider_abbr: str | None = None
    provider_id: str | None = None


class IdUrlSet(NcbiModel):
    id: str
    urls: list[LinkOutUrl] = Field(default_factory=list)
    info: str | None = None


class AvailableLink(NcbiModel):
    db_to: str
    link_name: str
    menu_tag: str | None = None
    html_tag: str | None = None
    url: str | None = None
    priority: int | None = None


class IdCheck(NcbiModel):
    """cmd=ncheck/lcheck answer a flag per id; cmd=acheck lists the links available for it."""

    id: str
    has_neighbor: bool | None = None
    has_link_out: bool | None = None
    available_links: list[AvailableLink] = Field(default_factory=list)


class LinkSet(NcbiModel):
    db_from: str
    ids: list[str] = Field(default_factory=list)
    link_set_dbs: list[LinkSetDb] = Field(default_factory=list)
    link_set_db_histories: list[LinkSetDbHistory] = Field(default_factory=list)
    web_env: str | None = None
    id_url_sets: list[IdUrlSet] = Field(default_factory=list)
    id_checks: list[IdCheck] = Field(default_factory=list)
    error: str | None = None

    def links(self, link_name: str) -> list[Link]:
        """The links of one link name (e.g. 'pubmed_pubmed_citedin'), empty when absent."""
        for db in self.link_set_dbs:
            if db.link_name == link_name:
                return db.links
        return []


class LinkResult(NcbiModel):
    link_sets: list[LinkSet] = Field(default_factory=list)


# --- EInfo ------------------------------------------------------------------------------------


class SearchField(NcbiModel):
    name: str
    full_name: str | None = None
    description: str | None = None
    term_count: int | None = None
    is_date: bool = False
    is_numerical: bool = False
    single_token: bool = False
    hierarchy: bool = False
    is_hidden: bool = False
    is_truncatable: bool | None = None
    is_rangeable: bool | None = None


class DbLink(NcbiModel):
    name: str
    menu: str | None = None
    description: str | None = None
    db_to: str | None = None


class DbInfo(NcbiModel):
    db_name: str
    menu_name: str | None = None
    description: str | None = None
    db_build: str | None = None
    count: int | None = None
    last_update: str | None = Field(default=None, description="ISO date-time as NCBI gave it (US Eastern)")
    fields: list[SearchField] = Field(default_factory=list)
    links: list[DbLink] = Field(default_factory=list)


class InfoResult(NcbiModel):
    """EInfo without db= lists the databases; with db= describes one."""

    db_names: list[str] = Field(default_factory=list)
    db_info: DbInfo | None = None
