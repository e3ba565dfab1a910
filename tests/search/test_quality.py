from __future__ import annotations

import gzip
from datetime import date
from pathlib import Path

import pytest
from lxml import etree

from bio_mcp.search.quality import QualityInput, QualityScore, score_quality

TODAY = date(2025, 6, 1)


@pytest.fixture(scope="module")
def records(data_dir: Path) -> dict[str, QualityInput]:
    """The rubric's inputs for every record of the real recorded set, parsed with lxml here
    (the full parser lives elsewhere; these are the five fields the rubric reads)."""
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        root = etree.parse(handle).getroot()
    out: dict[str, QualityInput] = {}
    for article in root.iter("PubmedArticle"):
        citation = article.find("MedlineCitation")
        pub_date = citation.find("Article/Journal/JournalIssue/PubDate")
        year_text = pub_date.findtext("Year") or (pub_date.findtext("MedlineDate") or "")[:4]
        out[citation.findtext("PMID")] = QualityInput(
            pub_types=[p.text for p in citation.iter("PublicationType")],
            year=int(year_text) if year_text.isdigit() else None,
            citation_subsets=[s.text for s in citation.findall("CitationSubset")],
            mesh_headings=[d.text for d in citation.iter("DescriptorName")] or None,
            retracted=any(c.get("RefType") == "RetractionIn" for c in citation.iter("CommentsCorrections")),
        )
    return out


# (pmid, design, recency, journal, human, total) on TODAY, from the real records.
GOLDEN = [
    ("27797938", 1, 1, 2, 2, 6),  # Observational Study, 2017, AIM, Humans
    ("29768149", 2, 1, 1, 2, 6),  # Randomized Controlled Trial (phase III), 2018, IM, Humans
    ("28786991", 2, 1, 1, 2, 6),  # Meta-Analysis + Systematic Review, 2017
    ("37905428", 2, 2, 1, 2, 7),  # Systematic Review, 2024
    ("23878845", 2, 0, 0, 2, 4),  # RCT in a journal outside MEDLINE (no citation subset), 2013
    ("2917345", 0, 0, 1, 2, 3),  # Case Reports, 1989, Humans and Animals
    ("21813142", 0, 0, 1, 2, 3),  # Letter, 2012
    ("34529508", 0, 1, 1, 2, 4),  # Editorial + Comment, 2021
    ("11748933", 1, 0, 1, 0, 2),  # an animal study, 2001
    ("22351513", 1, 0, 1, 1, 3),  # MeSH with neither Humans nor Animals
    ("25364329", 0, 0, 0, None, 0),  # Case Reports, 2014, not indexed: no MeSH, no subset
]


@pytest.mark.parametrize(("pmid", "design", "recency", "journal", "human", "total"), GOLDEN)
def test_golden_scores_of_real_records(
    records: dict[str, QualityInput],
    pmid: str,
    design: int,
    recency: int,
    journal: int,
    human: int | None,
    total: int,
) -> None:
    assert score_quality(records[pmid], TODAY) == QualityScore(design, recency, journal, human, total)


def test_every_real_record_scores_in_range(records: dict[str, QualityInput]) -> None:
    assert len(records) > 400
    for record in records.values():
        score = score_quality(record, TODAY)
        parts = [score.design, score.recency, score.journal, score.human]
        assert all(p is None or 0 <= p <= 2 for p in parts)
        assert score.total == sum(p for p in parts if p is not None)


def test_seed_000_example_is_reproduced() -> None:
    # rag.get's example: an RCT in the NEJM (a Core Clinical Journal) from 2024, in humans.
    nejm_rct = QualityInput(
        pub_types=["Randomized Controlled Trial"],
        year=2024,
        citation_subsets=["AIM", "IM"],
        mesh_headings=["Humans"],
    )
    assert score_quality(nejm_rct, TODAY).as_contract() == {
        "design": 2,
        "recency": 2,
        "journal": 2,
        "human": 2,
        "total": 8,
    }


def test_retracted_publications_get_no_boost() -> None:
    retracted_rct = QualityInput(
        pub_types=["Randomized Controlled Trial", "Retracted Publication"],
        year=2024,
        citation_subsets=["AIM"],
        mesh_headings=["Humans"],
    )
    flagged = QualityInput(pub_types=["Meta-Analysis"], year=2024, citation_subsets=["AIM"], retracted=True)
    for record in (retracted_rct, flagged):
        score = score_quality(record, TODAY)
        assert score.retracted
        assert score.as_contract() == {"design": 0, "recency": 0, "journal": 0, "human": 0, "total": 0}


def test_unknown_fields_are_null_and_add_nothing() -> None:
    score = score_quality(QualityInput(), TODAY)
    assert score == QualityScore(None, None, None, None, 0)
    assert score.as_contract()["total"] == 0


def test_recency_is_relative_to_the_given_day() -> None:
    record = QualityInput(year=2020)
    assert score_quality(record, date(2022, 1, 1)).recency == 2
    assert score_quality(record, date(2027, 1, 1)).recency == 1
    assert score_quality(record, date(2031, 1, 1)).recency == 0
    assert score_quality(QualityInput(year=2026), date(2025, 1, 1)).recency == 2  # dated ahead


def test_low_evidence_type_wins_over_a_higher_one() -> None:
    assert score_quality(QualityInput(pub_types=["Letter", "Randomized Controlled Trial"]), TODAY).design == 0
    assert score_quality(QualityInput(pub_types=["Clinical Trial, Phase II"]), TODAY).design == 1
