"""Entity linking by the names of `kg_names` (Thai, English and scientific names of herbs and
formulations): one Aho-Corasick automaton over every stored name, matched in one pass of the text.

Thai is written without spaces between words, so a Thai name matches wherever its characters
occur; a name in Latin script matches only as whole words, case-insensitively. Where matches
overlap, the longest wins (the scientific "Curcuma longa" over "Curcuma"), then the earliest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import ahocorasick

from bio_mcp.graph.mentions import EntityType, Mention
from bio_mcp.graph.names import EntityName
from bio_mcp.thai_script import contains_thai

LINKER_NAME = "kg_names"
# Exact dictionary matches of curated names; a Latin-script one can still be a homonym.
THAI_CONFIDENCE = 0.95
LATIN_CONFIDENCE = 0.9


def _word_char(char: str) -> bool:
    return char.isalnum() or char in "-_"


class NameLinker:
    """Links text to the entities whose names it contains; `type_of` gives each entity's type."""

    def __init__(self, names: Iterable[EntityName], type_of: Callable[[str], EntityType]) -> None:
        keyed: dict[str, set[str]] = {}
        for name in names:
            key = " ".join(name.name.split()).casefold()
            if len(key) >= 2:
                keyed.setdefault(key, set()).add(name.entity_id)
        self._automaton: ahocorasick.Automaton | None = None
        self._types = {entity: type_of(entity) for entities in keyed.values() for entity in entities}
        if keyed:
            automaton = ahocorasick.Automaton()
            for key, entities in keyed.items():
                automaton.add_word(key, (key, tuple(sorted(entities))))
            automaton.make_automaton()
            self._automaton = automaton

    def __len__(self) -> int:
        return 0 if self._automaton is None else len(self._automaton)

    def link(self, text: str) -> list[Mention]:
        if self._automaton is None or not text:
            return []
        # casefold can change a string's length (ß -> ss); lower() keeps offsets for the scripts named here.
        folded = text.lower() if len(text.lower()) == len(text) else text
        found: list[tuple[int, int, tuple[str, ...], bool]] = []
        for end_index, (key, entities) in self._automaton.iter(folded):
            start, end = end_index - len(key) + 1, end_index + 1
            thai = contains_thai(key)
            if not thai:
                before = folded[start - 1] if start > 0 else " "
                after = folded[end] if end < len(folded) else " "
                if _word_char(before) or _word_char(after):
                    continue
            found.append((start, end, entities, thai))
        found.sort(key=lambda item: (-(item[1] - item[0]), item[0]))
        taken: list[tuple[int, int]] = []
        mentions: list[Mention] = []
        for start, end, entities, thai in found:
            if any(start < other_end and other_start < end for other_start, other_end in taken):
                continue
            taken.append((start, end))
            for entity in entities:
                mentions.append(
                    Mention(
                        start=start, end=end, text=text[start:end], entity_id=entity, entity_type=self._types[entity],
                        linker=LINKER_NAME, confidence=THAI_CONFIDENCE if thai else LATIN_CONFIDENCE,
                    )
                )
        return sorted(mentions, key=lambda m: (m.start, m.end, m.entity_id))
