"""MeSH 2024 descriptors as a vocabulary of typed concepts, searchable by id, name or synonym.

    vocabulary = load_vocabulary(mesh_path, cache_dir=settings.caches)
    vocabulary.search("tylenol")[0].concept.id        # 'mesh:D000082' (Acetaminophen)
    vocabulary.parents("mesh:D000082")                # the descriptors one level up the tree

The descriptor file (JSON lines: ui, name, terms, tree_numbers) carries no scope notes. Parsing it
takes about a second, so the compiled vocabulary is pickled under `cache_dir`, keyed by the file's
SHA-256, and later loads read the pickle.
"""

from __future__ import annotations

import bisect
import csv
import difflib
import hashlib
import re
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from bio_mcp.data_files import open_text
from bio_mcp.graph.ids import mesh_entity_id
from bio_mcp.graph.mentions import EntityType
from bio_mcp.mesh_files import read_mesh_descriptors
from bio_mcp.pickle_cache import load_cached

# Bump when the pickled form changes shape, so stale caches are ignored rather than misread.
_CACHE_FORMAT = 3
_MESH_ID = re.compile(r"^(?:mesh:)?([DC][0-9]{6,9})$", re.IGNORECASE)
_NON_WORD = re.compile(r"[\W_]+")


class Concept(NamedTuple):
    # A NamedTuple rather than a dataclass: 30,000 of them unpickle several times faster.
    id: str
    name: str
    type: EntityType
    synonyms: tuple[str, ...]
    tree_numbers: tuple[str, ...]
    parents: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConceptMatch:
    """A search hit: `how` is `id`, `name`, `synonym`, `prefix`, `words` or `fuzzy`; `score` in [0, 1]."""

    concept: Concept
    matched: str
    how: str
    score: float


def entity_type_of(tree_numbers: Iterable[str]) -> EntityType:
    """C (diseases) and F03 (mental disorders) -> Disease, D -> Chemical, B -> Organism, A -> Anatomy."""
    trees = tuple(tree_numbers)
    if any(tree.startswith(("C", "F03")) for tree in trees):
        return "Disease"
    if any(tree.startswith("D") for tree in trees):
        return "Chemical"
    if any(tree.startswith("B") for tree in trees):
        return "Organism"
    if any(tree.startswith("A") for tree in trees):
        return "Anatomy"
    return "Concept"


def search_key(text: str) -> str:
    """Case, punctuation and spacing folded away: 'Alzheimer's Disease' -> 'alzheimer s disease'."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


class _KeyIds:
    """Sorted key -> the concept ids filed under it, as two arrays of numbers (key `i`'s ids are
    `ids[starts[i]:starts[i + 1]]`, numbers into the id list): the dict of tuples this replaced
    held 38 MB of a warm server for MeSH's 240,000 names and entry terms; these arrays hold 2 MB."""

    def __init__(self, keys: list[str], filed: dict[str, list[int]]) -> None:
        self.starts = array("I", [0])
        self.ids = array("I")
        for key in keys:
            self.ids.extend(filed.get(key, ()))
            self.starts.append(len(self.ids))

    def at(self, position: int) -> array[int]:
        return self.ids[self.starts[position]:self.starts[position + 1]]


