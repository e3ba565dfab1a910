"""ELink (neighbor with and without scores, acheck, ncheck, llinks) and EInfo on real responses."""

from __future__ import annotations

from pathlib import Path

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.models import AvailableLink, DbLink, IdCheck, Link, LinkOutUrl, SearchField
from bio_mcp.sources.ncbi.parsers import parse_einfo, parse_elink

NCBI = Path("ncbi")


def _body(data_dir: Path, path: str) -> bytes:
    return (data_dir / NCBI / path).read_bytes()


def test_neighbor_links_by_link_name(data_dir: Path) -> None:
    [link_set] = parse_elink(_body(data_dir, "biopython/entrez_current/elink1.xml")).link_sets
    assert (link_set.db_from, link_set.ids) == ("pubmed", ["9298984"])
    counts = {db.link_name: (db.db_to, len(db.links)) for db in link_set.link_set_dbs}
    assert counts == {
        "pubmed_pubmed": ("pubmed", 101),
        "pubmed_pubmed_citedin": ("pubmed", 39),
        "pubmed_pubmed_combined": ("pubmed", 5),
        "pubmed_pubmed_five": ("pubmed", 5),
        "pubmed_pubmed_refs": ("pubmed", 56),
        "pubmed_pubmed_reviews": ("pubmed", 1),
        "pubmed_pubmed_reviews_five": ("pubmed", 5),
    }
    assert [link.id for link in link_set.links("pubmed_pubmed_citedin")[:3]] == [
        "38830800",
        "38188366",
        "37424454",
    ]
    assert link_set.links("pubmed_pubmed_citedin")[-1] == Link(id="9700164")
    assert [link.id for link in link_set.links("pubmed_pubmed_refs")[:3]] == [
        "14732139",
        "8909532",
        "8898221",
    ]
    assert link_set.links("pubmed_pubmed_refs")[-1].id == "1339459"
    assert link_set.links("pubmed_pubmed_nonexistent") == []


def test_neighbor_links_keep_their_scores(data_dir: Path) -> None:
    [link_set] = parse_elink(_body(data_dir, "biopython/entrez_2008_with_scores/elink3.xml")).link_sets
    assert link_set.ids == ["11812492", "11774222"]
    links = link_set.links("pubmed_pubmed")
    assert links[:5] == [
        Link(id="11812492", score=2147483647),
        Link(id="11774222", score=2147483647),
        Link(id="11668631", score=86345306),
        Link(id="15111095", score=81604359),
        Link(id="10731564", score=65665112),
    ]
    assert links[-1] == Link(id="15181901", score=14385628)
    assert all(link.score is not None for link in links)


def test_acheck_lists_available_links_per_id(data_dir: Path) -> None:
    [link_set] = parse_elink(_body(data_dir, "biopython/entrez_current/elink7.xml")).link_sets
    assert [check.id for check in link_set.id_checks] == ["12169658", "11748140"]
    assert sum(len(check.available_links) for check in link_set.id_checks) == 31
    assert link_set.id_checks[0].available_links[0] == AvailableLink(
        db_to="books",
        link_name="pubmed_books_refs",
        menu_tag="Cited in Books",
        html_tag="Cited in Books",
        priority=185,
    )
    assert link_set.id_checks[-1].available_links[-1] == AvailableLink(
        db_to="LinkOut", link_name="ExternalLink", menu_tag="LinkOut", html_tag="LinkOut", priority=255
    )


def test_ncheck_flags(data_dir: Path) -> None:
    [link_set] = parse_elink(_body(data_dir, "biopython/entrez_current/elink8.xml")).link_sets
    assert link_set.id_checks == [IdCheck(id="12068369", has_neighbor=True)]


def test_llinks_link_out_urls(data_dir: Path) -> None:
    [link_set] = parse_elink(_body(data_dir, "biopython/entrez_current/elink5.xml")).link_sets
    [url_set] = link_set.id_url_sets
    assert url_set.id == "10611131"
    assert url_set.urls == [
        LinkOutUrl(
            url="https://academic.oup.com/brain/article-lookup/doi/10.1093/brain/123.1.171",
            categories=["Full Text Sources"],
            attributes=["subscription/membership/fee required"],
            provider_name="Silverchair Information Systems",
            provider_abbr="silverchair",
            provider_id="7898",
        )
    ]


