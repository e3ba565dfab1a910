"""ESearch, XML (eSearchResult) or JSON (esearchresult): count, ids, history keys, translations, warnings."""

from __future__ import annotations

from typing import Any

from lxml import etree

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.sources.ncbi.models import SearchResult, SearchWarning, Translation, TranslationTerm
from bio_mcp.sources.ncbi.parsers.body import is_json, load_json, load_xml
from bio_mcp.sources.ncbi.xml import element_text

# ESearch JSON names its warning lists in the plural; the XML element names are the kinds we report.
_JSON_WARNING_KINDS = {
    "phrasesnotfound": "PhraseNotFound",
    "fieldsnotfound": "FieldNotFound",
    "phrasesignored": "PhraseIgnored",
    "quotedphrasesnotfound": "QuotedPhraseNotFound",
    "outputmessages": "OutputMessage",
}


def parse_esearch(body: bytes | str) -> SearchResult:
    """An ESearch response in either retmode; NCBI's <ERROR> or JSON ERROR raises BioMcpError(ENTREZ)."""
    return _from_json(load_json(body)) if is_json(body) else _from_xml(load_xml(body, "eSearchResult"))


def _int(value: object, field: str) -> int | None:
    text = str(value).strip() if value is not None else ""
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise BioMcpError(
            ErrorCode.ENTREZ, f"NCBI returned a non-numeric ESearch {field}", {field: text}
        ) from None


def _translation_term(term_set: etree._Element) -> TranslationTerm:
    parts = {child.tag: element_text(child) for child in term_set}
    return TranslationTerm(
        term=parts.get("Term", ""),
        field=parts.get("Field") or None,
        count=_int(parts.get("Count"), "Count"),
        explode={"Y": True, "N": False}.get(parts.get("Explode", "")),
    )


def _from_xml(root: etree._Element) -> SearchResult:
    fields: dict[str, Any] = {}
    for child in root:
        tag = child.tag
        if tag == "Count":
            fields["count"] = _int(child.text, "Count")
        elif tag == "RetMax":
            fields["retmax"] = _int(child.text, "RetMax")
        elif tag == "RetStart":
            fields["retstart"] = _int(child.text, "RetStart")
        elif tag == "QueryKey":
            fields["query_key"] = element_text(child) or None
        elif tag == "WebEnv":
            fields["web_env"] = element_text(child) or None
        elif tag == "IdList":
            fields["ids"] = [element_text(element) for element in child if element.tag == "Id"]
        elif tag == "TranslationSet":
            fields["translation_set"] = [
                Translation(**{"from": element_text(t.find("From")), "to": element_text(t.find("To"))})
                for t in child
                if t.tag == "Translation"
            ]
        elif tag == "TranslationStack":
            fields["translation_stack"] = [
                _translation_term(item) if item.tag == "TermSet" else element_text(item)
                for item in child
                if item.tag in ("TermSet", "OP")
            ]
        elif tag == "QueryTranslation":
            fields["query_translation"] = element_text(child)
        elif tag in ("ErrorList", "WarningList"):
            fields.setdefault("warnings", []).extend(
                SearchWarning(kind=str(item.tag), text=element_text(item))
                for item in child
                if isinstance(item.tag, str)
            )
    if fields.get("count") is None:
        raise BioMcpError(ErrorCode.ENTREZ, "NCBI returned an ESearch result without a Count", None)
    return SearchResult(**fields)


def _json_stack_item(item: Any) -> TranslationTerm | str:
    if isinstance(item, dict):
        return TranslationTerm(
            term=str(item.get("term", "")),
            field=item.get("field") or None,
            count=_int(item.get("count"), "count"),
            explode={"Y": True, "N": False}.get(item.get("explode", "")),
        )
    return str(item)


def _from_json(payload: dict[str, Any]) -> SearchResult:
    result = payload.get("esearchresult")
    if not isinstance(result, dict):
        raise BioMcpError(
            ErrorCode.ENTREZ, "NCBI returned ESearch JSON without esearchresult", {"keys": sorted(payload)}
        )
    count = _int(result.get("count"), "count")
    if count is None:
        raise BioMcpError(ErrorCode.ENTREZ, "NCBI returned an ESearch result without a count", None)
    warnings = [
        SearchWarning(kind=_JSON_WARNING_KINDS.get(kind, kind), text=str(text))
        for section in ("errorlist", "warninglist")
        for kind, texts in (result.get(section) or {}).items()
        for text in texts or []
    ]
    return SearchResult(
        count=count,
        retmax=_int(result.get("retmax"), "retmax"),
        retstart=_int(result.get("retstart"), "retstart"),
        ids=[str(uid) for uid in result.get("idlist") or []],
        web_env=result.get("webenv") or None,
        query_key=str(result["querykey"]) if result.get("querykey") not in (None, "") else None,
        translation_set=[
            Translation(**{"from": item.get("from", ""), "to": item.get("to", "")})
            for item in result.get("translationset") or []
        ],
        translation_stack=[_json_stack_item(item) for item in result.get("translationstack") or []],
        query_translation=result.get("querytranslation"),
        warnings=warnings,
    )
