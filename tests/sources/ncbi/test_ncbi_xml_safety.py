"""The XML parser factory: no entity expansion, no external entities, no network, clean errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.parsers import parse_efetch, parse_einfo, parse_esearch
from bio_mcp.sources.ncbi.xml import collapsed, element_text, make_parser, parse_xml

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE eSearchResult [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<eSearchResult><Count>1</Count><QueryTranslation>&lol9;</QueryTranslation></eSearchResult>"""

# Few, small entities: under libxml2's amplification limit, so only our own check refuses it.
SMALL_EXPANSION = b"""<?xml version="1.0"?>
<!DOCTYPE eSearchResult [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]>
<eSearchResult><Count>1</Count><QueryTranslation>&b;</QueryTranslation></eSearchResult>"""


def _external_entity(target: Path) -> bytes:
    return (
        b'<?xml version="1.0"?><!DOCTYPE eSearchResult [<!ENTITY xxe SYSTEM "'
        + target.as_uri().encode()
        + b'">]><eSearchResult><Count>1</Count><QueryTranslation>&xxe;</QueryTranslation></eSearchResult>'
    )


def _external_parameter_entity(target: Path) -> bytes:
    return (
        b'<?xml version="1.0"?><!DOCTYPE eSearchResult [<!ENTITY % ext SYSTEM "'
        + target.as_uri().encode()
        + b'"> %ext;]><eSearchResult><Count>1</Count><QueryTranslation>&leak;</QueryTranslation></eSearchResult>'
    )


def test_parser_factory_switches_off_entities_dtds_and_network() -> None:
    root = etree.fromstring(SMALL_EXPANSION, make_parser())
    translation = root.find("QueryTranslation")
    # The reference stays a reference: nothing was substituted.
    assert translation.text is None
    assert [node.text for node in translation] == ["&b;"]


@pytest.mark.parametrize(
    "document", [BILLION_LAUGHS, SMALL_EXPANSION], ids=["billion-laughs", "small-expansion"]
)
def test_entity_expansion_is_refused(document: bytes) -> None:
    with pytest.raises(BioMcpError) as caught:
        parse_xml(document)
    assert caught.value.code is ErrorCode.ENTREZ
    assert caught.value.details["parserMessage"]


def test_billion_laughs_through_a_parser_never_expands() -> None:
    with pytest.raises(BioMcpError) as caught:
        parse_esearch(BILLION_LAUGHS)
    assert caught.value.code is ErrorCode.ENTREZ
    assert "lollol" not in str(caught.value.details)


def test_external_entity_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    with pytest.raises(BioMcpError) as caught:
        parse_esearch(_external_entity(secret))
    assert caught.value.code is ErrorCode.ENTREZ
    assert caught.value.details["entities"] == ["xxe"]
    assert "TOP-SECRET" not in repr(caught.value.details) + caught.value.message


def test_external_parameter_entity_is_never_loaded(tmp_path: Path) -> None:
    dtd = tmp_path / "evil.dtd"
    dtd.write_text('<!ENTITY leak "TOP-SECRET-VIA-DTD">')
    with pytest.raises(BioMcpError) as caught:
        parse_xml(_external_parameter_entity(dtd))
    assert caught.value.code is ErrorCode.ENTREZ
    assert "TOP-SECRET" not in repr(caught.value.details)


def test_public_doctype_of_real_responses_is_accepted_without_fetching_the_dtd() -> None:
    # Every NCBI response names its DTD by URL; it must neither be fetched nor refused.
    body = (
        b'<?xml version="1.0" ?><!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" '
        b'"https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd"><eSearchResult><Count>7</Count></eSearchResult>'
    )
    assert parse_esearch(body).count == 7


def test_truncated_real_response_is_an_entrez_error(data_dir: Path) -> None:
    body = (data_dir / "ncbi/biopython/entrez_current/einfo4.xml").read_bytes()
    with pytest.raises(BioMcpError) as caught:
        parse_einfo(body)
    assert caught.value.code is ErrorCode.ENTREZ
    assert "Premature end of data" in caught.value.details["parserMessage"]
    assert caught.value.details["line"] == 40


def test_every_cut_of_a_real_efetch_response_fails_cleanly(data_dir: Path) -> None:
    body = (
        data_dir
        / "ncbi/hawc/extracted_bodies/services.nih.test_pubmed.TestPubMedFetch.test_collective_author__0.xml"
    ).read_bytes()
    for cut in range(0, len(body) - 1, 97):
        with pytest.raises(BioMcpError) as caught:
            parse_efetch(body[:cut])
        assert caught.value.code is ErrorCode.ENTREZ


@pytest.mark.parametrize(
    "body", [b"", b"   ", b"not xml at all", b"<eSearchResult><Count>1</Count>", b"\xff\xfe<a/>"]
)
def test_malformed_bodies_are_entrez_errors(body: bytes) -> None:
    with pytest.raises(BioMcpError) as caught:
        parse_esearch(body)
    assert caught.value.code is ErrorCode.ENTREZ


def test_wrong_document_is_an_entrez_error(data_dir: Path) -> None:
    body = (data_dir / "ncbi/biomcp/ncbi_efetch_pmc/pmc3040717.xml").read_bytes()
    with pytest.raises(BioMcpError) as caught:
        parse_efetch(body)
    assert caught.value.code is ErrorCode.ENTREZ
    assert caught.value.details == {"expected": ["PubmedArticleSet"], "found": "pmc-articleset"}


def test_str_bodies_are_accepted() -> None:
    assert parse_esearch("<eSearchResult><Count>3</Count></eSearchResult>").count == 3


def test_inline_markup_becomes_clean_text() -> None:
    element = etree.fromstring(
        b"<AbstractText>CO<sub>2</sub> and <i>in  vivo</i>\n  data, <b>p</b> &lt; 0.05"
        b'<math xmlns="http://www.w3.org/1998/Math/MathML"><mi>x</mi><mo>=</mo><mn>1</mn></math> end</AbstractText>'
    )
    assert element_text(element) == "CO2 and in vivo data, p < 0.05x=1 end"
    assert element_text(None) == ""
    assert collapsed(etree.fromstring(b"<LastName>  de la\n Cruz </LastName>").text) == "de la Cruz"
