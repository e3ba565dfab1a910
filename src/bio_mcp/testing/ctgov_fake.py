"""A fake ClinicalTrials.gov API v2 (`/api/v2/studies`, `/api/v2/studies/{nctId}`, `/api/v2/version`).

Serves the real v2 study records of the shared data with query.* / filter.* matching, `fields=`
projection, `countTotal`, and opaque `pageToken` paging. Error bodies are text/plain like the
real service's. Faults and the arrival log are the same machinery as the fake E-utilities.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bio_mcp.testing.ctgov_studies import (
    AREAS,
    SEARCH_AREAS,
    AreaKind,
    Study,
    UnknownField,
    field_paths,
    load_api_contract,
    load_real_studies,
    nct_id,
    project,
    values_at,
)
from bio_mcp.testing.essie_query import (
    EssieSyntaxError,
    Expression,
    UnknownArea,
    matches,
    only_nct_ids,
    parse_essie,
)
from bio_mcp.testing.faults import (
    Fault,
    FaultInjectingService,
    RateLimit,
    RequestInfo,
    request_info_of,
)

CTGOV_PATH = "/api/v2"
DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 1000
NCT_PATTERN = re.compile(r"(?i)NCT\d{8}")
# Accepted by today's API though newer than the recorded spec.
EXTRA_PARAMETERS = frozenset({"markupFormat"})
# In the spec, but answering them needs data the recordings lack (geo points, synonym ids, aggregations):
# refusing is better than silently ignoring them and letting a client's test pass on wrong results.
UNSERVED_PARAMETERS = frozenset(
    {"filter.geo", "postFilter.geo", "geoDecay", "filter.synonyms", "postFilter.synonyms", "aggFilters"}
)
PAGING_PARAMETERS = frozenset({"pageToken", "pageSize", "countTotal"})
JSON = "application/json"


class _Refusal(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _split_list(value: str) -> list[str]:
    return [part.strip() for part in re.split(r"[,|]", value) if part.strip()]


class FakeClinicalTrials(FaultInjectingService):
    """The fake ClinicalTrials.gov API v2: studies, faults and the arrival log."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.contract = load_api_contract(self.data_dir)
        self._lock = threading.Lock()
        self._original = {nct_id(study): study for study in load_real_studies(self.data_dir)}
        self._studies: dict[str, Study] = dict(self._original)
        super().__init__(self._starlette(), self._too_many_requests)

    # --- studies ----------------------------------------------------------------------------

    @property
    def studies(self) -> dict[str, Study]:
        with self._lock:
            return dict(self._studies)

    @property
    def nct_ids(self) -> list[str]:
        return sorted(self.studies)

    def study(self, nct: str) -> Study:
        return self.studies[nct.upper()]

    def __len__(self) -> int:
        return len(self.studies)

    def add_study(self, study: Study) -> str:
        key = nct_id(study)
        with self._lock:
            self._studies[key] = study
        return key

    def remove(self, nct: str) -> None:
        with self._lock:
            self._studies.pop(nct.upper(), None)

    def replicate(self, n: int, first_number: int) -> list[str]:
        """Clone the real studies (round robin, by NCT id) as NCT{first_number:08d}, and onwards."""
        templates = [self._original[key] for key in sorted(self._original)]
        created = []
        with self._lock:
            for offset in range(n):
                template = templates[offset % len(templates)]
                key = f"NCT{first_number + offset:08d}"
                # Studies are never mutated in place: a clone shares all but the dicts leading to its id.
                protocol = dict(template["protocolSection"])
                protocol["identificationModule"] = {**protocol["identificationModule"], "nctId": key}
                self._studies[key] = {**template, "protocolSection": protocol}
                created.append(key)
        return created

    def reset(self) -> None:
        with self._lock:
            self._studies = dict(self._original)
        self.faults.reset()

    # --- faults and the arrival log ---------------------------------------------------------

    def limit_rate(self, *, per_second: int, enforce: bool) -> None:
        self.faults.rate_limit = RateLimit(per_window=per_second, enforce=enforce)

    @staticmethod
    def rate_limited() -> Fault:
        return Fault(name="rate_limited", status=429, body=b"Too Many Requests")

    @staticmethod
    def _too_many_requests(request: RequestInfo, count: int, limit: int) -> Fault:
        return Fault(name="rate_limit_enforced", status=429, body=b"Too Many Requests")

    # --- HTTP -------------------------------------------------------------------------------

    def _starlette(self) -> Starlette:
        return Starlette(
            routes=[
                Route(f"{CTGOV_PATH}/studies", self._search, methods=["GET"]),
                Route(f"{CTGOV_PATH}/studies/{{nct_id}}", self._single, methods=["GET"]),
                Route(f"{CTGOV_PATH}/version", self._version, methods=["GET"]),
            ]
        )

    @staticmethod
    def _json(document: object) -> Response:
        return Response(json.dumps(document, ensure_ascii=False).encode(), media_type=JSON)

    @staticmethod
    def _text(status: int, message: str) -> Response:
        return Response(message.encode(), status_code=status, media_type="text/plain")

    def _check_parameters(self, info: RequestInfo, allowed: Iterable[str] | None) -> None:
        if allowed is None:
            return
        known = set(allowed) | EXTRA_PARAMETERS
        for name, _ in info.params:
            if name not in known:
                raise _Refusal(400, f"`{name}` is unknown parameter")
            if name in UNSERVED_PARAMETERS:
                raise _Refusal(400, f"`{name}` is not served by this fake")

    def _projection(self, info: RequestInfo) -> list[tuple[str, ...]] | None:
        fields = info.param("fields")
        if fields is None:
            return None
        names = _split_list(fields)
        if not names:
            raise _Refusal(400, "Parameter `fields` must not be empty")
        try:
            return field_paths(names, list(self._original.values()))
        except UnknownField as unknown:
            raise _Refusal(400, f"Unknown field `{unknown}` in parameter `fields`") from None

    async def _single(self, request: Request) -> Response:
        info = request_info_of(request.scope)
        key = request.path_params["nct_id"]
        try:
            self._check_parameters(
                info, self.contract.study_parameters - {"nctId"} if self.contract else None
            )
            if not NCT_PATTERN.fullmatch(key):
                raise _Refusal(400, "Parameter `nctId` has incorrect format")
            study = self.studies.get(key.upper())
            if study is None:
                raise _Refusal(404, f"NCT number {key.upper()} not found")
            paths = self._projection(info)
        except _Refusal as refusal:
            return self._text(refusal.status, refusal.message)
        return self._json(project(study, paths) if paths else study)

    async def _version(self, request: Request) -> Response:
        stamps = [
            str(value)
            for study in self.studies.values()
            for value in values_at(study, ("derivedSection", "miscInfoModule", "versionHolder"))
        ]
        document = {"apiVersion": self.contract.api_version if self.contract else "2.0.0"}
        if stamps:
            document["dataTimestamp"] = f"{max(stamps)}T00:00:00"
        return self._json(document)

    async def _search(self, request: Request) -> Response:
        info = request_info_of(request.scope)
        try:
            self._check_parameters(info, self.contract.search_parameters if self.contract else None)
            if (info.param("format") or "json") != "json":
                raise _Refusal(400, "Only format=json is served by this fake")
            paths = self._projection(info)
            found = self._matching(info)
            page_size = self._page_size(info)
            offset = self._offset(info)
        except _Refusal as refusal:
            return self._text(refusal.status, refusal.message)
        page = found[offset : offset + page_size]
        document: dict[str, object] = {
            "studies": [project(study, paths) if paths else study for study in page]
        }
        if info.param("pageToken") is None and (info.param("countTotal") or "").lower() == "true":
            document["totalCount"] = len(found)
        if offset + page_size < len(found):
            document["nextPageToken"] = self._token(info, offset + page_size)
        return self._json(document)

    def _page_size(self, info: RequestInfo) -> int:
        raw = info.param("pageSize")
        if raw in (None, ""):
            return DEFAULT_PAGE_SIZE
        if not raw.lstrip("-").isdigit():
            raise _Refusal(400, "Parameter `pageSize` has incorrect format")
        size = int(raw)
        if size < 0:
            raise _Refusal(400, "Parameter `pageSize` must be non-negative")
        return min(size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)

    @staticmethod
    def _query_signature(info: RequestInfo) -> str:
        """Pages must be asked with the first page's parameters, except the paging ones."""
        kept = sorted((name, value) for name, value in info.params if name not in PAGING_PARAMETERS)
        return hashlib.sha256(json.dumps(kept).encode()).hexdigest()[:16]

    def _token(self, info: RequestInfo, offset: int) -> str:
        payload = json.dumps({"o": offset, "q": self._query_signature(info)}).encode()
        return base64.urlsafe_b64encode(payload).decode().rstrip("=")

    def _offset(self, info: RequestInfo) -> int:
        token = info.param("pageToken")
        if token is None:
            return 0
        try:
            payload = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
            offset, signature = int(payload["o"]), payload["q"]
        except (ValueError, KeyError, TypeError):
            raise _Refusal(400, "Parameter `pageToken` has incorrect format") from None
        if signature != self._query_signature(info):
            raise _Refusal(
                400, "`pageToken` does not belong to this query: repeat the first page's parameters"
            )
        return offset

    def _expression(self, name: str, text: str) -> Expression | None:
        try:
            return parse_essie(text)
        except UnknownArea as unknown:
            where = "advanced filter" if name.endswith(".advanced") else f"`{name}`"
            raise _Refusal(
                400, f"Error parsing query in {where}: Unknown area name: '{unknown.name}'"
            ) from None
        except EssieSyntaxError as error:
            raise _Refusal(400, f"Error parsing query in `{name}`: {error}") from None

    def _matching(self, info: RequestInfo) -> list[Study]:
        queries = [(name, info.param(name) or "") for name in SEARCH_AREAS if info.param(name)]
        ignore_filters = any(only_nct_ids(text) for _, text in queries)
        conditions: list[Callable[[Study], bool]] = []
        for name, text in queries:
            expression = self._expression(name, text)
            if expression is not None:
                areas = tuple(AREAS[area.lower()] for area in SEARCH_AREAS[name])
                conditions.append(
                    lambda study, expression=expression, areas=areas: matches(expression, study, areas)
                )
        if not ignore_filters:
            conditions += self._filters(info, "filter") + self._filters(info, "postFilter")
        studies = [self.studies[key] for key in sorted(self.studies)]
        found = [study for study in studies if all(condition(study) for condition in conditions)]
        return self._sorted(found, info.param("sort"))

    def _filters(self, info: RequestInfo, prefix: str) -> list[Callable[[Study], bool]]:
        conditions: list[Callable[[Study], bool]] = []
        statuses = info.param(f"{prefix}.overallStatus")
        if statuses:
            wanted = {status.upper() for status in _split_list(statuses)}
            if self.contract is not None:
                for status in wanted:
                    if status not in self.contract.statuses:
                        raise _Refusal(
                            400, f"Invalid value in parameter `{prefix}.overallStatus`: `{status}`"
                        )
            conditions.append(
                lambda study: study["protocolSection"].get("statusModule", {}).get("overallStatus") in wanted
            )
        ids = info.param(f"{prefix}.ids")
        if ids:
            listed = _split_list(ids)
            for position, value in enumerate(listed, start=1):
                if not NCT_PATTERN.fullmatch(value):
                    raise _Refusal(400, f"Item {position} in parameter `{prefix}.ids` has incorrect format")
            wanted_ids = {value.upper() for value in listed}
            conditions.append(lambda study: nct_id(study) in wanted_ids)
        advanced = info.param(f"{prefix}.advanced")
        if advanced:
            expression = self._expression(f"{prefix}.advanced", advanced)
            if expression is not None:
                areas = tuple(AREAS[area.lower()] for area in SEARCH_AREAS["query.term"])
                conditions.append(lambda study: matches(expression, study, areas))
        return conditions

    @staticmethod
    def _sorted(studies: list[Study], sort: str | None) -> list[Study]:
        """Default order is by NCT id (the real one is unspecified); date and number fields sort as asked."""
        if not sort:
            return studies
        ordered = list(studies)
        for option in reversed(_split_list(sort)[:2]):
            name, _, direction = option.partition(":")
            if name == "@relevance":
                continue
            area = AREAS.get(name.lower())
            if area is None or area.kind not in (AreaKind.DATE, AreaKind.NUMBER):
                raise _Refusal(400, f"Unsupported sort field: {name}")
            descending = (direction or ("desc" if area.kind is AreaKind.DATE else "asc")).lower() == "desc"
            present = [study for study in ordered if values_at(study, area.path)]
            missing = [study for study in ordered if not values_at(study, area.path)]
            present.sort(
                key=lambda study: _sort_key(area.kind, values_at(study, area.path)[0]), reverse=descending
            )
            ordered = present + missing
        return ordered


def _sort_key(kind: AreaKind, value: object) -> object:
    if kind is AreaKind.NUMBER:
        return float(value)  # type: ignore[arg-type]
    return str(value)
