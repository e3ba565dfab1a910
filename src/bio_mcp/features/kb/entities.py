"""`graph.entities`: a name, synonym or id to the graph's entities, best match first.

MeSH descriptors are found by the vocabulary's ranked search (exact id, name, synonym, prefix, all
words, then close spellings: "tylenol" is a synonym of Acetaminophen, mesh:D000082). Trial and gene
ids (`nct:NCT...`, `gene:...`) are looked up in the graph itself. `mentions` counts the corpus
documents whose sections mention the entity, from the graph's MENTIONS edges.
"""

from __future__ import annotations

from bio_mcp.features.kb.models import EntitiesRequest, EntitiesResponse, EntityItem
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.ids import resolve_alias, trial_entity_id
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.store import MetadataStore


def _graph_only_ids(query: str) -> list[str]:
    value = resolve_alias(query)
    if value.upper().startswith("NCT"):
        return [trial_entity_id(value)]
    if value.startswith(("nct:", "gene:")):
        return [value]
    return []


def find_entities(request: EntitiesRequest, store: MetadataStore, catalog: MeshCatalog) -> EntitiesResponse:
    matches = catalog.vocabulary.search(request.query, limit=request.limit) if catalog.vocabulary is not None else []
    with store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        direct = graph.nodes(_graph_only_ids(request.query))
        wanted = [node.id for node in direct.values()] + [match.concept.id for match in matches]
        mentions = graph.mention_counts(wanted)
    items = [
        EntityItem(
            id=node.id, name=node.title or node.id, type=node.type or "Concept", synonyms=[], tree_numbers=[],
            mentions=mentions.get(node.id, 0), match="id", score=1.0,
        )
        for node in direct.values()
    ]
    items += [
        EntityItem(
            id=match.concept.id, name=match.concept.name, type=match.concept.type,
            synonyms=list(match.concept.synonyms), tree_numbers=list(match.concept.tree_numbers),
            mentions=mentions.get(match.concept.id, 0), match=match.how, score=max(0.0, min(1.0, match.score)),
        )
        for match in matches
    ]
    return EntitiesResponse(entities=items[: request.limit])


def summarize(response: EntitiesResponse) -> str:
    if not response.entities:
        return "No entity matches."
    lines = []
    for entity in response.entities:
        synonyms = ", ".join(entity.synonyms[:8]) + (" …" if len(entity.synonyms) > 8 else "")
        lines.append(
            f"- `{entity.id}` **{entity.name}** ({entity.type}; {entity.match} match {entity.score:.2f}; "
            f"mentioned in {entity.mentions} documents; tree {', '.join(entity.tree_numbers[:4]) or '-'})"
            + (f"\n  synonyms: {synonyms}" if synonyms else "")
        )
    return "\n".join(lines)
