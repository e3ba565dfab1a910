"""Install footprint: a fresh venv, `pip install [-e] .[EXTRAS]`, its size and time, torch or not.

    python bench/install_footprint.py                # the default install (editable)
    python bench/install_footprint.py --wheel        # from a built wheel (the model must be in it)
    python bench/install_footprint.py --extras local # with the local/hf providers (torch CPU)

Prints one JSON line per figure. pip's cache is used as it is (say whether it was warm when you
quote the time: `pip_cache_mb` is its size before the run). `torch_installed`, `onnx_installed`
and `faiss_installed` must be 0 for the default install. `--embed` then embeds two texts with the
default provider in the new venv with PIP_NO_INDEX=1 and every socket refused (the shipped model:
no build, no download).
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

from figures import emit

REPO = Path(__file__).resolve().parent.parent


def folder_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True).stdout
    return round(int(out.split()[0]) / 1024, 1)


def pip_cache_mb() -> float:
    done = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True,
                          check=False)
    cache = Path(done.stdout.strip()) if done.returncode == 0 else None
    return folder_mb(cache) if cache and cache.is_dir() else 0.0


# Two texts through the default provider, every socket refused: the model must already be there.
_EMBED = (
    "import socket, sys\n"
    "def refuse(*args, **kwargs): raise OSError('no network')\n"
    "socket.socket.connect = refuse\n"
    "from bio_mcp.config import load_settings\n"
    "from bio_mcp.search.embeddings import build_embeddings\n"
    "embeddings = build_embeddings(load_settings())\n"
    "vectors = embeddings.embed_array(sys.argv[1:])\n"
    "print(embeddings.model_id, vectors.shape, round(float(vectors[0] @ vectors[1]), 4))\n"
)


# The largest packages of the default install: the venv's size moves with their releases.
HEAVY = ("onnxruntime", "numpy", "pythainlp", "sqlalchemy", "tantivy", "cryptography")
_VERSIONS = (
    "import importlib.metadata as m, json, sys\n"
    "found = {}\n"
    "for name in sys.argv[1:]:\n"
    "    try: found[name] = m.version(name)\n"
    "    except m.PackageNotFoundError: pass\n"
    "print(json.dumps(found))\n"
)


def heavy_versions(venv: Path) -> dict[str, str]:
    python = str(venv / "bin" / "python")
    done = subprocess.run([python, "-c", _VERSIONS, *HEAVY], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)



def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--extras", default="", help="comma-separated extras, e.g. local or test")
    parser.add_argument("--keep", action="store_true", help="keep the venv and print its path")
    parser.add_argument("--wheel", action="store_true", help="install a built wheel, not an editable checkout")
    parser.add_argument("--embed", action="store_true", help="also embed with the shipped model, offline")
    args = parser.parse_args()
    params = {
        "extras": args.extras or "none", "pip_cache_mb": pip_cache_mb(), "python": sys.version.split()[0],
        "mode": "wheel" if args.wheel else "editable",
    }
    scratch = Path(tempfile.mkdtemp(prefix="bio-mcp-install-"))
    venv = scratch / "venv"
    try:
        source = str(REPO)
        if args.wheel:
            subprocess.run(
                [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(scratch / "dist"), str(REPO)],
                check=True,
            )
            (wheel,) = (scratch / "dist").glob("bio_mcp-*.whl")
            source = str(wheel)
        target = f"{source}[{args.extras}]" if args.extras else source
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *([] if args.wheel else ["-e"]), target], check=True)
        seconds = time.perf_counter() - started
        emit("install_seconds", round(seconds, 1), "s", **params)
        emit("venv_size", folder_mb(venv), "MB", **params, versions=heavy_versions(venv))
        for module in ("torch", "onnx", "faiss"):
            probe = f"import importlib.util as u; print(int(u.find_spec({module!r}) is not None))"
            found = subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, check=True)
            emit(f"{module}_installed", int(found.stdout.strip()), "bool", **params)
        if args.embed:
            env = {**os.environ, "BIO_MCP_HOME": str(scratch / "home"), "PIP_NO_INDEX": "1"}
            env.pop("PYTHONPATH", None)
            started = time.perf_counter()
            done = subprocess.run(
                [str(venv / "bin" / "python"), "-c", _EMBED, "Aspirin reduces the risk of stroke.", "Aspirin lowers stroke risk."],
                check=True, env=env, capture_output=True, text=True, cwd=scratch,
            )
            emit("first_embed_seconds", round(time.perf_counter() - started, 1), "s", **params, result=done.stdout.strip())
        if args.keep:
            sys.stderr.write(f"kept {venv}\n")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
