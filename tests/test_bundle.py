"""The Claude Desktop bundle: bundle/build.py stages and packs it with the official mcpb tool, whose
validator accepts the manifest; the user's NCBI key and email reach the server's environment."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bio_mcp.config import load_settings

REPO = Path(__file__).resolve().parents[1]
TOOLS_HOME = Path.home() / ".cache" / "bio-mcp" / "inspector"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory, require_part) -> Path:
    if not (TOOLS_HOME / "node_modules" / ".bin" / "mcpb").exists():
        require_part("mcpb is not installed (bash .ci/install-inspector installs it)")
    out = tmp_path_factory.mktemp("bundle")
    done = subprocess.run([sys.executable, str(REPO / "bundle" / "build.py"), "--out", str(out)],
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return Path(done.stdout.strip().splitlines()[-1])


def test_the_bundle_is_packed_with_a_manifest_mcpb_accepts(bundle: Path) -> None:
    version = next(line.split('"')[1] for line in (REPO / "pyproject.toml").read_text().splitlines()
                   if line.startswith("version"))
    assert bundle.name == f"bio-mcp-{version}.mcpb"
    with zipfile.ZipFile(bundle) as packed:
        names = set(packed.namelist())
        manifest = json.loads(packed.read("manifest.json"))
    assert {"manifest.json", "pyproject.toml", "README.md", "src/bio_mcp/cli.py",
            "src/bio_mcp/search/embeddings/minilm_int8/model.onnx"} <= names
    assert not any("__pycache__" in name for name in names)
    assert manifest["version"] == version and manifest["server"]["type"] == "uv"


def test_the_user_config_reaches_the_server_environment(bundle: Path) -> None:
    with zipfile.ZipFile(bundle) as packed:
        manifest = json.loads(packed.read("manifest.json"))
    config = manifest["user_config"]
    assert config["ncbi_api_key"]["sensitive"] is True and config["ncbi_api_key"]["required"] is False
    env = manifest["server"]["mcp_config"]["env"]
    assert env["NCBI_API_KEY"] == "${user_config.ncbi_api_key}"
    assert env["NCBI_ADMIN_EMAIL"] == "${user_config.ncbi_admin_email}"
    assert manifest["server"]["mcp_config"]["args"][-2:] == ["bio-mcp", "serve"]


def test_a_manifest_mcpb_refuses_fails_the_build(tmp_path: Path, require_part) -> None:
    mcpb = TOOLS_HOME / "node_modules" / ".bin" / "mcpb"
    if not mcpb.exists():
        require_part("mcpb is not installed (bash .ci/install-inspector installs it)")
    manifest = json.loads((REPO / "bundle" / "manifest.json").read_text())
    del manifest["server"]["mcp_config"]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    node = TOOLS_HOME / "node_modules" / ".bin" / "node"
    done = subprocess.run([str(node), str(mcpb), "validate", str(tmp_path / "manifest.json")],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode != 0


def test_optional_fields_left_blank_mean_the_defaults() -> None:
    # Claude Desktop passes an optional field the user left blank as an empty string.
    settings = load_settings(NCBI_API_KEY="", NCBI_ADMIN_EMAIL="", BIO_MCP_TOOLSETS="")
    assert settings.ncbi_api_key is None and settings.ncbi_email is None
    assert settings.toolsets == ["pubmed", "corpus", "analyst", "kb", "evidence"]
