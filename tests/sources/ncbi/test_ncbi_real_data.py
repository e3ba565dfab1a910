"""Every real E-utilities body in the shared data goes through its parser: files, cassettes, the corpus.

Bodies that are not inputs of these parsers (other databases' formats, NCBI's prototype JSON for
EFetch, upstream bookkeeping) are recognised by their shape, and that list is itself asserted, so a
new file can never be skipped silently.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.models import Article
from bio_mcp.sources.ncbi.parsers import (
    efetch,
    parse_efetch,
    parse_einfo,
    parse_elink,
    parse_epost,
    parse_esearch,
    parse_esummary,
    split_articles,
)
from bio_mcp.sources.ncbi.xml import parse_xml

XML_PARSERS: dict[str, Callable[[bytes], Any]] = {
    "PubmedArticleSet": parse_efetch,
    "eSearchResult": parse_esearch,
    "eSummaryResult": parse_esummary,
    "eLinkResult": parse_elink,
    "eInfoResult": parse_einfo,
    "ePostResult": parse_epost,
}
JSON_PARSERS: dict[str, Callable[[bytes], Any]] = {
    "esearch": parse_esearch,
    "esummary": parse_esummary,
    "einfo": parse_einfo,
}
UTILITY_PARSERS: dict[str, Callable[[bytes], Any]] = {
    "esearch.fcgi": parse_esearch,
    "esummary.fcgi": parse_esummary,
    "elink.fcgi": parse_elink,
    "einfo.fcgi": parse_einfo,
    "efetch.fcgi": parse_efetch,
}

# Documents these parsers are not for: other databases' EFetch formats, ESpell, an ASN.1 page, a catalogue.
FOREIGN_XML_ROOTS = {
    "GBSet",
    "{https://www.ncbi.nlm.nih.gov/SNP/docsum}ExchangeSet",
    "pmc-articleset",
    "SerialsSet",
    "eSpellResult",
    "html",
    "samples",
}
TRUNCATED_UPSTREAM = {"biopython/entrez_current/einfo4.xml"}
ERROR_BODIES = {
    "biopython/entrez_current/epost2.xml",
    "biopython/entrez_current/epost3.xml",
    "biopython/entrez_current/esummary8.xml",
    "klortho/einfo.error.xml",
    "klortho/einfo.error.json",
    "klortho/esearch.baderror.xml",
    "klortho/esearch.baderror.json",
    "klortho/esummary.error.xml",
    "klortho/esummary.error.json",
    "biomcp/esearch_json_and_429/http429_rate_limit_exceeded.json",
}
ISO_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


def _json_kind(payload: Any) -> str:
    if isinstance(payload, dict) and isinstance(payload.get("header"), dict):
        kind = payload["header"].get("type", "")
        # Klortho's efetch.*.json came from a prototype converter; NCBI never served EFetch as JSON.
        return kind if kind in JSON_PARSERS else f"prototype-{kind}"
    if isinstance(payload, dict) and "error" in payload:
        return "error-body"
    return "foreign-json"


def _walk(ncbi: Path) -> dict[str, tuple[str, Any]]:
    """Relative path -> (kind, parse outcome: the result, or the BioMcpError)."""
    outcomes: dict[str, tuple[str, Any]] = {}
    for path in sorted(ncbi.rglob("*")):
        if not path.is_file() or not path.name.endswith((".xml", ".json", ".xml.gz", ".html")):
            continue
        body = path.read_bytes()
        if path.name.endswith(".gz"):
            body = gzip.decompress(body)
        relative = path.relative_to(ncbi).as_posix()
        if path.suffix == ".json":
            kind = _json_kind(json.loads(body))
            parser = JSON_PARSERS.get(kind) or (parse_esearch if kind == "error-body" else None)
        else:
            try:
                kind = str(parse_xml(body).tag)
            except BioMcpError:
                kind = "unparseable"
            parser = XML_PARSERS.get(kind) or (parse_einfo if relative in TRUNCATED_UPSTREAM else None)
        if parser is None:
            outcomes[relative] = (kind, None)
            continue
        try:
            outcomes[relative] = (kind, parser(body))
        except BioMcpError as error:
            outcomes[relative] = (kind, error)
    return outcomes


@pytest.fixture(scope="module")
def outcomes(data_dir: Path) -> dict[str, tuple[str, Any]]:
    return _walk(data_dir / "ncbi")


def test_every_ncbi_body_parses_except_known_errors(outcomes: dict[str, tuple[str, Any]]) -> None:
    failed = {path: outcome for path, (_, outcome) in outcomes.items() if isinstance(outcome, BioMcpError)}
    assert set(failed) == ERROR_BODIES | TRUNCATED_UPSTREAM
    for path, error in failed.items():
        expected = ErrorCode.RATE_LIMIT if "429" in path else ErrorCode.ENTREZ
        assert error.code is expected, path
    assert "Premature end of data" in failed["biopython/entrez_current/einfo4.xml"].details["parserMessage"]
    parsed = [path for path, (_, outcome) in outcomes.items() if outcome is not None and path not in failed]
    assert len(parsed) >= 290


def test_only_foreign_documents_are_left_out(outcomes: dict[str, tuple[str, Any]]) -> None:
    left_out = {path: kind for path, (kind, outcome) in outcomes.items() if outcome is None}
    assert {
        kind for kind in left_out.values() if not kind.startswith(("prototype-", "foreign-"))
    } <= FOREIGN_XML_ROOTS
    assert sorted(path for path, kind in left_out.items() if kind.startswith("prototype-")) == [
        "klortho/efetch.pubmed.json",
        "klortho/efetch.pubmedbook.json",
        "klortho/efetch.pubmedexample.json",
    ]
    assert sorted(path for path, kind in left_out.items() if kind == "foreign-json") == [
        "biomcp/esearch_json_and_429/panel-landmark-map.json",
        "biomcp/pubtator/export_20516115.json",
        "biomcp/pubtator/export_22663011.json",
        # The recorders' provenance, and the PMC ID Converter's answers: not E-utilities documents.
        "ecitmatch_espell/_provenance.json",
        "idconv/_http_meta/idconv_doi_10.1038_ng.590.json.meta.json",
        "idconv/_http_meta/idconv_error_404_idtype_mismatch.json.meta.json",
        "idconv/_provenance.json",
        "idconv/idconv_doi_10.1038_ng.590.json",
        "idconv/idconv_error_404_idtype_mismatch.json",
    ]


def _cassette_bodies(ncbi: Path) -> list[tuple[str, str, str, bytes]]:
    """(cassette, utility, db, body) of every E-utilities interaction recorded in the YAML cassettes."""
    bodies = []
    for cassette in sorted(ncbi.glob("*/cassettes/*.yaml")):
        for interaction in yaml.safe_load(cassette.read_text())["interactions"]:
            request, response = interaction["request"], interaction["response"]
            url = urlparse(request["uri"])
            if url.hostname != "eutils.ncbi.nlm.nih.gov":
                continue
            form = parse_qs(request.get("body") or "") | parse_qs(url.query)
            body = response["body"]["string"]
            bodies.append(
                (cassette.name, url.path.rsplit("/", 1)[-1], form.get("db", [""])[0], body.encode("utf-8"))
            )
    return bodies


def test_every_cassette_body_parses(data_dir: Path) -> None:
    bodies = _cassette_bodies(data_dir / "ncbi")
    assert len(bodies) == 61
    parsed = 0
    for cassette, utility, db, body in bodies:
        if utility == "efetch.fcgi" and db != "pubmed":
            continue  # nuccore, snp and pmc full text are other formats
        result = UTILITY_PARSERS[utility](body)
        assert result is not None, cassette
        parsed += 1
    assert parsed == 57


def test_cassette_efetch_of_259_records(data_dir: Path) -> None:
    bodies = _cassette_bodies(data_dir / "ncbi")
    [big] = [
        body for cassette, utility, _, body in bodies if utility == "efetch.fcgi" and len(body) > 3_000_000
    ]
    articles = parse_efetch(big)
    assert len(articles) == 259
    assert len({article.pmid for article in articles}) == 259


def _all_articles(outcomes: dict[str, tuple[str, Any]]) -> list[Article]:
    return [
        article for kind, outcome in outcomes.values() if kind == "PubmedArticleSet" for article in outcome
    ]


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


def test_parsed_articles_hold_their_invariants(data_dir: Path, outcomes: dict[str, tuple[str, Any]]) -> None:
    corpus = gzip.decompress((data_dir / "pubmed/pubmed_real_records.xml.gz").read_bytes())
    articles = _all_articles(outcomes) + parse_efetch(corpus)
    assert len(articles) == 508 + 466
    for article in articles:
        assert article.pmid.isdigit()
        assert (
            (article.book is None)
            == (article.record_type == "journal_article")
            == (article.journal_info is not None)
        )
        dates = [
            article.article_date,
            article.date_completed,
            article.date_revised,
            *article.history.values(),
        ]
        assert all(ISO_DATE.match(date) for date in dates if date is not None), article.pmid
        for author in article.authors:
            assert author.last_name or author.collective_name, article.pmid
            assert author.affiliation == (author.affiliations[0] if author.affiliations else None)
            assert author.orcid is None or re.fullmatch(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]", author.orcid), (
                author.orcid
            )
        assert len(article.mesh_terms) == sum(max(1, len(h.qualifiers)) for h in article.mesh_headings)
        assert article.doi is None or article.doi.startswith("10."), article.doi
        assert article.pmcid is None or re.fullmatch(r"PMC\d+", article.pmcid)
        assert article.abstract_text is None or article.abstract_sections
        date = (
            article.journal_info.publication_date if article.journal_info else article.book.publication_date
        )
        assert date.iso is None or date.iso.startswith(str(date.year))
        # Whitespace is normalised everywhere: no padding, no runs, no line breaks within a field
        # (the joined abstract_text is the one field built with line breaks between sections).
        dump = article.model_dump(exclude={"abstract_text"})
        for text in _texts(dump):
            assert text == " ".join(text.split()), (article.pmid, text)


def test_corpus_of_real_records(data_dir: Path) -> None:
    body = gzip.decompress((data_dir / "pubmed/pubmed_real_records.xml.gz").read_bytes())
    articles = parse_efetch(body)
    manifest = (data_dir / "pubmed/MANIFEST.tsv").read_text().splitlines()[1:]
    assert [article.pmid for article in articles] == [line.split("\t")[0] for line in manifest]
    assert len(articles) == 466
    assert sum(article.record_type == "book_article" for article in articles) == 3
    assert sum(bool(article.reference_pmids) for article in articles) == 153
    assert sum(len(article.mesh_headings) for article in articles) == 5349
    # 3660 journal authors, 2 chapter authors, 6 authors of a whole book.
    assert sum(len(article.authors) for article in articles) == 3660 + 2 + 6
    assert {"IM", "AIM"} <= {subset for article in articles for subset in article.citation_subsets}


def test_condensed_reference_lists_give_the_same_articles(
    data_dir: Path, outcomes, monkeypatch: pytest.MonkeyPatch
) -> None:
    bodies = [gzip.decompress((data_dir / "pubmed/pubmed_real_records.xml.gz").read_bytes())]
    bodies += [
        (data_dir / "ncbi" / path).read_bytes()
        for path, (kind, _) in outcomes.items()
        if kind == "PubmedArticleSet" and not path.endswith(".gz")
    ]
    fast = [parse_efetch(body) for body in bodies]
    monkeypatch.setattr(efetch, "_condense_reference_lists", lambda body: body)
    assert [parse_efetch(body) for body in bodies] == fast


def test_nested_reference_lists_fall_back_to_the_full_tree() -> None:
    # The DTD lets a ReferenceList hold another; the byte-level shortcut must not lose those PMIDs.
    body = (
        b"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>T</ArticleTitle>"
        b'</Article></MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">1</ArticleId></ArticleIdList>'
        b"<ReferenceList><Title>Refs</Title><ReferenceList><Reference><Citation>A</Citation><ArticleIdList>"
        b'<ArticleId IdType="pubmed">11</ArticleId></ArticleIdList></Reference></ReferenceList><Reference><Citation>B'
        b'</Citation><ArticleIdList><ArticleId IdType="pubmed">22</ArticleId></ArticleIdList></Reference>'
        b"</ReferenceList></PubmedData></PubmedArticle></PubmedArticleSet>"
    )
    [article] = parse_efetch(body)
    assert article.reference_pmids == ["11", "22"]


def test_split_articles_gives_each_record_as_standalone_xml(data_dir: Path) -> None:
    body = gzip.decompress((data_dir / "pubmed/pubmed_real_records.xml.gz").read_bytes())
    articles = parse_efetch(body)
    pieces = split_articles(body)
    assert [pmid for pmid, _ in pieces] == [article.pmid for article in articles]
    for (pmid, xml), article in zip(pieces, articles, strict=True):
        assert xml.startswith((b"<PubmedArticle>", b"<PubmedBookArticle>"))
        assert parse_efetch(b"<PubmedArticleSet>" + xml + b"</PubmedArticleSet>") == [article]