class Vocabulary:
    def __init__(self, concepts: dict[str, Concept]) -> None:
        self.concepts = concepts
        self._concept_ids = list(concepts)
        by_name: dict[str, list[int]] = {}
        by_synonym: dict[str, list[int]] = {}
        for number, concept in enumerate(concepts.values()):
            by_name.setdefault(search_key(concept.name), []).append(number)
            for synonym in concept.synonyms:
                by_synonym.setdefault(search_key(synonym), []).append(number)
        self._keys = sorted(by_name.keys() | by_synonym.keys())
        self._by_name = _KeyIds(self._keys, by_name)
        self._by_synonym = _KeyIds(self._keys, by_synonym)

    def _position(self, key: str) -> int | None:
        position = bisect.bisect_left(self._keys, key)
        return position if position < len(self._keys) and self._keys[position] == key else None

    def _named(self, key: str) -> tuple[str, ...]:
        """The descriptors whose name folds to `key`."""
        position = self._position(key)
        return () if position is None else tuple(self._concept_ids[n] for n in self._by_name.at(position))

    def _with_synonym(self, key: str) -> tuple[str, ...]:
        """The descriptors with an entry term that folds to `key`."""
        position = self._position(key)
        return () if position is None else tuple(self._concept_ids[n] for n in self._by_synonym.at(position))

    @property
    def keys(self) -> list[str]:
        """Every name and entry term as `search_key` folds it, sorted."""
        return self._keys

    def __len__(self) -> int:
        return len(self.concepts)

    def get(self, concept_id: str) -> Concept | None:
        match = _MESH_ID.match(concept_id.strip())
        return self.concepts.get(mesh_entity_id(match.group(1).upper())) if match else None

    def parents(self, concept_id: str) -> tuple[str, ...]:
        concept = self.get(concept_id)
        return concept.parents if concept else ()

    def exactly(self, text: str) -> list[str]:
        """The descriptors named `text`, else those with it as an entry term (case, punctuation and
        spacing folded)."""
        key = search_key(text)
        return list(self._named(key) or self._with_synonym(key))

    def search(self, query: str, limit: int = 10) -> list[ConceptMatch]:
        """Best first: exact id, exact name, exact synonym, name or synonym prefix, all words, then typos."""
        hits: dict[str, ConceptMatch] = {}

        def add(ids: Iterable[str], matched: str, how: str, score: float) -> None:
            for concept_id in sorted(ids, key=self._rank):
                if concept_id not in hits and len(hits) < limit:
                    hits[concept_id] = ConceptMatch(self.concepts[concept_id], matched, how, score)

        by_id = self.get(query)
        if by_id is not None:
            add([by_id.id], by_id.id, "id", 1.0)
        key = search_key(query)
        if not key or limit <= 0:
            return list(hits.values())[:max(limit, 0)]
        add(self._named(key), key, "name", 1.0)
        add(self._with_synonym(key), key, "synonym", 0.95)
        # Looser stages only while nothing closer was found: a prefix of some longer term says less
        # than an exact synonym, and the word and typo stages scan every term.
        if len(hits) < limit:
            for term in self._prefixed(key, limit * 4):
                add(self._ids_of(term), term, "prefix", round(0.5 + 0.4 * len(key) / len(term), 4))
        if not hits:
            for term in self._all_words(key, limit * 4):
                add(self._ids_of(term), term, "words", round(0.3 + 0.4 * len(key) / len(term), 4))
        if not hits:
            for term in self._close(key, limit):
                ratio = difflib.SequenceMatcher(None, key, term).ratio()
                add(self._ids_of(term), term, "fuzzy", round(0.6 * ratio, 4))
        return list(hits.values())

    def _ids_of(self, term: str) -> list[str]:
        return [*self._named(term), *self._with_synonym(term)]

    def _rank(self, concept_id: str) -> tuple[int, str]:
        # Among concepts sharing a term, diseases and chemicals first (what agents mostly look up).
        order = {"Disease": 0, "Chemical": 1, "Organism": 2, "Anatomy": 3}
        return order.get(self.concepts[concept_id].type, 4), concept_id

    def _prefixed(self, key: str, limit: int) -> list[str]:
        start = bisect.bisect_left(self._keys, key)
        found: list[str] = []
        for term in self._keys[start:]:
            if not term.startswith(key) or len(found) >= limit * 50:
                break
            found.append(term)
        # A descriptor's own name before the entry terms of others ("hypertens" -> Hypertension first).
        return sorted(found, key=lambda term: (not self._named(term), len(term), term))[:limit]

    def _all_words(self, key: str, limit: int) -> list[str]:
        words = key.split()
        if len(words) < 2:
            return []
        # Candidates share the query's rarest-looking (longest) word; then every word must be there.
        anchor = max(words, key=len)
        found = [
            term for term in self._keys
            if anchor in term and all(word in term.split() for word in words)
        ]
        return sorted(found, key=lambda term: (len(term), term))[:limit]

    def _close(self, key: str, limit: int) -> list[str]:
        if len(key) < 4:
            return []
        pool = [term for term in self._keys if term[:1] == key[:1] and abs(len(term) - len(key)) <= 3]
        return difflib.get_close_matches(key, pool, n=limit, cutoff=0.8)


