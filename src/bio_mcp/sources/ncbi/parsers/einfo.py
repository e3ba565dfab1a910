"""EInfo, XML (eInfoResult) or JSON (einforesult): the database list, or one database's fields and links."""

from __future__ import annotations

from typing import Any

from lxml import etree

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.models import DbInfo, DbLink, InfoResult, SearchField
from bio_mcp.sources.ncbi.parsers.body import is_json, load_json, load_xml
from bio_mcp.sources.ncbi.parsers.dates import timestamp_iso
from bio_mcp.sources.ncbi.xml import element_text

# Field flags, XML element (JSON key in lower case) -> SearchField attribute; "IsRangable" is NCBI's spelling.
_FIELD_FLAGS = {
    "IsDate": "is_date",
    "IsNumerical": "is_numerical",
    "SingleToken": "single_token",
    "Hierarchy": "hierarchy",
    "IsHidden": "is_hidden",
    "IsTruncatable": "is_truncatable",
    "IsRangable": "is_rangeable",
}


def parse_einfo(body: bytes | str) -> InfoResult:
    if is_json(body):
        return _from_json(load_json(body))
    return _from_xml(load_xml(body, "eInfoResult"))


def _count(value: Any) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() else None


def _search_field(values: dict[str, str]) -> SearchField:
    """A field from its values keyed by XML element name."""
    flags = {
        attribute: values[tag].strip() == "Y" for tag, attribute in _FIELD_FLAGS.items() if values.get(tag)
    }
    return SearchField(
        name=values.get("Name", ""),
        full_name=values.get("FullName") or None,
        description=values.get("Description") or None,
        term_count=_count(values.get("TermCount")),
        **flags,
    )


def _db_info(values: dict[str, Any], fields: list[SearchField], links: list[DbLink]) -> DbInfo:
    if not values.get("DbName"):
        raise BioMcpError(ErrorCode.ENTREZ, "NCBI returned an EInfo DbInfo without a DbName", None)
    return DbInfo(
        db_name=values["DbName"],
        menu_name=values.get("MenuName") or None,
        description=values.get("Description") or None,
        db_build=values.get("DbBuild") or None,
        count=_count(values.get("Count")),
        last_update=timestamp_iso(values.get("LastUpdate")),
        fields=fields,
        links=links,
    )


def _children_text(element: etree._Element) -> dict[str, str]:
    return {str(child.tag): element_text(child) for child in element if isinstance(child.tag, str)}


def _from_xml(root: etree._Element) -> InfoResult:
    db_list = root.find("DbList")
    db_names = [element_text(name) for name in db_list.iterfind("DbName")] if db_list is not None else []
    info = root.find("DbInfo")
    if info is None:
        return InfoResult(db_names=db_names)
    field_list = info.find("FieldList")
    link_list = info.find("LinkList")
    fields = (
        [_search_field(_children_text(field)) for field in field_list.iterfind("Field")]
        if field_list is not None
        else []
    )
    links = []
    if link_list is not None:
        for link in link_list.iterfind("Link"):
            values = _children_text(link)
            links.append(
                DbLink(
                    name=values.get("Name", ""),
                    menu=values.get("Menu") or None,
                    description=values.get("Description") or None,
                    db_to=values.get("DbTo") or None,
                )
            )
    return InfoResult(db_names=db_names, db_info=_db_info(_children_text(info), fields, links))


def _from_json(payload: dict[str, Any]) -> InfoResult:
    result = payload.get("einforesult")
    if not isinstance(result, dict):
        raise BioMcpError(
            ErrorCode.ENTREZ, "NCBI returned EInfo JSON without einforesult", {"keys": sorted(payload)}
        )
    db_names = [str(name) for name in result.get("dblist") or []]
    info = result.get("dbinfo")
    # Later NCBI JSON wraps dbinfo in a one-element list.
    if isinstance(info, list):
        info = info[0] if info else None
    if not isinstance(info, dict):
        return InfoResult(db_names=db_names)
    by_element = {
        "DbName": "dbname",
        "MenuName": "menuname",
        "Description": "description",
        "DbBuild": "dbbuild",
        "Count": "count",
        "LastUpdate": "lastupdate",
    }
    values = {tag: str(info[key]) for tag, key in by_element.items() if info.get(key) is not None}
    fields = [
        _search_field(
            {
                "Name": str(field.get("name", "")),
                "FullName": str(field.get("fullname", "")),
                "Description": str(field.get("description", "")),
                "TermCount": str(field.get("termcount", "")),
                **{tag: str(field[tag.lower()]) for tag in _FIELD_FLAGS if field.get(tag.lower())},
            }
        )
        for field in info.get("fieldlist") or []
        if isinstance(field, dict)
    ]
    links = [
        DbLink(
            name=str(link.get("name", "")),
            menu=link.get("menu") or None,
            description=link.get("description") or None,
            db_to=link.get("dbto") or None,
        )
        for link in info.get("linklist") or []
        if isinstance(link, dict)
    ]
    return InfoResult(db_names=db_names, db_info=_db_info(values, fields, links))
