"""A fake PubTator3 API (`/research/pubtator3-api/publications/export/biocjson`) over the real recorded
BioC JSON exports of the shared data.

A request's PMIDs (comma-separated, GET or POST, at most 100 as the real API allows) are answered
with the recorded document of each PMID it has, `full=true` with the full-text export where one was
recorded; PMIDs it lacks are left out of the `PubTator3` list. Faults and the arrival log are the same
machinery as the other fakes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bio_mcp.testing.faults import Fault, FaultInjectingService, RequestInfo, request_info_of

PUBTATOR3_PATH = "/research/pubtator3-api"
MAX_PMIDS = 100
_EXPORT = re.compile(r"export_biocjson_pmid(\d+)(_abstract|_full_true)?\.json$")


class FakePubtator3(FaultInjectingService):
    def __init__(self, data_dir: Path) -> None:
        self.abstracts: dict[str, dict[str, Any]] = {}
        self.full_texts: dict[str, dict[str, Any]] = {}
        for path in sorted((Path(data_dir) / "pubtator3").glob("export_biocjson_pmid*.json")):
            match = _EXPORT.search(path.name)
            if match is None:
                continue
            documents = json.loads(path.read_bytes())["PubTator3"]
            target = self.full_texts if match.group(2) == "_full_true" else self.abstracts
            target.update({match.group(1): document for document in documents})
        app = Starlette(
            routes=[
                Route(
                    f"{PUBTATOR3_PATH}/publications/export/biocjson", self._export, methods=["GET", "POST"]
                ),
            ]
        )
        super().__init__(app, self._too_many_requests)

    @property
    def pmids(self) -> list[str]:
        return sorted(self.abstracts)

    def reset(self) -> None:
        self.faults.reset()

    @staticmethod
    def _too_many_requests(request: RequestInfo, count: int, limit: int) -> Fault:
        return Fault(name="rate_limit_enforced", status=429, body=b"Too Many Requests")

    async def _export(self, request: Request) -> Response:
        info = request_info_of(request.scope)
        pmids = [p.strip() for p in (info.param("pmids") or "").split(",") if p.strip()]
        if not pmids:
            return Response(b"pmids or pmcids is required", status_code=400, media_type="text/plain")
        if len(pmids) > MAX_PMIDS:
            return Response(b"at most 100 ids a request", status_code=400, media_type="text/plain")
        full = (info.param("full") or "").lower() == "true"
        documents = [
            (self.full_texts.get(pmid) if full else None) or self.abstracts[pmid]
            for pmid in dict.fromkeys(pmids)
            if pmid in self.abstracts
        ]
        body = json.dumps({"PubTator3": documents}, ensure_ascii=False).encode()
        return Response(body, media_type="application/json")
