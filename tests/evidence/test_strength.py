"""Evidence strength from the design of real records (the corpus quality score) and how many agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.features.corpus.records import document_record
from bio_mcp.features.evidence.strength import (
    SupportingDocument,
    evidence_strength,
    indexes_animals,
    study_kind,
)
from tests.evidence.herb_fixtures import TODAY, real_articles


@pytest.fixture(scope="module")
def graded(data_dir: Path) -> dict[str, list[SupportingDocument]]:
    """The real records as supporting documents, by grade."""
    found: dict[str, list[SupportingDocument]] = {"top": [], "human": [], "weak": []}
    for pmid, article in sorted(real_articles(data_dir).items()):
        record = document_record(article, TODAY)  # type: ignore[arg-type]
        document = SupportingDocument(f"pmid:{pmid}", record.quality.design, record.quality.human, record.retracted,
                                      indexes_animals(record.mesh))
        found[document.grade].append(document)
    return found


def test_grades_follow_the_publication_design(data_dir: Path) -> None:
    articles = real_articles(data_dir)
    by_pmid = {}
    for pmid in ("23121403", "26585812", "25364329", "25270622"):
        record = document_record(articles[pmid], TODAY)  # type: ignore[arg-type]
        by_pmid[pmid] = SupportingDocument(f"pmid:{pmid}", record.quality.design, record.quality.human,
                                           animals=indexes_animals(record.mesh)).grade
    # A randomised controlled trial; a case report. 26585812 (human hepatocellular carcinoma cell
    # lines and BALB/c mice) and 25270622 (DEHP in apolipoprotein E-deficient mice, with human cell
    # lines) are indexed with Humans and Animals: neither is a study in people.
    assert by_pmid == {"23121403": "top", "26585812": "weak", "25364329": "weak", "25270622": "weak"}


def test_one_document_is_low_unless_it_is_a_trial_or_meta_analysis(graded) -> None:
    assert evidence_strength([graded["weak"][0]]).level == "low"
    assert evidence_strength([graded["human"][0]]).level == "low"
    assert evidence_strength([graded["top"][0]]).level == "moderate"
    assert evidence_strength([]).level == "low"
    # An imported fact citing a source the corpus does not hold has an unknown design.
    assert evidence_strength([SupportingDocument("Thai Herbal Pharmacopoeia")]).level == "low"


def test_agreeing_independent_documents_raise_the_strength(graded) -> None:
    weak, human, top = graded["weak"], graded["human"], graded["top"]
    assert evidence_strength(human[:2]).level == "moderate"
    assert evidence_strength(weak[:2]).level == "low"
    assert evidence_strength(weak[:3]).level == "moderate"
    assert evidence_strength(top[:2]).level == "high"
    assert evidence_strength([top[0], *weak[:2]]).level == "high"
    assert evidence_strength([top[0], weak[0]]).level == "moderate"
    # The same document cited twice is one document.
    twice = evidence_strength([top[0], top[0], top[0]])
    assert (twice.level, twice.documents) == ("moderate", 1)


def test_retracted_documents_do_not_count(graded) -> None:
    top = graded["top"]
    retracted = [SupportingDocument(d.key, d.design, d.human, retracted=True) for d in top[:2]]
    assert evidence_strength(retracted).level == "low" and evidence_strength(retracted).documents == 0


def test_the_kind_of_study_orders_clinical_over_case_reports_over_animal_studies(data_dir: Path) -> None:
    articles = real_articles(data_dir)
    kinds = {}
    for pmid in ("23121403", "26585812", "25364329", "6716514", "25270622"):
        record = document_record(articles[pmid], TODAY)  # type: ignore[arg-type]
        kinds[pmid] = study_kind(SupportingDocument(f"pmid:{pmid}", record.quality.design, record.quality.human,
                                                    animals=indexes_animals(record.mesh)))
    # An RCT; human cell lines and mice; a case report; DEHP in rat hepatocytes; DEHP in mice. A study
    # indexed with Humans and Animals was once "clinical study", which ranked a mouse model over case reports.
    assert kinds == {"23121403": "trial or meta-analysis", "26585812": "human material and animal study",
                     "25364329": "case report or opinion", "6716514": "animal study",
                     "25270622": "human material and animal study"}
    assert study_kind(SupportingDocument("Thai Herbal Pharmacopoeia")) == "unknown design"
