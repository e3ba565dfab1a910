"""Indication names to MeSH preferred names, from the descriptors' entry terms (loaded once per path).

Keys are normalised (lower case, apostrophes and punctuation folded to spaces, "'s" dropped), so
"Alzheimer's disease", "alzheimers disease" and "Alzheimer Disease" meet. A trailing "disease" or
"syndrome" is also indexed without it ("Alzheimer's" alone is how people ask), unless that shorter
key is itself an entry term of another descriptor. MeSH carries few clinical abbreviations, so a
short curated list adds the common ones trial questions use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.graph.vocabulary import load_vocabulary

ABBREVIATIONS = {
    "nsclc": "non small cell lung cancer",
    "sclc": "small cell lung carcinoma",
    "t2d": "diabetes mellitus type 2",
    "t2dm": "diabetes mellitus type 2",
    "nash": "non alcoholic fatty liver disease",
    "hcc": "hepatocellular carcinoma",
    "aml": "acute myeloid leukemia",
    "cll": "chronic lymphocytic leukemia",
}
_DROPPABLE_SUFFIXES = (" disease", " syndrome", " disorder")
MAX_TERM_TOKENS = 8
# Enough for every spelling of a common indication, short enough for an Essie query.
MAX_SYNONYMS = 12


def normalise(text: str) -> str:
    folded = re.sub(r"['’]s\b", "", text.lower())
    return " ".join(re.findall(r"[a-z0-9]+", folded))


@dataclass(frozen=True)
class MeshIndex:
    preferred: dict[str, str]
    # Preferred name to its entry terms, in MeSH's order.
    entry_terms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Preferred names of the drugs and chemicals (MeSH tree D): what a trial tests, never its indication.
    chemicals: frozenset[str] = frozenset()

    def lookup(self, text: str) -> str | None:
        key = normalise(text)
        key = ABBREVIATIONS.get(key, key)
        return self.preferred.get(key)

    def synonyms(self, name: str, limit: int = MAX_SYNONYMS) -> list[str]:
        """Entry terms of `name` other than itself, one per normalised form (plurals and word orders
        MeSH lists separately collapse), at most `limit`."""
        seen = {normalise(name)}
        found: list[str] = []
        for term in self.entry_terms.get(name, ()):
            key = normalise(term)
            singular = " ".join(word[:-1] if word.endswith("s") and len(word) > 3 else word for word in key.split())
            if key in seen or singular in seen:
                continue
            seen.update((key, singular))
            found.append(term)
        return found[:limit]


def build_index(descriptors: list[tuple[str, Sequence[str]]], spellings: Mapping[str, str] | None = None,
                chemicals: frozenset[str] = frozenset()) -> MeshIndex:
    """`spellings`: strings already held elsewhere, each keyed by itself; a key equal to one is that
    string, not a copy of it. `chemicals`: the preferred names that are drugs or chemicals."""
    exact: dict[str, str] = {}
    for name, terms in descriptors:
        for term in [name, *terms]:
            key = normalise(term)
            exact.setdefault(spellings.get(key, key) if spellings else key, name)
    shortened: dict[str, str] = {}
    for key, name in exact.items():
        for suffix in _DROPPABLE_SUFFIXES:
            if key.endswith(suffix) and key[: -len(suffix)] and key[: -len(suffix)] not in exact:
                shortened.setdefault(key[: -len(suffix)], name)
    return MeshIndex({**shortened, **exact}, {name: tuple(terms) for name, terms in descriptors}, chemicals)


@lru_cache(maxsize=2)
def load_mesh_index(path: Path, cache_dir: Path | None = None) -> MeshIndex:
    """The index of a `mesh_descriptors_*.jsonl` file, over the process's MeSH vocabulary of it
    (`load_vocabulary`, pickled under `cache_dir`): its names and entry terms are the strings the
    graph's catalog holds, not a second copy of them (36 MB of the warm server)."""
    try:
        vocabulary = load_vocabulary(path, cache_dir)
    except (OSError, ValueError, KeyError) as exc:
        raise BioMcpError(
            ErrorCode.INVARIANT_FAILURE, f"cannot read MeSH descriptors at {path}", {"error": str(exc)[:300]}
        ) from None
    # A concept's synonyms are its entry terms once each, its name left out: `synonyms` skips both.
    # Most keys are spelt as the vocabulary's own search keys: 200,000 strings (14 MB) shared.
    return build_index([(concept.name, concept.synonyms) for concept in vocabulary.concepts.values()],
                       {key: key for key in vocabulary.keys},
                       frozenset(concept.name for concept in vocabulary.concepts.values() if concept.type == "Chemical"))
