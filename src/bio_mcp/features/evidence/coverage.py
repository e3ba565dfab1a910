"""What a herb-safety answer searched, so that silence is never read as an all-clear.

`coverage_of` says how many documents the graph's relations were read from, which names of the
asked entities (imported names, MeSH headings and entry terms, and their constituents) the
relations were looked for under, and which kinds of source were searched. `SILENCE` is the
sentence every herb tool begins with when it found nothing; `SILENCE_FOR` names the asked entities
without findings when others have some.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from pydantic import Field
from sqlalchemy.engine import Connection

from bio_mcp.features.evidence.relations import entities, relation_edges
from bio_mcp.graph.duke_farmacy import carries_to_herb
from bio_mcp.graph.elements import HAS_CONSTITUENT
from bio_mcp.graph.kg_import import IMPORT_EXTRACTOR
from bio_mcp.graph.vocabulary import Vocabulary
from bio_mcp.models import ToolOutput
from bio_mcp.store.schema import kg_nodes, kg_relation_evidence

SILENCE = ("No interaction or contraindication evidence was found in the {documents} documents searched; "
           "this is not evidence of safety.")
# The names listed in a text before it says how many more there are.
NAMES_IN_TEXT = 12


class Coverage(ToolOutput):
    documents_searched: int = Field(description="Documents of the corpus whose sentences the relations were read from")
    names_searched: list[str] = Field(
        default_factory=list,
        description="The names, synonyms and constituents the relations were looked for under",
    )
    sources: list[str] = Field(default_factory=list, description="What was searched: document kinds and imported facts")


SILENCE_FOR = ("No interaction or contraindication evidence was found for {names} in the {documents} documents "
               "searched; this is not evidence of safety.")


def silence(coverage: Coverage) -> str:
    return SILENCE.format(documents=coverage.documents_searched)


def silence_for(labels: Sequence[str], coverage: Coverage) -> str:
    """The silence about some of the asked entities, when others have findings."""
    return SILENCE_FOR.format(names=", ".join(dict.fromkeys(labels)), documents=coverage.documents_searched)


def searched_text(coverage: Coverage) -> str:
    """'Searched: <names> (and N more names); sources: ...' for a tool's text."""
    names = coverage.names_searched[:NAMES_IN_TEXT]
    more = len(coverage.names_searched) - len(names)
    listed = ", ".join(names) + (f" and {more} more names" if more > 0 else "")
    return f"Searched for: {listed or 'nothing'}; in: {', '.join(coverage.sources) or 'no source'}."


def coverage_of(connection: Connection, entity_ids: Sequence[str], vocabulary: Vocabulary | None) -> Coverage:
    """The coverage of a search for `entity_ids` (herbs, formulations' herbs, or any entity) and
    their constituents: those whose findings the search reads as the herb's. A widespread chemical
    only Dr. Duke's table names (water, glucose, DNA) is not looked under, so it is not listed as searched."""
    constituents = [edge.dst for edge in relation_edges(connection, entity_ids, (HAS_CONSTITUENT,))
                    if carries_to_herb(edge.props)]
    info = entities(connection, [*entity_ids, *constituents])

    def names_of(ids: Sequence[str]) -> dict[str, str]:
        names: dict[str, str] = {}
        for entity_id in ids:
            found = info.get(entity_id)
            concept = vocabulary.get(entity_id) if vocabulary is not None and entity_id.startswith("mesh:") else None
            terms = [found.title] if found else []
            terms += [name.name for name in found.names] if found else []
            terms += [concept.name, *concept.synonyms] if concept else []
            for term in terms:
                names.setdefault(term.casefold(), term)
        return names

    # The asked herbs' own names first, as a reader looks for them (garlic has over a thousand
    # constituent names, which sorted first would hide them), then their constituents'.
    own = names_of(entity_ids)
    of_constituents = {key: name for key, name in names_of(constituents).items() if key not in own}
    documents = dict(connection.execute(
        sa.select(kg_nodes.c.source_type, sa.func.count()).where(kg_nodes.c.label == "Document")
        .group_by(kg_nodes.c.source_type)
    ).all())
    # Whether any fact was imported, not how many: `extractor` has no index, and the first import row ends the scan.
    imported = connection.execute(
        sa.select(kg_relation_evidence.c.id).where(kg_relation_evidence.c.extractor == IMPORT_EXTRACTOR).limit(1)
    ).first()
    sources = [f"{kind or 'document'}: {count} document(s)" for kind, count in sorted(documents.items(), key=str)]
    if imported is not None:
        sources.append("imported facts (bio-mcp kg import)")
    return Coverage(
        documents_searched=int(sum(documents.values())),
        names_searched=[*own.values(), *sorted(of_constituents.values(), key=str.casefold)],
        sources=sources,
    )
