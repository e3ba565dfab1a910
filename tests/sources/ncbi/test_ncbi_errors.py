"""NCBI's real error bodies become typed BioMcpErrors that keep NCBI's own words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.parsers import (
    error_from_body,
    parse_efetch,
    parse_einfo,
    parse_epost,
    parse_esearch,
    parse_esummary,
)

NCBI = Path("ncbi")

XML_ERRORS = [
    ("biopython/entrez_current/epost2.xml", parse_epost, "epost", ["Invalid db name specified: nothing"]),
    (
        "biopython/entrez_current/epost3.xml",
        parse_epost,
        "epost",
        [
            "Empty ID list; Nothing to store",
            "Some IDs have invalid value and were omitted. Maximum ID value 18446744073709551615",
        ],
    ),
    (
        "biopython/entrez_current/esummary8.xml",
        parse_esummary,
        "esummary",
        ["Neither query_key nor id specified"],
    ),
    ("klortho/einfo.error.xml", parse_einfo, "einfo", ["Can not retrieve DbInfo for db=fleegle"]),
    ("klortho/esearch.baderror.xml", parse_esearch, "esearch", ["Invalid db name specified: fleegle"]),
    ("klortho/esummary.error.xml", parse_esummary, "esummary", ["Invalid db name specified: fleegle"]),
]

JSON_ERRORS = [
    ("klortho/einfo.error.json", parse_einfo, "einfo", ["Can not retrieve DbInfo for db=fleegle"]),
    ("klortho/esearch.baderror.json", parse_esearch, "esearch", ["Invalid db name specified: fleegle"]),
    ("klortho/esummary.error.json", parse_esummary, "esummary", ["Invalid db name specified: fleegle"]),
]


def _rate_limit_bodies(data_dir: Path) -> list[bytes]:
    """The captured 429 body and the ones quoted verbatim in public issues."""
    quoted = (data_dir / NCBI / "errors/rate_limit_429_bodies_from_issues.md").read_text()
    bodies = [
        body.encode() for body in re.findall(r"`(\{\"error\":\"API rate limit exceeded\"[^`]*\})`", quoted)
    ]
    assert len(bodies) == 3
    return [
        (data_dir / NCBI / "biomcp/esearch_json_and_429/http429_rate_limit_exceeded.json").read_bytes(),
        *bodies,
    ]


@pytest.mark.parametrize(
    ("path", "parse", "utility", "messages"),
    XML_ERRORS + JSON_ERRORS,
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_real_error_bodies_raise_entrez_errors(data_dir: Path, path, parse, utility, messages) -> None:
    body = (data_dir / NCBI / path).read_bytes()
    with pytest.raises(BioMcpError) as caught:
        parse(body)
    error = caught.value
    assert error.code is ErrorCode.ENTREZ
    assert error.details == {"ncbiMessages": messages, "utility": utility}
    assert error.message == "NCBI E-utilities error: " + "; ".join(messages)
    classified = error_from_body(body, 200)
    assert (
        classified is not None and classified.code is ErrorCode.ENTREZ and classified.details == error.details
    )


def test_rate_limit_bodies_become_rate_limit_errors_without_the_echoed_key(data_dir: Path) -> None:
    expected_counts = [(4, 3), (5, 3), (17, 3), (26, 3)]
    for body, (count, limit) in zip(_rate_limit_bodies(data_dir), expected_counts, strict=True):
        for status in (429, None):
            error = error_from_body(body, status)
            assert error is not None
            assert error.code is ErrorCode.RATE_LIMIT
            assert error.details == {
                "ncbiMessages": ["API rate limit exceeded"],
                "count": count,
                "limit": limit,
            }
            # NCBI echoes the caller's API key or IP in "api-key"; a client must never see it.
            assert json.loads(body)["api-key"] not in repr(error.envelope())


def test_rate_limit_body_raises_from_a_json_parser(data_dir: Path) -> None:
    body = (data_dir / NCBI / "biomcp/esearch_json_and_429/http429_rate_limit_exceeded.json").read_bytes()
    with pytest.raises(BioMcpError) as caught:
        parse_esearch(body)
    assert caught.value.code is ErrorCode.RATE_LIMIT


def test_any_json_error_with_http_429_is_rate_limiting() -> None:
    error = error_from_body(b'{"error":"Too Many Requests"}', 429)
    assert error is not None and error.code is ErrorCode.RATE_LIMIT
    assert error.details["ncbiMessages"] == ["Too Many Requests"]


def test_phrase_not_found_is_a_warning_not_an_error(data_dir: Path) -> None:
    body = (data_dir / NCBI / "biopython/entrez_current/esearch8.xml").read_bytes()
    assert error_from_body(body, 200) is None
    result = parse_esearch(body)
    assert result.count == 0
    assert [(w.kind, w.text) for w in result.warnings] == [
        ("PhraseNotFound", "abcXYZ"),
        ("OutputMessage", "No items found."),
    ]


def test_json_error_list_is_kept_as_warnings(data_dir: Path) -> None:
    for name in ("klortho/esearch.error.json", "klortho/esearch.error.xml"):
        result = parse_esearch((data_dir / NCBI / name).read_bytes())
        assert result.count == 5163
        assert [(w.kind, w.text) for w in result.warnings] == [("PhraseNotFound", "fleegle[MeSH Terms]")]


def test_empty_error_element_is_not_an_error(data_dir: Path) -> None:
    # ESpell always sends <ERROR/>; only a non-empty ERROR reports a failure.
    assert (
        error_from_body((data_dir / NCBI / "biopython/entrez_current/espell.xml").read_bytes(), 200) is None
    )


def test_per_uid_esummary_error_is_kept_on_that_summary(data_dir: Path) -> None:
    for name in ("klortho/esummary.pmcerror.xml", "klortho/esummary.pmcerror.json"):
        summaries = parse_esummary((data_dir / NCBI / name).read_bytes())
        assert [(s.uid, s.error) for s in summaries] == [
            ("254085", None),
            ("1", "cannot get document summary"),
            ("14900", None),
        ]
        assert summaries[1].title is None


@pytest.mark.parametrize(
    "path",
    [
        "biopython/entrez_current/esearch1.xml",
        "biopython/entrez_current/pubmed3.html",
        "biopython/entrez_current/einfo4.xml",
        "biomcp/esearch_json_and_429/esearch_MLH1_G67E.json",
    ],
)
def test_bodies_that_are_not_error_bodies_give_none(data_dir: Path, path: str) -> None:
    assert error_from_body((data_dir / NCBI / path).read_bytes(), 500) is None


def test_error_from_body_ignores_non_xml_non_json_text() -> None:
    assert error_from_body(b"Bad Gateway", 502) is None
    assert error_from_body(b"{not json", 500) is None
    assert error_from_body("<html><body>Service unavailable</body></html>", 503) is None


def test_efetch_error_document_raises() -> None:
    # EFetch reports request errors in an <eFetchResult>; the recorded data has none, so this one is written here.
    body = b'<?xml version="1.0" ?>\n<eFetchResult>\n\t<ERROR>Empty id list - nothing todo</ERROR>\n</eFetchResult>'
    with pytest.raises(BioMcpError) as caught:
        parse_efetch(body)
    assert caught.value.details == {"ncbiMessages": ["Empty id list - nothing todo"], "utility": "efetch"}
