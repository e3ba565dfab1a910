"""Store fixtures: every store test runs on a SQLite file and on the real PostgreSQL.

Documents and chunks are built from the real recorded PubMed records (../shared/data), reduced to
the fields the store keeps; the quality scores are the only values the tests choose.
"""

from __future__ import annotations

import gzip
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from lxml import etree

from bio_mcp.store import ChunkRecord, DocumentRecord, MetadataStore, QualityScores

CHUNK_NAMESPACE = uuid.UUID("6f1c2a4e-0f4b-5b8e-9d51-3c7a0e2b9f10")
_MONTHS = {
    name: index
    for index, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1
    )
}


@pytest.fixture
def store(store_url: str, tmp_path: Path) -> Iterator[MetadataStore]:
    opened = MetadataStore.open(store_url, lock_dir=tmp_path / "locks")
    yield opened
    opened.close()


def _text(node: etree._Element | None) -> str | None:
    if node is None:
        return None
    text = " ".join("".join(node.itertext()).split())
    return text or None


def _month(value: str | None) -> int | None:
    if value is None:
        return None
    return int(value) if value.isdigit() else _MONTHS.get(value[:3].lower())


def _pdat(pub_date: etree._Element | None) -> str | None:
    if pub_date is None or pub_date.findtext("Year") is None:
        return None
    year = pub_date.findtext("Year", "")
    month = _month(pub_date.findtext("Month"))
    day = pub_date.findtext("Day")
    if month is None:
        return year
    if day is None:
        return f"{year}-{month:02d}"
    return f"{year}-{month:02d}-{int(day):02d}"


def _stamp(node: etree._Element | None) -> str | None:
    if node is None:
        return None
    parts = [int(node.findtext(tag) or 0) for tag in ("Year", "Month", "Day", "Hour", "Minute")]
    return "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:00Z".format(*parts)


def _record(article: etree._Element) -> DocumentRecord:
    citation = article.find("MedlineCitation")
    assert citation is not None
    journal = citation.find("Article/Journal")
    ids = {node.get("IdType"): node.text for node in article.findall("PubmedData/ArticleIdList/ArticleId")}
    abstract = " ".join(
        filter(None, (_text(node) for node in citation.findall("Article/Abstract/AbstractText")))
    )
    return DocumentRecord(
        pmid=citation.findtext("PMID", "").strip(),
        title=_text(citation.find("Article/ArticleTitle")),
        abstract=abstract or None,
        journal=None if journal is None else journal.findtext("Title"),
        journal_iso=None if journal is None else journal.findtext("ISOAbbreviation"),
        pub_types=[
            node.text for node in citation.findall("Article/PublicationTypeList/PublicationType") if node.text
        ],
        mesh=[
            node.text for node in citation.findall("MeshHeadingList/MeshHeading/DescriptorName") if node.text
        ],
        citation_subsets=[node.text for node in citation.findall("CitationSubset") if node.text],
        language=citation.findtext("Article/Language"),
        pdat=_pdat(None if journal is None else journal.find("JournalIssue/PubDate")),
        edat=_stamp(article.find("PubmedData/History/PubMedPubDate[@PubStatus='entrez']")),
        lr=_stamp(citation.find("DateRevised")),
        pmcid=ids.get("pmc"),
        doi=ids.get("doi"),
        quality=QualityScores(total=1),
    )


@pytest.fixture(scope="session")
def real_records(data_dir: Path) -> list[DocumentRecord]:
    """The recorded journal articles that have an abstract, an EDAT and a revision date."""
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        root = etree.parse(handle).getroot()
    records = []
    seen: set[str] = set()
    for article in root.iter("PubmedArticle"):
        record = _record(article)
        if record.abstract and record.edat and record.lr and record.pmid not in seen:
            seen.add(record.pmid)
            records.append(record)
    return records


def _chunks_of(record: DocumentRecord, size: int = 2) -> list[ChunkRecord]:
    assert record.abstract is not None
    sentences = [part.strip() + "." for part in record.abstract.split(". ") if part.strip()]
    texts = [record.title or ""] + [" ".join(sentences[i : i + size]) for i in range(0, len(sentences), size)]
    return [
        ChunkRecord(
            uuid=str(uuid.uuid5(CHUNK_NAMESPACE, f"{record.pmid}:c{index}")),
            chunk_id=f"c{index}",
            section="title" if index == 0 else "abstract",
            text=text,
            n_tokens=len(text.split()),
            position=index,
        )
        for index, text in enumerate(texts)
        if text
    ]


@pytest.fixture(scope="session")
def make_chunks() -> Callable[..., list[ChunkRecord]]:
    """Chunks of a record: its title, then its abstract in runs of `size` sentences."""
    return _chunks_of
