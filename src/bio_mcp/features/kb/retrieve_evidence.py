"""`kb.retrieve_evidence`: whole sections by id, with their document and the entities they mention.

A section's text longer than `max_chars` is cut at that length and put whole in a scratch text
(`tx.scratch.put`, served as `bio-mcp://scratch/{id}`) whose URI the section carries, so a tool
result stays small and nothing is lost. Ids that name no section are listed in `missing`; when
none is found the call is NOT_FOUND.
"""

from __future__ import annotations

import time
from typing import Any

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.kb.diagnostics import StageClock, record_diagnostics
from bio_mcp.features.kb.models import (
    EvidenceDocument,
    EvidenceEntity,
    EvidenceSection,
    RetrieveEvidenceRequest,
    RetrieveEvidenceResponse,
)
from bio_mcp.features.kb.search import KbContext, source_uris
from bio_mcp.graph.elements import HAS_SECTION, MENTIONS
from bio_mcp.graph.ids import pubmed_source_uri, resolve_alias
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.store.document_keys import is_pubmed_key

# Entities listed per section, best linked first.
MAX_ENTITIES_PER_SECTION = 50
# Sections named per document when a document id was passed for a section id.
MAX_SECTIONS_LISTED = 20


def _not_sections(context: KbContext, wanted: list[str]) -> BioMcpError:
    """NOT_FOUND for ids of which none names a section; ids that name documents (a Document node id,
    `pmid:N`) get their sections listed, so an agent that passed a document can call again."""
    aliases = {key: resolve_alias(key) for key in wanted}
    with context.store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        documents = {key: node for key, node in graph.nodes(aliases.values()).items() if node.label == "Document"}
        sections = graph.neighbours(sorted(documents), "out", [HAS_SECTION], MAX_SECTIONS_LISTED) if documents else []
        order = {key: node.order or 0 for key, node in graph.nodes(row.other for row in sections).items()}
    by_document: dict[str, list[str]] = {}
    # In reading order.
    for row in sorted(sections, key=lambda r: (r.origin, order.get(r.other, 0), r.other)):
        by_document.setdefault(row.origin, []).append(row.other)
    named = {key: by_document.get(alias, []) for key, alias in aliases.items() if alias in documents}
    if not named:
        return BioMcpError(
            ErrorCode.NOT_FOUND, "none of the section ids names a section of the knowledge graph",
            {"section_ids": wanted},
        )
    listed = "; ".join(f"{key}: {', '.join(ids) or 'no sections'}" for key, ids in named.items())
    return BioMcpError(
        ErrorCode.NOT_FOUND,
        f"these ids name documents, not sections; pass their section ids instead ({listed})",
        {"section_ids": wanted, "document_sections": named},
    )


def retrieve_evidence(request: RetrieveEvidenceRequest, context: KbContext) -> RetrieveEvidenceResponse:
    clock = StageClock()
    started = time.perf_counter()
    wanted = list(dict.fromkeys(request.section_ids))
    with clock.stage("read"), context.store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        nodes = {key: node for key, node in graph.nodes(wanted).items() if node.label == "Section"}
        mentions = graph.neighbours(sorted(nodes), "out", [MENTIONS], MAX_ENTITIES_PER_SECTION) if nodes else []
        chunks = tx.chunks.get_many([node.chunk_uuid for node in nodes.values() if node.chunk_uuid])
        documents = tx.documents.get_many(sorted({chunk.pmid for chunk in chunks.values()}))
    uris = source_uris(context.store, sorted({chunk.pmid for chunk in chunks.values()}))
    missing = [key for key in wanted if key not in nodes or nodes[key].chunk_uuid not in chunks]
    if len(missing) == len(wanted):
        raise _not_sections(context, wanted)
    entities: dict[str, list[EvidenceEntity]] = {}
    for row in sorted(mentions, key=lambda r: (r.origin, -r.weight, r.other)):
        entities.setdefault(row.origin, []).append(
            EvidenceEntity(id=row.other, name=row.node_title, type=row.node_type, confidence=min(1.0, max(0.0, row.weight)))
        )
    sections: list[EvidenceSection] = []
    overflow: dict[str, str] = {}
    for key in wanted:
        if key in missing:
            continue
        node = nodes[key]
        chunk = chunks[node.chunk_uuid or ""]
        document = documents.get(chunk.pmid)
        text = chunk.text
        truncated = len(text) > request.max_chars
        if truncated:
            overflow[key] = text
            text = text[: request.max_chars]
        sections.append(
            EvidenceSection(
                section_id=key,
                title=node.title or "Abstract",
                anchor=node.anchor or f"chunk-{chunk.chunk_id}",
                order=node.order if node.order is not None else chunk.position,
                text=text,
                truncated=truncated,
                document=EvidenceDocument(
                    id=node.document_id or "",
                    source_uri=uris.get(chunk.pmid, pubmed_source_uri(chunk.pmid)),
                    doc_id=f"pmid:{chunk.pmid}" if is_pubmed_key(chunk.pmid) else chunk.pmid,
                    title=document.title if document else None,
                    journal=document.journal if document else None,
                    year=document.year if document else None,
                    pub_types=list(document.pub_types) if document else [],
                    version=document.version if document else chunk.doc_version,
                ),
                entities=entities.get(key, []),
            )
        )
    if overflow:
        with clock.stage("scratch"), context.store.transaction() as tx:
            uris = {key: tx.scratch.put(text).uri for key, text in overflow.items()}
        sections = [s.model_copy(update={"scratch_uri": uris.get(s.section_id)}) for s in sections]
    record: dict[str, Any] = {
        "tool": "kb.retrieve_evidence",
        "section_ids": wanted,
        "found": len(sections),
        "missing": missing,
        "scratched": len(overflow),
        "stages_ms": clock.as_ms(),
        "lat_ms": round((time.perf_counter() - started) * 1000),
    }
    diagnostic_id = record_diagnostics(context.store, "kb.retrieve_evidence", record, context.settings.diagnostics_ttl_hours)
    return RetrieveEvidenceResponse(sections=sections, missing=missing, diagnostic_id=diagnostic_id)


def summarize(response: RetrieveEvidenceResponse) -> str:
    """Markdown of the whole result, for clients that read only the text: each section's document,
    id, entities and text (as long as the structured content's; a longer one names its scratch copy)."""
    lines = [f"**{len(response.sections)} sections**" + (f"; not found: {', '.join(response.missing)}" if response.missing else "")]
    for section in response.sections:
        doc = section.document
        entities = ", ".join(f"{e.id} {e.name or ''}".strip() for e in section.entities)
        lines += [
            "",
            (f"- **{doc.title or doc.doc_id}** — {section.title} ({doc.source_uri}, section `{section.section_id}`)"
             + (f"; entities: {entities}" if entities else "")),
            "",
            section.text,
        ]
        if section.scratch_uri:
            lines.append(f"(cut at {len(section.text):,} characters; the whole section: {section.scratch_uri})")
    if response.diagnostic_id:
        lines.append(f"diagnostic_id: {response.diagnostic_id}")
    return "\n".join(lines)
