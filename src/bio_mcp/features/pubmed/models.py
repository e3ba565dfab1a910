"""The PubMed gateway's contracts (seed 001 §3 and §4): inputs, outputs, resource bodies."""

from __future__ import annotations

from calendar import monthrange
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from bio_mcp.models import ToolInput, ToolOutput

Pmid = Annotated[str, StringConstraints(pattern=r"^\d+$", max_length=12)]
# PubMed's ESearch serves only the first 9,999 ids of a result.
MAX_RET_START = 9998
EntrezDate = Annotated[str, StringConstraints(pattern=r"^\d{4}(/\d{2}(/\d{2})?)?$")]


class SeedInput(ToolInput):
    # Seed 001's schemas are zod objects, which strip unknown keys rather than reject them.
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class DateRange(SeedInput):
    min_date: EntrezDate | None = Field(default=None, alias="minDate", description="YYYY, YYYY/MM, or YYYY/MM/DD")
    max_date: EntrezDate | None = Field(default=None, alias="maxDate", description="YYYY, YYYY/MM, or YYYY/MM/DD")
    date_type: Literal["pdat", "mdat", "edat"] = Field(
        default="pdat", alias="dateType",
        description="pdat: publication date, mdat: modification date, edat: Entrez date",
    )

    @model_validator(mode="after")
    def _a_possible_range(self) -> DateRange:
        low = _calendar_bound(self.min_date, "minDate", end=False)
        high = _calendar_bound(self.max_date, "maxDate", end=True)
        if low and high and low > high:
            raise ValueError(f"minDate {self.min_date} is after maxDate {self.max_date}: the range is empty")
        return self


def _calendar_bound(value: str | None, name: str, *, end: bool) -> date | None:
    """The first (or, with `end`, last) day an Entrez date names; ValueError for a day that does not exist."""
    if not value:
        return None
    parts = [int(part) for part in value.split("/")]
    year, month, day = parts + [None] * (3 - len(parts))
    if month is not None and not 1 <= month <= 12:
        raise ValueError(f"{name} {value}: month {month:02d} does not exist")
    if month is None:
        return date(year, 12, 31) if end else date(year, 1, 1)
    if day is None:
        return date(year, month, monthrange(year, month)[1] if end else 1)
    try:
        return date(year, month, day)
    except ValueError:
        raise ValueError(f"{name} {value}: day {day:02d} does not exist in {year}/{month:02d}") from None


class SearchRequest(SeedInput):
    query_term: str = Field(
        alias="queryTerm", min_length=3, max_length=4000, description="PubMed query (Entrez syntax allowed)"
    )
    max_results: int = Field(default=20, alias="maxResults", gt=0, le=1000, description="ESearch retmax")
    sort_by: Literal["relevance", "pub_date", "author", "journal_name"] = Field(
        default="relevance", alias="sortBy",
        description="relevance (PubMed's Best Match), pub_date (newest first), author or journal_name (A-Z)",
    )
    date_range: DateRange | None = Field(default=None, alias="dateRange", description="A date range for the search")
    filter_by_publication_types: list[Annotated[str, StringConstraints(max_length=100)]] | None = Field(
        default=None, alias="filterByPublicationTypes", max_length=20,
        description="e.g. ['Review', 'Clinical Trial'], mapped to \"Review\"[Publication Type]",
    )
    fetch_brief_summaries: int = Field(
        default=0, alias="fetchBriefSummaries", ge=0, le=100,
        description="Number of top PMIDs to summarise with ESummary v2.0; 0 disables",
    )
    ret_start: int = Field(
        default=0, alias="retStart", ge=0, le=MAX_RET_START,
        description="Index of the first PMID, for paging (next page: retStart + maxResults); at most 9998, as "
        "PubMed serves 10,000 results",
    )


class BriefSummary(ToolOutput):
    omit_none = True
    pmid: str
    title: str | None = None
    authors: str | None = None
    source: str | None = None
    pub_date: str | None = Field(default=None, alias="pubDate")
    epub_date: str | None = Field(default=None, alias="epubDate")


class QueryRepair(ToolOutput):
    original: str = Field(description="The queryTerm as sent")
    repaired: str = Field(description="The term actually searched, before filters were ANDed to it")
    note: str = Field(description="What was changed and why")


class SearchParameters(ToolOutput):
    omit_none = True
    query_term: str = Field(alias="queryTerm")
    max_results: int = Field(alias="maxResults")
    sort_by: str = Field(alias="sortBy")
    fetch_brief_summaries: int = Field(alias="fetchBriefSummaries")
    date_range: dict[str, str] | None = Field(default=None, alias="dateRange")
    filter_by_publication_types: list[str] | None = Field(default=None, alias="filterByPublicationTypes")
    ret_start: int = Field(default=0, alias="retStart")


