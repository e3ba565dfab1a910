"""Contracts of the Europe PMC tools: search with cursor paging, a paper's citations and references."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints
from pydantic.json_schema import SkipJsonSchema

from bio_mcp.features.pubmed.models import ResultOverflow
from bio_mcp.models import NON_BLANK_PATTERN, ToolInput, ToolOutput

# The outputs drop absent optional fields (omit_none) rather than send null, so their listed schema
# need not offer null: that keeps these tools' share of tools/list small.
Omitted = SkipJsonSchema[None]
EpmcId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z]*\d+$", max_length=20)]


class EpmcSearchRequest(ToolInput):
    query: str = Field(
        min_length=1, max_length=2000, pattern=NON_BLANK_PATTERN,
        description="Europe PMC syntax, passed through, e.g. TITLE:CRISPR AND PUB_YEAR:2020",
    )
    result_type: Literal["lite", "core"] = Field(
        default="lite", alias="resultType", description="core adds abstracts and full-text links"
    )
    page_size: int = Field(default=25, alias="pageSize", ge=1, le=100, description="Records per page")
    cursor: str = Field(default="*", max_length=200, description="The previous page's nextCursor")
    preprints_only: bool = Field(default=False, alias="preprintsOnly", description="Only preprints (SRC:PPR)")
    open_access_only: bool = Field(default=False, alias="openAccessOnly", description="Only open-access articles")
    sort: str | None = Field(
        default=None, max_length=60, description="e.g. 'CITED desc'; relevance if absent"
    )


class EpmcArticle(ToolOutput):
    omit_none = True
    id: str = Field(description="Europe PMC id (the PMID for source MED)")
    epmc_source: str = Field(alias="epmcSource", description="MED, PMC, PPR (preprint), AGR, PAT, ...")
    pmid: str | Omitted = None
    pmcid: str | Omitted = None
    doi: str | Omitted = None
    title: str | Omitted = None
    authors: str | Omitted = None
    source: str | Omitted = Field(default=None, description="Journal, or the preprint server")
    pub_date: str | Omitted = Field(default=None, alias="pubDate")
    is_preprint: bool = Field(default=False, alias="isPreprint")
    is_open_access: bool | Omitted = Field(default=None, alias="isOpenAccess")
    cited_by_count: int | Omitted = Field(default=None, alias="citedByCount")
    abstract: str | Omitted = None
    full_text_urls: list[str] | Omitted = Field(default=None, alias="fullTextUrls")


class EpmcOverflow(ResultOverflow):
    pmids: list[str] = Field(description="The Europe PMC ids whose records are in the scratch text")


class EpmcSearchResponse(ToolOutput):
    omit_none = True
    query: str
    effective_query: str = Field(alias="effectiveQuery", description="The query sent, filters ANDed to it")
    result_type: str = Field(alias="resultType")
    total_found: int = Field(alias="totalFound")
    retrieved_count: int = Field(alias="retrievedCount")
    articles: list[EpmcArticle]
    next_cursor: str | Omitted = Field(default=None, alias="nextCursor", description="Absent on the last page")
    search_url: str = Field(alias="searchUrl")
    overflow: EpmcOverflow | Omitted = None


class EpmcCitationsRequest(ToolInput):
    id: EpmcId = Field(description="The paper's id in source: a PMID for MED, PPR123 for PPR")
    source: Literal["MED", "PMC", "PPR", "AGR", "CBA", "PAT"] = Field(default="MED", description="PPR: preprints")
    direction: Literal["citations", "references"] = Field(
        default="citations", description="citations: works citing it; references: works it cites"
    )
    page: int = Field(default=1, ge=1, le=10_000, description="1 for the first")
    page_size: int = Field(default=25, alias="pageSize", ge=1, le=100, description="Records per page")


class EpmcCitationsResponse(ToolOutput):
    omit_none = True
    id: str
    source: str
    direction: str
    total_found: int | Omitted = Field(default=None, alias="totalFound", description="Absent when not given")
    page: int
    retrieved_count: int = Field(alias="retrievedCount")
    articles: list[EpmcArticle]
    next_page: int | Omitted = Field(default=None, alias="nextPage", description="Absent on the last page")
    url: str
    overflow: EpmcOverflow | Omitted = None
