"""Fakes of Europe PMC's REST API, NCBI's PMC ID Converter and Unpaywall, serving the recorded
answers in ../shared/data (europepmc/, ncbi/idconv/, unpaywall/) at the real services' paths.

- Europe PMC `search` answers a recorded page when query, resultType, pageSize, cursorMark, sort and
  synonym match its recorded request; `EXT_ID:x AND SRC:y` finds the record x in every recorded page;
  `(q) AND SRC:PPR` and `(q) AND OPEN_ACCESS:Y` filter q's recorded page. A cursor the fakes hold no
  page for is never handed out: the last recorded page of a chain is served as the last page. Any
  other query matches nothing (hitCount 0, like the recorded empty answer).
- `{source}/{id}/citations|references` answer the recorded pages, and an empty list otherwise;
  `{PMCID}/fullTextXML` the recorded JATS, or Europe PMC's 404 errorBean.
- The ID Converter maps any of a recorded record's PMID, PMCID or DOI; an unknown id gets a record
  with an `errmsg`; a DOI sent with `idtype` other than doi gets the recorded 404 error.
- Unpaywall `/v2/{doi}` answers the recorded record, 404 for an unknown DOI, 422 without an email.

Faults and the arrival log are the same machinery as the other fakes (`inject(..., path=...)`).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bio_mcp.testing.faults import Fault, FaultInjectingService, RateLimit, RequestInfo, request_info_of

EUROPEPMC_PATH = "/europepmc/webservices/rest"
IDCONV_PATH = "/pmc/utils/idconv/v1.0"
UNPAYWALL_PATH = "/v2"
JSON = "application/json"
XML = "application/xml"
_EXT_ID = re.compile(r"^EXT_ID:(\S+)\s+AND\s+SRC:(\w+)$", re.IGNORECASE)
_FILTERED = re.compile(r"^\((?P<inner>.+)\)(?P<filters>(?:\s+AND\s+(?:SRC:PPR|OPEN_ACCESS:Y))+)$", re.IGNORECASE)
_NOT_OPEN = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><errorBean><errCode>0</errCode>'
             "<errMsg>Article with id {pmcid} is not open access one</errMsg></errorBean>")


def _cursor(value: str | None) -> str:
    return unquote(value or "*")


def _search_key(query: str, result_type: str, page_size: int, cursor: str, sort: str, synonym: bool) -> tuple:
    return (query, result_type.lower(), int(page_size), _cursor(cursor), sort or "", bool(synonym))


class FakeLiterature(FaultInjectingService):
    """Europe PMC, the PMC ID Converter and Unpaywall on one app, with one fault plan and arrival log."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._load()
        super().__init__(self._starlette(), self._too_many_requests)

    # --- the recordings -----------------------------------------------------------------------

    def _load(self) -> None:
        epmc = self.data_dir / "europepmc"
        self.search_pages: dict[tuple, dict[str, Any]] = {}
        self.link_pages: dict[tuple[str, str, str, int, int], bytes] = {}
        self.full_texts: dict[str, bytes] = {}
        for path in sorted([*epmc.glob("*.json"), *epmc.glob("*/*.json")]):
            document = json.loads(path.read_bytes())
            if not isinstance(document, dict):
                continue
            request = document.get("request") or {}
            if "resultList" in document and "queryString" in request:
                key = _search_key(request["queryString"], request["resultType"], request["pageSize"],
                                  request.get("cursorMark"), request.get("sort"), request.get("synonym"))
                self.search_pages[key] = document
            for direction, list_key in (("citations", "citationList"), ("references", "referenceList")):
                if list_key in document:
                    page = 1 + int(request.get("offSet") or 0) // max(1, int(request["pageSize"]))
                    self.link_pages[(request["source"], request["id"], direction, page, int(request["pageSize"]))] = (
                        path.read_bytes())
        served = {key[3] for key in self.search_pages}
        for document in self.search_pages.values():
            # A cursor with no recorded page behind it would send a client to a page nobody can serve.
            if document.get("nextCursorMark") not in served:
                document.pop("nextCursorMark", None)
                document.pop("nextPageUrl", None)
        self.records: dict[tuple[str, str], dict[str, Any]] = {}
        for document in self.search_pages.values():
            for item in document["resultList"]["result"]:
                self.records.setdefault((str(item.get("source")), str(item.get("id"))), item)
        for path in epmc.glob("fullTextXML_*.xml"):
            self.full_texts[path.stem.removeprefix("fullTextXML_").upper()] = path.read_bytes()
        idconv = self.data_dir / "ncbi/idconv"
        self.id_records: dict[str, dict[str, Any]] = {}
        self.idconv_error = (idconv / "idconv_error_404_idtype_mismatch.json").read_bytes()
        for path in idconv.glob("idconv_*.json"):
            document = json.loads(path.read_bytes())
            for record in document.get("records") or []:
                for key in ("pmid", "pmcid", "doi"):
                    if record.get(key):
                        self.id_records[str(record[key]).lower()] = record
        self.unpaywall: dict[str, bytes] = {}
        self.unpaywall_searches: dict[str, bytes] = {}
        for path in (self.data_dir / "unpaywall").glob("unpaywall_v2_*.json"):
            document = json.loads(path.read_bytes())
            if "doi" in document:
                self.unpaywall[document["doi"].lower()] = path.read_bytes()
            meta = json.loads((self.data_dir / "unpaywall/_http_meta" / f"{path.name}.meta.json").read_text())
            query = re.search(r"[?&]query=([^&]*)", meta["uri"])
            if query:
                self.unpaywall_searches[unquote(query.group(1))] = path.read_bytes()

    def reset(self) -> None:
        self.faults.reset()

    def limit_rate(self, *, per_second: int, enforce: bool) -> None:
        self.faults.rate_limit = RateLimit(per_window=per_second, enforce=enforce)

    @staticmethod
    def rate_limited() -> Fault:
        return Fault(name="rate_limited", status=429, body=b"Too Many Requests")

    @staticmethod
    def _too_many_requests(request: RequestInfo, count: int, limit: int) -> Fault:
        return Fault(name="rate_limit_enforced", status=429, body=b"Too Many Requests")

    # --- HTTP ---------------------------------------------------------------------------------

    def _starlette(self) -> Starlette:
        return Starlette(routes=[
            Route(f"{EUROPEPMC_PATH}/search", self._search, methods=["GET", "POST"]),
            Route(f"{EUROPEPMC_PATH}/searchPOST", self._search, methods=["POST"]),
            Route(f"{EUROPEPMC_PATH}/{{pmcid}}/fullTextXML", self._full_text, methods=["GET"]),
            Route(f"{EUROPEPMC_PATH}/{{source}}/{{id}}/{{direction}}", self._links, methods=["GET"]),
            Route(f"{IDCONV_PATH}/", self._idconv, methods=["GET"]),
            Route(f"{IDCONV_PATH}", self._idconv, methods=["GET"]),
            Route(f"{UNPAYWALL_PATH}/search", self._unpaywall_search, methods=["GET"]),
            Route(f"{UNPAYWALL_PATH}/{{doi:path}}", self._unpaywall_doi, methods=["GET"]),
        ])

    @staticmethod
    def _json(document: object, status: int = 200) -> Response:
        return Response(json.dumps(document, ensure_ascii=False).encode(), status_code=status, media_type=JSON)

    async def _search(self, request: Request) -> Response:
        info = request_info_of(request.scope)
        query = (info.param("query") or "").strip()
        result_type = info.param("resultType") or "lite"
        page_size = int(info.param("pageSize") or 25)
        cursor = info.param("cursorMark") or "*"
        key_rest = (result_type, page_size, cursor, info.param("sort") or "", info.param("synonym") == "true")
        page = self.search_pages.get(_search_key(query, *key_rest))
        if page is not None:
            return self._json(page)
        if match := _EXT_ID.match(query):
            item = self.records.get((match.group(2).upper(), match.group(1)))
            return self._json(self._page(query, result_type, page_size, [item] if item else []))
        if match := _FILTERED.match(query):
            inner = self.search_pages.get(_search_key(match.group("inner"), *key_rest))
            if inner is not None:
                filters = match.group("filters").upper()
                kept = [item for item in inner["resultList"]["result"]
                        if ("SRC:PPR" not in filters or item.get("source") == "PPR")
                        and ("OPEN_ACCESS:Y" not in filters or item.get("isOpenAccess") == "Y")]
                return self._json(self._page(query, result_type, page_size, kept))
        return self._json(self._page(query, result_type, page_size, []))

    @staticmethod
    def _page(query: str, result_type: str, page_size: int, items: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "version": "6.9", "hitCount": len(items),
            "request": {"queryString": query, "resultType": result_type, "cursorMark": "%2A", "pageSize": page_size,
                        "sort": "", "synonym": False},
            "resultList": {"result": copy.deepcopy(items[:page_size])},
        }

    async def _links(self, request: Request) -> Response:
        info = request_info_of(request.scope)
        source, article_id, direction = (request.path_params[k] for k in ("source", "id", "direction"))
        if direction not in ("citations", "references"):
            return Response(b"", status_code=404)
        page, page_size = int(info.param("page") or 1), int(info.param("pageSize") or 25)
        body = self.link_pages.get((source.upper(), article_id, direction, page, page_size))
        if body is not None:
            return Response(body, media_type=JSON)
        list_key, item_key = ("citationList", "citation") if direction == "citations" else ("referenceList", "reference")
        return self._json({"version": "6.9", "hitCount": 0,
                           "request": {"id": article_id, "source": source, "offSet": (page - 1) * page_size,
                                       "pageSize": page_size},
                           list_key: {item_key: []}})

    async def _full_text(self, request: Request) -> Response:
        pmcid = request.path_params["pmcid"].upper()
        body = self.full_texts.get(pmcid)
        if body is None:
            return Response(_NOT_OPEN.format(pmcid=pmcid).encode(), status_code=404, media_type=XML)
        return Response(body, media_type=XML)

    async def _idconv(self, request: Request) -> Response:
        info = request_info_of(request.scope)
        ids = [part.strip() for part in (info.param("ids") or "").split(",") if part.strip()]
        idtype = info.param("idtype")
        if idtype == "doi" and any(not i.startswith("10.") for i in ids):
            return Response(self.idconv_error, status_code=404, media_type=JSON)
        records = []
        for requested in ids:
            record = self.id_records.get(requested.lower())
            records.append({"requested-id": requested, **record} if record is not None else
                           {"requested-id": requested, "status": "error", "errmsg": "invalid article id"})
        return self._json({"status": "ok", "responseDate": "2022-11-09 09:38:24",
                           "request": f"ids={','.join(ids)};format=json", "records": records})

    async def _unpaywall_doi(self, request: Request) -> Response:
        info = request_info_of(request.scope)
        if not info.param("email"):
            return self._json({"HTTP_status_code": 422, "error": True,
                               "message": "Email address required. Add ?email=your@email.com"}, 422)
        doi = request.path_params["doi"].lower()
        body = self.unpaywall.get(doi)
        if body is None:
            return self._json({"HTTP_status_code": 404, "error": True,
                               "message": f"'{doi}' is an invalid doi. See https://doi.org/{doi}"}, 404)
        return Response(body, media_type=JSON)

    async def _unpaywall_search(self, request: Request) -> Response:
        info = request_info_of(request.scope)
        body = self.unpaywall_searches.get(info.param("query") or "")
        return Response(body, media_type=JSON) if body else self._json({"results": [], "elapsed_seconds": 0.01})
