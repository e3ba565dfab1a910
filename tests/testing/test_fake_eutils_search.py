"""ESearch on the fake E-utilities, over real HTTP, checked against an independent reading of the records."""

from __future__ import annotations

import json
from datetime import date, datetime

import httpx2
import pytest
from lxml import etree

pytestmark = pytest.mark.anyio

TITLE = ".//ArticleTitle"
TITLE_ABSTRACT = ".//ArticleTitle | .//AbstractText"


async def search(
    client: httpx2.AsyncClient, term: str, **params: object
) -> tuple[int, list[str], etree._Element]:
    response = await client.get(
        "/esearch.fcgi", params={"db": "pubmed", "term": term, "retmax": 10000, **params}
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/xml")
    root = etree.fromstring(response.content)
    return int(root.findtext("Count")), [element.text for element in root.iterfind("IdList/Id")], root


async def hits(client: httpx2.AsyncClient, term: str, **params: object) -> set[str]:
    count, ids, _ = await search(client, term, **params)
    assert count == len(ids)
    return set(ids)


async def test_the_result_has_the_recorded_esearch_shape(eutils, data_dir) -> None:
    response = await eutils.get("/esearch.fcgi", params={"db": "pubmed", "term": "melanoma"})
    recorded = (data_dir / "ncbi/biopython/entrez_current/esearch1.xml").read_bytes()
    assert response.content.split(b"<eSearchResult>")[0] == recorded.split(b"<eSearchResult>")[0]
    root = etree.fromstring(response.content)
    assert [child.tag for child in root] == [
        "Count",
        "RetMax",
        "RetStart",
        "IdList",
        "TranslationSet",
        "QueryTranslation",
    ]
    assert root.findtext("QueryTranslation") == '"melanoma"[All Fields]'


async def test_a_bare_word_searches_title_abstract_mesh_keywords_authors_and_journal(
    eutils, recorded_pubmed
) -> None:
    found = await hits(eutils, "melanoma")
    in_title_or_abstract = recorded_pubmed.having_word("melanoma", TITLE_ABSTRACT)
    in_mesh = recorded_pubmed.having_word("melanoma", ".//MeshHeading/*")
    assert found >= in_title_or_abstract | in_mesh
    assert "22663011" in found


@pytest.mark.parametrize(
    ("term", "xpath"),
    [
        ("survival[ti]", TITLE),
        ("survival[tiab]", TITLE_ABSTRACT),
        ("survival[ab]", ".//AbstractText"),
        ("surgery[ot]", ".//Keyword"),
    ],
)
async def test_text_field_tags_match_whole_words_in_their_field(eutils, recorded_pubmed, term, xpath) -> None:
    word = term.split("[")[0]
    assert await hits(eutils, term) == recorded_pubmed.having_word(word, xpath)


async def test_value_field_tags(eutils, recorded_pubmed) -> None:
    assert await hits(eutils, "review[pt]") == recorded_pubmed.having_value("Review", ".//PublicationType")
    assert (
        await hits(eutils, "jpn[la]")
        == await hits(eutils, "japanese[la]")
        == recorded_pubmed.having_value("jpn", ".//Language")
    )
    assert await hits(eutils, "NCT01245062[si]") == {"22663011"}
    assert await hits(eutils, '"ClinicalTrials.gov/NCT02149199"[si]') == {"29768149"}
    assert await hits(eutils, "22663011[pmid]") == await hits(eutils, "22663011[uid]") == {"22663011"}
    nejm = recorded_pubmed.having_value("N Engl J Med", ".//MedlineTA")
    assert await hits(eutils, '"N Engl J Med"[ta]') == await hits(eutils, '"N Engl J Med"[jour]') == nejm


async def test_author_searches_match_surname_with_or_without_initials(eutils) -> None:
    by_surname = await hits(eutils, "flaherty[au]")
    assert "22663011" in by_surname
    assert "22663011" in await hits(eutils, "flaherty kt[au]")
    assert "22663011" in await hits(eutils, '"Flaherty K"[au]')
    assert "22663011" not in await hits(eutils, "flah[au]")
    assert "22663011" in await hits(eutils, "flaherty kt[1au]")


async def test_mesh_terms_explode_down_the_tree_unless_noexp(eutils, recorded_pubmed) -> None:
    # Melanoma sits at C04.557.465.625.650.510, below Neoplasms by Histologic Type (C04.557).
    exploded = await hits(eutils, '"neoplasms by histologic type"[mh]')
    exact = await hits(eutils, '"neoplasms by histologic type"[mh:noexp]')
    melanoma = await hits(eutils, "melanoma[mh]")
    assert exact == recorded_pubmed.having_value(
        "Neoplasms by Histologic Type", ".//MeshHeading/DescriptorName"
    )
    assert "22663011" in melanoma and melanoma <= exploded
    assert "22663011" not in exact
    assert "22663011" in await hits(eutils, "melanoma[majr]")
    assert "22663011" in await hits(eutils, "melanoma/drug therapy[mh]")


async def test_booleans_apply_left_to_right_with_parentheses(eutils) -> None:
    melanoma, survival, review = [await hits(eutils, term) for term in ("melanoma", "survival", "review[pt]")]
    assert await hits(eutils, "melanoma OR survival") == melanoma | survival
    assert await hits(eutils, "melanoma AND survival") == melanoma & survival
    assert await hits(eutils, "melanoma survival") == melanoma & survival
    assert await hits(eutils, "survival NOT melanoma") == survival - melanoma
    assert await hits(eutils, "melanoma OR survival AND review[pt]") == (melanoma | survival) & review
    assert await hits(eutils, "melanoma OR (survival AND review[pt])") == melanoma | (survival & review)
    assert (melanoma | survival) & review != melanoma | (survival & review)


async def test_a_quoted_phrase_needs_the_words_together(eutils, recorded_pubmed) -> None:
    phrase = await hits(eutils, '"breast cancer"')
    words = await hits(eutils, "breast cancer")
    assert phrase and phrase < words
    assert await hits(eutils, '"breast cancer"[tiab]') == {
        pmid
        for pmid in recorded_pubmed.elements
        if any(
            " breast cancer " in " " + " ".join(recorded_pubmed.words(text)) + " "
            for text in recorded_pubmed.texts(pmid, TITLE_ABSTRACT)
        )
    }
    assert await hits(eutils, "canc*[ti]") >= await hits(eutils, "cancer[ti]")


async def test_no_hits_has_the_recorded_no_hit_shape(eutils, data_dir) -> None:
    count, ids, root = await search(eutils, "abcXYZ")
    recorded = etree.parse(str(data_dir / "ncbi/biopython/entrez_current/esearch8.xml")).getroot()
    assert (count, ids) == (0, [])
    assert [child.tag for child in root] == [child.tag for child in recorded]
    assert root.findtext("ErrorList/PhraseNotFound") == "abcXYZ"
    assert root.findtext("WarningList/OutputMessage") == "No items found."
    _, _, quoted = await search(eutils, '"no such phrase anywhere"')
    assert quoted.findtext("WarningList/QuotedPhraseNotFound") == '"no such phrase anywhere"'


async def test_entry_date_windows_by_term_and_by_parameters_agree(eutils, fakes) -> None:
    fakes.eutils.set_edat("22663011", datetime(2031, 5, 6, 9, 30))
    by_term = await hits(eutils, '"2031/05/01"[EDAT] : "2031/05/31"[EDAT]')
    by_params = await hits(eutils, "all[sb]", mindate="2031/05/01", maxdate="2031/05/31", datetype="edat")
    assert by_term == by_params == {"22663011"}
    assert await hits(eutils, "melanoma AND 2031/05/06[edat]") == {"22663011"}
    assert await hits(eutils, "2031/05/07:2031/06/30[edat]") == set()
    _, _, root = await search(eutils, "melanoma", mindate="2031/05/01", maxdate="2031/05/31", datetype="edat")
    assert (
        root.findtext("QueryTranslation") == '"melanoma"[All Fields] AND 2031/05/01:2031/05/31[Date - Entry]'
    )


async def test_publication_dates_include_print_and_electronic(eutils, fakes) -> None:
    in_2012 = await hits(eutils, "2012[pdat]")
    assert "22663011" in in_2012
    assert "22663011" in await hits(eutils, "2012/06/04[dp]")  # its electronic date
    assert "22663011" in await hits(eutils, "2012/07[dp]")  # its print date
    assert in_2012 == await hits(eutils, "all[sb]", mindate="2012", maxdate="2012", datetype="pdat")
    assert all(
        any(day.year == 2012 for day in fakes.eutils.record(pmid).article.publication_dates)
        for pmid in in_2012
    )


async def test_modification_date_follows_a_revision(eutils, fakes) -> None:
    assert "22663011" not in await hits(eutils, "2033/02/03[mdat]")
    fakes.eutils.revise("22663011", lr=date(2033, 2, 3))
    assert await hits(eutils, "2033/02/03[mdat]") == {"22663011"}
    assert await hits(eutils, "all[sb]", mindate="2033/01/01", maxdate="2033/12/31", datetype="mdat") == {
        "22663011"
    }


async def test_reldate_counts_back_from_the_fakes_today(eutils, fakes) -> None:
    fakes.eutils.today = lambda: date(2040, 1, 31)
    fakes.eutils.set_edat("22663011", datetime(2040, 1, 20))
    assert await hits(eutils, "all[sb]", reldate=30, datetype="edat") == {"22663011"}


async def test_counts_and_paging_with_retstart_and_retmax(eutils) -> None:
    count, everything, _ = await search(eutils, "patients")
    assert count == len(everything) > 45
    pages = []
    for start in range(0, count, 20):
        page_count, page, root = await search(eutils, "patients", retstart=start, retmax=20)
        assert page_count == count
        assert int(root.findtext("RetMax")) == len(page) and int(root.findtext("RetStart")) == start
        pages += page
    assert pages == everything
    _, default_page, _ = await search(eutils, "patients", retmax="")
    assert len(default_page) == 20


async def test_rettype_count(eutils) -> None:
    response = await eutils.get(
        "/esearch.fcgi", params={"db": "pubmed", "term": "melanoma", "rettype": "count"}
    )
    root = etree.fromstring(response.content)
    assert [child.tag for child in root] == ["Count"]
    assert int(root.findtext("Count")) == len(await hits(eutils, "melanoma"))


@pytest.mark.parametrize(
    "sort", ["relevance", "pub_date", "author", "journal_name", "pub+date", "most+recent"]
)
async def test_every_sort_is_deterministic(eutils, sort) -> None:
    first = (await search(eutils, "patients", sort=sort))[1]
    again = (await search(eutils, "patients", sort=sort))[1]
    assert first == again and len(set(first)) == len(first)


async def test_pub_date_sort_is_newest_first_and_relevance_prefers_title_hits(eutils, fakes) -> None:
    _, by_date, _ = await search(eutils, "patients", sort="pub_date")
    dates = [fakes.eutils.record(pmid).article.pub_date.as_date for pmid in by_date]
    assert dates == sorted(dates, reverse=True)
    _, by_relevance, _ = await search(eutils, "melanoma")
    assert "melanoma" in fakes.eutils.record(by_relevance[0]).article.title.lower()


async def test_usehistory_then_efetch_and_esummary_by_webenv(eutils) -> None:
    _, first_five, root = await search(eutils, "patients", usehistory="y", retmax=5)
    web_env, query_key = root.findtext("WebEnv"), root.findtext("QueryKey")
    assert web_env.startswith("MCID_") and query_key == "1"
    _, all_ids, _ = await search(eutils, "patients")
    assert first_five == all_ids[:5]
    fetched = []
    for start in range(0, len(all_ids), 25):
        response = await eutils.get(
            "/efetch.fcgi",
            params={
                "db": "pubmed",
                "query_key": query_key,
                "WebEnv": web_env,
                "retstart": start,
                "retmax": 25,
                "retmode": "xml",
            },
        )
        fetched += [node.findtext(".//PMID") for node in etree.fromstring(response.content)]
    assert fetched == all_ids
    summary = await eutils.get(
        "/esummary.fcgi", params={"db": "pubmed", "query_key": 1, "WebEnv": web_env, "version": "2.0"}
    )
    assert [node.get("uid") for node in etree.fromstring(summary.content).iter("DocumentSummary")] == all_ids[
        :20
    ]
    _, _, second = await search(eutils, "melanoma", usehistory="y", WebEnv=web_env)
    assert (second.findtext("WebEnv"), second.findtext("QueryKey")) == (web_env, "2")
    assert await hits(eutils, "#1 AND melanoma", WebEnv=web_env) == set(all_ids) & await hits(
        eutils, "melanoma"
    )


async def test_unknown_history_is_an_in_band_error(eutils) -> None:
    response = await eutils.get(
        "/efetch.fcgi", params={"db": "pubmed", "query_key": 3, "WebEnv": "MCID_nope"}
    )
    assert response.status_code == 200
    assert (
        etree.fromstring(response.content)
        .findtext("ERROR")
        .startswith("Cannot retrieve history data. query_key: 3")
    )


async def test_more_than_9999_hits_count_truly_but_retstart_stops_at_9998(eutils, fakes) -> None:
    clones = fakes.eutils.replicate(10_500, 60_000_000)
    fakes.eutils.spread_edats(datetime(2035, 1, 1), datetime(2036, 1, 1), clones)
    window = '"2035/01/01"[edat] : "2035/12/31"[edat]'
    count, ids, _ = await search(eutils, window, retstart=9990, retmax=100)
    assert count == 10_500 and len(ids) == 9
    response = await eutils.get("/esearch.fcgi", params={"db": "pubmed", "term": window, "retstart": 9999})
    assert response.status_code == 200
    assert "'retstart' cannot be larger than 9998" in etree.fromstring(response.content).findtext("ERROR")
    as_json = await eutils.get(
        "/esearch.fcgi", params={"db": "pubmed", "term": window, "retstart": 10000, "retmode": "json"}
    )
    assert "\\'retstart\\' cannot be larger than 9998" in as_json.text
    with pytest.raises(json.JSONDecodeError):
        json.loads(as_json.text)
    fakes.eutils.retstart_error_status = 400
    assert (
        await eutils.get("/esearch.fcgi", params={"db": "pubmed", "term": window, "retstart": 9999})
    ).status_code == 400
    half_year = await hits(eutils, '"2035/01/01"[edat] : "2035/06/30"[edat]')
    assert 4_000 < len(half_year) < 9_999


async def test_history_fetches_stop_at_9998_too(eutils, fakes) -> None:
    fakes.eutils.replicate(10_100, 70_000_000)
    _, _, root = await search(eutils, "all[sb]", usehistory="y", retmax=0)
    params = {
        "db": "pubmed",
        "query_key": "1",
        "WebEnv": root.findtext("WebEnv"),
        "rettype": "uilist",
        "retmode": "text",
    }
    last = await eutils.get("/efetch.fcgi", params={**params, "retstart": 9990, "retmax": 50})
    assert len(last.text.split()) == 9
    beyond = await eutils.get("/efetch.fcgi", params={**params, "retstart": 9999, "retmax": 50})
    assert beyond.status_code == 400
    assert "cannot retrieve history data" in beyond.text


async def test_json_mode(eutils) -> None:
    response = await eutils.get(
        "/esearch.fcgi", params={"db": "pubmed", "term": "melanoma", "retmode": "json", "usehistory": "y"}
    )
    assert response.headers["content-type"].startswith("application/json")
    document = response.json()
    assert document["header"] == {"type": "esearch", "version": "0.3"}
    result = document["esearchresult"]
    assert int(result["count"]) == len(result["idlist"]) == len(await hits(eutils, "melanoma"))
    assert result["querykey"] == "1" and result["webenv"].startswith("MCID_")
    none = (
        await eutils.get("/esearch.fcgi", params={"db": "pubmed", "term": "abcXYZ", "retmode": "json"})
    ).json()
    assert none["esearchresult"]["errorlist"]["phrasesnotfound"] == ["abcXYZ"]
    assert none["esearchresult"]["warninglist"]["outputmessages"] == ["No items found."]


async def test_post_form_bodies_answer_like_get(eutils) -> None:
    params = {"db": "pubmed", "term": "melanoma OR survival", "retmax": "50"}
    by_get = await eutils.get("/esearch.fcgi", params=params)
    by_post = await eutils.post("/esearch.fcgi", data=params)
    assert by_get.content == by_post.content


async def test_in_band_errors_for_empty_terms_and_unknown_databases(eutils) -> None:
    empty = await eutils.get("/esearch.fcgi", params={"db": "pubmed", "term": ""})
    assert etree.fromstring(empty.content).findtext("ERROR") == "Empty term and query_key - nothing todo"
    other = await eutils.get("/esearch.fcgi", params={"db": "fleegle", "term": "x"})
    assert etree.fromstring(other.content).findtext("ERROR") == "Invalid db name specified: fleegle"


async def test_the_field_parameter_and_filters(eutils, recorded_pubmed) -> None:
    assert await hits(eutils, "survival", field="title") == await hits(eutils, "survival[ti]")
    with_abstract = await hits(eutils, "hasabstract")
    assert with_abstract == {
        pmid for pmid in recorded_pubmed.elements if recorded_pubmed.texts(pmid, ".//AbstractText")
    }
    assert await hits(eutils, "all[sb]") == set(recorded_pubmed.elements)
