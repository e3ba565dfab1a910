"""The MeSH vocabulary as the graph's entity catalog: names, types, the tree above, pharmacological actions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bio_mcp.graph.vocabulary import Vocabulary


class MeshCatalog:
    def __init__(self, vocabulary: Vocabulary | None, pharm_actions: Mapping[str, Sequence[str]]) -> None:
        self.vocabulary = vocabulary
        self._pharm_actions = pharm_actions

    def describe(self, entity_id: str) -> tuple[str, str] | None:
        concept = self.vocabulary.get(entity_id) if self.vocabulary is not None else None
        return None if concept is None else (concept.name, concept.type)

    def broader(self, entity_id: str) -> Sequence[str]:
        return self.vocabulary.parents(entity_id) if self.vocabulary is not None else ()

    def pharm_actions(self, entity_id: str) -> Sequence[str]:
        return self._pharm_actions.get(entity_id, ())


def descriptor_ui_of_name(catalog: MeshCatalog, name: str) -> str | None:
    """The UI of the descriptor called exactly `name` (for documents stored before their UIs were kept)."""
    if catalog.vocabulary is None:
        return None
    hits = catalog.vocabulary.search(name, limit=1)
    if hits and hits[0].how == "name":
        return hits[0].concept.id.split(":", 1)[1]
    return None


EMPTY_CATALOG = MeshCatalog(None, {})
