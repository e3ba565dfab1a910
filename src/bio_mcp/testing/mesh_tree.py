"""The MeSH hierarchy of the shared data, so a [mh] search explodes to narrower descriptors as in PubMed."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bio_mcp.mesh_files import read_mesh_descriptors
from bio_mcp.testing.pubmed_records import normalize

MESH_DESCRIPTORS = Path("mesh") / "mesh_descriptors_2024.jsonl"


# Compared by identity so explosions can be cached per loaded tree.
@dataclass(frozen=True, eq=False)
class MeshTree:
    uis_by_term: dict[str, list[str]]
    tree_numbers_by_ui: dict[str, tuple[str, ...]]
    sorted_tree_numbers: tuple[str, ...]
    ui_by_tree_number: dict[str, str]

    def descriptors_named(self, term: str) -> frozenset[str]:
        """Descriptor UIs whose name or entry term is `term` (normalised)."""
        return frozenset(self.uis_by_term.get(normalize(term), ()))

    def exploded(self, ui: str) -> frozenset[str]:
        """The descriptor and every descriptor below it in any of its trees."""
        return _exploded(self, ui)


@lru_cache(maxsize=4096)
def _exploded(tree: MeshTree, ui: str) -> frozenset[str]:
    found = {ui}
    numbers = tree.sorted_tree_numbers
    for tree_number in tree.tree_numbers_by_ui.get(ui, ()):
        prefix = tree_number + "."
        index = bisect.bisect_left(numbers, prefix)
        while index < len(numbers) and numbers[index].startswith(prefix):
            found.add(tree.ui_by_tree_number[numbers[index]])
            index += 1
    return frozenset(found)


@lru_cache(maxsize=4)
def load_mesh_tree(data_dir: Path) -> MeshTree | None:
    """The 2024 MeSH descriptors of `data_dir`, or None without that file (searches then match names only)."""
    path = data_dir / MESH_DESCRIPTORS
    if not path.is_file():
        return None
    uis_by_term: dict[str, list[str]] = {}
    tree_numbers_by_ui: dict[str, tuple[str, ...]] = {}
    ui_by_tree_number: dict[str, str] = {}
    for descriptor in read_mesh_descriptors(path):
        ui = descriptor.ui
        for term in {normalize(term) for term in [descriptor.name, *descriptor.terms]}:
            uis_by_term.setdefault(term, []).append(ui)
        tree_numbers_by_ui[ui] = tuple(descriptor.tree_numbers)
        for tree_number in tree_numbers_by_ui[ui]:
            ui_by_tree_number[tree_number] = ui
    return MeshTree(
        uis_by_term=uis_by_term,
        tree_numbers_by_ui=tree_numbers_by_ui,
        sorted_tree_numbers=tuple(sorted(ui_by_tree_number)),
        ui_by_tree_number=ui_by_tree_number,
    )
