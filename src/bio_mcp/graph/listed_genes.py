"""A record's GeneSymbolList symbols resolved to the NCBI Gene PubTator3 names in the same record.

MEDLINE's GeneSymbolList gives symbols with neither species nor id, so a sync files each as
`gene:<symbol>` (HAS_TOPIC, source GeneSymbolList), while PubTator3 names genes by NCBI Gene id:
BRAF would be two entities. When PubTator3's annotations of the same record name exactly one gene
whose symbol, or the text of one of its mentions, is the listed symbol (case aside: the lists wrote
`fos` for FOS), the listed symbol is that gene. The document's HAS_TOPIC edge then points at
`ncbigene:<id>`, its props saying where it came from (`source` GeneSymbolList, the `symbol` as
listed, `resolved_by` pubtator3), and a `gene:<symbol>` entity no edge or evidence points to any
more is deleted. A symbol that matches no gene, or several, stays `gene:<symbol>`: which gene it
is cannot be told from the record.

A rebuild writes `gene:<symbol>` again from the kept facts and sets the document pending with
PubTator3; the sync that fetches its annotations again resolves it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from bio_mcp.graph.elements import HAS_TOPIC, Edge
from bio_mcp.graph.ids import document_node_id, gene_entity_id, pubmed_source_uri
from bio_mcp.graph.store import SqlGraphStore

RESOLVER = "pubtator3"


def gene_names(entities: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    """(NCBI Gene entity id, a name or mention text PubTator3 gave it) pairs -> case-folded name ->
    the gene entities going by it."""
    found: dict[str, set[str]] = {}
    for entity_id, name in entities:
        if entity_id.startswith("ncbigene:") and name.strip():
            found.setdefault(name.strip().casefold(), set()).add(entity_id)
    return found


def resolved_symbols(symbols: Sequence[str], names: Mapping[str, set[str]]) -> dict[str, str]:
    """Each listed symbol that names exactly one of the record's genes -> that gene's entity id."""
    resolved: dict[str, str] = {}
    for symbol in symbols:
        genes = names.get(symbol.strip().casefold(), set())
        if len(genes) == 1:
            resolved[symbol] = next(iter(genes))
    return resolved


def resolve_listed_genes(
    store: SqlGraphStore, documents: Mapping[str, tuple[int, Mapping[str, set[str]]]]
) -> int:
    """For each PMID's document (version, its genes by name as `gene_names` gives them), the
    HAS_TOPIC edges of its GeneSymbolList (of that version) moved to the genes they name; returns
    how many moved. Only genes stored as nodes are pointed at."""
    facts = store.facts(documents)
    moved: list[tuple[Edge, Edge]] = []
    for pmid, (version, names) in sorted(documents.items()):
        kept = facts.get(pmid)
        if kept is None or kept[0] != version or not kept[1].genes:
            continue
        doc_id = document_node_id(pubmed_source_uri(pmid))
        for symbol, gene in resolved_symbols(kept[1].genes, names).items():
            listed = store.edge(doc_id, HAS_TOPIC, gene_entity_id(symbol))
            if listed is None:
                continue
            props = {**listed.props, "symbol": symbol, "resolved_by": RESOLVER}
            moved.append((listed, listed._replace(dst=gene, props=props)))
    targets = store.existing(new.dst for _, new in moved)
    moved = [(old, new) for old, new in moved if new.dst in targets]
    if not moved:
        return 0
    store.delete_edges([(old.src, old.type, old.dst) for old, _ in moved])
    store.insert([], [new for _, new in moved])
    store.delete_unreferenced_entities({old.dst for old, _ in moved})
    return len(moved)
