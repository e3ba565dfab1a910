"""`bio-mcp doctor` as a real process: a healthy setup exits 0 and says what it uses; a broken store
or Redis, or missing OCR, is named with how to fix it, and a broken required part exits 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def doctor(home: Path, **env: str) -> tuple[int, dict[str, dict[str, str]]]:
    child_env = {k: v for k, v in os.environ.items()
                 if not k.startswith(("NCBI_", "MCP_", "BIO_MCP_", "DATABASE_URL", "REDIS_URL"))}
    child_env.update({"BIO_MCP_HOME": str(home), **env})
    done = subprocess.run([sys.executable, "-m", "bio_mcp.cli", "doctor", "--json"], env=child_env,
                          capture_output=True, text=True, timeout=300, check=False)
    checks = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, {check["part"]: check for check in checks}


def test_a_healthy_setup_passes_and_says_what_it_uses(tmp_path: Path) -> None:
    code, checks = doctor(tmp_path, NCBI_API_KEY="key", NCBI_ADMIN_EMAIL="you@example.org")
    assert code == 0
    assert checks["MeSH"]["status"] == "ok" and "MeSH 2024" in checks["MeSH"]["detail"]
    assert checks["store"]["status"] == "ok" and "SQLite" in checks["store"]["detail"]
    assert checks["NCBI API key"]["status"] == "ok" and checks["embeddings"]["status"] == "ok"
    assert {"Dr. Duke's tables", "Disease Ontology", "Thai herb names", "Redis", "disk"} <= set(checks)


def test_missing_ncbi_settings_warn_without_failing(tmp_path: Path) -> None:
    code, checks = doctor(tmp_path)
    assert code == 0
    assert checks["NCBI API key"]["status"] == "warn" and "NCBI_API_KEY" in checks["NCBI API key"]["fix"]


def test_an_unreachable_store_fails_and_says_how_to_fix_it(tmp_path: Path) -> None:
    code, checks = doctor(tmp_path, DATABASE_URL="postgresql+psycopg://postgres@127.0.0.1:1/test")
    assert code == 1
    assert checks["store"]["status"] == "fail" and "DATABASE_URL" in checks["store"]["fix"]


def test_an_unreachable_redis_fails(tmp_path: Path) -> None:
    code, checks = doctor(tmp_path, REDIS_URL="redis://127.0.0.1:1/0")
    assert code == 1 and checks["Redis"]["status"] == "fail"


def test_missing_ocr_is_a_warning_naming_the_packages(tmp_path: Path) -> None:
    # A PATH without tesseract and pdftoppm, but with the Python running the CLI.
    bare = tmp_path / "bin"
    bare.mkdir()
    code, checks = doctor(tmp_path, PATH=f"{bare}:{Path(sys.executable).parent}")
    assert code == 0
    assert checks["OCR (optional)"]["status"] == "warn" and "tesseract-ocr" in checks["OCR (optional)"]["fix"]


@pytest.mark.parametrize("free_mb, status", [(100, "fail"), (1_000, "warn"), (50_000, "ok")])
def test_disk_space_thresholds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free_mb: int, status: str) -> None:
    import shutil

    from bio_mcp.config import load_settings
    from bio_mcp.doctor import _disk

    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=free_mb * 2**20))
    assert _disk(load_settings(BIO_MCP_HOME=str(tmp_path / "not-yet"))).status == status
