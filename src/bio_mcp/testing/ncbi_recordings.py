"""Responses recorded from the real E-utilities that the fake serves verbatim or uses as templates.

Everything is read from the shared data directory, never written here: the HTTP 429 bodies,
EInfo, the in-band <ERROR> bodies, and ELink neighbour lists (with scores where recorded).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lxml import etree

ENTREZ_CURRENT = Path("ncbi") / "biopython" / "entrez_current"
ENTREZ_WITH_SCORES = Path("ncbi") / "biopython" / "entrez_2008_with_scores"
KLORTHO = Path("ncbi") / "klortho"

RATE_LIMIT_BODY_FILE = Path("ncbi") / "biomcp" / "esearch_json_and_429" / "http429_rate_limit_exceeded.json"
RATE_LIMIT_ISSUE_BODIES = Path("ncbi") / "errors" / "rate_limit_429_bodies_from_issues.md"

EINFO_DATABASES = ENTREZ_CURRENT / "einfo1.xml"
EINFO_PUBMED = ENTREZ_CURRENT / "einfo2.xml"
EINFO_DATABASES_JSON = KLORTHO / "einfo.json"
EINFO_PUBMED_JSON = KLORTHO / "einfo.pubmed.json"

# The recorded in-band error response of each utility (none was recorded for EFetch or ELink).
ERROR_BODY_FILES = {
    "esearch": KLORTHO / "esearch.baderror.xml",
    "esummary": ENTREZ_CURRENT / "esummary8.xml",
    "einfo": KLORTHO / "einfo.error.xml",
    "epost": ENTREZ_CURRENT / "epost3.xml",
}

RECORDED_ELINK_FILES = (
    ENTREZ_CURRENT / "elink1.xml",
    ENTREZ_CURRENT / "elink3.xml",
    ENTREZ_CURRENT / "elink4.xml",
    Path("ncbi") / "metapub" / "data" / "sample_related_pmids_result.xml",
    Path("ncbi") / "biocommons_eutils" / "extracted_bodies" / "test_elink_0.xml",
)
RECORDED_SCORED_ELINK_FILES = (
    ENTREZ_WITH_SCORES / "elink1.xml",
    ENTREZ_WITH_SCORES / "elink3.xml",
    ENTREZ_WITH_SCORES / "elink4.xml",
)


@dataclass(frozen=True)
class RecordedLinkSet:
    """One recorded LinkSet: links per link name, each link an (id, score or None)."""

    ids: tuple[str, ...]
    links: dict[str, tuple[tuple[str, int | None], ...]]


@dataclass(frozen=True, eq=False)
class NcbiRecordings:
    rate_limit_bodies: tuple[bytes, ...]
    einfo_databases: bytes
    einfo_pubmed: bytes
    einfo_databases_json: bytes
    einfo_pubmed_json: bytes
    error_bodies: dict[str, bytes]
    error_messages: dict[str, str]
    links: dict[tuple[str, ...], RecordedLinkSet]
    scored_links: dict[tuple[str, ...], RecordedLinkSet]


def _read(data_dir: Path, relative: Path) -> bytes:
    path = data_dir / relative
    if not path.is_file():
        raise FileNotFoundError(f"recorded NCBI response not found at {path}")
    return path.read_bytes()


def _rate_limit_bodies(data_dir: Path) -> tuple[bytes, ...]:
    bodies = [_read(data_dir, RATE_LIMIT_BODY_FILE).strip()]
    issues = data_dir / RATE_LIMIT_ISSUE_BODIES
    if issues.is_file():
        bodies += [
            body.encode()
            for body in re.findall(r"`(\{\"error\":\"API rate limit exceeded\"[^`]*\})`", issues.read_text())
        ]
    return tuple(bodies)


def _link_sets(data_dir: Path, files: tuple[Path, ...]) -> dict[tuple[str, ...], RecordedLinkSet]:
    found: dict[tuple[str, ...], RecordedLinkSet] = {}
    for relative in files:
        path = data_dir / relative
        if not path.is_file():
            continue
        root = etree.fromstring(
            path.read_bytes(), parser=etree.XMLParser(resolve_entities=False, load_dtd=False)
        )
        for link_set in root.iterfind("LinkSet"):
            if link_set.findtext("DbFrom") != "pubmed":
                continue
            ids = tuple(element.text.strip() for element in link_set.iterfind("IdList/Id"))
            links = {}
            for link_set_db in link_set.iterfind("LinkSetDb"):
                if link_set_db.findtext("DbTo") != "pubmed":
                    continue
                links[link_set_db.findtext("LinkName").strip()] = tuple(
                    (
                        link.findtext("Id").strip(),
                        int(link.findtext("Score")) if link.findtext("Score") else None,
                    )
                    for link in link_set_db.iterfind("Link")
                )
            found.setdefault(ids, RecordedLinkSet(ids=ids, links=links))
    return found


def _error_message(body: bytes) -> str:
    found = re.search(rb"<ERROR>(.*?)</ERROR>", body, re.DOTALL)
    return found.group(1).decode().strip() if found else ""


@lru_cache(maxsize=4)
def load_ncbi_recordings(data_dir: Path) -> NcbiRecordings:
    error_bodies = {utility: _read(data_dir, relative) for utility, relative in ERROR_BODY_FILES.items()}
    return NcbiRecordings(
        rate_limit_bodies=_rate_limit_bodies(data_dir),
        einfo_databases=_read(data_dir, EINFO_DATABASES),
        einfo_pubmed=_read(data_dir, EINFO_PUBMED),
        einfo_databases_json=_read(data_dir, EINFO_DATABASES_JSON),
        einfo_pubmed_json=_read(data_dir, EINFO_PUBMED_JSON),
        error_bodies=error_bodies,
        error_messages={utility: _error_message(body) for utility, body in error_bodies.items()},
        links=_link_sets(data_dir, RECORDED_ELINK_FILES),
        scored_links=_link_sets(data_dir, RECORDED_SCORED_ELINK_FILES),
    )


def rate_limit_body(template: bytes, count: int, limit: int) -> bytes:
    """A recorded 429 body with this burst's count and limit in place of the recorded ones."""
    body = json.loads(template)
    body["count"] = str(count)
    body["limit"] = str(limit)
    return json.dumps(body, separators=(",", ":")).encode()