def read_descriptors(path: Path) -> dict[str, Concept]:
    """The concepts of a descriptor file (read by `mesh_files.read_mesh_descriptors`), by entity id."""
    rows = list(read_mesh_descriptors(path))
    descriptor_of_tree = {tree: row.ui for row in rows for tree in row.tree_numbers}
    concepts: dict[str, Concept] = {}
    for row in rows:
        parent_uis = dict.fromkeys(
            descriptor_of_tree[tree.rsplit(".", 1)[0]]
            for tree in row.tree_numbers
            if "." in tree and tree.rsplit(".", 1)[0] in descriptor_of_tree
        )
        concept_id = mesh_entity_id(row.ui)
        concepts[concept_id] = Concept(
            id=concept_id,
            name=row.name,
            type=entity_type_of(row.tree_numbers),
            synonyms=tuple(term for term in dict.fromkeys(row.terms) if term != row.name),
            tree_numbers=tuple(row.tree_numbers),
            parents=tuple(mesh_entity_id(ui) for ui in parent_uis if ui != row.ui),
        )
    return concepts


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_vocabulary(path: Path, cache_dir: Path | None = None) -> Vocabulary:
    """The vocabulary of the descriptor file at `path`, from a pickle in `cache_dir` when one matches.

    One per process for a file as it stands: the catalog, `lookupMeshTerms` and a linker's build
    share it (each read its own copy, about 45 MB of the warm server apiece).
    """
    stat = path.stat()
    return _shared_vocabulary(path, cache_dir, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4)
def _shared_vocabulary(path: Path, cache_dir: Path | None, _mtime_ns: int, _size: int) -> Vocabulary:
    if cache_dir is None:
        return Vocabulary(read_descriptors(path))
    cache = cache_dir / f"mesh-vocabulary-{_CACHE_FORMAT}-{file_digest(path)[:16]}.pickle"
    return load_cached(cache, Vocabulary, lambda: Vocabulary(read_descriptors(path)))


def load_pharm_actions(path: Path) -> dict[str, tuple[str, ...]]:
    """`data_pharm_action.tsv`: substance id -> the ids of its pharmacological actions (HAS_PHARM_ACTION)."""
    actions: dict[str, list[str]] = {}
    with open_text(path, newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            actions.setdefault(mesh_entity_id(row["DescriptorUI"]), []).append(mesh_entity_id(row["PharmActionUI"]))
    return {substance: tuple(dict.fromkeys(ids)) for substance, ids in actions.items()}


def load_supplementary_names(path: Path) -> dict[str, str]:
    """`data_pharm_action.tsv`: supplementary concept id (C...) -> its name, for each such concept
    with a pharmacological action: drugs the descriptors do not hold (rizatriptan, asenapine)."""
    with open_text(path, newline="") as handle:
        return {mesh_entity_id(row["DescriptorUI"]): row["DescriptorName"]
                for row in csv.DictReader(handle, delimiter="\t") if row["DescriptorUI"].startswith("C")}


def ancestors_of(broader: Callable[[str], Iterable[str]]) -> Callable[[str], frozenset[str]]:
    """entity id -> every entity above it in the MeSH tree (`broader` gives a node's parents),
    remembered per id."""

    @lru_cache(maxsize=1 << 16)
    def ancestors(entity_id: str) -> frozenset[str]:
        seen: set[str] = set()
        pending = list(broader(entity_id))
        while pending:
            parent = pending.pop()
            if parent not in seen:
                seen.add(parent)
                pending.extend(broader(parent))
        return frozenset(seen)

    return ancestors
