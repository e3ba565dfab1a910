"""`graph.entities`: a name, synonym or id to the graph's entities, best match first.

MeSH descriptors are found by the vocabulary's ranked search (exact id, name, synonym, prefix, all
words, then close spellings: "tylenol" is a synonym of Acetaminophen, mesh:D000082). Trial, gene,
herb and formulation ids (`nct:NCT...`, `gene:...`, `herb:...`, `formulation:...`) are looked up in
the graph itself, and so are the names imported into `kg_names` (Thai, English and scientific names
of herbs and formulations: ขมิ้นชัน is mesh:D030024), exact names ranked before the vocabulary's
matches. A query in Thai letters is also read as `kb.search` reads Thai (`language.py`): the herbs and
the drug or chemical names spelt in Thai it holds (วาร์ฟาริน, mesh:D014859 Warfarin; `match` `thai`). A MeSH supplementary concept the linker reads as the descriptor MeSH 2024 files it under
(BC5CDR's sorafenib, mesh:C471405, is mesh:D000077157) is found by its old id too, as that
descriptor (`match` `promoted`): the graph holds the descriptor only. `mentions` counts the corpus
documents whose sections mention the entity, from the graph's MENTIONS edges.
"""

from __future__ import annotations

from bio_mcp.features.kb.language import english_query
from bio_mcp.features.kb.models import EntitiesRequest, EntitiesResponse, EntityItem, EntityMention
from bio_mcp.features.kb.search import QueryLinker
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.elements import Node
from bio_mcp.graph.ids import resolve_alias, trial_entity_id
from bio_mcp.graph.linking import CurrentIdLinker
from bio_mcp.graph.names import entities_named, names_of
from bio_mcp.graph.store import MentionSample, SqlGraphStore
from bio_mcp.graph.vocabulary import Concept
from bio_mcp.store import MetadataStore
from bio_mcp.thai_script import contains_thai

# The vocabulary's matches of the whole query as it stands (not a prefix, some words or a close spelling).
EXACT_MATCHES = ("id", "name", "synonym")
# Ids the vocabulary does not hold: entities that exist only as graph nodes.
GRAPH_ONLY_PREFIXES = (
    "nct:", "gene:", "herb:", "formulation:", "ncbigene:", "dbsnp:", "hgvs:", "ncbitaxon:", "cellosaurus:"
)
# Entity types the vocabulary does not name, found by the name the graph holds (a gene symbol,
# a variant's HGVS name, a cell line as written): PubTator3's, and the records' GeneSymbolList.
GRAPH_NAMED_TYPES = ("Gene", "Variant", "CellLine")
# MENTIONS edges shown per entity, best first.
MENTIONED_IN = 3


def _graph_only_ids(query: str) -> list[str]:
    value = resolve_alias(query)
    if value.upper().startswith("NCT"):
        return [trial_entity_id(value)]
    if value.startswith(GRAPH_ONLY_PREFIXES):
        return [value]
    return []


def _promoted_id(linker: QueryLinker | None, query: str) -> str | None:
    """The descriptor the query's supplementary-concept id was promoted to, when the linker promotes it."""
    if not isinstance(linker, CurrentIdLinker):
        return None
    return linker.current_ids.get(resolve_alias(query))


def _mention(sample: MentionSample) -> EntityMention:
    linker = sample.props.get("linker")
    return EntityMention(
        document_id=sample.document_id, source_uri=sample.source_uri, section_id=sample.section_id,
        section=sample.section_title, spans=[(int(s[0]), int(s[1]), str(s[2])) for s in sample.props.get("spans", [])],
        linker=linker, linkers=list(sample.props.get("linkers") or ([linker] if linker else [])),
    )


def _item(
    entity_id: str, node: Node | None, concept: Concept | None, catalog_name: str | None, names: list[str],
    mentions: int, match: str, score: float, mentioned_in: list[MentionSample],
) -> EntityItem:
    """An entity as the vocabulary describes it (a MeSH descriptor), else as the graph does (unless
    the graph knows it only by its id: a graph written before the catalog named it), else by the
    catalog's name for it; its imported names come first among its synonyms."""
    graph_name = node.title if node and node.title and node.title != entity_id.split(":", 1)[-1] else None
    name = concept.name if concept else (graph_name or catalog_name or entity_id)
    synonyms = [n for n in names if n != name] + [s for s in (concept.synonyms if concept else ()) if s not in names]
    return EntityItem(
        id=entity_id, name=name, type=concept.type if concept else (node.type if node and node.type else "Concept"),
        synonyms=synonyms, tree_numbers=list(concept.tree_numbers) if concept else [], mentions=mentions,
        match=match, score=score, mentioned_in=[_mention(sample) for sample in mentioned_in],
    )


