"""Builds the Claude Desktop extension bundle (`bio-mcp-VERSION.mcpb`) with the official mcpb tool.

    python bundle/build.py                      # dist/bio-mcp-0.1.0.mcpb
    python bundle/build.py --out /tmp/bundles   # elsewhere
    python bundle/build.py --validate-only      # check the manifest, pack nothing

The bundle is a `uv` server: the project's pyproject.toml, README and package beside manifest.json,
which Claude Desktop runs with `uv run` (uv installs the dependencies on the first start, once).
The user's NCBI key and email are asked for at install (`user_config`) and reach the server as its
environment. The version comes from pyproject.toml. mcpb is the official npm package
@anthropic-ai/mcpb, which `.ci/install-inspector` installs outside the repository (or any `mcpb`
on PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOLS_HOME = Path(os.environ.get("BIO_MCP_INSPECTOR_HOME", Path.home() / ".cache" / "bio-mcp" / "inspector"))


def mcpb_command() -> list[str]:
    installed = TOOLS_HOME / "node_modules" / ".bin" / "mcpb"
    node = TOOLS_HOME / "node_modules" / ".bin" / "node"
    if installed.exists() and node.exists():
        return [str(node), str(installed)]
    found = shutil.which("mcpb")
    if found is None:
        raise SystemExit("mcpb not found: run `bash .ci/install-inspector` (it installs @anthropic-ai/mcpb)")
    return [found]


def stage(folder: Path) -> Path:
    """The bundle's files in `folder`: manifest.json with the project's version, pyproject.toml,
    README.md and the package (without caches)."""
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    manifest = json.loads((REPO / "bundle" / "manifest.json").read_text())
    manifest["version"] = version
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, folder / name)
    shutil.copytree(REPO / "src" / "bio_mcp", folder / "src" / "bio_mcp",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return folder / "manifest.json"


def run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[-3:])} failed:\n{done.stdout}{done.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(REPO / "dist"), help="folder for the .mcpb file")
    parser.add_argument("--validate-only", action="store_true")
    args = parser.parse_args()
    mcpb = mcpb_command()
    with tempfile.TemporaryDirectory(prefix="bio-mcp-bundle-") as staging:
        manifest = stage(Path(staging))
        run([*mcpb, "validate", str(manifest)])
        if args.validate_only:
            print(f"valid: {manifest.name}")
            return
        version = json.loads(manifest.read_text())["version"]
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        target = out / f"bio-mcp-{version}.mcpb"
        run([*mcpb, "pack", staging, str(target)])
    print(target)


if __name__ == "__main__":
    sys.exit(main())
