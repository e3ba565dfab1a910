"""A parsed PubMed article as the corpus stores it: its DocumentRecord (with quality), its chunks,
and what NLM indexed it with (the graph's HAS_TOPIC edges)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date

from bio_mcp.features.corpus.pubtator3_annotations import Pubtator3Fetch
from bio_mcp.graph.elements import StatedRelation
from bio_mcp.graph.facts import DocumentFacts
from bio_mcp.graph.indexer import Annotations
from bio_mcp.graph.mentions import EntityMentions
from bio_mcp.search.chunking import AbstractSection, ChunkPolicy, chunk_record
from bio_mcp.search.quality import QualityInput, score_quality
from bio_mcp.sources.ncbi.models import Article
from bio_mcp.store import ChunkRecord, DocumentRecord, QualityScores

_PDAT = re.compile(r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$")
_PMCID = re.compile(r"^PMC[0-9]+$")
_NCT_ID = re.compile(r"^NCT[0-9]{8}$")
_TRIAL_REGISTRY = "ClinicalTrials.gov"
# A MeSH descriptor (D...) or supplementary concept (C...) UI.
_MESH_UI = re.compile(r"^[DC][0-9]{6,9}$")
# Longer "symbols" are prose, not symbols; and node ids are at most 80 characters.
_MAX_GENE_SYMBOL = 40


@dataclass(frozen=True)
class CorpusDocument:
    """One document and the chunks of its current text, committed together with their graph."""

    record: DocumentRecord
    chunks: list[ChunkRecord]
    facts: DocumentFacts = field(default_factory=DocumentFacts)
    # chunk_id -> the entities linked in that chunk's text (filled in the annotate stage, when linking is on).
    mentions: dict[str, list[EntityMentions]] = field(default_factory=dict)
    # chunk_id -> the relations its sentences state (filled in the annotate stage, after linking).
    relations: dict[str, list[StatedRelation]] = field(default_factory=dict)
    # What PubTator3 said of the record (BIO_MCP_PUBTATOR3_MENTIONS; None: not asked).
    pubtator3: Pubtator3Fetch | None = None

    def annotated(self, annotations: Annotations) -> CorpusDocument:
        """This document with the mentions and relations `GraphIndexer.annotate` found in its chunks."""
        return replace(self, mentions=annotations.mentions, relations=annotations.relations)


def _pdat(article: Article) -> str | None:
    if article.journal_info is not None:
        published = article.journal_info.publication_date
    elif article.book is not None:
        published = article.book.publication_date
    else:
        return None
    if published.iso and _PDAT.match(published.iso):
        return published.iso
    return f"{published.year:04d}" if published.year else None


def quality_of(
    pub_types: list[str], year: int | None, subsets: list[str], mesh: list[str], retracted: bool, today: date
) -> QualityScores:
    score = score_quality(
        QualityInput(
            pub_types=pub_types, year=year, citation_subsets=subsets, mesh_headings=mesh, retracted=retracted
        ),
        today,
    )
    return QualityScores(
        design=score.design, recency=score.recency, journal=score.journal, human=score.human, total=score.total
    )


def document_record(article: Article, today: date) -> DocumentRecord:
    pdat = _pdat(article)
    year = int(pdat[:4]) if pdat else None
    mesh = [heading.descriptor_name for heading in article.mesh_headings]
    journal = article.journal_info
    # EDAT is the "entrez" history date; records entered before that status existed carry "pubmed".
    edat = article.history.get("entrez") or article.history.get("pubmed")
    return DocumentRecord(
        pmid=article.pmid,
        title=article.title or None,
        abstract=article.abstract_text or None,
        journal=journal.title if journal is not None else (article.book.book_title if article.book else None),
        journal_iso=journal.iso_abbreviation if journal is not None else None,
        pub_types=list(article.publication_types),
        mesh=mesh,
        citation_subsets=list(article.citation_subsets),
        language=article.languages[0] if article.languages else None,
        pdat=pdat,
        year=year,
        edat=edat,
        lr=article.date_revised,
        pmcid=article.pmcid if article.pmcid and _PMCID.match(article.pmcid) else None,
        doi=article.doi,
        retracted=article.retracted,
        quality=quality_of(
            list(article.publication_types), year, list(article.citation_subsets), mesh, article.retracted, today
        ),
    )


def chunk_records(
    pmid: str, title: str | None, abstract: str | list[AbstractSection] | None, policy: ChunkPolicy | None = None
) -> list[ChunkRecord]:
    return [
        ChunkRecord(
            uuid=chunk.uuid,
            chunk_id=chunk.chunk_id,
            section=", ".join(chunk.sections) or None,
            text=chunk.text,
            n_tokens=chunk.token_estimate,
            position=position,
        )
        for position, chunk in enumerate(chunk_record(pmid, title, abstract, policy))
    ]


def document_facts(article: Article) -> DocumentFacts:
    """The MeSH headings (UI, major when the descriptor or any qualifier is), their qualifiers
    (UI, qualifier name in lower case), the ClinicalTrials.gov numbers of the DataBankList, the
    ChemicalList substances that have a MeSH UI (UI, name; the first name of a UI listed twice) and
    the GeneSymbolList symbols."""
    topics: dict[str, bool] = {}
    qualifiers: set[tuple[str, str]] = set()
    for heading in article.mesh_headings:
        if heading.descriptor_ui:
            major = heading.is_major_topic or any(q.is_major_topic for q in heading.qualifiers)
            topics[heading.descriptor_ui] = topics.get(heading.descriptor_ui, False) or major
            qualifiers.update((heading.descriptor_ui, q.name.strip().lower()) for q in heading.qualifiers if q.name)
    trials = {
        number.upper()
        for bank in article.data_banks
        if bank.name.strip().lower() == _TRIAL_REGISTRY.lower()
        for number in bank.accession_numbers
        if _NCT_ID.match(number.strip().upper())
    }
    chemicals: dict[str, str] = {}
    for chemical in article.chemicals:
        if chemical.ui and _MESH_UI.match(chemical.ui):
            chemicals.setdefault(chemical.ui, chemical.name)
    genes = {symbol for symbol in article.gene_symbols if 0 < len(symbol) <= _MAX_GENE_SYMBOL}
    return DocumentFacts(
        topics=tuple(sorted(topics.items())), trials=tuple(sorted(trials)), qualifiers=tuple(sorted(qualifiers)),
        chemicals=tuple(sorted(chemicals.items())), genes=tuple(sorted(genes)),
    )


def corpus_document(article: Article, today: date) -> CorpusDocument:
    record = document_record(article, today)
    sections: str | list[AbstractSection] | None
    if article.abstract_sections:
        sections = [AbstractSection(section.label, section.text) for section in article.abstract_sections]
    else:
        sections = article.abstract_text
    return CorpusDocument(
        record=record, chunks=chunk_records(article.pmid, article.title, sections), facts=document_facts(article)
    )
