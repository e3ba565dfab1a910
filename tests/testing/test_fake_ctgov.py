"""The fake ClinicalTrials.gov API v2 over real HTTP, checked against the recorded study files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def recorded_studies(data_dir: Path) -> dict[str, dict]:
    """Every v2 study in the recorded files (most complete copy per NCT id), read independently."""
    studies: dict[str, dict] = {}
    for path in sorted((data_dir / "ctgov").glob("*/*.json")):
        if "trimmed_fragment" in path.name:
            continue
        document = json.loads(path.read_text())
        for study in document.get("studies", [document]):
            key = study["protocolSection"]["identificationModule"]["nctId"]
            if key not in studies or len(json.dumps(study)) > len(json.dumps(studies[key])):
                studies[key] = study
    return studies


def protocol(study: dict, module: str) -> dict:
    return study["protocolSection"].get(module, {})


async def every_page(ctgov, params: dict) -> tuple[list[dict], list[dict]]:
    """Walk nextPageToken to the end; returns (studies, raw page documents)."""
    studies, pages, token = [], [], None
    while True:
        response = await ctgov.get("/studies", params={**params, **({"pageToken": token} if token else {})})
        assert response.status_code == 200, response.text
        page = response.json()
        pages.append(page)
        studies += page["studies"]
        token = page.get("nextPageToken")
        if token is None:
            return studies, pages


def ids(studies: list[dict]) -> list[str]:
    return [study["protocolSection"]["identificationModule"]["nctId"] for study in studies]


async def test_search_by_condition_uses_conditions_titles_keywords_and_mesh(ctgov, recorded_studies) -> None:
    found, _ = await every_page(ctgov, {"query.cond": "Phelan-McDermid Syndrome", "pageSize": 100})
    expected = {
        key
        for key, study in recorded_studies.items()
        if any(
            "phelan mcdermid syndrome" in " ".join(value.lower().replace("-", " ").split())
            for value in protocol(study, "conditionsModule").get("conditions", [])
            + protocol(study, "conditionsModule").get("keywords", [])
            + [
                protocol(study, "identificationModule").get("briefTitle", ""),
                protocol(study, "identificationModule").get("officialTitle", ""),
            ]
        )
    }
    assert set(ids(found)) == expected and len(expected) >= 10


async def test_status_filter_takes_a_comma_list(ctgov, recorded_studies) -> None:
    wanted = {"RECRUITING", "ACTIVE_NOT_RECRUITING"}
    found, _ = await every_page(
        ctgov, {"filter.overallStatus": "RECRUITING,ACTIVE_NOT_RECRUITING", "pageSize": 100}
    )
    expected = {
        key
        for key, study in recorded_studies.items()
        if protocol(study, "statusModule")["overallStatus"] in wanted
    }
    assert set(ids(found)) == expected
    piped, _ = await every_page(
        ctgov, {"filter.overallStatus": "RECRUITING|ACTIVE_NOT_RECRUITING", "pageSize": 100}
    )
    assert ids(piped) == ids(found)


async def test_advanced_filter_on_phase_with_and_or(ctgov, recorded_studies) -> None:
    def phases(study: dict) -> set[str]:
        return set(protocol(study, "designModule").get("phases", []))

    phase3, _ = await every_page(ctgov, {"filter.advanced": "AREA[Phase]PHASE3", "pageSize": 100})
    assert set(ids(phase3)) == {key for key, study in recorded_studies.items() if "PHASE3" in phases(study)}
    either, _ = await every_page(ctgov, {"filter.advanced": "AREA[Phase](PHASE2 OR PHASE3)", "pageSize": 100})
    assert set(ids(either)) == {
        key for key, study in recorded_studies.items() if phases(study) & {"PHASE2", "PHASE3"}
    }
    both, _ = await every_page(
        ctgov, {"filter.advanced": "AREA[Phase]PHASE2 AND AREA[OverallStatus]RECRUITING", "pageSize": 100}
    )
    assert set(ids(both)) == {
        key
        for key, study in recorded_studies.items()
        if "PHASE2" in phases(study) and protocol(study, "statusModule")["overallStatus"] == "RECRUITING"
    }
    started, _ = await every_page(
        ctgov, {"filter.advanced": "AREA[StartDate]RANGE[2023-01-01, MAX]", "pageSize": 100}
    )
    assert all(
        protocol(study, "statusModule")["startDateStruct"]["date"] >= "2023-01-01" for study in started
    )
    assert started


async def test_condition_status_and_phase_together(ctgov) -> None:
    found, _ = await every_page(
        ctgov,
        {
            "query.cond": "melanoma",
            "filter.overallStatus": "RECRUITING",
            "filter.advanced": "AREA[Phase]PHASE2",
            "pageSize": 100,
        },
    )
    assert set(ids(found)) == {"NCT04114136", "NCT04318717"}


async def test_intervention_and_sponsor_queries(ctgov) -> None:
    pembrolizumab, _ = await every_page(ctgov, {"query.intr": "pembrolizumab", "pageSize": 100})
    assert {"NCT03590054", "NCT04318717", "NCT04795661"} <= set(ids(pembrolizumab))
    neuren, _ = await every_page(ctgov, {"query.spons": "neuren", "pageSize": 100})
    assert set(ids(neuren)) == {"NCT05025241", "NCT07281079"}
    terms, _ = await every_page(ctgov, {"query.term": "oxytocin AND saline", "pageSize": 100})
    assert ids(terms) == ["NCT02710084"]


async def test_paging_walks_every_study_once_and_counts_on_the_first_page(
    ctgov, fakes, recorded_studies
) -> None:
    assert fakes.ctgov.nct_ids == sorted(recorded_studies)
    found, pages = await every_page(ctgov, {"pageSize": 4, "countTotal": "true"})
    assert ids(found) == sorted(recorded_studies) and len(set(ids(found))) == len(found)
    assert pages[0]["totalCount"] == len(recorded_studies)
    assert all("totalCount" not in page for page in pages[1:])
    assert all(len(page["studies"]) == 4 for page in pages[:-1])
    default = (await ctgov.get("/studies")).json()
    assert len(default["studies"]) == 10 and "totalCount" not in default


async def test_paging_over_many_cloned_studies(ctgov, fakes) -> None:
    fakes.ctgov.replicate(2_500, 90_000_000)
    found, pages = await every_page(ctgov, {"pageSize": 5000, "fields": "NCTId"})
    assert len(pages) == 3 and len(set(ids(found))) == len(found) == len(fakes.ctgov)


async def test_a_page_token_belongs_to_its_query(ctgov) -> None:
    first = (await ctgov.get("/studies", params={"query.cond": "melanoma", "pageSize": 2})).json()
    other = await ctgov.get("/studies", params={"query.cond": "cancer", "pageToken": first["nextPageToken"]})
    assert other.status_code == 400
    garbage = await ctgov.get("/studies", params={"pageToken": "!!!"})
    assert garbage.status_code == 400


async def test_fields_keep_only_the_named_parts(ctgov, recorded_studies) -> None:
    page = (
        await ctgov.get("/studies", params={"fields": "NCTId,OverallStatus,ConditionsModule", "pageSize": 3})
    ).json()
    for study in page["studies"]:
        assert set(study) == {"protocolSection"}
        assert set(study["protocolSection"]) <= {"identificationModule", "statusModule", "conditionsModule"}
        assert set(study["protocolSection"]["identificationModule"]) == {"nctId"}
        key = study["protocolSection"]["identificationModule"]["nctId"]
        assert study["protocolSection"]["conditionsModule"] == protocol(
            recorded_studies[key], "conditionsModule"
        )
    dates = (
        await ctgov.get(
            "/studies/NCT03630471", params={"fields": "StartDate|protocolSection.designModule.phases"}
        )
    ).json()
    assert dates == {
        "protocolSection": {
            "statusModule": {"startDateStruct": {"date": "2018-08-20", "type": "ACTUAL"}},
            "designModule": {"phases": ["NA"]},
        }
    }
    unknown = await ctgov.get("/studies", params={"fields": "NoSuchThing"})
    assert unknown.status_code == 400


async def test_a_single_study_is_the_recorded_record(ctgov, data_dir) -> None:
    response = await ctgov.get("/studies/NCT02513394")
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    assert response.json() == json.loads((data_dir / "ctgov/mcode/NCT02513394.json").read_text())
    assert (await ctgov.get("/studies/nct03630471")).json()["protocolSection"]["identificationModule"][
        "nctId"
    ] == "NCT03630471"


async def test_errors_are_plain_text_like_the_real_api(ctgov) -> None:
    missing = await ctgov.get("/studies/NCT99999999")
    assert (missing.status_code, missing.text) == (404, "NCT number NCT99999999 not found")
    assert missing.headers["content-type"].startswith("text/plain")
    malformed = await ctgov.get("/studies/12345")
    assert (malformed.status_code, malformed.text) == (400, "Parameter `nctId` has incorrect format")
    unknown = await ctgov.get("/studies", params={"bogusParam": "1"})
    assert (unknown.status_code, unknown.text) == (400, "`bogusParam` is unknown parameter")
    bad_status = await ctgov.get("/studies", params={"filter.overallStatus": "NOT_A_STATUS"})
    assert bad_status.status_code == 400 and "NOT_A_STATUS" in bad_status.text
    bad_area = await ctgov.get("/studies", params={"filter.advanced": "AREA[X]1"})
    assert (bad_area.status_code, bad_area.text) == (
        400,
        "Error parsing query in advanced filter: Unknown area name: 'X'",
    )
    bad_ids = await ctgov.get("/studies", params={"filter.ids": "NCT00000001,ABC123"})
    assert (bad_ids.status_code, bad_ids.text) == (
        400,
        "Item 2 in parameter `filter.ids` has incorrect format",
    )


async def test_nct_id_queries_and_id_filters(ctgov) -> None:
    listed = (await ctgov.get("/studies", params={"filter.ids": "NCT02513394,NCT03630471"})).json()
    assert ids(listed["studies"]) == ["NCT02513394", "NCT03630471"]
    ignoring_filters = (
        await ctgov.get(
            "/studies", params={"query.term": "NCT03630471", "filter.overallStatus": "RECRUITING"}
        )
    ).json()
    assert ids(ignoring_filters["studies"]) == ["NCT03630471"]


async def test_page_size_is_capped_and_sorting_by_date(ctgov, recorded_studies) -> None:
    page = (await ctgov.get("/studies", params={"pageSize": 5000})).json()
    assert len(page["studies"]) == len(recorded_studies) and "nextPageToken" not in page
    newest = (
        await ctgov.get(
            "/studies", params={"sort": "LastUpdatePostDate", "pageSize": 100, "fields": "LastUpdatePostDate"}
        )
    ).json()
    dates = [
        study["protocolSection"]["statusModule"]["lastUpdatePostDateStruct"]["date"]
        for study in newest["studies"]
        if study
    ]
    assert len(dates) > 5 and dates == sorted(dates, reverse=True)
    assert newest["studies"][len(dates) :] == [{}] * (len(newest["studies"]) - len(dates))


async def test_version(ctgov) -> None:
    version = (await ctgov.get("/version")).json()
    assert version["apiVersion"] == "2.0.0-draft" and version["dataTimestamp"].startswith("20")