def _linked_whole(linker: QueryLinker | None, query: str) -> list[tuple[str, float]]:
    """Entities the corpus's linker reads the whole query as, with its confidence: names it has
    beyond MeSH's entry terms (BC5CDR's training pairs: "hepatotoxicity" is D056486, a term
    MeSH lacks), as `kb.search` links them."""
    text = query.strip()
    if linker is None or not text:
        return []
    return [(m.entity_id, m.confidence) for m in linker.link(text) if m.start == 0 and m.end == len(text)]


def find_entities(
    request: EntitiesRequest, store: MetadataStore, catalog: MeshCatalog, linker: QueryLinker | None = None
) -> EntitiesResponse:
    vocabulary = catalog.vocabulary
    matches = vocabulary.search(request.query, limit=request.limit) if vocabulary is not None else []
    exact = [match for match in matches if match.how in EXACT_MATCHES]
    promoted = _promoted_id(linker, request.query)
    # Names in Thai letters: herbs by their imported names, drugs and chemicals by their Thai
    # spelling (วาร์ฟาริน is Warfarin), however the query's words run together (ยาวาร์ฟาริน).
    thai = english_query(request.query, "th", store, catalog).entity_ids if contains_thai(request.query) else ()
    with store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        found: dict[str, tuple[str, float]] = {node_id: ("id", 1.0) for node_id in graph.nodes(_graph_only_ids(request.query))}
        if promoted is not None:
            found.setdefault(promoted, ("promoted", 1.0))
        for entity_id in entities_named(tx.connection, request.query):
            found.setdefault(entity_id, ("name", 1.0))
        titles = list(dict.fromkeys((request.query.strip(), request.query.strip().upper())))
        for entity_id in graph.entities_titled(titles, GRAPH_NAMED_TYPES):
            found.setdefault(entity_id, ("name", 1.0))
        for entity_id in thai:
            found.setdefault(entity_id, ("thai", 1.0))
        for match in exact:
            found.setdefault(match.concept.id, (match.how, max(0.0, min(1.0, match.score))))
        # Before the vocabulary's partial and close-spelling matches, which a linked name beats.
        for entity_id, confidence in _linked_whole(linker, request.query):
            found.setdefault(entity_id, ("linked", max(0.0, min(1.0, confidence))))
        for match in matches:
            found.setdefault(match.concept.id, (match.how, max(0.0, min(1.0, match.score))))
        wanted = list(found)[: request.limit]
        nodes = graph.nodes(wanted)
        names = names_of(tx.connection, wanted)
        mentions = graph.mention_counts(wanted)
        samples = graph.mention_samples([entity_id for entity_id in wanted if mentions.get(entity_id)], MENTIONED_IN)
    return EntitiesResponse(entities=[
        _item(
            entity_id, nodes.get(entity_id), vocabulary.get(entity_id) if vocabulary is not None else None,
            catalog.name_of(entity_id), [n.name for n in names.get(entity_id, [])], mentions.get(entity_id, 0),
            *found[entity_id], samples.get(entity_id, []),
        )
        for entity_id in wanted
    ])


def _where(mention: EntityMention) -> str:
    spans = ", ".join(f"'{text}' at {start}-{end}" for start, end, text in mention.spans[:3])
    return (f"{mention.source_uri or mention.document_id}, section {mention.section or mention.section_id[:12]}: "
            f"{spans} ({', '.join(mention.linkers) or 'linker unknown'})")


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
            + "".join(f"\n  mentioned in {_where(mention)}" for mention in entity.mentioned_in)
            + ("\n  the id asked for is a MeSH supplementary concept that MeSH 2024 files under this descriptor, "
               "the id the graph uses" if entity.match == "promoted" else "")
        )
    return "\n".join(lines)
