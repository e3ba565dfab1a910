"""Every real v2 study record parses into a `StudyDetail`: eligibility, arms, planned outcomes and,
exactly for the studies that post them, results (outcome measures with every measurement, adverse events)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ctgov.parse import parse_study_detail


def _study_files(data_dir: Path) -> list[Path]:
    root = data_dir / "ctgov"
    return sorted(
        [*root.glob("aact/NCT*.json"), *root.glob("biomcp/get_*.json"), root / "mcode" / "NCT02513394.json"]
    )


def test_every_real_study_parses_with_its_detail_and_results(data_dir: Path) -> None:
    with_results = []
    for path in _study_files(data_dir):
        raw = json.loads(path.read_bytes())
        study = parse_study_detail(path.read_bytes())
        protocol = raw["protocolSection"]
        arms = protocol.get("armsInterventionsModule", {}).get("armGroups", [])
        assert [arm.label for arm in study.arms] == [arm["label"] for arm in arms]
        criteria = protocol.get("eligibilityModule", {}).get("eligibilityCriteria")
        assert (study.eligibility.criteria if study.eligibility else None) == criteria
        section = raw.get("resultsSection")
        assert (study.results is not None) == (section is not None), path.name
        if section is None:
            continue
        with_results.append(study.nct_id)
        measures = section.get("outcomeMeasuresModule", {}).get("outcomeMeasures", [])
        assert [o.title for o in study.results.outcomes] == [m["title"] for m in measures]
        posted = sum(
            len(cat.get("measurements", []))
            for m in measures
            for c in m.get("classes", [])
            for cat in c.get("categories", [])
        )
        assert sum(len(o.measurements) for o in study.results.outcomes) == posted
        adverse = section.get("adverseEventsModule", {})
        events = adverse.get("seriousEvents", []) + adverse.get("otherEvents", [])
        assert len(study.results.adverse_events.events) == len(events)
    assert sorted(with_results) == ["NCT00763412", "NCT02210780", "NCT02513394", "NCT02552212", "NCT05594173"]


def test_measurements_and_events_name_their_groups(data_dir: Path) -> None:
    study = parse_study_detail((data_dir / "ctgov" / "aact" / "NCT00763412.json").read_bytes())
    bmi = study.results.outcomes[0]
    assert bmi.title == "BMI" and bmi.unit == "Kg/m^2"
    assert [(m.group, m.value, m.lower, m.upper) for m in bmi.measurements] == [
        ("1 Placebo", "19.63", "15.56", "22.64"),
        ("2. Repaglinide", "21.19", "20.78", "21.8"),
    ]
    assert study.results.adverse_events.groups[0].title == "Placebo"
    serious = [
        e
        for e in parse_study_detail(
            (data_dir / "ctgov" / "mcode" / "NCT02513394.json").read_bytes()
        ).results.adverse_events.events
        if e.serious
    ]
    assert serious and all(
        e.affected and all(isinstance(n, int) for n in e.affected.values()) for e in serious
    )


@pytest.mark.parametrize(
    "body", [b"", b"NCT number NCT00000000 not found", b"[]", b'{"studies": []}', b'{"protocolSection": {}}']
)
def test_empty_and_error_bodies_are_upstream_errors(body: bytes) -> None:
    with pytest.raises(BioMcpError) as caught:
        parse_study_detail(body)
    assert caught.value.code is ErrorCode.UPSTREAM
