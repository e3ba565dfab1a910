from __future__ import annotations

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.analyst.frame import parse_frame
from bio_mcp.features.analyst.indications import MeshIndex

ACTIVE = ["Recruiting", "Active, not recruiting", "Enrolling by invitation"]

CASES = [
    ("Phase 3 Alzheimer's trials that are recruiting and their publications in the last 180 days",
     "trials_with_pubs", {"indication": "Alzheimer Disease"}, ["3"], ["Recruiting"], 180),
    ("recent publications on GLP-1 and obesity in the past 6 months",
     "recent_pubs_by_topic", {"topic": "GLP-1 and obesity"}, [], [], 180),
    ("active phase 2/3 trials in non-small cell lung cancer",
     "indication_phase_trials", {"indication": "Carcinoma, Non-Small-Cell Lung"}, ["2", "3"], ACTIVE, None),
    ("Phase III NSCLC trials", "indication_phase_trials", {"indication": "Carcinoma, Non-Small-Cell Lung"}, ["3"], [], None),
    ("phase ii melanoma studies that are recruiting", "indication_phase_trials", {"indication": "Melanoma"}, ["2"], ["Recruiting"], None),
    ("recruiting Phelan-McDermid syndrome trials", "indication_phase_trials",
     {"indication": "Phelan-McDermid syndrome"}, [], ["Recruiting"], None),
    ("Phase III NSCLC trials sponsored by Sichuan Baili Pharmaceutical", "indication_phase_trials",
     {"indication": "Carcinoma, Non-Small-Cell Lung", "company": "Sichuan Baili Pharmaceutical"}, ["3"], [], None),
    ("trials by Eli Lilly", "indication_phase_trials", {"company": "Eli Lilly"}, [], [], None),
    ("papers about semaglutide from the last year", "recent_pubs_by_topic", {"topic": "semaglutide"}, [], [], 365),
    ("latest articles on CRISPR base editing in the past two weeks", "recent_pubs_by_topic",
     {"topic": "CRISPR base editing"}, [], [], 14),
    ("recent literature on type 2 diabetes", "recent_pubs_by_topic", {"topic": "type 2 diabetes"}, [], [], 365),
    ("publications for NCT02513394", "trials_with_pubs", {"trial_nct": "NCT02513394"}, [], [], None),
    ("breast cancer trials, active, not recruiting, phase 3, with their publications", "trials_with_pubs",
     {"indication": "Breast Neoplasms"}, ["3"], ["Active, not recruiting"], None),
    ("early phase 1 glioblastoma trials", "indication_phase_trials", {"indication": "Glioblastoma"}, ["early_1"], [], None),
    ("Phase 1/2 trials in Alzheimer’s disease that are not yet recruiting", "indication_phase_trials",
     {"indication": "Alzheimer Disease"}, ["1", "2"], ["Not yet recruiting"], None),
    ("completed phase IV obesity trials and publications within the past 3 years", "trials_with_pubs",
     {"indication": "Obesity"}, ["4"], ["Completed"], 1095),
    ("ongoing T2DM trials", "indication_phase_trials", {"indication": "Diabetes Mellitus, Type 2"}, [], ACTIVE, None),
    ("Phase 2 and phase 3 melanoma trials with papers from the last 30 days", "trials_with_pubs",
     {"indication": "Melanoma"}, ["2", "3"], [], 30),
    # The drug is what the trials must test: never dropped, never searched as the condition.
    # Pembrolizumab is a supplementary concept (not a MeSH 2024 descriptor): named beside the indication.
    ("Which trials study pembrolizumab in melanoma?", "indication_phase_trials",
     {"indication": "Melanoma", "intervention": "pembrolizumab"}, [], [], None),
    ("What trials test pembrolizumab for melanoma?", "indication_phase_trials",
     {"indication": "Melanoma", "intervention": "pembrolizumab"}, [], [], None),
    ("phase 3 trials of nivolumab in advanced melanoma", "indication_phase_trials",
     {"indication": "Melanoma", "intervention": "Nivolumab"}, ["3"], [], None),
    ("recruiting trials of metformin", "indication_phase_trials", {"intervention": "Metformin"}, [], ["Recruiting"], None),
    # A count is of the trials found: "How many" is neither condition nor drug.
    ("How many trials of semaglutide for obesity are recruiting?", "indication_phase_trials",
     {"indication": "Obesity", "intervention": "semaglutide"}, [], ["Recruiting"], None),
    ("How many phase 3 melanoma trials are there?", "indication_phase_trials", {"indication": "Melanoma"}, ["3"], [], None),
    # What is asked of the trials is neither condition nor drug, and a drug MeSH lists only as a
    # supplementary concept is the intervention by its INN stem; both had been searched as conditions
    # ("adverse events reported pembrolizumab", "Compare keytruda melanoma") and answered as none.
    ("What adverse events were reported in pembrolizumab trials?", "indication_phase_trials",
     {"intervention": "pembrolizumab"}, [], [], None),
    ("Compare phase 3 trials of keytruda in melanoma", "indication_phase_trials",
     {"indication": "Melanoma", "intervention": "keytruda"}, ["3"], [], None),
    ("trials of adalimumab versus infliximab in Crohn disease", "indication_phase_trials",
     {"indication": "Crohn Disease", "intervention": "Adalimumab Infliximab"}, [], [], None),
    # A disease whose name holds a chemical's is the disease.
    ("insulin resistance trials", "indication_phase_trials", {"indication": "Insulin Resistance"}, [], [], None),
]


@pytest.mark.parametrize(("question", "intent", "entities", "phase", "status", "days"), CASES)
def test_real_world_phrasings(mesh: MeshIndex, question, intent, entities, phase, status, days) -> None:
    frame = parse_frame(question, mesh=mesh)
    assert frame.intent == intent
    assert frame.entities.model_dump(exclude_none=True) == entities
    assert frame.filters.phase == phase
    assert frame.filters.status == status
    assert frame.filters.published_within_days == days
    assert frame.fetch_policy == "cache_then_network" and frame.time_budget_ms == 5000


@pytest.mark.parametrize("question", ["Is it?", "show me trials", "recent publications"])
def test_unparseable_questions_list_supported_kinds(mesh: MeshIndex, question: str) -> None:
    with pytest.raises(BioMcpError) as info:
        parse_frame(question, mesh=mesh)
    assert info.value.code == ErrorCode.VALIDATION
    assert set(info.value.details["supported"]) == {
        "recent_pubs_by_topic", "indication_phase_trials", "trials_with_pubs", "free_question"}
    assert "e.g." in info.value.message


def test_frame_is_deterministic(mesh: MeshIndex) -> None:
    question = CASES[0][0]
    assert parse_frame(question, mesh=mesh) == parse_frame(question, mesh=mesh)


@pytest.mark.parametrize(("question", "topic"), [
    ("Is metformin associated with lower cancer risk?", "metformin cancer risk"),
    ("Does curcumin reduce inflammation?", "curcumin inflammation"),
    # "How many" and "how often" say what is asked: searched, "many" had to be in every paper found.
    ("How many people get shingles after chickenpox?", "people shingles after chickenpox"),
    # Turmeric by its binomial, inflammation by dictionary; "help reduce ... or not" says how it is asked.
    ("ขมิ้นชันช่วยลดการอักเสบหรือไม่", "Curcuma longa inflammation"),
])
def test_free_questions_are_framed_by_their_search_words(mesh: MeshIndex, question: str, topic: str) -> None:
    frame = parse_frame(question, mesh=mesh)
    assert frame.intent == "free_question" and frame.entities.topic == topic
    assert frame.filters.phase == [] and frame.filters.status == []
