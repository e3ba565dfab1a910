"""The PubMed gateway's contracts (seed 001 §3 and §4): inputs, outputs, resource bodies."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints

from bio_mcp.models import ToolInput, ToolOutput

Pmid = Annotated[str, StringConstraints(pattern=r"^\d+$", max_length=12)]
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


class SearchRequest(SeedInput):
    query_term: str = Field(alias="queryTerm", min_length=3, description="PubMed query (Entrez syntax allowed)")
    max_results: int = Field(default=20, alias="maxResults", gt=0, le=1000, description="ESearch retmax")
    sort_by: Literal["relevance", "pub_date", "author", "journal_name"] = Field(default="relevance", alias="sortBy")
    date_range: DateRange | None = Field(default=None, alias="dateRange", description="A date range for the search")
    filter_by_publication_types: list[str] | None = Field(
        default=None, alias="filterByPublicationTypes", max_length=20,
        description="e.g. ['Review', 'Clinical Trial'], mapped to \"Review\"[Publication Type]",
    )
    fetch_brief_summaries: int = Field(
        default=0, alias="fetchBriefSummaries", ge=0, le=100,
        description="Number of top PMIDs to summarise with ESummary v2.0; 0 disables",
    )


class BriefSummary(ToolOutput):
    omit_none = True
    pmid: str
    title: str | None = None
    authors: str | None = None
    source: str | None = None
    pub_date: str | None = Field(default=None, alias="pubDate")
    epub_date: str | None = Field(default=None, alias="epubDate")


class SearchParameters(ToolOutput):
    query_term: str = Field(alias="queryTerm")
    max_results: int = Field(alias="maxResults")
    sort_by: str = Field(alias="sortBy")
    fetch_brief_summaries: int = Field(alias="fetchBriefSummaries")
    date_range: dict[str, str] | None = Field(default=None, alias="dateRange")
    filter_by_publication_types: list[str] | None = Field(default=None, alias="filterByPublicationTypes")


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


class DetailsRequest(SeedInput):
    pmids: list[Pmid] = Field(min_length=1, max_length=200, description="PMIDs (digits); POST is used for long lists")
    detail_level: Literal["abstract_plus", "full_xml", "medline_text", "citation_data"] = Field(
        default="abstract_plus", alias="detailLevel"
    )
    include_mesh_terms: bool = Field(default=True, alias="includeMeshTerms")
    include_grant_info: bool = Field(default=False, alias="includeGrantInfo")


class EFetchDetails(ToolOutput):
    urls: list[str]
    request_method: Literal["GET", "POST"] = Field(alias="requestMethod")


class RawRecord(ToolOutput):
    pmid: str
    content: str


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
    # Additive: what the answer left out or corrected (e.g. records NCBI sent that were not asked for).
    warnings: list[str] | None = None


RelationshipType = Literal["pubmed_similar_articles", "pubmed_citedin", "pubmed_references", "citation_formats"]
CitationStyle = Literal["ris", "bibtex", "apa_string", "mla_string"]


class RelationshipsRequest(SeedInput):
    source_pmid: Pmid = Field(alias="sourcePmid", description="Primary PMID for relationship lookup")
    relationship_type: RelationshipType = Field(default="pubmed_similar_articles", alias="relationshipType")
    max_related_results: int = Field(default=5, alias="maxRelatedResults", gt=0, le=50)
    citation_styles: list[CitationStyle] = Field(default=["ris"], alias="citationStyles", min_length=1)


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
