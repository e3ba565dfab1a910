"""PubTator3 BioC JSON (`publications/export/biocjson`) to `PublicationAnnotations`.

The identifier kept per type is the one a reader can check elsewhere: the NCBI Gene id for genes,
the rs id (else HGVS) for variants, the taxonomy id for species, the MeSH or Cellosaurus id as
PubTator3 gives it for the others. An unnormalised mention ("-") keeps its text with no identifier.
"""

from __future__ import annotations

import json
from typing import Any, get_args

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.pubtator3.models import (
    Annotation,
    EntityType,
    Passage,
    PublicationAnnotations,
    PublicationText,
)

ENTITY_TYPES = frozenset(get_args(EntityType))


def unparsable_json(body: bytes, content_type: str) -> BioMcpError | None:
    """A 2xx export that is not whole JSON was cut in transit: retried by the client."""
    try:
        json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        return BioMcpError(
            ErrorCode.UPSTREAM,
            "PubTator3 returned a body that is not whole JSON",
            {"bytes": len(body), "error": str(exc)[:200]},
        )
    return None


def _identifier(infons: dict[str, Any]) -> str | None:
    if infons.get("type") == "Variant":
        value = infons.get("rsid") or infons.get("hgvs")
    else:
        value = infons.get("identifier")
    if value is None or str(value).strip() in ("", "-"):
        return None
    return str(value)


def _gene(infons: dict[str, Any]) -> str | None:
    gene = infons.get("gene_id") if infons.get("type") == "Variant" else None
    return str(gene) if gene not in (None, "", "-") else None


def _annotations(passage: dict[str, Any]) -> list[Annotation]:
    section = (passage.get("infons") or {}).get("section_type") or (passage.get("infons") or {}).get("type")
    found = []
    for item in passage.get("annotations") or []:
        infons = item.get("infons") or {} if isinstance(item, dict) else {}
        if infons.get("type") not in ENTITY_TYPES or not item.get("text"):
            continue
        for location in item.get("locations") or []:
            found.append(
                Annotation(
                    type=infons["type"],
                    text=item["text"],
                    identifier=_identifier(infons),
                    name=str(infons["name"]) if infons.get("name") not in (None, "") else None,
                    offset=int(location["offset"]),
                    length=int(location["length"]),
                    section=str(section).lower() if section else None,
                    gene=_gene(infons),
                )
            )
    return found


def _publication(document: dict[str, Any]) -> PublicationText:
    pmid = document.get("pmid") or str(document.get("_id", "")).split("|")[0]
    if not pmid:
        raise BioMcpError(ErrorCode.UPSTREAM, "a PubTator3 document has no PMID")
    annotations = [
        a
        for passage in document.get("passages") or []
        if isinstance(passage, dict)
        for a in _annotations(passage)
    ]
    pmcid = document.get("pmcid")
    passages = [
        Passage(offset=int(passage.get("offset") or 0), text=str(passage.get("text") or ""))
        for passage in document.get("passages") or []
        if isinstance(passage, dict)
    ]
    return PublicationText(
        annotations=PublicationAnnotations(
            pmid=str(pmid),
            pmcid=f"PMC{pmcid}" if pmcid and not str(pmcid).startswith("PMC") else pmcid,
            annotations=sorted(annotations, key=lambda a: (a.offset, a.length)),
        ),
        passages=passages,
    )


def parse_biocjson(body: bytes | str) -> list[PublicationAnnotations]:
    """Every document of an export; an export of unknown PMIDs holds none."""
    return [text.annotations for text in parse_biocjson_texts(body)]


def parse_biocjson_texts(body: bytes | str) -> list[PublicationText]:
    """Every document of an export with its passages' texts."""
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BioMcpError(
            ErrorCode.UPSTREAM, "PubTator3 returned a body that is not JSON", {"error": str(exc)[:200]}
        ) from None
    documents = payload.get("PubTator3") if isinstance(payload, dict) else None
    if not isinstance(documents, list):
        raise BioMcpError(ErrorCode.UPSTREAM, "a PubTator3 export has no PubTator3 document list")
    return [_publication(document) for document in documents if isinstance(document, dict)]
