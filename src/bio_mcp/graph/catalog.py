"""The MeSH vocabulary as the graph's entity catalog: names, types, the tree above, pharmacological actions."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from bio_mcp.graph.vocabulary import Vocabulary


class MeshCatalog:
    """`names`: entities the descriptors do not describe but the linker names (MeSH supplementary
    concepts such as venlafaxine, mesh:C047426, named by BC5CDR's training pairs)."""

    def __init__(self, vocabulary: Vocabulary | None, pharm_actions: Mapping[str, Sequence[str]],
                 names: Mapping[str, str] | None = None) -> None:
        self.vocabulary = vocabulary
        self._pharm_actions = pharm_actions
        self._names = names or {}

    def with_names(self, names: Mapping[str, str]) -> MeshCatalog:
        """This catalog, also naming `names`' entities (the process-wide catalog is left as it is)."""
        return MeshCatalog(self.vocabulary, self._pharm_actions, {**self._names, **names}) if names else self

    def describe(self, entity_id: str) -> tuple[str, str] | None:
        concept = self.vocabulary.get(entity_id) if self.vocabulary is not None else None
        return None if concept is None else (concept.name, concept.type)

    def name_of(self, entity_id: str) -> str | None:
        """The name of an entity `describe` does not know, where one is known."""
        return self._names.get(entity_id)

    def broader(self, entity_id: str) -> Sequence[str]:
        return self.vocabulary.parents(entity_id) if self.vocabulary is not None else ()

    def pharm_actions(self, entity_id: str) -> Sequence[str]:
        return self._pharm_actions.get(entity_id, ())

    def substance_names(self) -> Iterator[tuple[str, str]]:
        """(name, entity id) of every name of a chemical or drug: MeSH's D tree (Chemicals and Drugs)
        and anything with a pharmacological action."""
        if self.vocabulary is not None:
            for concept in self.vocabulary.concepts.values():
                if concept.type == "Chemical" or concept.id in self._pharm_actions:
                    yield concept.name, concept.id
                    for synonym in concept.synonyms:
                        yield synonym, concept.id
        for entity_id, name in self._names.items():
            if entity_id in self._pharm_actions:
                yield name, entity_id


def descriptor_ui_of_name(catalog: MeshCatalog, name: str) -> str | None:
    """The UI of the descriptor called exactly `name` (for documents stored before their UIs were kept)."""
    if catalog.vocabulary is None:
        return None
    hits = catalog.vocabulary.search(name, limit=1)
    if hits and hits[0].how == "name":
        return hits[0].concept.id.split(":", 1)[1]
    return None


EMPTY_CATALOG = MeshCatalog(None, {})
