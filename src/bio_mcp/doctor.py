"""`bio-mcp doctor`: what the server will use, and whether each part works, before a client finds out.

Each check names a part, says `ok`, `warn` (it works, less well, or an optional part is missing) or
`fail` (a part the server needs is broken), what was found, and how to fix what is not ok. The CLI
exits non-zero when any check fails.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bio_mcp import __version__
from bio_mcp.config import Settings
from bio_mcp.data_files import (
    BC5CDR_PRIORS,
    DO_XREFS,
    DUKE,
    DUKE_FARMACY,
    MESH_DESCRIPTORS,
    THAI_HERB_NAMES,
    Shipped,
    data_file,
)
from bio_mcp.errors import BioMcpError
from bio_mcp.graph.duke_farmacy import duke_farmacy_dir_of
from bio_mcp.graph.herb_catalog import duke_dir_of
from bio_mcp.graph.icd10 import do_xrefs_path_of
from bio_mcp.graph.linking import training_path_of
from bio_mcp.mesh_files import mesh_status
from bio_mcp.search.embeddings.onnx_int8 import SHIPPED_MODEL_DIR, verify_model_files
from bio_mcp.search.thai_english import DEBIAN_WORDNET_DIR
from bio_mcp.store import open_metadata_store

Status = Literal["ok", "warn", "fail"]
OCR_PACKAGES = "tesseract-ocr tesseract-ocr-tha tesseract-ocr-eng poppler-utils"
# Below this much free space a sync can fail midway; below the second a large one may.
DISK_FAIL_MB = 200
DISK_WARN_MB = 2_000


@dataclass(frozen=True)
class Check:
    part: str
    status: Status
    detail: str
    fix: str = ""


def _version(_: Settings) -> Check:
    return Check("version", "ok", f"bio-mcp {__version__} on Python {sys.version.split()[0]}")


def _mesh(settings: Settings) -> Check:
    status = mesh_status(settings)
    if status.path is None:
        return Check("MeSH", "fail", "no MeSH descriptors: entity linking, MeSH lookups and the graph need them",
                     "bio-mcp data install-mesh FILE (NLM's desc20XX.xml), or reinstall the package")
    detail = (f"{MESH_DESCRIPTORS.what}, shipped in the package" if status.source == "package"
              else f"{status.path} (from {status.source})")
    if status.warning:
        return Check("MeSH", "warn", f"{detail}; {status.warning}", "fix BIO_MCP_MESH_PATH or unset it")
    return Check("MeSH", "ok", detail)


def _optional_file(part: str, path: Path | None, shipped: Shipped, without: str, setting: str) -> Check:
    if path is None:
        return Check(part, "warn", f"not found: {without}", f"set {setting}, or reinstall the package")
    if path == shipped.path:
        return Check(part, "ok", f"{shipped.what}, shipped in the package")
    return Check(part, "ok", str(path))


def _data_files(settings: Settings) -> list[Check]:
    return [
        _optional_file("Dr. Duke's tables", duke_dir_of(settings), DUKE,
                       "herbs have no Duke taxa, names or activities", "BIO_MCP_DUKE_DIR"),
        _optional_file("Dr. Duke's constituents", duke_farmacy_dir_of(settings), DUKE_FARMACY,
                       "herbs have no constituents or traditional uses", "BIO_MCP_DUKE_FARMACY_DIR"),
        _optional_file("Disease Ontology", do_xrefs_path_of(settings), DO_XREFS,
                       "indications carry no ICD-10-CM codes", "BIO_MCP_DO_XREFS_PATH"),
        _optional_file("Thai herb names", data_file(None, THAI_HERB_NAMES), THAI_HERB_NAMES,
                       "herbs are not found by their Thai names", "nothing (they ship in the package)"),
        _optional_file("linker training", training_path_of(settings), BC5CDR_PRIORS,
                       "entities are linked by MeSH's terms alone (lower F1)", "BIO_MCP_LINKER_TRAINING"),
    ]


def _embeddings(settings: Settings) -> Check:
    provider = settings.embeddings_provider
    if provider != "onnx":
        return Check("embeddings", "ok", f"provider {provider} (checked when the corpus opens)")
    try:
        verify_model_files(SHIPPED_MODEL_DIR)
    except BioMcpError as exc:
        return Check("embeddings", "fail", exc.message, "reinstall the package: its model files are damaged")
    return Check("embeddings", "ok", f"the shipped all-MiniLM-L6-v2 (int8 ONNX) in {SHIPPED_MODEL_DIR}")


def _ncbi(settings: Settings) -> list[Check]:
    key = (Check("NCBI API key", "ok", "set: 10 requests a second") if settings.ncbi_api_key else
           Check("NCBI API key", "warn", "not set: NCBI allows 3 requests a second",
                 "set NCBI_API_KEY (free, from your NCBI account settings)"))
    email = (Check("NCBI email", "ok", settings.ncbi_email) if settings.ncbi_email else
             Check("NCBI email", "warn", "not set: NCBI asks every tool for a contact address",
                   "set NCBI_ADMIN_EMAIL"))
    return [key, email]


def _store(settings: Settings) -> Check:
    where = "DATABASE_URL" if settings.database_url else f"SQLite in {settings.home}"
    try:
        store = open_metadata_store(settings)
        try:
            with store.read() as tx:
                documents = tx.documents.count()
        finally:
            store.close()
    except BioMcpError as exc:
        return Check("store", "fail", f"{where}: {exc.message}",
                     "check DATABASE_URL (and that the server is up), or unset it for SQLite")
    except Exception as exc:  # noqa: BLE001 - a driver's own error types: said, not raised
        return Check("store", "fail", f"{where}: {type(exc).__name__}: {exc}",
                     "check DATABASE_URL (and that the server is up), or unset it for SQLite")
    return Check("store", "ok", f"{where}, reachable, {documents:,} documents")


def _redis(settings: Settings) -> Check:
    if not settings.redis_url:
        return Check("Redis", "ok", "not used: rate limits are kept in this process (one replica)")
    try:
        import redis
    except ImportError:
        return Check("Redis", "fail", "REDIS_URL is set but the redis client is not installed",
                     "pip install 'bio-mcp[redis]'")
    try:
        client = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=3, socket_timeout=3)
        client.ping()
        client.close()
    except Exception as exc:  # noqa: BLE001 - redis-py's error types: said, not raised
        return Check("Redis", "fail", f"{settings.redis_url}: {type(exc).__name__}: {exc}",
                     "check REDIS_URL and that Redis is up, or unset it")
    return Check("Redis", "ok", f"{settings.redis_url}, reachable: replicas share one NCBI rate limit")


def _ocr(_: Settings) -> Check:
    tesseract, pdftoppm = shutil.which("tesseract"), shutil.which("pdftoppm")
    if tesseract is None or pdftoppm is None:
        missing = " and ".join(name for name, found in (("tesseract", tesseract), ("pdftoppm", pdftoppm))
                               if found is None)
        return Check("OCR (optional)", "warn", f"{missing} not installed: scanned PDF pages cannot be read",
                     f"apt-get install {OCR_PACKAGES}")
    done = subprocess.run([tesseract, "--list-langs"], capture_output=True, text=True, timeout=30, check=False)
    languages = {line.strip() for line in (done.stdout + done.stderr).splitlines()[1:]}
    missing_languages = sorted({"tha", "eng"} - languages)
    if missing_languages:
        return Check("OCR (optional)", "warn", f"Tesseract lacks {', '.join(missing_languages)}",
                     f"apt-get install {' '.join(f'tesseract-ocr-{lang}' for lang in missing_languages)}")
    return Check("OCR (optional)", "ok", "Tesseract (tha, eng) and pdftoppm")


def _wordnet(_: Settings) -> Check:
    if not (DEBIAN_WORDNET_DIR / "data.noun").is_file():
        return Check("WordNet (optional)", "warn",
                     "not found: Thai words other than herb and drug names stay untranslated",
                     "apt-get install wordnet-base")
    return Check("WordNet (optional)", "ok", str(DEBIAN_WORDNET_DIR))


def _disk(settings: Settings) -> Check:
    folder = settings.home
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    free_mb = shutil.disk_usage(folder).free // 2**20
    detail = f"{free_mb:,} MB free under {settings.home}"
    if free_mb < DISK_FAIL_MB:
        return Check("disk", "fail", detail, "free some space, or point BIO_MCP_HOME at a larger disk")
    if free_mb < DISK_WARN_MB:
        return Check("disk", "warn", detail, "a large sync may fill it: free some space")
    return Check("disk", "ok", detail)


CHECKS: tuple[Callable[[Settings], Check | list[Check]], ...] = (
    _version, _mesh, _data_files, _embeddings, _ncbi, _store, _redis, _ocr, _wordnet, _disk,
)


def run_checks(settings: Settings) -> list[Check]:
    checks: list[Check] = []
    for check in CHECKS:
        found = check(settings)
        checks.extend(found if isinstance(found, list) else [found])
    return checks
