"""The `pubmed` toolset (seed 001): the live PubMed gateway."""

from __future__ import annotations

import json

import anyio

from bio_mcp.features.literature import europepmc
from bio_mcp.features.literature.models import (
    EpmcCitationsRequest,
    EpmcCitationsResponse,
    EpmcSearchRequest,
    EpmcSearchResponse,
)
from bio_mcp.features.pubmed import (
    annotations,
    bibliography,
    details,
    fulltext,
    mesh_lookup,
    relationships,
    resources,
    search,
)
from bio_mcp.features.pubmed.models import (
    DetailsRequest,
    DetailsResponse,
    FormatCitationsRequest,
    FormatCitationsResponse,
    FullTextRequest,
    FullTextResponse,
    RelationshipsRequest,
    RelationshipsResponse,
    SearchRequest,
    SearchResponse,
)
from bio_mcp.server.runtime import Runtime
from bio_mcp.server.toolset import ResourceSpec, Toolset, ToolSpec, negotiated_protocol_version


def pubmed_toolset(runtime: Runtime) -> Toolset:
    async def run_annotations(request: annotations.AnnotationsRequest) -> annotations.AnnotationsResponse:
        return await annotations.pubtator_annotations(request, runtime.pubtator3, runtime.overflow)

    async def run_search(request: SearchRequest) -> SearchResponse:
        return await search.search_articles(request, runtime.eutils)

    async def run_details(request: DetailsRequest) -> DetailsResponse:
        return await details.fetch_article_details(request, runtime.eutils, runtime.overflow)

    async def run_format_citations(request: FormatCitationsRequest) -> FormatCitationsResponse:
        return await bibliography.format_citations(request, runtime.eutils, runtime.overflow)

    async def run_relationships(request: RelationshipsRequest) -> RelationshipsResponse:
        return await relationships.get_article_relationships(request, runtime.eutils)

    async def run_full_text(request: FullTextRequest) -> FullTextResponse:
        routes = fulltext.FullTextRoutes(runtime.europepmc, runtime.idconv, runtime.unpaywall)
        return await fulltext.fetch_full_text(request, runtime.eutils, routes)

    async def run_epmc_search(request: EpmcSearchRequest) -> EpmcSearchResponse:
        return await europepmc.search_europepmc(request, runtime.europepmc, runtime.overflow)

    async def run_epmc_citations(request: EpmcCitationsRequest) -> EpmcCitationsResponse:
        return await europepmc.europepmc_citations(request, runtime.europepmc, runtime.overflow)

    async def run_mesh_lookup(request: mesh_lookup.MeshLookupRequest) -> mesh_lookup.MeshLookupResponse:
        # The first call reads the MeSH file (about a second); later calls find it in memory.
        vocabulary = await anyio.to_thread.run_sync(mesh_lookup.mesh_vocabulary, runtime.settings)
        return mesh_lookup.lookup_mesh_terms(request, vocabulary)

    async def read_info() -> str:
        info = resources.server_info(runtime.settings, runtime.eutils, negotiated_protocol_version.get())
        return json.dumps(info, ensure_ascii=False)

    async def read_stats() -> str:
        return json.dumps(await resources.pubmed_stats(runtime.eutils), ensure_ascii=False)

    return Toolset(
        name="pubmed",
        tools=[
            ToolSpec(
                name="searchPubMedArticles",
                title="Search PubMed",
                description="Searches PubMed for articles matching a query term (Entrez syntax allowed). Returns "
                "PMIDs, the total count, the effective ESearch term and optional brief ESummary v2.0 summaries.",
                input_model=SearchRequest, output_model=SearchResponse,
                run=run_search, summarize=search.summarize,
            ),
            ToolSpec(
                name="pubtator_annotations",
                title="PubTator3 entity annotations",
                description="NCBI PubTator3's entities in up to 100 PubMed records: genes (NCBI Gene ids), variants "
                "(rs ids, HGVS), species, cell lines, diseases and chemicals, each mention with its offset.",
                input_model=annotations.AnnotationsRequest, output_model=annotations.AnnotationsResponse,
                run=run_annotations, summarize=annotations.summarize,
            ),
            ToolSpec(
                name="fetchArticleDetails",
                title="Fetch PubMed article details",
                description="Retrieves details for up to 200 PMIDs with EFetch: abstract_plus (parsed title, "
                "abstract, authors, journal, MeSH, grants, DOI), full_xml, medline_text or citation_data. Records "
                "past the result budget are kept in a bio-mcp://scratch/ resource named in `overflow`.",
                input_model=DetailsRequest, output_model=DetailsResponse,
                run=run_details, summarize=details.summarize,
            ),
            ToolSpec(
                name="getArticleRelationships",
                title="Related PubMed articles and citations",
                description="Finds articles similar to, citing, or referenced by a PMID (ELink), or formats its "
                "citation as RIS, BibTeX, APA, MLA or Vancouver.",
                input_model=RelationshipsRequest, output_model=RelationshipsResponse,
                run=run_relationships, summarize=relationships.summarize,
            ),
            ToolSpec(
                name="formatCitations",
                title="Format citations for many PMIDs",
                description="Formats the citations of up to 200 PMIDs in one call (one EFetch), in any of "
                "vancouver, apa_string, mla_string, bibtex and ris: a ready reference list, in the order given. "
                "Citations past the result budget are kept in a bio-mcp://scratch/ resource named in `overflow`.",
                input_model=FormatCitationsRequest, output_model=FormatCitationsResponse,
                run=run_format_citations, summarize=bibliography.summarize,
            ),
            ToolSpec(
                name="fetchFullText",
                title="Full text of an open article",
                description="Full text by pmid, pmcid or doi, as sections (heading path, paragraphs, captions), "
                "optionally only those named in sectionTitles: from PubMed Central, else Europe PMC. Without "
                "text it is NOT_FOUND with details.reason (no_pmc_record, not_open_access, not_found, or "
                "open_access_elsewhere with Unpaywall's openAccessLocation).",
                input_model=FullTextRequest, output_model=FullTextResponse,
                run=run_full_text, summarize=fulltext.summarize,
            ),
            ToolSpec(
                name="europepmc_search",
                title="Search Europe PMC",
                description="Searches Europe PMC (PubMed, PMC, preprints, patents) in its query syntax: lite or "
                "core (with abstracts) records, preprint and open-access filters, nextCursor paging.",
                input_model=EpmcSearchRequest, output_model=EpmcSearchResponse,
                run=run_epmc_search, summarize=europepmc.summarize_search,
            ),
            ToolSpec(
                name="europepmc_citations",
                title="Citations and references (Europe PMC)",
                description="Works citing a paper, or cited by it (direction references), from Europe PMC; "
                "paged by nextPage.",
                input_model=EpmcCitationsRequest, output_model=EpmcCitationsResponse,
                run=run_epmc_citations, summarize=europepmc.summarize_citations,
            ),
            ToolSpec(
                name="lookupMeshTerms",
                title="Look up MeSH descriptors",
                description="Finds MeSH 2024 descriptors by id, heading, entry term or brand name ('tylenol' -> "
                "Acetaminophen): id, name, type, synonyms, tree numbers, broader descriptors (no scope notes: the "
                "local file has none). For [MeSH Terms] queries and knowledge-graph entity ids.",
                input_model=mesh_lookup.MeshLookupRequest, output_model=mesh_lookup.MeshLookupResponse,
                run=run_mesh_lookup, summarize=mesh_lookup.summarize, open_world=False,
            ),
        ],
        resources=[
            ResourceSpec("pubmed-connect://info", "serverInfo",
                         "Server version, configuration, NCBI compliance and status", "application/json", read_info),
            ResourceSpec("pubmed-connect://stats/pubmed", "getPubMedStats",
                         "PubMed database statistics from EInfo", "application/json", read_stats),
        ],
    )
