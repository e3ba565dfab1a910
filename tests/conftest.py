"""Shared fixtures: the real recorded data in ../shared/data and the real PostgreSQL and Redis.

Outside CI a missing part skips the tests that need it, with the reason. Under `.ci/run`
(BIO_MCP_STRICT=1) a missing part fails them instead, so CI can never go green by skipping.
"""

from __future__ import annotations

import os
import socket
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
STRICT = os.environ.get("BIO_MCP_STRICT") == "1"
# One cache of the compiled MeSH vocabulary and entity linker for the whole run (every test has its
# own BIO_MCP_HOME; server processes the tests start inherit this): built once per run, not per test.
if "BIO_MCP_CACHE_DIR" not in os.environ:  # xdist's workers inherit the controller's
    os.environ["BIO_MCP_CACHE_DIR"] = tempfile.mkdtemp(prefix="bio-mcp-test-cache-")

# Fixtures that tests in several folders use, registered once here (pytest reads `pytest_plugins` only
# in the root conftest) so that a test asks for them by name and no module imports a fixture.
pytest_plugins = [
    "tests.corpus.corpus_fixtures",
    "tests.evidence.answer_fixtures",
    "tests.evidence.evidence_fixtures",
    "tests.evidence.herb_fixtures",
    "tests.graph.graph_store_fixtures",
    "tests.graph.graph_sync_fixtures",
    "tests.graph.relation_fixtures",
    "tests.server.fakes_process",
]


# Modules that start processes, build the wheel or load whole data sets: each takes a minute or more of
# the suite on two cores. `pytest -m "not slow"` leaves them out for a quick run; CI runs everything.
SLOW_MODULES = frozenset({
    "tests/cli/test_cli_commands.py",
    "tests/cli/test_installed_wheel.py",
    "tests/corpus/test_corpus_load.py",
    "tests/corpus/test_corpus_multiprocess.py",
    "tests/corpus/test_corpus_pgvector.py",
    "tests/corpus/test_corpus_recovery.py",
    "tests/evidence/test_herb_duke.py",
    "tests/graph/test_related_refresh.py",
    "tests/server/test_evidence_page.py",
    "tests/server/test_fuzz_contracts.py",
    "tests/server/test_graphql_contracts.py",
    "tests/server/test_grpc_serve.py",
    "tests/server/test_inspector_cli.py",
    "tests/test_bundle.py",
})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.relative_to(REPO_ROOT).as_posix() in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


def missing(reason: str) -> None:
    if STRICT:
        pytest.fail(f"required for CI but missing: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def require_part() -> Callable[[str], None]:
    """`missing` for test modules, which cannot import this conftest by name (every folder has one)."""
    return missing


@pytest.fixture(scope="session")
def linker_cache() -> Path:
    """The run's one cache (BIO_MCP_CACHE_DIR above), for fixtures that load the MeSH vocabulary and
    entity linkers by path: a linker with BC5CDR's training pairs takes 22 s to build on two cores
    and 1 s to read back, and a cache per fixture built it again in every module and worker."""
    return Path(os.environ["BIO_MCP_CACHE_DIR"])


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared real data: BIO_MCP_DATA, or ../shared/data beside the checkout."""
    path = Path(os.environ.get("BIO_MCP_DATA", REPO_ROOT.parent / "shared" / "data"))
    if not (path / "pubmed" / "pubmed_real_records.xml.gz").is_file():
        missing(f"real recorded data not found at {path} (set BIO_MCP_DATA)")
    return path


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """A real PostgreSQL server (TEST_DATABASE_URL, default the local `test` database)."""
    url = os.environ.get("TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    if not _reachable("127.0.0.1", 5432) and "127.0.0.1" in url:
        missing("PostgreSQL is not reachable at 127.0.0.1:5432")
    return url


@pytest.fixture
def postgres_schema_url(postgres_url: str):
    """A fresh, empty schema of the real PostgreSQL per test, dropped afterwards."""
    import sqlalchemy as sa

    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(postgres_url)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in postgres_url else "?"
    yield f"{postgres_url}{sep}options=-csearch_path%3D{schema}"
    with engine.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL: a SQLite file, then a fresh schema of the real PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    return str(request.getfixturevalue("postgres_schema_url"))


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str | None:
    """DATABASE_URL for a service: unset (the SQLite file in BIO_MCP_HOME), then a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return None
    return str(request.getfixturevalue("postgres_schema_url"))


@pytest.fixture(scope="session")
def redis_url() -> str:
    url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    if not _reachable("127.0.0.1", 6379) and "127.0.0.1" in url:
        missing("Redis is not reachable at 127.0.0.1:6379")
    return url


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """Session-wide, so module- and session-scoped async fixtures (a corpus built once) can use it."""
    return "asyncio"


@pytest.fixture
def bio_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty BIO_MCP_HOME for one test; no setting leaks in from the developer's shell."""
    home = tmp_path / "home"
    home.mkdir()
    for name in list(os.environ):
        keep = name in ("BIO_MCP_DATA", "BIO_MCP_STRICT", "BIO_MCP_CACHE_DIR")
        prefixes = ("NCBI_", "MCP_", "BIO_MCP_", "CTGOV_", "EUROPEPMC_", "UNPAYWALL_", "LITERATURE_")
        if not keep and (name.startswith(prefixes) or name in ("DATABASE_URL", "REDIS_URL")):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BIO_MCP_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def fakes_app(data_dir: Path):
    """The fake E-utilities and ClinicalTrials.gov services over the real recorded data (built once)."""
    from bio_mcp.testing import build_fakes_app

    return build_fakes_app(data_dir)


@pytest.fixture(scope="session")
def running_fakes(data_dir: Path, fakes_app):
    from bio_mcp.testing import run_fakes

    with run_fakes(data_dir, app=fakes_app) as fakes:
        yield fakes


@pytest.fixture
def fakes(running_fakes):
    """The running fakes, with faults, latency, rate limits and the arrival log reset around the test."""
    running_fakes.reset()
    yield running_fakes
    running_fakes.reset()
