"""One file through ingestion: guard -> text (pypdf, OCR, text/Markdown/HTML) -> sections -> chunks
-> entity linking and relation extraction -> (unless a dry run) the corpus and the graph, in one
transaction.

A file becomes a corpus document keyed `file:<hash of its URI>` (`store.document_keys`) whose chunks
the corpus's one hybrid index serves to kb.search, and a graph Document whose `source_uri` is the
file's `file://` URI, with a Section per chunk and MENTIONS of every linked entity (MeSH terms by the
graph's linker, herb names of any language by `kg_names`), and the relations its sentences state as
`kg_relation_evidence` rows and the edges they support, extracted as a sync extracts them. Text and
HTML are decoded by `ingest_charset` (a BOM, a declared charset, UTF-8, else detected). A file whose
bytes (and the pipeline settings that shape its text) are those already ingested is not read again:
nothing changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.corpus.indexing import CorpusIndex
from bio_mcp.features.corpus.records import chunk_records
from bio_mcp.features.evidence.ingest_access import AllowedFile, check_file, doc_type_of
from bio_mcp.features.evidence.ingest_charset import decode_text
from bio_mcp.features.evidence.ingest_models import IngestFileReport, IngestItem
from bio_mcp.features.evidence.ingest_ocr import OcrOptions
from bio_mcp.features.evidence.ingest_pdf import PageText, read_pdf
from bio_mcp.features.evidence.ingest_sections import (
    SectionedText,
    detect_lang,
    sections_of_html,
    sections_of_markdown,
    sections_of_plain,
)
from bio_mcp.graph.build import DocumentSource, SectionSource
from bio_mcp.graph.elements import StatedRelation
from bio_mcp.graph.ids import FILE_SOURCE_TYPE
from bio_mcp.graph.indexer import GraphIndexer
from bio_mcp.graph.mentions import EntityMentions
from bio_mcp.graph.name_linking import NameLinker
from bio_mcp.search.chunking import AbstractSection
from bio_mcp.store import ChunkRecord, DocumentRecord, QualityScores
from bio_mcp.store.document_keys import file_document_key
from bio_mcp.store.ingest import IngestedFile
from bio_mcp.store.schema import utc_now

# Bumped when a change here would give an already ingested file different text, sections, chunks or
# graph (v2: charsets detected, relations extracted).
PIPELINE_VERSION = "ingest-v2"


@dataclass(frozen=True)
class IngestOptions:
    roots: list[Path]
    max_bytes: int
    max_pages: int
    ocr: OcrOptions
    ocr_min_chars: int
    thai_names: bool

    @property
    def pipeline_id(self) -> str:
        """What shapes a file's text besides its bytes: a change of it re-ingests unchanged files."""
        return f"{PIPELINE_VERSION}:{self.ocr.languages}:{self.ocr.dpi}:{self.ocr_min_chars}:{int(self.thai_names)}"


@dataclass
class Extracted:
    doc_type: str
    lang: str
    pages: int
    ocr_pages: int
    text: SectionedText
    chunks: list[ChunkRecord] = field(default_factory=list)
    mentions: dict[str, list[EntityMentions]] = field(default_factory=dict)
    # chunk_id -> the relations that chunk's sentences state (offsets into its text).
    relations: dict[str, list[StatedRelation]] = field(default_factory=dict)

    @property
    def entities(self) -> int:
        return len({mention.entity_id for mentions in self.mentions.values() for mention in mentions})

    @property
    def stated_relations(self) -> int:
        """The evidence rows the relations make (a span two rules state alike is one row)."""
        return len({
            (chunk_id, r.src, r.type, r.dst, r.start, r.end, r.extractor)
            for chunk_id, found in self.relations.items() for r in found
        })


Log = Callable[[str], None]


def _decode(allowed: AllowedFile, data: bytes, *, html: bool = False) -> str:
    return decode_text(data, html=html, name=allowed.path.name, uri=allowed.source_uri)


def extract(allowed: AllowedFile, data: bytes, item: IngestItem, options: IngestOptions, log: Log) -> Extracted:
    doc_type = doc_type_of(item.doc_type, allowed.path)
    ocr_pages = 0
    pages = 1
    if doc_type == "pdf":
        def on_page(page: PageText) -> None:
            log(f"  page {page.number}: {len(page.text)} characters{' (OCR)' if page.ocr else ''}")

        read = read_pdf(allowed.path, data, options.ocr, options.ocr_min_chars, options.max_pages, on_page)
        pages, ocr_pages = len(read), sum(1 for page in read if page.ocr)
        text = sections_of_plain("\n".join(page.text for page in read))
    elif doc_type == "html":
        text = sections_of_html(_decode(allowed, data, html=True))
    elif doc_type == "markdown":
        text = sections_of_markdown(_decode(allowed, data))
    else:
        text = sections_of_plain(_decode(allowed, data))
    if not text.sections and not text.title:
        raise BioMcpError(
            ErrorCode.VALIDATION, f"{allowed.path.name} has no text (even after OCR): nothing was written",
            {"field": "batch.uri", "uri": allowed.source_uri},
        )
    body = " ".join(section.text for section in text.sections)
    lang = item.lang if item.lang != "auto" else detect_lang(f"{text.title or ''} {body}")
    return Extracted(doc_type=doc_type, lang=lang, pages=pages, ocr_pages=ocr_pages, text=text)