class SearchResponse(ToolOutput):
    omit_none = True
    search_parameters: SearchParameters = Field(alias="searchParameters")
    effective_esearch_term: str = Field(alias="effectiveESearchTerm")
    total_found: int = Field(alias="totalFound")
    retrieved_pmid_count: int = Field(alias="retrievedPmidCount")
    pmids: list[str]
    brief_summaries: list[BriefSummary] = Field(default_factory=list, alias="briefSummaries")
    warnings: list[str] = Field(default_factory=list)
    esearch_url: str = Field(alias="eSearchUrl")
    esummary_url: str | None = Field(default=None, alias="eSummaryUrl")
    query_repair: QueryRepair | None = Field(
        default=None, alias="queryRepair",
        description="Present when the query had to be repaired to parse (unbalanced brackets, dangling operators)",
    )
    spelling_suggestion: str | None = Field(
        default=None, alias="spellingSuggestion",
        description="When nothing was found: NCBI ESpell's corrected query, to search again with",
    )
    next_ret_start: int | None = Field(
        default=None, alias="nextRetStart", description="retStart of the next page, when there is one"
    )
    espell_url: str | None = Field(default=None, alias="eSpellUrl")


class DetailsRequest(SeedInput):
    pmids: list[Pmid] = Field(min_length=1, max_length=200, description="PMIDs (digits); POST is used for long lists")
    detail_level: Literal["abstract_plus", "full_xml", "medline_text", "citation_data"] = Field(
        default="abstract_plus", alias="detailLevel",
        description="abstract_plus: parsed record (best for reading); citation_data: what a citation needs; "
        "full_xml / medline_text: the raw record. What exceeds the result budget is named in `overflow`",
    )
    include_mesh_terms: bool = Field(default=True, alias="includeMeshTerms",
                                     description="Include MeSH headings (abstract_plus and citation_data)")
    include_grant_info: bool = Field(default=False, alias="includeGrantInfo",
                                     description="Include the grant list (abstract_plus)")


class EFetchDetails(ToolOutput):
    urls: list[str]
    request_method: Literal["GET", "POST"] = Field(alias="requestMethod")


class RawRecord(ToolOutput):
    pmid: str
    content: str


class ResultOverflow(ToolOutput):
    """What did not fit the result budget, kept as a scratch text (readable as an MCP resource for 24 h)."""

    uri: str = Field(description="bio-mcp://scratch/{id}: read it with resources/read")
    pmids: list[str] = Field(description="The PMIDs whose records are in the scratch text, not in this result")
    mime_type: str = Field(alias="mimeType")
    chars: int = Field(description="Size of the scratch text in characters")


class DetailsResponse(ToolOutput):
    omit_none = True
    requested_pmids: list[str] = Field(alias="requestedPmids")
    detail_level: str = Field(alias="detailLevel")
    articles: list[dict[str, Any]] = Field(
        default_factory=list,
        description="abstract_plus and citation_data: parsed articles; full_xml: {pmid, content} with the "
        "PubmedArticle XML; medline_text: {pmid, content} with the MEDLINE record",
    )
    not_found_pmids: list[str] = Field(default_factory=list, alias="notFoundPmids")
    efetch_details: EFetchDetails = Field(alias="eFetchDetails")
    overflow: ResultOverflow | None = Field(
        default=None, description="Records that did not fit the result budget (additive field)")
    # Additive: what the answer left out or corrected (e.g. records NCBI sent that were not asked for).
    warnings: list[str] | None = None


RelationshipType = Literal["pubmed_similar_articles", "pubmed_citedin", "pubmed_references", "citation_formats"]
CitationStyle = Literal["ris", "bibtex", "apa_string", "mla_string", "vancouver"]
STYLES_DESCRIPTION = (
    "Citation styles: ris and bibtex (every author), apa_string (APA 7), mla_string (MLA 9), vancouver (NLM)"
)


class RelationshipsRequest(SeedInput):
    source_pmid: Pmid = Field(alias="sourcePmid", description="Primary PMID for relationship lookup")
    relationship_type: RelationshipType = Field(
        default="pubmed_similar_articles", alias="relationshipType",
        description="pubmed_similar_articles (best first), pubmed_citedin (citing it), pubmed_references (it "
        "cites), or citation_formats (its citation in citationStyles)",
    )
    max_related_results: int = Field(default=5, alias="maxRelatedResults", gt=0, le=50,
                                     description="How many related articles to return (1-50)")
    citation_styles: list[CitationStyle] = Field(default=["ris"], alias="citationStyles", min_length=1, max_length=10,
                                                 description=f"For citation_formats. {STYLES_DESCRIPTION}")


