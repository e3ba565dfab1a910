"""Imports point down the layers of ARCHITECTURE.md, as the contracts in pyproject.toml state them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_import_contracts_are_kept() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint is not None, "import-linter is part of the test extra"
    done = subprocess.run([lint], cwd=REPO, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:]
    assert "7 kept, 0 broken" in done.stdout


def test_the_composition_root_knows_every_toolset_the_settings_accept() -> None:
    from bio_mcp.config import TOOLSETS
    from bio_mcp.server.composition import FACTORIES

    assert set(FACTORIES) == set(TOOLSETS)
