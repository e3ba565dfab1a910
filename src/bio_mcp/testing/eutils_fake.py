"""A fake NCBI E-utilities server (ESearch, ESummary, EFetch, ELink, EInfo, EPost, ESpell) over real records.

`FakeEutils(data_dir)` holds the 466 recorded PubMed records of the shared data (and the recorded
PubMed Central full texts, for EFetch db=pmc and ELink pubmed_pmc); tests add,
revise, clone and re-date records through its Python API, inject faults through `inject`, and read
the arrival log from `requests`. `FakeEutils.app` is the ASGI app serving the real paths
(`/entrez/eutils/esearch.fcgi`, ...), GET or POST form bodies alike.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path

from lxml import etree
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bio_mcp.testing import eutils_responses as bodies
from bio_mcp.testing.entrez_query import (
    DATE_FIELDS_BY_DATETYPE,
    Boolean,
    DateRange,
    Node,
    ParsedQuery,
    QuerySource,
    QuerySyntaxError,
    SearchField,
    Term,
    canonical_date_text,
    evaluate,
    field_named,
    leaves,
    parse_date_bound,
    parse_query,
    translate,
)
from bio_mcp.testing.faults import (
    Fault,
    FaultInjectingService,
    RateLimit,
    RequestInfo,
    request_info_of,
)
from bio_mcp.testing.medline_format import medline_text
from bio_mcp.testing.mesh_tree import load_mesh_tree
from bio_mcp.testing.ncbi_recordings import load_ncbi_recordings, rate_limit_body
from bio_mcp.testing.pmc_records import load_pmc_records, pmc_articleset
from bio_mcp.testing.pubmed_records import (
    PubmedRecord,
    iter_article_elements,
    load_real_articles,
    parse_article,
)
from bio_mcp.testing.record_index import RecordIndex
from bio_mcp.testing.spelling import spell

EUTILS_PATH = "/entrez/eutils"
UTILITIES = ("esearch", "esummary", "efetch", "elink", "einfo", "epost", "espell")

XML = "text/xml; charset=UTF-8"
JSON = "application/json; charset=UTF-8"
TEXT = "text/plain; charset=UTF-8"

# PubMed's ESearch serves only the first 9,999 ids of a result; the history server the same.
RESULT_WINDOW = 9999
ESEARCH_RETSTART_ERROR = (
    "Search Backend failed: Exception:\n'retstart' cannot be larger than 9998. For PubMed, ESearch can only "
    "retrieve the first 9,999 records matching the query. To obtain more than 9,999 PubMed records, consider "
    "using EDirect that contains additional logic to batch PubMed search results automatically so that an "
    "arbitrary number can be retrieved. For details see https://www.ncbi.nlm.nih.gov/books/NBK25499/"
)
HISTORY_RETSTART_ERROR = (
    "Search backend cannot retrieve history data. Reason: Exception: 'retstart' cannot be larger than 9998. "
    "For PubMed, ESearch can only retrieve the first 9,999 records matching the query."
)
EMPTY_TERM = "Empty term and query_key - nothing todo"
EMPTY_ID_LIST = "Empty id list - nothing todo"
NO_IDS = "Neither query_key nor id specified"


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value not in (None, "") else default
    except ValueError:
        return default


def _split_ids(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(part.strip() for value in values for part in value.split(",") if part.strip()))


class _Reply(Exception):
    """Ends a handler early with a finished response."""

    def __init__(self, status: int, body: bytes, content_type: str = XML) -> None:
        super().__init__(status)
        self.response = Response(body, status_code=status, media_type=content_type.split(";")[0])
        self.response.headers["content-type"] = content_type


class FakeEutils(FaultInjectingService):
    """The fake E-utilities: records, WebEnv history, faults and the arrival log."""

    def __init__(self, data_dir: Path, *, today: Callable[[], date] | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.recordings = load_ncbi_recordings(self.data_dir)
        self.load_mesh_tree = partial(load_mesh_tree, self.data_dir)
        self._lock = threading.RLock()
        self._original = {
            article.source_pmid: PubmedRecord.of(article) for article in load_real_articles(self.data_dir)
        }
        self._records: dict[str, PubmedRecord] = dict(self._original)
        # PubMed Central full texts (EFetch db=pmc, ELink pubmed_pmc), keyed by PMC number.
        self.pmc = load_pmc_records(self.data_dir)
        self._index: RecordIndex | None = None
        self._history: dict[str, list[tuple[str, ...]]] = {}
        self._default_today: Callable[[], date] = today or (lambda: datetime.now(UTC).date())
        # What reldate counts back from and revise() stamps by default; tests may pin it.
        self.today = self._default_today
        # Parameters a request must carry, else HTTP 400 (NCBI itself only throttles callers without a key).
        self.required_params: tuple[str, ...] = ()
        # NCBI has answered retstart > 9998 both in-band at HTTP 200 and as HTTP 400; tests can choose.
        self.retstart_error_status = 200
        super().__init__(self._starlette(), self._too_many_requests)

    # --- records ----------------------------------------------------------------------------

    @property
    def records(self) -> dict[str, PubmedRecord]:
        with self._lock:
            return dict(self._records)

    @property
    def pmids(self) -> list[str]:
        return sorted(self.records, key=int)

    def record(self, pmid: str) -> PubmedRecord:
        return self.records[pmid]

    def __len__(self) -> int:
        return len(self.records)

    def _replace_records(self, changes: dict[str, PubmedRecord | None]) -> None:
        with self._lock:
            for pmid, record in changes.items():
                if record is None:
                    self._records.pop(pmid, None)
                else:
                    self._records[pmid] = record
            self._index = None

    @property
    def index(self) -> RecordIndex:
        with self._lock:
            if self._index is None:
                self._index = RecordIndex(dict(self._records), self.load_mesh_tree)
            return self._index

    def add_record(self, xml: bytes | str) -> list[str]:
        """Hold the PubmedArticle(s) in `xml` (one record or a PubmedArticleSet), replacing same PMIDs."""
        raw = xml.encode() if isinstance(xml, str) else xml
        articles = [parse_article(element) for element in iter_article_elements(raw)]
        self._replace_records({article.source_pmid: PubmedRecord.of(article) for article in articles})
        return [article.source_pmid for article in articles]

    def remove(self, pmid: str) -> None:
        self._replace_records({pmid: None})

    def revise(self, pmid: str, *, new_title: str | None = None, lr: date | None = None) -> PubmedRecord:
        """Revise a record as NCBI does: DateRevised becomes `lr` (default today) and its title changes.

        Without `new_title` the title gains a revision note, so the content differs either way.
        """
        record = self.record(pmid)
        revised_on = lr or self.today()
        element = etree.fromstring(record.article.xml.encode())
        title = element.find(".//ArticleTitle")
        if title is None:
            raise ValueError(f"PMID {pmid} has no ArticleTitle to revise")
        old_title = "".join(title.itertext())
        for child in list(title):
            title.remove(child)
        title.text = new_title if new_title is not None else f"{old_title} [Revised {revised_on.isoformat()}]"
        citation = element.find("MedlineCitation")
        if citation is None:
            citation = element.find("BookDocument")
        revised = citation.find("DateRevised")
        if revised is None:
            revised = etree.Element("DateRevised")
            citation.insert(2 if citation.find("DateCompleted") is not None else 1, revised)
        for child in list(revised):
            revised.remove(child)
        for tag, value in (("Year", revised_on.year), ("Month", revised_on.month), ("Day", revised_on.day)):
            etree.SubElement(revised, tag).text = f"{value:02d}"
        article = parse_article(element)
        updated = PubmedRecord(pmid=record.pmid, article=article, entrez_date=record.entrez_date)
        self._replace_records({pmid: updated})
        return updated

    def set_edat(self, pmid: str, when: datetime) -> None:
        record = self.record(pmid)
        self._replace_records(
            {pmid: PubmedRecord(pmid=pmid, article=record.article, entrez_date=when.replace(tzinfo=None))}
        )

    def spread_edats(
        self, start: datetime, end: datetime, pmids: Iterable[str] | None = None
    ) -> dict[str, datetime]:
        """Give the records (default all) entry dates evenly spaced over [start, end), in PMID order."""
        chosen = sorted(pmids if pmids is not None else self.records, key=int)
        if not chosen:
            return {}
        step = (end - start) / len(chosen)
        assigned = {
            pmid: (start + step * position).replace(tzinfo=None, microsecond=0)
            for position, pmid in enumerate(chosen)
        }
        current = self.records
        self._replace_records(
            {
                pmid: PubmedRecord(pmid=pmid, article=current[pmid].article, entrez_date=moment)
                for pmid, moment in assigned.items()
            }
        )
        return assigned

    def replicate(self, n: int, first_pmid: int) -> list[str]:
        """Clone the real records (round robin, in PMID order) under PMIDs first_pmid, first_pmid+1, ..."""
        templates = [self._original[pmid] for pmid in sorted(self._original, key=int)]
        clones = {}
        for offset in range(n):
            template = templates[offset % len(templates)]
            pmid = str(first_pmid + offset)
            clones[pmid] = PubmedRecord(pmid=pmid, article=template.article, entrez_date=template.entrez_date)
        self._replace_records(clones)
        return list(clones)

    def reset(self) -> None:
        """Back to the recorded corpus and default settings, with no history, faults or log."""
        with self._lock:
            self._records = dict(self._original)
            self._index = None
            self._history.clear()
        self.faults.reset()
        self.required_params = ()
        self.retstart_error_status = 200
        self.today = self._default_today

    # --- faults and the arrival log ---------------------------------------------------------

    def limit_rate(self, *, enforce: bool, per_second: int = 3, per_second_with_key: int = 10) -> None:
        """NCBI's limits: excess requests get Arrival.rate_limited and, with `enforce`, a 429."""
        self.faults.rate_limit = RateLimit(
            per_window=per_second, per_window_with_key=per_second_with_key, enforce=enforce
        )

    def rate_limited(self, body_index: int = 0) -> Fault:
        """HTTP 429 with a real NCBI "API rate limit exceeded" body."""
        body = self.recordings.rate_limit_bodies[body_index]
        return Fault(
            name="rate_limited",
            status=429,
            body=body,
            content_type="application/json",
            headers=(("X-RateLimit-Limit", "3"), ("X-RateLimit-Remaining", "0")),
        )

    def ncbi_error(self, message: str | None = None) -> Fault:
        """HTTP 200 with an <ERROR>: the utility's recorded error body, or `message` in its shape."""

        def body_for(request: RequestInfo) -> bytes:
            utility = _utility_of(request.path)
            if message is None and utility in self.recordings.error_bodies:
                return self.recordings.error_bodies[utility]
            # EFetch and ELink errors were never recorded; ESummary's, about missing ids, fits them best.
            return bodies.error_xml(utility, [message or self.recordings.error_messages["esummary"]])

        return Fault(name="ncbi_error", status=200, body_for=body_for, content_type=XML)

    def extra_records(self, n: int, *, first_pmid: int = 90_000_000, chunked: bool = False) -> Fault:
        """HTTP 200 with the records asked for followed by `n` real records nobody asked for (the
        recorded ones round robin under PMIDs first_pmid, first_pmid+1, ...), as XML or MEDLINE as
        requested. `chunked` streams the answer without a Content-Length."""
        templates = [self._original[pmid] for pmid in sorted(self._original, key=int)]
        extra = [
            PubmedRecord(pmid=str(first_pmid + offset), article=template.article, entrez_date=template.entrez_date)
            for offset, template in ((offset, templates[offset % len(templates)]) for offset in range(n))
        ]

        def body_for(request: RequestInfo) -> bytes:
            ids = self._requested_ids("efetch", request, False)
            records = [self.index.records[pmid] for pmid in ids if pmid in self.index.records] + extra
            if (request.param("rettype") or "").lower() == "medline":
                return medline_text(records).encode()
            return bodies.efetch_xml(records)

        return Fault(name="extra_records", status=200, body_for=body_for, content_type=XML, chunked=chunked)

    def _too_many_requests(self, request: RequestInfo, count: int, limit: int) -> Fault:
        body = rate_limit_body(self.recordings.rate_limit_bodies[0], count, limit)
        return Fault(
            name="rate_limit_enforced",
            status=429,
            body=body,
            content_type="application/json",
            headers=(("X-RateLimit-Limit", str(limit)), ("X-RateLimit-Remaining", "0")),
        )

    # --- history ----------------------------------------------------------------------------

    def _store(self, ids: Sequence[str], web_env: str | None) -> tuple[str, str]:
        with self._lock:
            if web_env is None or web_env not in self._history:
                web_env = "MCID_" + uuid.uuid4().hex[:24]
                self._history[web_env] = []
            self._history[web_env].append(tuple(ids))
            return str(len(self._history[web_env])), web_env

    def _stored(self, web_env: str | None, query_key: str | None) -> tuple[str, ...] | None:
        with self._lock:
            queries = self._history.get(web_env or "")
            key = _int(query_key, 0)
            if queries is None or not 1 <= key <= len(queries):
                return None
            return queries[key - 1]

    # --- HTTP -------------------------------------------------------------------------------

    def _starlette(self) -> Starlette:
        routes = [
            Route(f"{EUTILS_PATH}/{utility}.fcgi", self._endpoint(utility), methods=["GET", "POST"])
            for utility in UTILITIES
        ]
        return Starlette(routes=routes)

    def _endpoint(self, utility: str) -> Callable[[Request], object]:
        handler = getattr(self, f"_{utility}")

        async def endpoint(request: Request) -> Response:
            info = request_info_of(request.scope)
            json_mode = (info.param("retmode") or "").lower() == "json"
            try:
                self._check_required(utility, info)
                response = handler(info, json_mode)
            except _Reply as reply:
                response = reply.response
            has_key = bool(info.param("api_key"))
            response.headers["X-RateLimit-Limit"] = "10" if has_key else "3"
            return response

        return endpoint

    def _check_required(self, utility: str, info: RequestInfo) -> None:
        missing = [name for name in self.required_params if not info.param(name)]
        if missing:
            message = (
                f"Missing required parameter(s): {', '.join(missing)} (this fake is set to require them)"
            )
            raise _Reply(400, bodies.error_xml(utility, [message]))

    def _check_db(self, utility: str, info: RequestInfo, json_mode: bool, name: str = "db") -> None:
        db = info.param(name) or "pubmed"
        if db != "pubmed":
            raise self._failure(utility, f"Invalid db name specified: {db}", json_mode)

    @staticmethod
    def _failure(utility: str, message: str, json_mode: bool, status: int = 200) -> _Reply:
        """NCBI's in-band error: HTTP 200 (unless `status`) with the message in <ERROR> or "ERROR"."""
        if json_mode and utility in bodies.JSON_UTILITIES:
            return _Reply(status, bodies.error_json(utility, message), JSON)
        return _Reply(status, bodies.error_xml(utility, [message]))

    @staticmethod
    def _reply(body: bytes, json_mode: bool = False, content_type: str | None = None) -> Response:
        media = content_type or (JSON if json_mode else XML)
        response = Response(body, media_type=media.split(";")[0])
        response.headers["content-type"] = media
        return response

    # ESearch

    def _date_window(self, info: RequestInfo) -> DateRange | None:
        datetype = (info.param("datetype") or "pdat").lower()
        field = DATE_FIELDS_BY_DATETYPE.get(datetype, DATE_FIELDS_BY_DATETYPE["pdat"])
        reldate = _int(info.param("reldate"), 0)
        if reldate > 0:
            today = self.today()
            start = today - timedelta(days=reldate)
            return DateRange(field, start, today, start.strftime("%Y/%m/%d"), today.strftime("%Y/%m/%d"))
        mindate, maxdate = info.param("mindate"), info.param("maxdate")
        if not mindate and not maxdate:
            return None
        start = parse_date_bound(mindate, end=False) if mindate else date(1, 1, 1)
        end = parse_date_bound(maxdate, end=True) if maxdate else date(9999, 12, 31)
        if start is None or end is None:
            return None
        return DateRange(
            field,
            start,
            end,
            canonical_date_text(mindate) if mindate else "0001",
            canonical_date_text(maxdate) if maxdate else "3000",
        )

    def _esearch(self, info: RequestInfo, json_mode: bool) -> Response:
        self._check_db("esearch", info, json_mode)
        term = info.param("term") or ""
        web_env, query_key = info.param("WebEnv"), info.param("query_key")
        if not term.strip() and not query_key:
            raise self._failure("esearch", EMPTY_TERM, json_mode)
        default_field = field_named(info.param("field") or "") or SearchField.ALL
        try:
            parsed = parse_query(term, default_field)
        except QuerySyntaxError:
            parsed = ParsedQuery(root=None)
        root: Node | None = parsed.root
        index = self.index
        scope = _SearchScope(index, lambda key: frozenset(self._stored(web_env, key) or ()))
        if root is None:
            stored = self._stored(web_env, query_key)
            if stored is None:
                raise self._failure("esearch", EMPTY_TERM, json_mode)
            ids = frozenset(stored)
        else:
            ids = evaluate(root, scope)
        window = self._date_window(info)
        if window is not None:
            ids &= index.date_ids(window)
            root = Boolean("AND", root, window) if root is not None else window
        ordered = index.sorted_ids(ids, info.param("sort") or "relevance", root)

        if (info.param("rettype") or "").lower() == "count":
            return self._reply(
                bodies.esearch_count_json(len(ordered))
                if json_mode
                else bodies.esearch_count_xml(len(ordered)),
                json_mode,
            )
        retstart = max(_int(info.param("retstart"), 0), 0)
        retmax = max(_int(info.param("retmax"), 20), 0)
        if retstart > RESULT_WINDOW - 1:
            body = (
                bodies.retstart_limit_json(ESEARCH_RETSTART_ERROR)
                if json_mode
                else bodies.retstart_limit_xml(ESEARCH_RETSTART_ERROR)
            )
            raise _Reply(self.retstart_error_status, body, JSON if json_mode else XML)
        page = ordered[retstart : min(retstart + retmax, RESULT_WINDOW)]

        stored_key = stored_env = None
        if (info.param("usehistory") or "").lower() == "y":
            stored_key, stored_env = self._store(ordered, web_env)
        not_found = (
            [leaf for leaf in leaves(parsed.root) if isinstance(leaf, Term) and not index.term_ids(leaf)]
            if parsed.root
            else []
        )
        outcome = bodies.SearchOutcome(
            count=len(ordered),
            retstart=retstart,
            ids=page,
            query_translation=translate(root) if root is not None else "",
            query_key=stored_key,
            web_env=stored_env,
            phrases_not_found=[leaf.text for leaf in not_found if not leaf.quoted],
            quoted_phrases_not_found=[f'"{leaf.text}"' for leaf in not_found if leaf.quoted],
            fields_not_found=parsed.unknown_fields,
            warnings=("No items found.",) if not ordered else (),
        )
        return self._reply(
            bodies.esearch_json(outcome) if json_mode else bodies.esearch_xml(outcome), json_mode
        )

    # Ids from `id` or from the history server (ESummary, EFetch)

    def _requested_ids(self, utility: str, info: RequestInfo, json_mode: bool) -> list[str]:
        ids = _split_ids(info.values("id"))
        if ids:
            return ids
        query_key, web_env = info.param("query_key"), info.param("WebEnv")
        if not query_key:
            raise self._failure(utility, EMPTY_ID_LIST if utility == "efetch" else NO_IDS, json_mode)
        retstart = max(_int(info.param("retstart"), 0), 0)
        retmax = max(_int(info.param("retmax"), 20), 0)
        stored = self._stored(web_env, query_key)
        if stored is None:
            message = (
                f"Cannot retrieve history data. query_key: {query_key}, WebEnv: {web_env}, "
                f"retstart: {retstart}, retmax: {retmax}"
            )
            raise self._failure(utility, message, json_mode)
        if retstart > RESULT_WINDOW - 1:
            raise self._failure(utility, HISTORY_RETSTART_ERROR, json_mode, status=400)
        return list(stored[retstart : min(retstart + retmax, RESULT_WINDOW)])

    # ESummary

    def _esummary(self, info: RequestInfo, json_mode: bool) -> Response:
        self._check_db("esummary", info, json_mode)
        ids = self._requested_ids("esummary", info, json_mode)
        index = self.index
        summaries: list[bodies.DocumentSummary | str] = [
            bodies.DocumentSummary(index.records[pmid], len(index.cited_by.get(pmid, ())))
            if pmid in index.records
            else pmid
            for pmid in ids
        ]
        if (info.param("version") or "") == "2.0":
            return self._reply(
                bodies.esummary_v2_json(summaries) if json_mode else bodies.esummary_v2_xml(summaries),
                json_mode,
            )
        if json_mode:
            # NCBI's JSON ESummary has one shape, whichever version is asked for.
            return self._reply(bodies.esummary_v2_json(summaries), json_mode)
        # Version 1 has no per-id error element; ids without a summary are left out.
        return self._reply(
            bodies.esummary_v1_xml([summary for summary in summaries if not isinstance(summary, str)])
        )

    # EFetch

    def _efetch(self, info: RequestInfo, json_mode: bool) -> Response:
        if (info.param("db") or "") == "pmc":
            return self._efetch_pmc(info)
        self._check_db("efetch", info, False)
        ids = self._requested_ids("efetch", info, False)
        records = [self.index.records[pmid] for pmid in ids if pmid in self.index.records]
        rettype = (info.param("rettype") or "").lower()
        retmode = (info.param("retmode") or "").lower()
        if rettype == "medline":
            return self._reply(medline_text(records).encode(), content_type=TEXT)
        if rettype == "uilist":
            return self._reply("".join(f"{record.pmid}\n" for record in records).encode(), content_type=TEXT)
        if retmode == "text" or rettype not in ("", "xml", "full", "abstract"):
            raise self._failure(
                "efetch", f"rettype={rettype or '(none)'} retmode={retmode} is not served by this fake", False
            )
        return self._reply(bodies.efetch_xml(records))

    def _efetch_pmc(self, info: RequestInfo) -> Response:
        """JATS full text of the recorded PMC articles; ids absent from PMC are left out, as NCBI does."""
        ids = [pmcid.upper().removeprefix("PMC") for pmcid in _split_ids(info.values("id"))]
        if not ids:
            raise self._failure("efetch", EMPTY_ID_LIST, False)
        return self._reply(pmc_articleset([self.pmc[number] for number in ids if number in self.pmc]))

    # ELink

    def _elink(self, info: RequestInfo, json_mode: bool) -> Response:
        self._check_db("elink", info, json_mode, name="dbfrom")
        if (info.param("db") or "") == "pmc":
            return self._elink_pmc(info, json_mode)
        self._check_db("elink", info, json_mode)
        cmd = (info.param("cmd") or "neighbor").lower()
        if cmd not in ("neighbor", "neighbor_score"):
            raise self._failure(
                "elink", f"cmd={cmd} is not served by this fake (neighbor, neighbor_score are)", json_mode
            )
        groups = [tuple(_split_ids([value])) for value in info.values("id") if value.strip()]
        if not groups:
            raise self._failure("elink", EMPTY_ID_LIST, json_mode)
        wanted = tuple(_split_ids(info.values("linkname")))
        link_sets = [self._link_set(group, cmd == "neighbor_score", wanted) for group in groups]
        return self._reply(
            bodies.elink_json(link_sets) if json_mode else bodies.elink_xml(link_sets), json_mode
        )

    def _elink_pmc(self, info: RequestInfo, json_mode: bool) -> Response:
        """pubmed_pmc: the PMC article of each PMID, from the recorded articles' own ids."""
        groups = [tuple(_split_ids([value])) for value in info.values("id") if value.strip()]
        if not groups:
            raise self._failure("elink", EMPTY_ID_LIST, json_mode)
        by_pmid = {record.pmid: number for number, record in self.pmc.items() if record.pmid}
        link_sets = [
            bodies.LinkSetOutcome(
                ids=group,
                link_lists=[("pubmed_pmc", [(by_pmid[pmid], None) for pmid in group if pmid in by_pmid])],
            )
            for group in groups
        ]
        link_sets = [
            bodies.LinkSetOutcome(ids=ls.ids, link_lists=[(n, links) for n, links in ls.link_lists if links])
            for ls in link_sets
        ]
        return self._reply(
            bodies.elink_json(link_sets) if json_mode else bodies.elink_xml(link_sets), json_mode
        )

    def _link_set(self, ids: tuple[str, ...], scored: bool, wanted: tuple[str, ...]) -> bodies.LinkSetOutcome:
        index = self.index
        recorded = self.recordings.scored_links.get(ids) if scored else None
        held = all(pmid in index.records for pmid in ids)
        if recorded is None and not (scored and held):
            recorded = self.recordings.links.get(ids)
        if recorded is not None:
            lists = list(recorded.links.items())
        elif held:
            lists = self._computed_links(index, ids, scored)
        else:
            lists = []
        if wanted:
            lists = [(name, links) for name, links in lists if name in wanted]
        return bodies.LinkSetOutcome(ids=ids, link_lists=[(name, links) for name, links in lists if links])

    @staticmethod
    def _computed_links(
        index: RecordIndex, ids: tuple[str, ...], scored: bool
    ) -> list[tuple[str, list[tuple[str, int | None]]]]:
        best: dict[str, int] = {}
        for pmid in ids:
            for other, score in index.similar(pmid):
                best[other] = max(best.get(other, 0), score)
        neighbours = sorted(best.items(), key=lambda item: (item[0] not in ids, -item[1], -int(item[0])))
        cited_in = sorted(
            {citing for pmid in ids for citing in index.cited_by.get(pmid, ())}, key=int, reverse=True
        )
        references = sorted(
            {reference for pmid in ids for reference in index.records[pmid].article.references},
            key=int,
            reverse=True,
        )
        return [
            ("pubmed_pubmed", [(pmid, score if scored else None) for pmid, score in neighbours]),
            ("pubmed_pubmed_citedin", [(pmid, None) for pmid in cited_in]),
            ("pubmed_pubmed_refs", [(pmid, None) for pmid in references]),
        ]

    # EInfo

    def _einfo(self, info: RequestInfo, json_mode: bool) -> Response:
        db = info.param("db")
        if not db:
            return self._reply(
                self.recordings.einfo_databases_json if json_mode else self.recordings.einfo_databases,
                json_mode,
            )
        if db == "pubmed":
            return self._reply(
                self.recordings.einfo_pubmed_json if json_mode else self.recordings.einfo_pubmed, json_mode
            )
        raise self._failure("einfo", f"Can not retrieve DbInfo for db={db}", json_mode)

    # ESpell

    def _espell(self, info: RequestInfo, json_mode: bool) -> Response:
        self._check_db("espell", info, False)
        term = info.param("term") or ""
        return self._reply(bodies.espell_xml(term, spell(term, self.index.vocabulary)))

    # EPost

    def _epost(self, info: RequestInfo, json_mode: bool) -> Response:
        self._check_db("epost", info, json_mode)
        ids = _split_ids(info.values("id"))
        if not ids:
            raise self._failure("epost", "Empty ID list; Nothing to store", json_mode)
        query_key, web_env = self._store(ids, info.param("WebEnv"))
        return self._reply(
            bodies.epost_json(query_key, web_env) if json_mode else bodies.epost_xml(query_key, web_env),
            json_mode,
        )


class _SearchScope(QuerySource):
    """The shared index, answering #N history references from the caller's WebEnv."""

    def __init__(self, index: RecordIndex, history: Callable[[str], frozenset[str]]) -> None:
        self.index = index
        self.history = history

    def term_ids(self, term: Term) -> frozenset[str]:
        return self.index.term_ids(term)

    def date_ids(self, date_range: DateRange) -> frozenset[str]:
        return self.index.date_ids(date_range)

    def history_ids(self, query_key: str) -> frozenset[str]:
        return self.history(query_key)


def _utility_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1].removesuffix(".fcgi")
    return name if name in UTILITIES else "esearch"
