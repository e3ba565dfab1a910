"""ELink (neighbours, scores, cited-in, references, recorded links), EInfo and EPost of the fake."""

from __future__ import annotations

import pytest
from lxml import etree

pytestmark = pytest.mark.anyio


def link_lists(content: bytes) -> list[dict[str, list[str]]]:
    root = etree.fromstring(content)
    return [
        {
            db.findtext("LinkName"): [link.findtext("Id") for link in db.iterfind("Link")]
            for db in link_set.iterfind("LinkSetDb")
        }
        for link_set in root.iterfind("LinkSet")
    ]


def recorded_links(path, link_name: str) -> list[str]:
    root = etree.parse(str(path)).getroot()
    db = next(db for db in root.iter("LinkSetDb") if db.findtext("LinkName") == link_name)
    return [link.findtext("Id") for link in db.iterfind("Link")]


async def test_neighbors_of_a_held_record_start_with_itself_and_stay_among_held_records(
    eutils, fakes, data_dir
) -> None:
    response = await eutils.get(
        "/elink.fcgi", params={"dbfrom": "pubmed", "db": "pubmed", "id": "22663011", "cmd": "neighbor"}
    )
    recorded_head = (
        (data_dir / "ncbi/biopython/entrez_current/elink1.xml").read_bytes().split(b"<eLinkResult>")[0]
    )
    assert response.content.startswith(recorded_head)
    (links,) = link_lists(response.content)
    similar = links["pubmed_pubmed"]
    assert similar[0] == "22663011" and len(similar) == len(set(similar)) > 5
    assert set(similar) <= set(fakes.eutils.records)
    again = await eutils.get(
        "/elink.fcgi", params={"dbfrom": "pubmed", "db": "pubmed", "id": "22663011", "cmd": "neighbor"}
    )
    assert again.content == response.content


async def test_neighbor_score_gives_descending_scores(eutils) -> None:
    response = await eutils.get(
        "/elink.fcgi", params={"dbfrom": "pubmed", "db": "pubmed", "id": "22663011", "cmd": "neighbor_score"}
    )
    root = etree.fromstring(response.content)
    scores = [
        int(link.findtext("Score")) for link in root.iterfind(".//LinkSetDb[LinkName='pubmed_pubmed']/Link")
    ]
    assert scores[0] == 2147483647 and scores == sorted(scores, reverse=True)


async def test_citedin_and_refs_come_from_the_reference_lists(eutils, recorded_pubmed) -> None:
    citing = {
        pmid: {
            node.text
            for node in element.iterfind(
                ".//ReferenceList/Reference/ArticleIdList/ArticleId[@IdType='pubmed']"
            )
        }
        for pmid, element in recorded_pubmed.elements.items()
    }
    cited = next(
        pmid for pmid in sorted(recorded_pubmed.elements) if any(pmid in refs for refs in citing.values())
    )
    expected_citers = sorted((pmid for pmid, refs in citing.items() if cited in refs), key=int, reverse=True)
    response = await eutils.get(
        "/elink.fcgi",
        params={"dbfrom": "pubmed", "db": "pubmed", "id": cited, "linkname": "pubmed_pubmed_citedin"},
    )
    assert link_lists(response.content) == [{"pubmed_pubmed_citedin": expected_citers}]
    citer = expected_citers[0]
    refs = await eutils.get(
        "/elink.fcgi",
        params={"dbfrom": "pubmed", "db": "pubmed", "id": citer, "linkname": "pubmed_pubmed_refs"},
    )
    assert link_lists(refs.content)[0]["pubmed_pubmed_refs"] == sorted(citing[citer], key=int, reverse=True)


