"""`tool.find_contraindications`: the harms, contraindications and interactions of herbs and formulations.

For each herb: its CAUSES edges (adverse effects, and imported contraindications) and INTERACTS_WITH
edges (drug interactions), and those of its constituents (`via`). A formulation is checked as itself
and as each of its herbs (HAS_INGREDIENT): its results carry the formulation's id and the herb's in
`herb_id`. Every result has the best evidence sentence (from the best-designed document), its source,
document and span, and the strength of all the evidence behind the edge (`strength.py`). An
extracted sentence is stated only if its stored chunk still reads it at its span (`quotes.py`;
`quote_checked`).

Ids may be entity ids (`mesh:D005737`, `D005737`, `herb:...`; `formulation:triphala` or `triphala`)
or an exact imported name (Thai, English or scientific) that names one herb, or a MeSH plant's
heading or entry term ("garlic"); a MeSH plant the graph has no node for yet is known too (with
nothing recorded). An id that names none of these is a
VALIDATION error naming the field and the ids: a misspelt herb must never read as "no
contraindications". A known herb without findings is listed in `checked` with 0, and so is each
herb of a formulation (its `formulation` says which).

Silence is never an all-clear: `coverage` (additive) says how many documents were searched, under
which names (the herbs' names, synonyms and constituents) and in which sources, and a text without
findings begins with "No interaction or contraindication evidence was found in the N documents
searched; this is not evidence of safety."
"""

from __future__ import annotations

from pydantic import Field
from sqlalchemy.engine import Connection

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.evidence.coverage import Coverage, coverage_of, searched_text, silence, silence_for
from bio_mcp.features.evidence.herbs import find_formulation, find_herb
from bio_mcp.features.evidence.models import AuditedOutput
from bio_mcp.features.evidence.quotes import quote_checks
from bio_mcp.features.evidence.relations import (
    EntityInfo,
    RelationEdge,
    best_row,
    entities,
    evidence_of,
    known_entities,
    relation_edges,
    strength_of,
    supporting_documents,
)
from bio_mcp.features.evidence.strength import STRENGTH_ORDER, STUDY_KINDS, study_kind
from bio_mcp.graph.duke_farmacy import carries_to_herb
from bio_mcp.graph.elements import CAUSES, HAS_CONSTITUENT, HAS_INGREDIENT, INTERACTS_WITH
from bio_mcp.graph.vocabulary import Vocabulary
from bio_mcp.models import ToolInput, ToolOutput

MAX_IDS = 50


class FindContraindicationsRequest(ToolInput):
    herb_ids: list[str] = Field(
        default_factory=list, max_length=MAX_IDS,
        description="Herbs: entity ids (mesh:D005737, herb:<slug>) or an exact Thai/English/scientific name",
    )
    formulation_ids: list[str] = Field(
        default_factory=list, max_length=MAX_IDS,
        description="Formulations (formulation:triphala or triphala); each is checked with all its herbs",
    )


class Span(ToolOutput):
    start: int
    end: int


class ContraindicationResult(ToolOutput):
    entity_id: str
    type: str = Field(description="herb or formulation")
    contraindication: str
    evidence: str = Field(description="The evidence sentence")
    strength: str = Field(description="low, moderate or high (from study design and independent documents)")
    relation: str = Field(description="adverse_effect, contraindication or interaction")
    target_id: str
    herb_id: str | None = Field(default=None, description="For a formulation: the herb the finding is about")
    via: str | None = Field(default=None, description="The constituent the finding is about, if not the herb itself")
    source: str
    document_id: str | None = None
    pmid: str | None = None
    span: Span | None = None
    documents: int = Field(description="Independent documents behind the finding")
    sources: list[str] = Field(default_factory=list)
    study: str | None = Field(default=None, description="What kind of study the quoted document is: trial or "
                              "meta-analysis, clinical study, case report or opinion, animal study, ... (strength.py)")
    quote_checked: bool | None = Field(
        default=None, description="The evidence sentence was re-read in the stored text at its span (None: an imported fact)"
    )


