"""Fixtures for ingestion tests: a corpus on a fresh BIO_MCP_HOME (SQLite or the real PostgreSQL),
the real MeSH linker, the Thai herb names of the shared table in kg_names, and an ingestion root."""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bio_mcp.config import load_settings
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.evidence.ingest_jobs import IngestService
from bio_mcp.graph.indexer import GraphIndexer, load_catalog
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.graph.names import EntityName, write_names
from bio_mcp.sources.ncbi.client import EutilsClient


def herb_entity_id(row: dict[str, str]) -> str:
    if row["mesh_ui"]:
        return f"mesh:{row['mesh_ui']}"
    return "herb:" + re.sub(r"[^a-z0-9]+", "-", row["scientific_name"].lower()).strip("-")


def herb_names(data_dir: Path) -> list[EntityName]:
    """The shared table's Thai, English and scientific names (until `bio-mcp kg import` merges)."""
    with (data_dir / "herbs" / "thai_herb_names.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    names = []
    for row in rows:
        entity = herb_entity_id(row)
        names.append(EntityName(entity, "th", row["thai_name"], "common", "thai_herb_names.tsv"))
        names.append(EntityName(entity, "en", row["english_name"], "common", "thai_herb_names.tsv"))
        names.append(EntityName(entity, "la", row["scientific_name"], "scientific", "thai_herb_names.tsv"))
    return names


@pytest.fixture(scope="session")
def ocr_ready(require_part: Callable[[str], None]) -> None:
    """Tesseract with its Thai and English models, and poppler's pdftoppm (fails under BIO_MCP_STRICT)."""
    if shutil.which("tesseract") is None or shutil.which("pdftoppm") is None:
        require_part("tesseract or pdftoppm missing: apt-get install tesseract-ocr tesseract-ocr-tha poppler-utils")
        return
    listed = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True, check=False).stdout.split()
    for lang in ("tha", "eng"):
        if lang not in listed:
            require_part(f"Tesseract's {lang} model missing: apt-get install tesseract-ocr-{lang}")
    if not Path("/usr/share/fonts/truetype/tlwg/Loma.ttf").is_file():
        require_part("the TLWG Thai fonts are missing: apt-get install fonts-thai-tlwg")


@pytest.fixture(scope="session")
def pdf_tools(require_part: Callable[[str], None]) -> None:
    """reportlab and Pillow, which the tests use to write PDFs (the `test` extra)."""
    for module in ("reportlab", "PIL"):
        try:
            __import__(module)
        except ImportError:
            require_part(f"{module} is missing: pip install -e '.[test]'")


@pytest.fixture(scope="session")
def graph_indexer(data_dir: Path, linker_cache: Path) -> GraphIndexer:
    mesh = data_dir / "mesh" / "mesh_descriptors_2024.jsonl"
    return GraphIndexer(load_catalog(mesh, linker_cache), load_linker_from(mesh, None, linker_cache))


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str | None:
    if request.param == "sqlite":
        return None
    return str(request.getfixturevalue("postgres_schema_url"))


@dataclass
class IngestEnv:
    root: Path
    outside: Path
    make: Callable[..., IngestService]


@pytest.fixture
async def ingest_env(
    bio_home: Path, tmp_path: Path, data_dir: Path, graph_indexer: GraphIndexer
) -> AsyncIterator[IngestEnv]:
    root = tmp_path / "inbox"
    outside = tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    opened: list[tuple[IngestService, EutilsClient]] = []

    def make(database_url: str | None = None, graph: GraphIndexer | None = None, **extra: Any) -> IngestService:
        overrides: dict[str, Any] = {
            "BIO_MCP_HOME": str(bio_home), "BIO_MCP_EMBEDDINGS_PROVIDER": "hash",
            "BIO_MCP_INGEST_ROOTS": str(root), "BIO_MCP_INGEST_WAIT_S": 300,
        }
        if database_url:
            overrides["DATABASE_URL"] = database_url
        settings = load_settings(**(overrides | extra))
        eutils = EutilsClient(settings)
        corpus = CorpusService(settings, eutils, embed_in_background=False, graph=graph or graph_indexer)
        service = IngestService(settings, corpus)
        opened.append((service, eutils))
        return service

    yield IngestEnv(root=root, outside=outside, make=make)
    for service, eutils in opened:
        await service.aclose()
        await service.corpus.aclose()
        await eutils.aclose()


async def with_names(service: IngestService, data_dir: Path) -> IngestService:
    await service.corpus.open()
    with service.corpus.store.transaction() as tx:
        write_names(tx.connection, herb_names(data_dir))
    return service
