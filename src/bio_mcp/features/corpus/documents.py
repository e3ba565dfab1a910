"""`rag.get` and `resource://pubmed/paper/{pmid}`: a stored document with its quality breakdown."""

from __future__ import annotations

import json

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.models import QualityBreakdown, RagGetRequest, RagGetResponse
from bio_mcp.store import MetadataStore, StoredDocument

PAPER_RESOURCE_URI = "resource://pubmed/paper/{pmid}"


def document_body(document: StoredDocument) -> RagGetResponse:
    return RagGetResponse(
        doc_id=f"pmid:{document.pmid}",
        title=document.title,
        abstract=document.abstract,
        journal=document.journal,
        pub_types=list(document.pub_types),
        # YYYY-MM-DD when PubMed knows the day; a partial date (YYYY or YYYY-MM) otherwise.
        pdat=document.pdat,
        edat=document.edat,
        lr=document.lr,
        pmcid=document.pmcid,
        quality=QualityBreakdown(**document.quality.model_dump()),
        version=document.version,
    )


def get_document(request: RagGetRequest, store: MetadataStore) -> RagGetResponse:
    pmid = request.doc_id.removeprefix("pmid:")
    with store.read() as tx:
        document = tx.documents.get(pmid)
    if document is None:
        raise BioMcpError(
            ErrorCode.NOT_FOUND, f"{request.doc_id} is not in the local corpus", {"doc_id": request.doc_id}
        )
    return document_body(document)


def read_paper(pmid: str, store: MetadataStore) -> str:
    """The resource body: the `rag.get` document; an unknown PMID raises NOT_FOUND (a resource error)."""
    if not (pmid.isascii() and pmid.isdigit()):
        raise BioMcpError(ErrorCode.NOT_FOUND, f"{pmid!r} is not a PMID (a string of digits)", {"pmid": pmid})
    body = get_document(RagGetRequest(doc_id=f"pmid:{pmid}"), store).to_json()
    return json.dumps(body, ensure_ascii=False, sort_keys=True)


def summarize(response: RagGetResponse) -> str:
    q = response.quality
    lines = [f"### {response.doc_id}: {response.title or '(no title)'}",
             " · ".join(p for p in (response.journal, response.pdat, ", ".join(response.pub_types) or None,
                                    response.pmcid, f"version {response.version}") if p),
             (f"Quality {q.total} (design {q.design}, recency {q.recency}, journal {q.journal}, human {q.human}); "
             f"EDAT {response.edat}; last revised {response.lr}")]
    if response.abstract:
        lines += ["", response.abstract]
    return "\n".join(lines)