def link(extracted: Extracted, key: str, graph: GraphIndexer, names: NameLinker | None) -> None:
    """Chunks the text like a PubMed record (title carried in every chunk), links each chunk and
    extracts the relations its sentences state, as a sync does (`GraphIndexer.annotate`)."""
    sections = [AbstractSection(section.label, section.text) for section in extracted.text.sections]
    extracted.chunks = chunk_records(key, extracted.text.title, sections)
    annotations = graph.annotate(extracted.chunks, also=names)
    extracted.mentions = annotations.mentions
    extracted.relations = annotations.relations


def report_of(item: IngestItem, allowed: AllowedFile | None, extracted: Extracted | None, status: str) -> IngestFileReport:
    report = IngestFileReport(
        uri=item.uri, status=status,  # type: ignore[arg-type]
        source_uri=allowed.source_uri if allowed else None,
        doc_id=file_document_key(allowed.source_uri) if allowed else None,
    )
    if extracted is not None:
        report = report.model_copy(
            update={
                "doc_type": extracted.doc_type, "lang": extracted.lang, "pages": extracted.pages,
                "ocr_pages": extracted.ocr_pages, "characters": extracted.text.characters,
                "sections": len(extracted.text.sections), "chunks": len(extracted.chunks),
                "entities": extracted.entities, "relations": extracted.stated_relations,
            }
        )
    return report


def _write(
    index: CorpusIndex, graph: GraphIndexer, allowed: AllowedFile, key: str, digest: str, options: IngestOptions,
    extracted: Extracted, counts: dict[str, int],
) -> None:
    record = DocumentRecord(
        pmid=key, title=extracted.text.title,
        abstract="\n\n".join(
            f"{section.label}: {section.text}" if section.label else section.text for section in extracted.text.sections
        ) or None,
        language=extracted.lang, quality=QualityScores(total=0),
    )
    with index.lock:
        with index.store.transaction() as tx:
            holder = tx.ingested_files.get(key)
            if holder is not None and holder.source_uri != allowed.source_uri:
                raise BioMcpError(
                    ErrorCode.STORE, f"document key {key} already names {holder.source_uri}: a hash collision",
                    {"doc_key": key, "source_uri": allowed.source_uri},
                )
            result = tx.documents.upsert([record])
            version = result.versions[key]
            replaced = tx.chunks.replace(key, version, extracted.chunks)
            source = DocumentSource(
                pmid=key, title=extracted.text.title, version=version, last_edited=None,
                sections=[
                    SectionSource(chunk.chunk_id, chunk.uuid, chunk.section, chunk.text, chunk.position)
                    for chunk in extracted.chunks
                ],
                mentions=extracted.mentions, relations=extracted.relations, source_uri=allowed.source_uri,
                source_type=FILE_SOURCE_TYPE,
            )
            graph.write(tx.connection, [source])
            tx.ingested_files.put(
                IngestedFile(
                    doc_key=key, source_uri=allowed.source_uri, doc_type=extracted.doc_type, lang=extracted.lang,
                    content_sha256=digest, pipeline=options.pipeline_id, size_bytes=allowed.size_bytes,
                    counts=counts, ingested_at=utc_now(),
                )
            )
        index.apply(replaced.removed_uuids, replaced.to_index_uuids, replaced.change_id)


def ingest_file(
    item: IngestItem, *, dry_run: bool, options: IngestOptions, index: CorpusIndex, graph: GraphIndexer,
    names: NameLinker | None, log: Log,
) -> IngestFileReport:
    """One file's report; a failure is raised as a BioMcpError (nothing of this file written)."""
    allowed = check_file(item.uri, options.roots, options.max_bytes)
    key = file_document_key(allowed.source_uri)
    data = allowed.path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    with index.store.read() as tx:
        stored = tx.ingested_files.by_uri(allowed.source_uri)
    if stored is not None and stored.content_sha256 == digest and stored.pipeline == options.pipeline_id:
        log(f"{allowed.path}: unchanged since {stored.ingested_at.isoformat()} ({key}): nothing to do")
        return report_of(item, allowed, None, "unchanged").model_copy(
            update={"doc_type": stored.doc_type, "lang": stored.lang, **stored.counts}
        )
    log(f"{allowed.path}: {allowed.size_bytes} bytes, reading")
    extracted = extract(allowed, data, item, options, log)
    link(extracted, key, graph, names if options.thai_names else None)
    report = report_of(item, allowed, extracted, "would_write" if dry_run else "written")
    log(
        f"{allowed.path}: {report.pages} pages ({report.ocr_pages} by OCR), {report.characters} characters, "
        f"{report.sections} sections, {report.chunks} chunks, {report.entities} entities, {report.relations} relations"
    )
    if dry_run:
        return report
    counts = report.model_dump(include={"pages", "ocr_pages", "characters", "sections", "chunks", "entities", "relations"})
    _write(index, graph, allowed, key, digest, options, extracted, counts)
    log(f"{allowed.path}: written as {key} ({allowed.source_uri})")
    return report
