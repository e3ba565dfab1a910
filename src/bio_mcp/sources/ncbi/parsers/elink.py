"""ELink XML (eLinkResult) for every cmd: neighbor (per-link <Score> when NCBI sends it), neighbor_history,
acheck/ncheck/lcheck (IdCheckList) and llinks/prlinks (IdUrlList).

An <ERROR> for the whole request raises; an <ERROR> inside one LinkSet is kept on that LinkSet, unless
every LinkSet failed, since then there is nothing to return.
"""

from __future__ import annotations

from lxml import etree

from bio_mcp.sources.ncbi.models import (
    AvailableLink,
    IdCheck,
    IdUrlSet,
    Link,
    LinkOutUrl,
    LinkResult,
    LinkSet,
    LinkSetDb,
    LinkSetDbHistory,
)
from bio_mcp.sources.ncbi.parsers.body import load_xml
from bio_mcp.sources.ncbi.parsers.errors import entrez_error
from bio_mcp.sources.ncbi.xml import element_text

_YES_NO = {"Y": True, "N": False}


def parse_elink(body: bytes | str) -> LinkResult:
    root = load_xml(body, "eLinkResult")
    link_sets = [_link_set(element) for element in root if element.tag == "LinkSet"]
    errors = [link_set.error for link_set in link_sets if link_set.error]
    if link_sets and len(errors) == len(link_sets):
        raise entrez_error(errors, "elink")
    return LinkResult(link_sets=link_sets)


def _score(text: str | None) -> int | None:
    return int(text) if text and text.strip().isdigit() else None


def _link_set_db(element: etree._Element) -> LinkSetDb:
    links = []
    for link in element.iterfind("Link"):
        parts = {child.tag: child.text for child in link}
        link_id = (parts.get("Id") or "").strip()
        if link_id:
            links.append(Link(id=link_id, score=_score(parts.get("Score"))))
    return LinkSetDb(
        db_to=element_text(element.find("DbTo")),
        link_name=element_text(element.find("LinkName")),
        links=links,
        info=element_text(element.find("Info")) or None,
    )


def _link_set_db_history(element: etree._Element) -> LinkSetDbHistory:
    return LinkSetDbHistory(
        db_to=element_text(element.find("DbTo")),
        link_name=element_text(element.find("LinkName")),
        query_key=element_text(element.find("QueryKey")) or None,
        info=element_text(element.find("Info")) or None,
    )


def _link_out_url(element: etree._Element) -> LinkOutUrl:
    provider = element.find("Provider")
    return LinkOutUrl(
        url=element_text(element.find("Url")) or None,
        link_name=element_text(element.find("LinkName")) or None,
        categories=[element_text(item) for item in element.iterfind("Category")],
        attributes=[element_text(item) for item in element.iterfind("Attribute")],
        subject_types=[element_text(item) for item in element.iterfind("SubjectType")],
        provider_name=element_text(provider.find("Name")) or None if provider is not None else None,
        provider_abbr=element_text(provider.find("NameAbbr")) or None if provider is not None else None,
        provider_id=element_text(provider.find("Id")) or None if provider is not None else None,
    )


def _id_url_set(element: etree._Element) -> IdUrlSet:
    return IdUrlSet(
        id=element_text(element.find("Id")),
        urls=[_link_out_url(url) for url in element.iterfind("ObjUrl")],
        info=element_text(element.find("Info")) or None,
    )


def _available_link(element: etree._Element) -> AvailableLink:
    priority = element_text(element.find("Priority"))
    return AvailableLink(
        db_to=element_text(element.find("DbTo")),
        link_name=element_text(element.find("LinkName")),
        menu_tag=element_text(element.find("MenuTag")) or None,
        html_tag=element_text(element.find("HtmlTag")) or None,
        url=element_text(element.find("Url")) or None,
        priority=int(priority) if priority.isdigit() else None,
    )


def _id_checks(check_list: etree._Element) -> list[IdCheck]:
    checks = []
    for element in check_list:
        if element.tag == "Id":
            checks.append(
                IdCheck(
                    id=element_text(element),
                    has_neighbor=_YES_NO.get(element.get("HasNeighbor", "")),
                    has_link_out=_YES_NO.get(element.get("HasLinkOut", "")),
                )
            )
        elif element.tag == "IdLinkSet":
            checks.append(
                IdCheck(
                    id=element_text(element.find("Id")),
                    available_links=[_available_link(info) for info in element.iterfind("LinkInfo")],
                )
            )
    return checks


def _link_set(element: etree._Element) -> LinkSet:
    db_from = ""
    ids: list[str] = []
    web_env: str | None = None
    link_set_dbs: list[LinkSetDb] = []
    histories: list[LinkSetDbHistory] = []
    id_url_sets: list[IdUrlSet] = []
    id_checks: list[IdCheck] = []
    errors: list[str] = []
    for child in element:
        tag = child.tag
        if tag == "LinkSetDb":
            link_set_dbs.append(_link_set_db(child))
        elif tag == "DbFrom":
            db_from = element_text(child)
        elif tag == "IdList":
            ids = [element_text(item) for item in child if item.tag == "Id"]
        elif tag == "LinkSetDbHistory":
            histories.append(_link_set_db_history(child))
        elif tag == "WebEnv":
            web_env = element_text(child) or None
        elif tag == "IdUrlList":
            id_url_sets.extend(_id_url_set(url_set) for url_set in child.iterfind("IdUrlSet"))
        elif tag == "IdCheckList":
            id_checks.extend(_id_checks(child))
            errors.extend(text for error in child.iterfind("ERROR") if (text := element_text(error)))
        elif tag == "ERROR" and element_text(child):
            errors.append(element_text(child))
    return LinkSet(
        db_from=db_from,
        ids=ids,
        link_set_dbs=link_set_dbs,
        link_set_db_histories=histories,
        web_env=web_env,
        id_url_sets=id_url_sets,
        id_checks=id_checks,
        error="; ".join(errors) or None,
    )