def test_link_sets_without_links(data_dir: Path) -> None:
    [empty] = parse_elink(_body(data_dir, "metapub/data/medgen_elink_pubmed_0_entries.xml")).link_sets
    assert (empty.db_from, empty.ids, empty.link_set_dbs) == ("medgen", ["0"], [])
    [nuccore] = parse_elink(_body(data_dir, "biopython/entrez_2008_with_scores/elink2.xml")).link_sets
    assert (nuccore.db_from, nuccore.ids, nuccore.link_set_dbs) == ("nucleotide", ["48819", "7140345"], [])


def test_link_set_errors() -> None:
    # ELink's per-LinkSet <ERROR> shape (from its DTD); the recorded data has none.
    only_error = b"<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom><ERROR>Invalid uid 0 at position=0</ERROR></LinkSet></eLinkResult>"
    with pytest.raises(BioMcpError) as caught:
        parse_elink(only_error)
    assert caught.value.code is ErrorCode.ENTREZ
    assert caught.value.details == {"ncbiMessages": ["Invalid uid 0 at position=0"], "utility": "elink"}
    partial = only_error.replace(
        b"</eLinkResult>",
        b"<LinkSet><DbFrom>pubmed</DbFrom><IdList><Id>1</Id></IdList></LinkSet></eLinkResult>",
    )
    first, second = parse_elink(partial).link_sets
    assert (first.error, second.error, second.ids) == ("Invalid uid 0 at position=0", None, ["1"])


def test_einfo_database_list(data_dir: Path) -> None:
    result = parse_einfo(_body(data_dir, "biopython/entrez_current/einfo1.xml"))
    assert result.db_info is None
    assert len(result.db_names) == 39
    assert result.db_names[:3] == ["pubmed", "protein", "nuccore"]
    assert result.db_names[-1] == "gtr"


def test_einfo_pubmed(data_dir: Path) -> None:
    info = parse_einfo(_body(data_dir, "biopython/entrez_current/einfo2.xml")).db_info
    assert (info.db_name, info.menu_name, info.description) == (
        "pubmed",
        "PubMed",
        "PubMed bibliographic record",
    )
    assert (info.db_build, info.count, info.last_update) == (
        "Build-2025.11.27.06.33",
        39730388,
        "2025-11-27T06:33",
    )
    assert len(info.fields) == 50
    assert info.fields[0] == SearchField(
        name="ALL", full_name="All Fields", description="All terms from all searchable fields"
    )
    assert info.fields[1] == SearchField(
        name="UID",
        full_name="UID",
        description="Unique number assigned to publication",
        is_numerical=True,
        single_token=True,
        is_hidden=True,
    )
    edat = next(field for field in info.fields if field.name == "EDAT")
    assert edat == SearchField(
        name="EDAT",
        full_name="Date - Entry",
        description="Date publication first accessible through Entrez",
        is_date=True,
        single_token=True,
    )
    assert len(info.links) == 57
    assert info.links[0] == DbLink(
        name="pubmed_assembly", menu="Assembly", description="Assembly", db_to="assembly"
    )


def test_einfo_term_counts_and_ncbi_spelling_of_rangeable(data_dir: Path) -> None:
    info = parse_einfo(_body(data_dir, "biocommons_eutils/extracted_bodies/test_einfo_dbinfo_0.xml")).db_info
    assert (info.db_name, info.count, info.last_update) == ("protein", 1291933024, "2024-04-11T11:05")
    assert (len(info.fields), len(info.links)) == (33, 49)
    assert info.fields[0] == SearchField(
        name="ALL",
        full_name="All Fields",
        description="All terms from all searchable fields",
        term_count=6465730342,
        is_truncatable=True,
        is_rangeable=False,
    )
    old = parse_einfo(_body(data_dir, "biopython/entrez_2008_with_scores/einfo3_pubmed_2010.xml")).db_info
    assert (old.count, old.last_update, old.db_build) == (20161961, "2010-09-10T04:52", None)
    assert old.fields[0].term_count == 89981460