class RelatedArticle(ToolOutput):
    omit_none = True
    pmid: str
    title: str | None = None
    authors: str | None = None
    score: float | None = None
    link_url: str = Field(alias="linkUrl")


class RelationshipsResponse(ToolOutput):
    omit_none = True
    source_pmid: str = Field(alias="sourcePmid")
    relationship_type: str = Field(alias="relationshipType")
    related_articles: list[RelatedArticle] = Field(default_factory=list, alias="relatedArticles")
    citations: dict[str, str] = Field(default_factory=dict)
    retrieved_count: int = Field(alias="retrievedCount")
    total_available: int | None = Field(default=None, alias="totalAvailable")
    elink_url: str | None = Field(default=None, alias="eLinkUrl")
    efetch_url: str | None = Field(default=None, alias="eFetchUrl")
    warnings: list[str] = Field(
        default_factory=list, description="A step that failed (which NCBI utility, why) and what is missing because of it"
    )



class FormatCitationsRequest(ToolInput):
    pmids: list[Pmid] = Field(min_length=1, max_length=200,
                              description="PMIDs (digits) to cite, in the order the reference list should keep")
    styles: list[CitationStyle] = Field(default=["vancouver"], min_length=1, description=STYLES_DESCRIPTION)


class FormattedCitation(ToolOutput):
    pmid: str
    citations: dict[str, str] = Field(description="Style name -> formatted citation")


class FormatCitationsResponse(ToolOutput):
    omit_none = True
    requested_pmids: list[str] = Field(alias="requestedPmids")
    styles: list[str]
    citations: list[FormattedCitation] = Field(description="One entry per PMID found, in the requested order")
    not_found_pmids: list[str] = Field(default_factory=list, alias="notFoundPmids")
    efetch_url: str = Field(alias="eFetchUrl")
    overflow: ResultOverflow | None = Field(default=None, description="Citations that did not fit the result budget")


PmcId = Annotated[str, StringConstraints(pattern=r"^(PMC|pmc)?\d+$", max_length=16)]


Doi = Annotated[str, StringConstraints(pattern=r"^(https?://(dx\.)?doi\.org/|doi:)?10\.\d{4,9}/\S+$", max_length=300)]


class FullTextRequest(SeedInput):
    pmid: Pmid | None = Field(
        default=None, description="A PMID; its PubMed Central article is found with ELink (pubmed_pmc)"
    )
    pmcid: PmcId | None = Field(default=None, description="A PubMed Central id, e.g. PMC3040717 (or 3040717)")
    doi: Doi | None = Field(default=None, description="A DOI, e.g. 10.1038/ng.590 (PMC ID Converter maps it)")
    section_titles: list[str] | None = Field(
        default=None, alias="sectionTitles", max_length=20,
        description="Only sections whose heading (or a parent's) contains one of these words, e.g. ['Methods']",
    )

    @model_validator(mode="after")
    def _one_id(self) -> FullTextRequest:
        if sum(value is not None for value in (self.pmid, self.pmcid, self.doi)) != 1:
            raise ValueError("give exactly one of pmid, pmcid or doi")
        return self


class FullTextSection(ToolOutput):
    title: str
    level: int = Field(description="1 for a top-level section, 2 for its subsections, ...")
    path: list[str] = Field(description="The headings from the top-level section down to this one")
    text: str = Field(description="The section's own paragraphs (not its subsections'), blank-line separated")
    captions: list[str] = Field(default_factory=list, description="Captions of the section's figures and tables")


class FullTextResponse(ToolOutput):
    omit_none = True
    pmcid: str | None = None
    pmid: str | None = None
    doi: str | None = None
    title: str
    journal: str | None = None
    article_type: str | None = Field(default=None, alias="articleType")
    license: str | None = None
    abstract: str
    sections: list[FullTextSection]
    section_count: int = Field(alias="sectionCount", description="Sections in the article, before any filter")
    reference_count: int = Field(alias="referenceCount")
    efetch_url: str = Field(alias="eFetchUrl", description="The URL the text came from")
    elink_url: str | None = Field(default=None, alias="eLinkUrl")
    text_source: Literal["pmc", "europepmc"] = Field(default="pmc", alias="textSource")
    tried: list[str] = Field(default_factory=list, description="Routes tried before the one that answered")
