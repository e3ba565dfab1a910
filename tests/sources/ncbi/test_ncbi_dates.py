"""Date standardisation: PubDate parts, MedlineDate free text, ESummary and EInfo spellings."""

from __future__ import annotations

import pytest
from lxml import etree

from bio_mcp.sources.ncbi.models import PublicationDate
from bio_mcp.sources.ncbi.parsers.dates import (
    free_text_date,
    iso_date,
    month_number,
    parts_iso,
    publication_date,
    timestamp_iso,
)


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Jan", 1),
        ("jan", 1),
        ("March", 3),
        ("Sept", 9),
        ("09", 9),
        ("9", 9),
        ("12", 12),
        (" Dec ", 12),
        ("13", None),
        ("0", None),
        ("Spring", None),
        ("Nov-Dec", None),
        ("Ju", None),
        ("", None),
        (None, None),
    ],
)
def test_month_number(text: str | None, number: int | None) -> None:
    assert month_number(text) == number


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("2008 Jan-Feb", (2008, None, None)),
        ("1998 Dec-1999 Jan", (1998, None, None)),
        ("2008 Jan", (2008, 1, None)),
        ("2003 Jan 1-15", (2003, 1, None)),
        ("1999 Jun 21-Jul 4", (1999, None, None)),
        ("2000 Spring", (2000, None, None)),
        ("1975-1976", (1975, None, None)),
        ("Summer 2003", (2003, None, None)),
        ("2011 Dec 5", (2011, 12, 5)),
        ("2011 Feb 30", (2011, 2, None)),
        ("1968/08/01 00:00", (1968, 8, 1)),
        ("2002/01/01 00:00", (2002, 1, 1)),
        ("", (None, None, None)),
        ("undated", (None, None, None)),
    ],
)
def test_free_text_dates_keep_only_unambiguous_parts(text: str, parts: tuple) -> None:
    assert free_text_date(text) == parts


def test_iso_date_forms() -> None:
    assert iso_date(2023, 3, 15) == "2023-03-15"
    assert iso_date(2023, 3) == "2023-03"
    assert iso_date(2023) == "2023"
    assert iso_date(None, 3, 15) is None
    assert iso_date(2024, 2, 29) == "2024-02-29"
    assert iso_date(2023, 2, 29) == "2023-02"


def test_timestamps() -> None:
    assert timestamp_iso("2025/11/27 06:33") == "2025-11-27T06:33"
    assert timestamp_iso("2010/09/10 04:52") == "2010-09-10T04:52"
    assert timestamp_iso("2012/11/22") == "2012-11-22"
    assert timestamp_iso("") is None


def _element(xml: str) -> etree._Element:
    return etree.fromstring(xml.encode())


def test_date_parts_elements() -> None:
    assert (
        parts_iso(
            _element(
                "<PubMedPubDate><Year>2011</Year><Month>8</Month><Day>24</Day><Hour>6</Hour></PubMedPubDate>"
            )
        )
        == "2011-08-24"
    )
    assert parts_iso(_element("<BeginningDate><Year>1993</Year></BeginningDate>")) == "1993"
    assert parts_iso(None) is None


@pytest.mark.parametrize(
    ("xml", "expected"),
    [
        (
            "<PubDate><Year>2023</Year><Month>Mar</Month><Day>15</Day></PubDate>",
            PublicationDate(year=2023, month="Mar", day=15, iso="2023-03-15"),
        ),
        (
            "<PubDate><Year>2015</Year><Month>09</Month><Day>01</Day></PubDate>",
            PublicationDate(year=2015, month="Sep", day=1, iso="2015-09-01"),
        ),
        (
            "<PubDate><Year>1970</Year><Season>Nov-Dec</Season></PubDate>",
            PublicationDate(year=1970, season="Nov-Dec", iso="1970"),
        ),
        (
            "<PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate>",
            PublicationDate(year=1998, medline_date="1998 Dec-1999 Jan", iso="1998"),
        ),
        (
            "<PubDate><MedlineDate>2008 Jan</MedlineDate></PubDate>",
            PublicationDate(year=2008, month="Jan", medline_date="2008 Jan", iso="2008-01"),
        ),
        ("<PubDate/>", PublicationDate()),
    ],
)
def test_publication_dates(xml: str, expected: PublicationDate) -> None:
    assert publication_date(_element(xml)) == expected
