from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bio_mcp.config import load_settings
from bio_mcp.features.analyst.ask import Analyst
from bio_mcp.features.analyst.indications import MeshIndex, load_mesh_index
from bio_mcp.features.analyst.service import build_analyst
from bio_mcp.sources.ncbi.client import EutilsClient


@pytest.fixture(scope="session")
def mesh_path(data_dir: Path) -> Path:
    return data_dir / "mesh" / "mesh_descriptors_2024.jsonl"


@pytest.fixture(scope="session")
def mesh(mesh_path: Path) -> MeshIndex:
    return load_mesh_index(mesh_path)


@pytest.fixture
async def analyst(fakes, bio_home: Path, mesh_path: Path) -> AsyncIterator[Analyst]:
    """The analyst as the server builds it, over the fake E-utilities and CT.gov (real records)."""
    settings = load_settings(
        BIO_MCP_HOME=str(bio_home), NCBI_EUTILS_BASE_URL=fakes.eutils_base_url,
        CTGOV_BASE_URL=fakes.ctgov_base_url, BIO_MCP_MESH_PATH=str(mesh_path),
    )
    eutils = EutilsClient(settings)
    built = build_analyst(settings, eutils)
    built.mesh()  # as the server's warm-up does: a question's time budget is not spent building it
    yield built
    await built.aclose()
    await eutils.aclose()