class CheckedEntity(ToolOutput):
    entity_id: str
    type: str
    label: str
    findings: int
    formulation: str | None = Field(default=None, description="For a herb checked as part of a formulation: its id")
    recipe_names: list[str] = Field(
        default_factory=list,
        description="For a herb of a formulation: the recipe's herbs this entity stands for (two species of one "
                    "MeSH genus are one entity, checked once for both)",
    )


class FindContraindicationsResponse(AuditedOutput):
    results: list[ContraindicationResult]
    checked: list[CheckedEntity] = Field(default_factory=list)
    coverage: Coverage | None = Field(default=None, description="What was searched: documents, names and sources")


def _resolve(connection: Connection, value: str, formulation: bool, vocabulary: Vocabulary | None) -> str | None:
    if formulation:
        return find_formulation(connection, value, vocabulary)
    herb = find_herb(connection, value, vocabulary)
    return herb[0] if herb is not None else None


def _finding_text(edge: RelationEdge, target: str, via: str | None) -> tuple[str, str]:
    if edge.type == INTERACTS_WITH:
        relation, text = "interaction", f"Interaction with {target}"
    elif "contraindication" in edge.props.get("relations", []):
        relation, text = "contraindication", f"Contraindicated: {target}"
    else:
        relation, text = "adverse_effect", f"Adverse effect: {target}"
    return relation, f"{text} (via {via})" if via else text


def find_contraindications(
    connection: Connection, request: FindContraindicationsRequest, vocabulary: Vocabulary | None
) -> FindContraindicationsResponse:
    if not request.herb_ids and not request.formulation_ids:
        raise BioMcpError(ErrorCode.VALIDATION, "give at least one of herb_ids or formulation_ids",
                          {"field": "herb_ids"})
    targets: list[tuple[str, str]] = []
    for field_name, values, formulation in (("herb_ids", request.herb_ids, False),
                                            ("formulation_ids", request.formulation_ids, True)):
        resolved = {value: _resolve(connection, value, formulation, vocabulary) for value in values}
        unknown = [value for value, found in resolved.items() if found is None]
        if unknown:
            kind = "formulation" if formulation else "herb"
            raise BioMcpError(ErrorCode.VALIDATION, f"{field_name}: not a {kind} of the knowledge graph: {', '.join(unknown)}",
                              {"field": field_name, "unknown": unknown})
        targets += [(found, "formulation" if formulation else "herb") for found in resolved.values() if found]
    targets = list(dict.fromkeys(targets))
    results: list[ContraindicationResult] = []
    checked: list[CheckedEntity] = []
    searched: list[str] = []
    for entity_id, kind in targets:
        herbs = [entity_id]
        recipe: dict[str, list[str]] = {}
        if kind == "formulation":
            for edge in relation_edges(connection, [entity_id], (HAS_INGREDIENT,)):
                recipe.setdefault(edge.dst, []).extend(edge.props.get("names") or ())
            herbs += sorted(recipe)
        labels = known_entities(connection, herbs, vocabulary)
        found = _findings(connection, entity_id, kind, herbs)
        results += found
        searched += herbs
        checked.append(CheckedEntity(entity_id=entity_id, type=kind, label=labels[entity_id].label, findings=len(found)))
        # A formulation is checked through each of its herbs: each is listed with its own findings.
        checked += [CheckedEntity(entity_id=herb, type="herb", label=labels[herb].label if herb in labels else herb,
                                  findings=sum(r.herb_id == herb for r in found), formulation=entity_id,
                                  recipe_names=sorted(set(recipe[herb])))
                    for herb in herbs[1:]]
    order = {entity_id: position for position, (entity_id, _) in enumerate(targets)}
    results.sort(key=lambda r: (order[r.entity_id], -STRENGTH_ORDER[r.strength], STUDY_KINDS.index(r.study or "unknown design"),
                                r.relation, r.contraindication, r.target_id))
    coverage = coverage_of(connection, list(dict.fromkeys(searched)), vocabulary)
    return FindContraindicationsResponse(results=results, checked=checked, coverage=coverage)


