"""The ESearch term parser: what PubMed would make of each query, as QueryTranslation shows it."""

from __future__ import annotations

from datetime import date

import pytest

from bio_mcp.testing.entrez_query import (
    DateRange,
    SearchField,
    Term,
    parse_date_bound,
    parse_query,
    translate,
)


@pytest.mark.parametrize(
    ("term", "translation"),
    [
        ("cancer", '"cancer"[All Fields]'),
        ("breast cancer", '"breast"[All Fields] AND "cancer"[All Fields]'),
        ('"breast cancer"[tiab]', '"breast cancer"[Title/Abstract]'),
        ("gene therapy[mh]", '"gene therapy"[MeSH Terms]'),
        ("smith j[au] AND 2020[dp]", '"smith j"[Author] AND "2020"[Date - Publication]'),
        ("a OR b AND c", '("a"[All Fields] OR "b"[All Fields]) AND "c"[All Fields]'),
        ("a OR (b AND c)", '"a"[All Fields] OR ("b"[All Fields] AND "c"[All Fields])'),
        ("canc* NOT review[pt]", 'canc*[All Fields] NOT "review"[Publication Type]'),
        ("neoplasms[mh:noexp]", '"neoplasms"[MeSH Terms:noexp]'),
        ("NCT01245062[si]", '"nct01245062"[Secondary Source ID]'),
        ('"2020/01/01"[EDAT] : "2020/12/31"[EDAT]', "2020/01/01:2020/12/31[Date - Entry]"),
        ("2020/01/01:2020/12/31[edat]", "2020/01/01:2020/12/31[Date - Entry]"),
        ("2020:2021[dp]", "2020:2021[Date - Publication]"),
        ("#1 AND melanoma", '#1 AND "melanoma"[All Fields]'),
    ],
)
def test_translation(term: str, translation: str) -> None:
    assert translate(parse_query(term).root) == translation


def test_field_tags_and_their_aliases() -> None:
    for tag, field in [
        ("tiab", SearchField.TITLE_ABSTRACT),
        ("ti", SearchField.TITLE),
        ("ab", SearchField.ABSTRACT),
        ("au", SearchField.AUTHOR),
        ("mh", SearchField.MESH),
        ("majr", SearchField.MESH_MAJOR),
        ("pt", SearchField.PUBLICATION_TYPE),
        ("la", SearchField.LANGUAGE),
        ("ta", SearchField.JOURNAL),
        ("jour", SearchField.JOURNAL),
        ("si", SearchField.SECONDARY_SOURCE_ID),
        ("pmid", SearchField.UID),
        ("uid", SearchField.UID),
        ("Title/Abstract", SearchField.TITLE_ABSTRACT),
        ("MeSH Terms", SearchField.MESH),
    ]:
        root = parse_query(f"x[{tag}]").root
        assert isinstance(root, Term) and root.field is field, tag


def test_dates_widen_to_their_precision() -> None:
    year = parse_query('"2020"[pdat]').root
    month = parse_query("2020/02[dp]").root
    assert isinstance(year, DateRange) and (year.start, year.end) == (date(2020, 1, 1), date(2020, 12, 31))
    assert isinstance(month, DateRange) and (month.start, month.end) == (date(2020, 2, 1), date(2020, 2, 29))
    assert parse_date_bound("2021-03-04", end=True) == date(2021, 3, 4)
    assert parse_date_bound("not a date", end=False) is None


def test_unknown_tags_are_reported_and_searched_as_all_fields() -> None:
    parsed = parse_query("melanoma[xyz]")
    assert parsed.unknown_fields == ("xyz",)
    assert parsed.root == Term("melanoma", SearchField.ALL)


def test_lowercase_booleans_are_words_and_stray_operators_are_ignored() -> None:
    assert (
        translate(parse_query("cats and dogs").root)
        == '"cats"[All Fields] AND "and"[All Fields] AND "dogs"[All Fields]'
    )
    assert translate(parse_query("NOT cats").root) == '"cats"[All Fields]'
    assert parse_query("   ").root is None
