"""Where each data file the product reads is: an explicit setting first, else the copy shipped in
the package (`bio_mcp/vocabularies/`, see its README.md). Nothing is read from beside a source
checkout, so an install anywhere works as the checkout does.

    data_file(settings.do_xrefs_path, DO_XREFS)      # BIO_MCP_DO_XREFS_PATH, else the shipped copy
    with open_text(path) as handle: ...             # plain, .gz or .xz alike

Shipped files are compressed (xz) and read only when a feature first needs them; a folder of
tables (Dr. Duke's) holds each table as `NAME.csv.xz`, found by `member(folder, "NAME.csv")`, so an
explicit folder of plain CSVs works the same.
"""

from __future__ import annotations

import gzip
import json
import lzma
from dataclasses import dataclass
from pathlib import Path
from typing import IO

VOCABULARIES = Path(__file__).resolve().with_name("vocabularies")
_COMPRESSED = (".xz", ".gz")


@dataclass(frozen=True)
class Shipped:
    """One shipped file or folder: its place under `vocabularies/`, and what it is, for messages."""

    relative: str
    what: str

    @property
    def path(self) -> Path:
        return VOCABULARIES / self.relative


MESH_DESCRIPTORS = Shipped("mesh/mesh_descriptors_2024.jsonl.xz", "MeSH 2024 descriptors")
MESH_PHARM_ACTIONS = Shipped("mesh/data_pharm_action.tsv.xz", "MeSH 2024 pharmacological actions")
DUKE = Shipped("duke", "Dr. Duke's Phytochemical and Ethnobotanical Databases")
DUKE_FARMACY = Shipped("duke_farmacy", "Dr. Duke's plant constituents and ethnobotanical uses")
DO_XREFS = Shipped("ontology/do_xrefs.tsv.xz", "the Disease Ontology's MeSH and ICD-10-CM cross-references")
THAI_HERB_NAMES = Shipped("herbs/thai_herb_names.tsv", "Thai medicinal plant names")
THAI_FORMULATIONS = Shipped("herbs/thai_formulations.tsv", "Thai formulations")
# What BC5CDR's training split (public domain) teaches the linker and the adverse-effect model:
# {"linker": graph.linking.LinkerPriors, "adverse": graph.adverse_priors.AdversePriors}.
BC5CDR_PRIORS = Shipped("trained/bc5cdr_priors.json.xz", "what BC5CDR's training split teaches the linker")


def member(folder: Path, name: str) -> Path | None:
    """`folder/name`, or its compressed copy (`name.xz`, `name.gz`); None when none is a file."""
    for candidate in (folder / name, *(folder / f"{name}{suffix}" for suffix in _COMPRESSED)):
        if candidate.is_file():
            return candidate
    return None


def table(folder: Path, name: str) -> Path:
    """`member(folder, name)`, or FileNotFoundError naming the plain file when there is none."""
    found = member(folder, name)
    if found is None:
        raise FileNotFoundError(folder / name)
    return found


def data_file(explicit: Path | None, shipped: Shipped) -> Path | None:
    """The explicit setting's file when it is one (a setting naming nothing is not replaced: the
    user asked for that file), else the shipped copy; None when neither exists."""
    if explicit is not None:
        return explicit if explicit.is_file() else None
    return shipped.path if shipped.path.is_file() else None


def data_folder(explicit: Path | None, shipped: Shipped, required: str) -> Path | None:
    """The explicit folder when it holds `required` (plain or compressed), else the shipped folder
    when it does; None otherwise."""
    folder = explicit if explicit is not None else shipped.path
    return folder if member(folder, required) is not None else None


def open_text(path: Path, encoding: str = "utf-8", errors: str = "strict", newline: str | None = None) -> IO[str]:
    """`path` opened for reading text, decompressed on the fly when it ends in .xz or .gz."""
    if path.suffix == ".xz":
        return lzma.open(path, "rt", encoding=encoding, errors=errors, newline=newline)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding=encoding, errors=errors, newline=newline)
    return path.open(encoding=encoding, errors=errors, newline=newline)


def open_binary(path: Path) -> IO[bytes]:
    """`path` opened for reading bytes, decompressed on the fly when it ends in .xz or .gz."""
    if path.suffix == ".xz":
        return lzma.open(path, "rb")
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    return path.open("rb")


def is_json(path: Path) -> bool:
    """A JSON file (plain or compressed): a shipped training product, not the annotated corpus it came from."""
    return path.name.removesuffix(".xz").removesuffix(".gz").endswith(".json")


def read_json(path: Path) -> object:
    with open_text(path) as handle:
        return json.load(handle)
