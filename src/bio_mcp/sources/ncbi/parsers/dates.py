"""NCBI's many date spellings turned into ISO `YYYY-MM-DD`, `YYYY-MM` or `YYYY`.

PubMed writes dates as <Year>/<Month>/<Day> parts (months as 'Mar', '03' or '3'), as a free-text
<MedlineDate> ('2008 Jan-Feb', '1998 Dec-1999 Jan'), with a <Season>, or in ESummary as '2011 Dec 5'
and '2011/12/07 06:00'. A part is kept only when it is unambiguous: a range of months gives a year.
"""

from __future__ import annotations

import calendar
import re

from lxml import etree

from bio_mcp.sources.ncbi.models import PublicationDate

MONTH_ABBREVIATIONS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH_NAMES = tuple(name.lower() for name in calendar.month_name[1:])
# The spellings PubMed uses, looked up directly; anything else falls back to a prefix match.
_MONTHS = {
    **{str(number): number for number in range(1, 13)},
    **{f"{number:02d}": number for number in range(1, 13)},
    **{abbreviation.lower(): number for number, abbreviation in enumerate(MONTH_ABBREVIATIONS, start=1)},
    **{name: number for number, name in enumerate(_MONTH_NAMES, start=1)},
}
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_TOKENS = re.compile(r"\d+|[A-Za-z]+")
_SLASHED = re.compile(r"\s*(\d{4})/(\d{1,2})/(\d{1,2})(?:\s+(\d{1,2}):(\d{2}))?")


def month_number(text: str | None) -> int | None:
    """1-12 for 'Mar', 'March', 'Sept', '03' or '3'; None for anything else ('Spring', 'Jan-Feb')."""
    if not text:
        return None
    token = text.strip().lower()
    number = _MONTHS.get(token)
    if number is not None or len(token) < 3 or not token.isalpha():
        return number
    for number, name in enumerate(_MONTH_NAMES, start=1):
        if name.startswith(token):
            return number
    return None


def _valid_day(year: int | None, month: int | None, day: int | None) -> int | None:
    if year is None or month is None or day is None:
        return None
    leap_day = 1 if month == 2 and calendar.isleap(year) else 0
    return day if 1 <= day <= _DAYS_IN_MONTH[month - 1] + leap_day else None


def iso_date(year: int | None, month: int | None = None, day: int | None = None) -> str | None:
    if year is None:
        return None
    if month is None:
        return f"{year:04d}"
    day = _valid_day(year, month, day)
    return f"{year:04d}-{month:02d}" if day is None else f"{year:04d}-{month:02d}-{day:02d}"


def _year(text: str | None) -> int | None:
    if text is None:
        return None
    token = text.strip()
    return int(token) if len(token) == 4 and token.isdigit() else None


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    token = text.strip()
    return int(token) if token.isdigit() else None


def free_text_date(text: str | None) -> tuple[int | None, int | None, int | None]:
    """(year, month, day) from a MedlineDate or an ESummary date; a part is None when ambiguous."""
    if not text:
        return None, None, None
    slashed = _SLASHED.match(text)
    if slashed:
        year, month = int(slashed[1]), month_number(slashed[2])
        return year, month, _valid_day(year, month, int(slashed[3]))
    tokens = _TOKENS.findall(text)
    years = [int(token) for token in tokens if len(token) == 4 and token.isdigit()]
    if not years:
        return None, None, None
    months = {number for token in tokens if token.isalpha() and (number := month_number(token))}
    # '2008 Jan-Feb' or '1998 Dec-1999 Jan' span several months: only the year is certain.
    month = months.pop() if len(months) == 1 and len(set(years)) == 1 else None
    day = None
    if (
        month is not None
        and len(tokens) == 3
        and "-" not in text
        and tokens[2].isdigit()
        and len(tokens[2]) <= 2
    ):
        day = _valid_day(years[0], month, int(tokens[2]))
    return years[0], month, day


def free_text_iso(text: str | None) -> str | None:
    return iso_date(*free_text_date(text))


def timestamp_iso(text: str | None) -> str | None:
    """'2025/11/27 06:33' -> '2025-11-27T06:33'; a date without a time gives the date alone."""
    if not text:
        return None
    slashed = _SLASHED.match(text)
    if not slashed:
        return free_text_iso(text)
    date = iso_date(int(slashed[1]), month_number(slashed[2]), int(slashed[3]))
    return f"{date}T{int(slashed[4]):02d}:{slashed[5]}" if slashed[4] is not None and date else date


def parts_iso(element: etree._Element | None) -> str | None:
    """The ISO date of an element with <Year>, <Month>, <Day> children (DateCompleted, PubMedPubDate...)."""
    if element is None:
        return None
    year = month = day = None
    for child in element:
        tag = child.tag
        if tag == "Year":
            year = child.text
        elif tag == "Month":
            month = child.text
        elif tag == "Day":
            day = child.text
            break  # Hour, Minute and Second follow Day and are not kept
    return iso_date(_year(year), month_number(month), _int(day))


def publication_date(element: etree._Element | None) -> PublicationDate:
    """A <PubDate>: Year/Month/Day/Season parts or a free-text <MedlineDate>."""
    if element is None:
        return PublicationDate()
    parts: dict[str, str] = {}
    for child in element:
        if child.text and child.text.strip():
            parts[child.tag] = child.text.strip()
    medline_date = parts.get("MedlineDate")
    if medline_date:
        year, month, day = free_text_date(medline_date)
    else:
        year = _year(parts.get("Year"))
        month = month_number(parts.get("Month"))
        day = _valid_day(year, month, _int(parts.get("Day")))
    return PublicationDate(
        year=year,
        month=MONTH_ABBREVIATIONS[month - 1] if month else None,
        day=day,
        season=None if medline_date else parts.get("Season"),
        medline_date=medline_date,
        iso=iso_date(year, month, day),
    )
