"""The bodies the fake E-utilities sends, in the shapes of the recorded real responses.

Headers (XML declaration and DOCTYPE) and layout follow the responses recorded in
ncbi/biopython/entrez_current (ESearch, ELink, EPost, ESummary v1, EFetch) and ncbi/klortho
(ESummary v2.0 and the JSON modes, header version 0.3).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from xml.sax.saxutils import escape, quoteattr

from bio_mcp.testing.pubmed_records import LANGUAGE_NAMES, RECORD_STATUS, PubmedRecord

XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" ?>\n'
ESEARCH_DOCTYPE = '<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">\n'
ESUMMARY_V1_DOCTYPE = '<!DOCTYPE eSummaryResult PUBLIC "-//NLM//DTD esummary v1 20041029//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20041029/esummary-v1.dtd">\n'
ESUMMARY_V2_DOCTYPE = '<!DOCTYPE eSummaryResult PUBLIC "-//NLM//DTD eSummaryResult//EN" "http://www.ncbi.nlm.nih.gov/entrez/query/DTD/eSummaryDTD/eSummary_pubmed.dtd">\n'
ELINK_DOCTYPE = '<!DOCTYPE eLinkResult PUBLIC "-//NLM//DTD elink 20101123//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20101123/elink.dtd">\n'
EPOST_DOCTYPE = '<!DOCTYPE ePostResult PUBLIC "-//NLM//DTD epost 20090526//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20090526/epost.dtd">'
EFETCH_DECLARATION = '<?xml version="1.0" ?>\n'
PUBMED_DOCTYPE = '<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n'

ROOT_ELEMENTS = {
    "esearch": "eSearchResult",
    "esummary": "eSummaryResult",
    "efetch": "eFetchResult",
    "elink": "eLinkResult",
    "einfo": "eInfoResult",
    "epost": "ePostResult",
    "espell": "eSpellResult",
}
JSON_UTILITIES = frozenset({"esearch", "esummary", "elink", "einfo", "epost"})
_JSON_RESULT_KEYS = {
    "esearch": "esearchresult",
    "einfo": "einforesult",
    "elink": "linksets",
    "epost": "epostresult",
}

# Numeric codes ESummary v2.0 prints in IdTypeN and PubStatus (as recorded in klortho/esummary.pubmed.xml).
ID_TYPE_NUMBERS = {"pubmed": 1, "doi": 3, "pii": 4, "pmcid": 5}
PUBLICATION_STATUS_CODES = {"ppublish": "4"}


def _json(document: object) -> bytes:
    return json.dumps(document, indent=4, ensure_ascii=False).encode()


def error_xml(utility: str, messages: Sequence[str]) -> bytes:
    root = ROOT_ELEMENTS[utility]
    errors = "".join(f"\t<ERROR>{escape(message)}</ERROR>\n" for message in messages)
    return f"{XML_DECLARATION}<{root}>\n{errors}</{root}>\n".encode()


def error_json(utility: str, message: str) -> bytes:
    header = {"type": utility, "version": "0.3"}
    if utility == "esummary":
        return _json({"header": header, "esummaryresult": [message]})
    return _json({"header": header, _JSON_RESULT_KEYS[utility]: {"ERROR": message}})


@dataclass(frozen=True)
class SearchOutcome:
    count: int
    retstart: int
    ids: Sequence[str]
    query_translation: str
    query_key: str | None = None
    web_env: str | None = None
    phrases_not_found: Sequence[str] = ()
    quoted_phrases_not_found: Sequence[str] = ()
    fields_not_found: Sequence[str] = ()
    warnings: Sequence[str] = ()


def esearch_xml(outcome: SearchOutcome) -> bytes:
    parts = [XML_DECLARATION, ESEARCH_DOCTYPE, "<eSearchResult>"]
    parts.append(
        f"<Count>{outcome.count}</Count><RetMax>{len(outcome.ids)}</RetMax><RetStart>{outcome.retstart}</RetStart>"
    )
    if outcome.query_key is not None:
        parts.append(f"<QueryKey>{outcome.query_key}</QueryKey><WebEnv>{outcome.web_env}</WebEnv>")
    if outcome.ids:
        parts.append("<IdList>\n" + "".join(f"<Id>{pmid}</Id>\n" for pmid in outcome.ids) + "</IdList>")
    else:
        parts.append("<IdList/>")
    parts.append(f"<TranslationSet/><QueryTranslation>{escape(outcome.query_translation)}</QueryTranslation>")
    if outcome.phrases_not_found or outcome.fields_not_found:
        parts.append("<ErrorList>")
        parts += [
            f"<PhraseNotFound>{escape(phrase)}</PhraseNotFound>" for phrase in outcome.phrases_not_found
        ]
        parts += [f"<FieldNotFound>{escape(name)}</FieldNotFound>" for name in outcome.fields_not_found]
        parts.append("</ErrorList>")
    if outcome.quoted_phrases_not_found or outcome.warnings:
        parts.append("<WarningList>")
        parts += [
            f"<QuotedPhraseNotFound>{escape(phrase)}</QuotedPhraseNotFound>"
            for phrase in outcome.quoted_phrases_not_found
        ]
        parts += [f"<OutputMessage>{escape(message)}</OutputMessage>" for message in outcome.warnings]
        parts.append("</WarningList>")
    parts.append("</eSearchResult>\n")
    return "".join(parts).encode()


def esearch_json(outcome: SearchOutcome) -> bytes:
    result: dict[str, object] = {
        "count": str(outcome.count),
        "retmax": str(len(outcome.ids)),
        "retstart": str(outcome.retstart),
    }
    if outcome.query_key is not None:
        result["querykey"] = outcome.query_key
        result["webenv"] = outcome.web_env
    result["idlist"] = list(outcome.ids)
    result["translationset"] = []
    result["querytranslation"] = outcome.query_translation
    if outcome.phrases_not_found or outcome.fields_not_found:
        result["errorlist"] = {
            "phrasesnotfound": list(outcome.phrases_not_found),
            "fieldsnotfound": list(outcome.fields_not_found),
        }
    if outcome.quoted_phrases_not_found or outcome.warnings:
        result["warninglist"] = {
            "phrasesignored": [],
            "quotedphrasesnotfound": list(outcome.quoted_phrases_not_found),
            "outputmessages": list(outcome.warnings),
        }
    return _json({"header": {"type": "esearch", "version": "0.3"}, "esearchresult": result})


def esearch_count_xml(count: int) -> bytes:
    body = f"<eSearchResult>\n\t<Count>{count}</Count>\n</eSearchResult>\n"
    return f"{XML_DECLARATION}{ESEARCH_DOCTYPE}{body}".encode()


def esearch_count_json(count: int) -> bytes:
    return _json({"header": {"type": "esearch", "version": "0.3"}, "esearchresult": {"count": str(count)}})


def retstart_limit_xml(message: str) -> bytes:
    body = f"<eSearchResult><ERROR>{escape(message)}</ERROR></eSearchResult>\n"
    return f"{XML_DECLARATION}{ESEARCH_DOCTYPE}{body}".encode()


def retstart_limit_json(message: str) -> bytes:
    # NCBI escapes the quotes around 'retstart' as \' , which is not valid JSON; clients meet exactly this.
    escaped = json.dumps(message)[1:-1].replace("'", "\\'")
    return (
        '{"header":{"type":"esearch","version":"0.3"},"esearchresult":{"ERROR":"' + escaped + '"}}'
    ).encode()


def epost_xml(query_key: str, web_env: str) -> bytes:
    return (
        f"{XML_DECLARATION}{EPOST_DOCTYPE}<ePostResult>\n\t<QueryKey>{query_key}</QueryKey>\n"
        f"\t<WebEnv>{web_env}</WebEnv>\n</ePostResult>\n"
    ).encode()


def epost_json(query_key: str, web_env: str) -> bytes:
    return _json(
        {
            "header": {"type": "epost", "version": "0.3"},
            "epostresult": {"querykey": query_key, "webenv": web_env},
        }
    )


def efetch_xml(records: Sequence[PubmedRecord]) -> bytes:
    """PubmedArticleSet exactly as EFetch frames it: records back to back, the set closed right after."""
    if not records:
        return f"{EFETCH_DECLARATION}{PUBMED_DOCTYPE}<PubmedArticleSet>\n</PubmedArticleSet>".encode()
    body = "".join(record.xml() for record in records)
    return f"{EFETCH_DECLARATION}{PUBMED_DOCTYPE}<PubmedArticleSet>\n{body}</PubmedArticleSet>".encode()


ESPELL_DOCTYPE = (
    '<!DOCTYPE eSpellResult PUBLIC "-//NLM//DTD eSpellResult, 23 November 2004//EN" '
    '"https://www.ncbi.nlm.nih.gov/entrez/query/DTD/eSpell.dtd">\n'
)


def espell_xml(query: str, segments: Sequence[tuple[str, bool]]) -> bytes:
    """eSpellResult as recorded (biopython's espell.xml): an empty CorrectedQuery when nothing changed."""
    corrected = "".join(text for text, _ in segments) if any(replaced for _, replaced in segments) else ""
    spelled = "".join(
        f"<{'Replaced' if replaced else 'Original'}>{escape(text)}</{'Replaced' if replaced else 'Original'}>"
        for text, replaced in segments
    )
    return (
        f'<?xml version="1.0"?>\n{ESPELL_DOCTYPE}<eSpellResult>\n\t<Database>pubmed</Database>\n'
        f"\t<Query>{escape(query)}</Query>\n\t<CorrectedQuery>{escape(corrected)}</CorrectedQuery>\n"
        f"\t<SpelledQuery>{spelled}</SpelledQuery>\n\t<ERROR/>\n</eSpellResult>\n"
    ).encode()


# --- ESummary -------------------------------------------------------------------------------


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y/%m/%d %H:%M")


def _epub_text(record: PubmedRecord) -> str:
    epub = record.article.epub_date
    return epub.text if epub is not None else ""


def _article_ids(record: PubmedRecord) -> list[tuple[str, str]]:
    ids = [
        ("pubmed", record.pmid) if kind == "pubmed" else (kind, value)
        for kind, value in record.article.article_ids
        if value
    ]
    if not any(kind == "pubmed" for kind, _ in ids):
        ids.insert(0, ("pubmed", record.pmid))
    pmc = record.article.article_id("pmc")
    if pmc:
        ids.append(("pmcid", f"pmc-id: {pmc};"))
    ids += [("eid", record.pmid), ("rid", record.pmid)]
    return ids


def _publication_status(record: PubmedRecord) -> str:
    status = record.article.publication_status
    if status == "ppublish" and any(kind == "aheadofprint" for kind, _ in record.article.history):
        return "256"
    return PUBLICATION_STATUS_CODES.get(status, status)


def _elocation(record: PubmedRecord) -> str:
    return ". ".join(f"{kind}: {value}" for kind, value in record.article.elocations)


def _issn(record: PubmedRecord, kind: str) -> str:
    return next((issn for issn, issn_type in record.article.issns if issn_type == kind), "")


def _doc_type(record: PubmedRecord) -> str:
    if not record.article.is_book:
        return "citation"
    return "chapter" if record.article.title != record.article.book_title else "book"


def _sort_title(title: str) -> str:
    lowered = title.lower()
    for article in ("the ", "an ", "a "):
        if lowered.startswith(article):
            lowered = lowered[len(article) :]
            break
    return "".join(char if char.isalnum() or char.isspace() else " " for char in lowered)


@dataclass(frozen=True)
class DocumentSummary:
    """The ESummary fields of one record, shared by the v2.0 XML, JSON and v1 renderings."""

    record: PubmedRecord
    pmc_ref_count: int

    @property
    def pmid(self) -> str:
        return self.record.pmid

    def authors(self) -> list[str]:
        return [author.display_name for author in self.record.article.authors]

    def last_author(self) -> str:
        """The last person among the authors: a trailing study group is not LastAuthor."""
        people = [author.display_name for author in self.record.article.authors if not author.collective_name]
        return people[-1] if people else ""

    def v2_fields(self) -> list[tuple[str, object]]:
        article = self.record.article
        authors = self.authors()
        return [
            ("PubDate", article.pub_date.text),
            ("EPubDate", _epub_text(self.record)),
            ("Source", article.medline_ta or article.book_title),
            (
                "Authors",
                [
                    (
                        "Author",
                        [
                            ("Name", author.display_name),
                            ("AuthType", "CollectiveName" if author.collective_name else "Author"),
                            ("ClusterID", ""),
                        ],
                    )
                    for author in article.authors
                ],
            ),
            ("LastAuthor", self.last_author()),
            ("Title", article.title),
            ("SortTitle", _sort_title(article.title)),
            ("Volume", article.volume),
            ("Issue", article.issue),
            ("Pages", article.pages),
            ("Lang", [("string", language) for language in article.languages]),
            ("NlmUniqueID", article.nlm_unique_id),
            ("ISSN", _issn(self.record, "Print")),
            ("ESSN", _issn(self.record, "Electronic")),
            ("PubType", [("flag", kind) for kind in article.publication_types]),
            ("RecordStatus", RECORD_STATUS.get(article.status, "PubMed")),
            ("PubStatus", _publication_status(self.record)),
            (
                "ArticleIds",
                [
                    (
                        "ArticleId",
                        [("IdType", kind), ("IdTypeN", str(ID_TYPE_NUMBERS.get(kind, 8))), ("Value", value)],
                    )
                    for kind, value in _article_ids(self.record)
                ],
            ),
            (
                "History",
                [
                    ("PubMedPubDate", [("PubStatus", status), ("Date", _stamp(moment))])
                    for status, moment in self.record.history
                ],
            ),
            ("References", []),
            ("Attributes", [("flag", "Has Abstract")] if article.abstract_sections else []),
            ("PmcRefCount", str(self.pmc_ref_count)),
            ("FullJournalName", article.journal_title),
            ("ELocationID", _elocation(self.record)),
            ("DocType", _doc_type(self.record)),
            ("SrcContribList", []),
            ("BookTitle", article.book_title),
            ("Medium", article.medium),
            ("Edition", ""),
            ("PublisherLocation", article.publisher_location),
            ("PublisherName", article.publisher_name),
            ("SrcDate", ""),
            ("ReportNumber", ""),
            ("AvailableFromURL", ""),
            ("LocationLabel", ""),
            ("DocContribList", []),
            ("DocDate", ""),
            ("BookName", ""),
            ("Chapter", ""),
            ("SortPubDate", article.pub_date.as_date.strftime("%Y/%m/%d 00:00")),
            ("SortFirstAuthor", authors[0] if authors else ""),
        ]


def _v2_element(name: str, value: object, depth: int) -> str:
    indent = "\t" * depth
    if isinstance(value, list):
        inner = "".join(_v2_element(child, child_value, depth + 1) for child, child_value in value)
        return f"{indent}<{name}>\n{inner}{indent}</{name}>\n"
    return f"{indent}<{name}>{escape(str(value))}</{name}>\n"


def esummary_v2_xml(summaries: Sequence[DocumentSummary | str]) -> bytes:
    """A DocumentSummarySet; a bare uid string stands for an id NCBI has no summary for."""
    parts = [XML_DECLARATION, ESUMMARY_V2_DOCTYPE, "<eSummaryResult>\n", '<DocumentSummarySet status="OK">\n']
    for summary in summaries:
        if isinstance(summary, str):
            parts.append(
                f"<DocumentSummary uid={quoteattr(summary)}>\n"
                "<error>cannot get document summary</error>\n</DocumentSummary>\n"
            )
            continue
        fields = "".join(_v2_element(name, value, 1) for name, value in summary.v2_fields())
        parts.append(f"<DocumentSummary uid={quoteattr(summary.pmid)}>\n{fields}</DocumentSummary>\n\n")
    parts.append("</DocumentSummarySet>\n</eSummaryResult>\n")
    return "".join(parts).encode()


def _v2_json_value(value: object) -> object:
    if not isinstance(value, list):
        return value
    if all(name in ("string", "flag") for name, _ in value):
        return [item for _, item in value]
    return [{child.lower(): _v2_json_value(child_value) for child, child_value in item} for _, item in value]


def esummary_v2_json(summaries: Sequence[DocumentSummary | str]) -> bytes:
    result: dict[str, object] = {
        "uids": [summary if isinstance(summary, str) else summary.pmid for summary in summaries]
    }
    for summary in summaries:
        if isinstance(summary, str):
            result[summary] = {"uid": summary, "error": "cannot get document summary"}
            continue
        document: dict[str, object] = {"uid": summary.pmid}
        for name, value in summary.v2_fields():
            converted = _v2_json_value(value)
            if name == "ArticleIds":
                converted = [{**item, "idtypen": int(item["idtypen"])} for item in converted]
            document[name.lower()] = converted
        document["pmcrefcount"] = summary.pmc_ref_count
        result[summary.pmid] = document
    return _json({"header": {"type": "esummary", "version": "0.3"}, "result": result})


def _item(name: str, kind: str, value: object, depth: int = 1) -> str:
    indent = "\t" * depth
    if isinstance(value, list):
        inner = "".join(
            _item(child_name, child_kind, child_value, depth + 1)
            for child_name, child_kind, child_value in value
        )
        return (
            f'{indent}<Item Name="{name}" Type="List">\n{inner}{indent}</Item>\n'
            if inner
            else f'{indent}<Item Name="{name}" Type="List"></Item>\n'
        )
    return f'{indent}<Item Name="{name}" Type="{kind}">{escape(str(value))}</Item>\n'


def esummary_v1_xml(summaries: Sequence[DocumentSummary]) -> bytes:
    """ESummary without version=2.0: the older DocSum/Item layout of entrez_current/esummary1.xml."""
    parts = [XML_DECLARATION, ESUMMARY_V1_DOCTYPE, "<eSummaryResult>\n"]
    for summary in summaries:
        record = summary.record
        article = record.article
        authors = summary.authors()
        source = f"{article.pub_date.text};{article.volume}" + (f"({article.issue})" if article.issue else "")
        source += f":{article.pages}" if article.pages else ""
        items = [
            ("PubDate", "Date", article.pub_date.text),
            ("EPubDate", "Date", _epub_text(record)),
            ("Source", "String", article.medline_ta or article.book_title),
            ("AuthorList", "List", [("Author", "String", name) for name in authors]),
            ("LastAuthor", "String", summary.last_author()),
            ("Title", "String", article.title),
            ("Volume", "String", article.volume),
            ("Issue", "String", article.issue),
            ("Pages", "String", article.pages),
            (
                "LangList",
                "List",
                [("Lang", "String", LANGUAGE_NAMES.get(code, code).title()) for code in article.languages],
            ),
            ("NlmUniqueID", "String", article.nlm_unique_id),
            ("ISSN", "String", _issn(record, "Print")),
            ("ESSN", "String", _issn(record, "Electronic")),
            ("PubTypeList", "List", [("PubType", "String", kind) for kind in article.publication_types]),
            ("RecordStatus", "String", RECORD_STATUS.get(article.status, "PubMed")),
            ("PubStatus", "String", article.publication_status),
            (
                "ArticleIds",
                "List",
                [
                    (kind, "String", value)
                    for kind, value in _article_ids(record)
                    if kind not in ("eid", "rid", "pmcid")
                ],
            ),
            ("History", "List", [(status, "Date", _stamp(moment)) for status, moment in record.history]),
            ("References", "List", []),
            ("HasAbstract", "Integer", 1 if article.abstract_sections else 0),
            ("PmcRefCount", "Integer", summary.pmc_ref_count),
            ("FullJournalName", "String", article.journal_title),
            ("ELocationID", "String", _elocation(record)),
            ("SO", "String", source),
        ]
        body = "".join(_item(name, kind, value) for name, kind, value in items)
        parts.append(f"<DocSum>\n\t<Id>{record.pmid}</Id>\n{body}</DocSum>\n\n")
    parts.append("</eSummaryResult>\n")
    return "".join(parts).encode()


# --- ELink ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LinkSetOutcome:
    ids: Sequence[str]
    link_lists: Sequence[tuple[str, Sequence[tuple[str, int | None]]]]


def elink_xml(link_sets: Sequence[LinkSetOutcome]) -> bytes:
    parts = [XML_DECLARATION, ELINK_DOCTYPE, "<eLinkResult>\n\n"]
    for link_set in link_sets:
        parts.append("  <LinkSet>\n    <DbFrom>pubmed</DbFrom>\n    <IdList>\n")
        parts += [f"      <Id>{pmid}</Id>\n" for pmid in link_set.ids]
        parts.append("    </IdList>\n")
        for link_name, links in link_set.link_lists:
            db_to = "pmc" if link_name.endswith("_pmc") else "pubmed"
            parts.append(
                f"    <LinkSetDb>\n      <DbTo>{db_to}</DbTo>\n"
                f"      <LinkName>{link_name}</LinkName>\n      \n"
            )
            for pmid, score in links:
                scored = f"\t\t\t\t<Score>{score}</Score>\n" if score is not None else ""
                parts.append(f"        <Link>\n\t\t\t\t<Id>{pmid}</Id>\n{scored}\t\t\t</Link>\n")
            parts.append("      \n    </LinkSetDb>\n")
        parts.append("  </LinkSet>\n")
    parts.append("</eLinkResult>\n")
    return "".join(parts).encode()


def elink_json(link_sets: Sequence[LinkSetOutcome]) -> bytes:
    documents = []
    for link_set in link_sets:
        document: dict[str, object] = {"dbfrom": "pubmed", "ids": list(link_set.ids)}
        if link_set.link_lists:
            document["linksetdbs"] = [
                {
                    "dbto": "pubmed",
                    "linkname": link_name,
                    "links": [
                        pmid if score is None else {"id": pmid, "score": score} for pmid, score in links
                    ],
                }
                for link_name, links in link_set.link_lists
            ]
        documents.append(document)
    return _json({"header": {"type": "elink", "version": "0.3"}, "linksets": documents})