def _findings(connection: Connection, entity_id: str, kind: str, herbs: list[str]) -> list[ContraindicationResult]:
    # A widespread chemical only Duke's table names (water, iron) says nothing of a herb's safety.
    constituents = [edge for edge in relation_edges(connection, herbs, (HAS_CONSTITUENT,)) if carries_to_herb(edge.props)]
    owner = {edge.dst: edge.src for edge in constituents}
    edges = relation_edges(connection, herbs + sorted(owner), (CAUSES, INTERACTS_WITH))
    evidence = evidence_of(connection, [edge.key for edge in edges])
    # A sentence that no longer reads so in its stored text is not stated.
    checks = quote_checks(connection, [row for rows in evidence.values() for row in rows])
    evidence = {key: [row for row in rows if checks[row.id] is not False] for key, rows in evidence.items()}
    documents = supporting_documents(connection, [row for rows in evidence.values() for row in rows])
    info: dict[str, EntityInfo] = entities(connection, [e.dst for e in edges] + [e.src for e in edges])
    found: list[ContraindicationResult] = []
    for edge in edges:
        rows = evidence.get(edge.key)
        if not rows:
            continue
        via = edge.src if edge.src in owner and edge.src not in herbs else None
        herb_id = owner.get(edge.src, edge.src) if via else edge.src
        target = info[edge.dst].label if edge.dst in info else edge.dst
        relation, text = _finding_text(edge, target, info[via].label if via and via in info else via)
        best = best_row(rows, documents)
        strength = strength_of(rows, documents)
        found.append(ContraindicationResult(
            entity_id=entity_id, type=kind, contraindication=text, evidence=best.sentence, strength=strength.level,
            relation=relation, target_id=edge.dst, herb_id=herb_id if kind == "formulation" else None, via=via,
            source=best.source, document_id=best.document_id, pmid=best.pmid,
            span=Span(start=best.start, end=best.end) if best.start is not None and best.end is not None else None,
            documents=strength.documents, sources=sorted({row.source for row in rows}), quote_checked=checks[best.id],
            study=study_kind(documents[f"pmid:{best.pmid}" if best.pmid else best.source]),
        ))
    return found


def summarize(response: FindContraindicationsResponse) -> str:
    lines = []
    if not response.results and response.coverage is not None:
        # Many clients read only the text: the silence is said first, with what was searched.
        lines += [silence(response.coverage), searched_text(response.coverage), ""]
    elif response.coverage is not None and (silent := [entity.label for entity in response.checked if not entity.findings]):
        # Findings about one herb must not make another's "0 findings" read as cleared.
        lines += [silence_for(silent, response.coverage), ""]
    lines.append("### Contraindications and interactions")
    for entity in response.checked:
        part = f", in `{entity.formulation}`" if entity.formulation else ""
        covers = f" (the recipe's {', '.join(entity.recipe_names)})" if entity.recipe_names else ""
        lines.append(f"- {entity.label}{covers} (`{entity.entity_id}`, {entity.type}{part}): {entity.findings} finding(s)")
    for result in response.results:
        about = f" — herb `{result.herb_id}`" if result.herb_id else ""
        study = f"; {result.study}" if result.study else ""
        heading = (f"**{result.contraindication}** [{result.strength}; {result.documents} document(s){study}] "
                   f"`{result.entity_id}`{about}")
        lines += ["", heading, f"> {result.evidence}", f"Source: {', '.join(result.sources)}"]
    if response.results and response.coverage is not None:
        lines += ["", searched_text(response.coverage)]
    return "\n".join(lines)
