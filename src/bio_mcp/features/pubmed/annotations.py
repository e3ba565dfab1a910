"""`pubtator_annotations`: PubTator3's genes (NCBI Gene ids), variants, species, cell lines, diseases and
chemicals in PubMed records, each mention with its offset. A PMID PubTator3 lacks is named, not dropped."""

from __future__ import annotations

from collections import defaultdict
from typing import ClassVar

from pydantic import Field

from bio_mcp.features.overflow import STRUCTURED_FACTOR, Overflow, json_size, spill
from bio_mcp.models import ToolInput, ToolOutput
from bio_mcp.sources.pubtator3.client import MAX_PMIDS_PER_REQUEST, Pubtator3Client
from bio_mcp.sources.pubtator3.models import EntityType, PublicationAnnotations


class AnnotationsRequest(ToolInput):
    pmids: list[str] = Field(
        min_length=1, max_length=MAX_PMIDS_PER_REQUEST, description="PubMed ids, up to 100"
    )
    types: list[EntityType] = Field(default_factory=list, description="Only these entity types (default all)")


class AnnotationsOverflow(ToolOutput):
    uri: str = Field(description="bio-mcp://scratch/... holding the publications that did not fit")
    pmids: list[str]


class AnnotationsResponse(ToolOutput):
    omit_none: ClassVar[bool] = True

    publications: list[PublicationAnnotations]
    not_found_pmids: list[str] = Field(description="PMIDs PubTator3 has no annotations for")
    overflow: AnnotationsOverflow | None = None


def publication_text(publication: PublicationAnnotations) -> str:
    """One line per entity: type, normalised name and id, then each surface form with its offsets."""
    mentions: dict[tuple[str, str | None, str | None], dict[str, list[int]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for a in publication.annotations:
        mentions[(a.type, a.name, a.identifier)][a.text].append(a.offset)
    lines = [f"### PMID {publication.pmid}" + (f" ({publication.pmcid})" if publication.pmcid else "")]
    if not mentions:
        lines.append("No entity annotated.")
    for (kind, name, identifier), forms in mentions.items():
        shown = "; ".join(f"'{text}' at {', '.join(map(str, offsets))}" for text, offsets in forms.items())
        lines.append(f"- {kind} {name or '(not normalised)'} [{identifier or 'no id'}]: {shown}")
    return "\n".join(lines)


async def pubtator_annotations(
    request: AnnotationsRequest, pubtator3: Pubtator3Client, overflow: Overflow | None = None
) -> AnnotationsResponse:
    found = await pubtator3.annotations(request.pmids)
    wanted = set(request.types)
    publications = [
        p.model_copy(update={"annotations": [a for a in p.annotations if a.type in wanted]}) if wanted else p
        for p in found.values()
    ]
    spilled = await spill(
        overflow,
        publications,
        lambda p: max(
            len(publication_text(p)) + 1, -(-json_size(p.model_dump(mode="json")) // STRUCTURED_FACTOR)
        ),
        lambda rest: "\n".join(p.model_dump_json() for p in rest),
        "application/x-ndjson",
    )
    return AnnotationsResponse(
        publications=spilled.kept,
        not_found_pmids=[p for p in dict.fromkeys(request.pmids) if p not in found],
        overflow=AnnotationsOverflow(uri=spilled.uri, pmids=[p.pmid for p in spilled.rest])
        if spilled.uri
        else None,
    )


def summarize(response: AnnotationsResponse) -> str:
    lines = [publication_text(p) for p in response.publications]
    if response.not_found_pmids:
        lines.append(f"PubTator3 has no annotations for PMID {', '.join(response.not_found_pmids)}.")
    if response.overflow:
        lines.append(f"PMIDs {', '.join(response.overflow.pmids)} did not fit: {response.overflow.uri}")
    return "\n\n".join(lines)