async def test_recorded_links_are_served_as_recorded(eutils, data_dir) -> None:
    current = data_dir / "ncbi/biopython/entrez_current/elink1.xml"
    response = await eutils.get("/elink.fcgi", params={"dbfrom": "pubmed", "db": "pubmed", "id": "9298984"})
    (links,) = link_lists(response.content)
    assert links["pubmed_pubmed"] == recorded_links(current, "pubmed_pubmed")
    assert links["pubmed_pubmed_refs"] == recorded_links(current, "pubmed_pubmed_refs")
    scored = await eutils.get(
        "/elink.fcgi", params={"dbfrom": "pubmed", "db": "pubmed", "id": "9298984", "cmd": "neighbor_score"}
    )
    recorded_2008 = etree.parse(str(data_dir / "ncbi/biopython/entrez_2008_with_scores/elink1.xml")).getroot()
    expected = [(link.findtext("Id"), link.findtext("Score")) for link in recorded_2008.iter("Link")]
    assert [
        (link.findtext("Id"), link.findtext("Score"))
        for link in etree.fromstring(scored.content).iter("Link")
    ] == expected
    pair = await eutils.get(
        "/elink.fcgi", params={"dbfrom": "pubmed", "db": "pubmed", "id": "11812492,11774222"}
    )
    assert link_lists(pair.content)[0]["pubmed_pubmed"] == recorded_links(
        data_dir / "ncbi/biopython/entrez_current/elink3.xml", "pubmed_pubmed"
    )


async def test_one_link_set_per_id_parameter_and_json_mode(eutils) -> None:
    separate = await eutils.post(
        "/elink.fcgi", data={"dbfrom": "pubmed", "db": "pubmed", "id": ["22663011", "29768149"]}
    )
    assert len(link_lists(separate.content)) == 2
    together = await eutils.get(
        "/elink.fcgi", params={"dbfrom": "pubmed", "db": "pubmed", "id": "22663011,29768149"}
    )
    assert len(link_lists(together.content)) == 1
    as_json = (
        await eutils.get(
            "/elink.fcgi",
            params={"dbfrom": "pubmed", "id": "22663011", "cmd": "neighbor_score", "retmode": "json"},
        )
    ).json()
    first = as_json["linksets"][0]["linksetdbs"][0]
    assert as_json["linksets"][0]["ids"] == ["22663011"]
    assert first["linkname"] == "pubmed_pubmed" and first["links"][0] == {
        "id": "22663011",
        "score": 2147483647,
    }


async def test_an_unknown_pmid_links_to_nothing(eutils) -> None:
    response = await eutils.get("/elink.fcgi", params={"dbfrom": "pubmed", "db": "pubmed", "id": "2"})
    root = etree.fromstring(response.content)
    assert root.findtext("LinkSet/IdList/Id") == "2" and root.find("LinkSet/LinkSetDb") is None


async def test_einfo_serves_the_recorded_responses(eutils, data_dir) -> None:
    current = data_dir / "ncbi/biopython/entrez_current"
    assert (await eutils.get("/einfo.fcgi")).content == (current / "einfo1.xml").read_bytes()
    assert (await eutils.get("/einfo.fcgi", params={"db": "pubmed"})).content == (
        current / "einfo2.xml"
    ).read_bytes()
    as_json = (await eutils.get("/einfo.fcgi", params={"db": "pubmed", "retmode": "json"})).json()
    assert as_json["einforesult"]["dbinfo"]["dbname"] == "pubmed"
    bad = await eutils.get("/einfo.fcgi", params={"db": "fleegle"})
    assert etree.fromstring(bad.content).findtext("ERROR") == "Can not retrieve DbInfo for db=fleegle"


async def test_epost_stores_ids_for_efetch(eutils) -> None:
    posted = etree.fromstring(
        (await eutils.post("/epost.fcgi", data={"db": "pubmed", "id": "22663011,29768149"})).content
    )
    web_env, query_key = posted.findtext("WebEnv"), posted.findtext("QueryKey")
    fetched = await eutils.get(
        "/efetch.fcgi", params={"db": "pubmed", "WebEnv": web_env, "query_key": query_key}
    )
    assert [record.findtext(".//PMID") for record in etree.fromstring(fetched.content)] == [
        "22663011",
        "29768149",
    ]
