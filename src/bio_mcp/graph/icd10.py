"""ICD-10-CM codes of MeSH diseases, through the Human Disease Ontology's cross-references.

DO's `allXREFinDO.tsv` (CC0) has one row per (DOID, label, xref). A disease joins MeSH to ICD-10-CM
through its DOID: `MESH:D006973` and `ICD10CM:I10` are both xrefs of DOID:10763 (hypertension).
Several DOIDs may carry the same MeSH xref (MeSH Pancreatitis is DO's "pancreatitis", K85.9, and
"acute pancreatitis", K85): the DOID whose label is the MeSH name comes first, then the others by
code, so the first code is the closest one and the order is stable.

    index = load_icd10_index(path)
    index.codes("mesh:D006973", "Hypertension")   # [Icd10Code(code='I10', label='hypertension', doid='DOID:10763')]
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bio_mcp.config import Settings
from bio_mcp.data_files import DO_XREFS, data_file, open_text
from bio_mcp.graph.vocabulary import search_key


@dataclass(frozen=True, slots=True)
class Icd10Code:
    code: str
    # DO's label of the disease the code belongs to.
    label: str
    doid: str


class Icd10Index:
    def __init__(self, by_mesh: dict[str, list[tuple[str, str, str]]]) -> None:
        # MeSH UI -> (doid, label, ICD-10-CM code) triples.
        self._by_mesh = by_mesh

    def __len__(self) -> int:
        return len(self._by_mesh)

    def codes(self, entity_id: str, name: str | None = None) -> list[Icd10Code]:
        """The ICD-10-CM codes of a MeSH disease (`mesh:D...`), closest DO disease first; [] if none."""
        ui = entity_id.removeprefix("mesh:")
        key = search_key(name) if name else None
        rows = sorted(self._by_mesh.get(ui, ()), key=lambda row: (search_key(row[1]) != key, row[2], row[0]))
        return [Icd10Code(code=code, label=label, doid=doid) for doid, label, code in rows]


def read_do_xrefs(path: Path) -> Icd10Index:
    mesh_of: dict[str, set[str]] = {}
    codes_of: dict[str, set[str]] = {}
    labels: dict[str, str] = {}
    with open_text(path, newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            doid, label, xref = row.get("id") or "", row.get("label") or "", row.get("xref") or ""
            prefix, _, value = xref.partition(":")
            labels[doid] = label
            if prefix == "MESH" and value:
                mesh_of.setdefault(doid, set()).add(value)
            elif prefix == "ICD10CM" and value:
                codes_of.setdefault(doid, set()).add(value)
    by_mesh: dict[str, list[tuple[str, str, str]]] = {}
    for doid, uis in mesh_of.items():
        for ui in uis:
            for code in sorted(codes_of.get(doid, ())):
                by_mesh.setdefault(ui, []).append((doid, labels[doid], code))
    return Icd10Index(by_mesh)


def do_xrefs_path_of(settings: Settings) -> Path | None:
    """BIO_MCP_DO_XREFS_PATH, else the cross-references shipped in the package; None if the one chosen is no file."""
    return data_file(settings.do_xrefs_path, DO_XREFS)


@lru_cache(maxsize=2)
def load_icd10_index(path: Path | None) -> Icd10Index:
    """The index of a DO xrefs file, read once per process; empty without a file."""
    return read_do_xrefs(path) if path is not None else Icd10Index({})
