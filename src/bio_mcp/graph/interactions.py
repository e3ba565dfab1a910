"""Interactions stated in a text or indexed by NLM: INTERACTS_WITH (plant or chemical -> drug), each
with the sentence that states it (no model download, no LLM).

    find_interactions(text, linker.link(text), broader=catalog.broader,
                      pharm_actions=catalog.pharm_actions)                         # -> [StatedRelation, ...]
    InteractionExtractor(catalog.broader, catalog.pharm_actions).relations(text, mentions)  # as a sync's extractor
    indexed_interactions(facts, sections, mentions, catalog)     # NLM's indexing, when a graph is written

From a sentence (`find_interactions`):
- "interaction(s) between|of A and B", "A interacts with B", "A-B interaction" (and lists:
  "interactions of A with B and C"), A and B two chemicals or a plant and a chemical;
- a sentence saying "herb-drug" or "drug-drug interaction" (any sentence, in a record indexed
  with an interaction heading) that names one plant, with each drug it names;
- a sentence naming a plant and a drug with an interaction cue: interacts, potentiates, INR,
  AUC, Cmax or peak concentration, CYP or cytochrome P450 or P-gp with induction or inhibition,
  bleeding or haemorrhage when the drug is an anticoagulant, antiplatelet or fibrinolytic agent
  (its MeSH pharmacological actions) ("Among thirty-eight herbs, ..., Garlic, Ginkgo, ... were
  evaluated to have major severity interaction with warfarin": each plant with warfarin).
None of them in a sentence that negates ("no interaction", "did not alter the AUC": the cue rule
reads any negation in the sentence). The plant is the source; two chemicals go in the order of
their ids (the relation is symmetric). Plants are `herb:` ids and MeSH organisms under
Viridiplantae (B01.875) or Plants (B01.650), through `broader` (MeSH 2024 files the
taxa under Viridiplantae, and only groupings such as Vegetables or Plants, Medicinal under Plants:
before this module no MeSH plant species or genus was read as a plant); a drug is a chemical that is not
a plant, an enzyme, a protein (CYP3A4, P-glycoprotein), a plant preparation, or a class MeSH files under
its actions and uses (D27: Antioxidants, Carcinogens) or biological factors (D23: Phytochemicals).

The cue rule was checked by hand on every hit in PPR (train and dev, 500 abstracts), BC5CDR's
training file (1,000, its development abstracts among them), PubMedQA's 500 labelled questions and
the 466 shared PubMed records (`bench/interaction_hits.py --show`): its first form (any of
"antagonist", "bioavailability", "clearance", "bleeding" with any chemical, any class of
chemicals as the drug) gave 11 plant-drug hits of which 1 was right (Nerium oleander extract with
cisplatin: a synergy); the form above gives one, the cranberry-warfarin case report of BC5CDR,
and no wrong one (the Nerium synergy is lost) (`tests/graph/test_interactions.py`).

From NLM's indexing (`indexed_interactions`): a PubMed record indexed with Herb-Drug
Interactions, Food-Drug Interactions or Drug Interactions and with a plant heading (or Plant
Extracts or Plant Preparations beside a plant its text names) and a drug heading (a MeSH heading
or a ChemicalList substance) gives plant INTERACTS_WITH drug, quoted by a sentence of the record
that names both (a pair no sentence names together is not stated: every relation has its quote).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Protocol

from bio_mcp.graph.elements import INTERACTS_WITH, StatedRelation
from bio_mcp.graph.facts import DocumentFacts
from bio_mcp.graph.ids import mesh_entity_id
from bio_mcp.graph.mentions import EntityMentions, Mention
from bio_mcp.graph.sentences import sentence_spans
from bio_mcp.graph.vocabulary import ancestors_of

INTERACTION_EXTRACTOR = "interaction-cues"
INDEXED_EXTRACTOR = "mesh-indexed-interaction"
# Every hit of the interaction rules in the shared corpora (SciFact, PubMedQA, the PubMed records,
# BC5CDR train, PPR train) checked by hand: 9 of 13 right before the negation, "with a third" and
# list rules, 10 of 10 after (judged on the hits the rules were adjusted on, so optimistic); the
# smoothed first rate, (9 + 1) / (13 + 2).
INTERACTION_CONFIDENCE = 0.67
# Not measured: no shared record is indexed with an interaction heading and a plant. NLM's
# indexers read the whole article, and the sentence must name both ends, so it is put above the
# cue rules' rate; a measurement should replace it.
INDEXED_CONFIDENCE = 0.8

HERB_DRUG_INTERACTIONS_UI = "D041743"
INTERACTION_HEADINGS = frozenset({HERB_DRUG_INTERACTIONS_UI, "D018565", "D004347"})  # Food-Drug, Drug Interactions
# Viridiplantae (B01.875, where MeSH 2024 files the plants) and Plants (B01.650).
PLANTS = frozenset({"mesh:D057948", "mesh:D010944"})
# Plant Preparations (and under it Plant Extracts, Plant Oils): the plant's side of a record.
PLANT_PREPARATIONS = frozenset({"mesh:D028321", "mesh:D010936"})
# Enzymes and proteins (CYP3A4, P-glycoprotein) are where an interaction happens, not the drug;
# Pharmacologic Actions, Specialty Uses of Chemicals, Toxic Actions (D27) and Biological Factors
# (D23) are classes (Antioxidants, Carcinogens, Phytochemicals), not a drug one takes.
NOT_DRUGS = frozenset({"mesh:D004798", "mesh:D011506", *PLANT_PREPARATIONS,
                       "mesh:D020228", "mesh:D020313", "mesh:D004786", "mesh:D001685"})
# Anticoagulants, Platelet Aggregation Inhibitors, Fibrinolytic Agents: bleeding with them is an interaction.
ANTICOAGULANT_ACTIONS = frozenset({"mesh:D000925", "mesh:D010975", "mesh:D005343"})

# "interaction(s) between|of" just before the first name; "and|with|/|-" between the two names;
# "interacts with" between them; "interaction(s)" just after the second.
_INTERACTION_BEFORE = re.compile(r"\binteractions? (between|of|among)\s+(the\s+)?(\w+\s+)?$", re.IGNORECASE)
_PAIR_JOIN = re.compile(r"\s*(and|with|,|/|-|\u2013)\s*(the\s+)?", re.IGNORECASE)
_INTERACTS_WITH = re.compile(r"\s+(\w+\s+){0,2}interact(s|ed)? with\s+(the\s+)?", re.IGNORECASE)
_INTERACTION_AFTER = re.compile(r"^\s*-?\s*(drug\s+)?interactions?\b", re.IGNORECASE)
_NEGATED_INTERACTION = re.compile(r"\b(no|not|without|lack of|absence of)\b[^.;]{0,40}\binteract", re.IGNORECASE)
_LIST_JOIN = re.compile(r"\s*(,\s*and|,\s*or|and|or|,)\s*", re.IGNORECASE)
_WITH_THIRD = re.compile(r"^\s*with\b", re.IGNORECASE)
_DRUG_INTERACTION = re.compile(r"\b(herb|drug|herbal)[- ](drug )?interactions?\b", re.IGNORECASE)
# A plant and a drug in one sentence with one of these: what pharmacology says of an interaction.
_HERB_DRUG_CUE = re.compile(
    r"\binteract|\bpotentiat|\bINR\b|international normali[sz]ed ratio|\bAUC\b|area under the|\bC ?\(?max\b|"
    r"peak (plasma |serum )?concentration",
    re.IGNORECASE,
)
_ENZYME_CUE = re.compile(r"\bCYP|cytochrome P|\bP-?gp\b|P-glycoprotein", re.IGNORECASE)
_INDUCE_INHIBIT = re.compile(r"\binduc|\binhibit", re.IGNORECASE)
_BLEEDING_CUE = re.compile(r"\bbleed|haemorrhag|hemorrhag", re.IGNORECASE)
# A sentence with none of the words every rule needs (most) is passed over before its names are
# sorted out; only a record's interaction heading lets any sentence speak.
_ANY_CUE = re.compile("|".join(p.pattern for p in (_HERB_DRUG_CUE, _ENZYME_CUE, _BLEEDING_CUE)) + r"|interaction",
                      re.IGNORECASE)
_NEGATION = re.compile(r"\b(no|not|without|neither|nor|lack of|absence of|failed to|unaffected|unchanged)\b|n't\b",
                       re.IGNORECASE)
# Longer "sentences" are lists (meeting abstracts, tables) where co-occurrence says nothing.
_MAX_INTERACTION_SENTENCE = 400

Broader = Callable[[str], Iterable[str]]
PharmActions = Callable[[str], Iterable[str]]
Ancestors = Callable[[str], frozenset[str]]


def is_plant(entity_id: str, ancestors: Ancestors | None) -> bool:
    """A `herb:` id, or a MeSH descriptor filed under the plants (needs the tree), whatever type the
    linker gave its mention (a linker trained on BC5CDR reads "Cannabis" as the drug)."""
    if entity_id.startswith("herb:"):
        return True
    return ancestors is not None and bool(PLANTS & ancestors(entity_id))


def is_drug(entity_id: str, entity_type: str, ancestors: Ancestors | None) -> bool:
    """A chemical that is not a plant, an enzyme, a protein, a plant preparation or a class of
    chemicals (when the tree is known)."""
    if entity_type != "Chemical" or entity_id in NOT_DRUGS:
        return False
    return ancestors is None or not (NOT_DRUGS | PLANTS) & ancestors(entity_id)


class InteractionExtractor:
    """`find_interactions` in the shape a sync's relation extractors take: `relations(text, mentions)`
    per section."""

    def __init__(self, broader: Broader | None = None, pharm_actions: PharmActions | None = None) -> None:
        self._ancestors = ancestors_of(broader) if broader is not None else None
        self._pharm_actions = pharm_actions

    def relations(self, text: str, mentions: Sequence[Mention]) -> list[StatedRelation]:
        return _find(text, mentions, (), self._ancestors, self._pharm_actions, None)


def find_interactions(text: str, mentions: Sequence[Mention], indexed: Collection[str] = (),
                      broader: Broader | None = None, pharm_actions: PharmActions | None = None,
                      sentences: Sequence[tuple[int, int]] | None = None) -> list[StatedRelation]:
    """INTERACTS_WITH pairs, each in the sentence that states it (see the module's rules).

    `indexed`: the record's MeSH heading UIs (an interaction heading lets every sentence speak of a
    herb-drug interaction); `broader`: entity id -> its MeSH parents (to tell plants and drugs);
    `pharm_actions`: entity id -> its MeSH pharmacological actions (to tell anticoagulants);
    `sentences`: `sentence_spans(text)` when the caller has it already."""
    ancestors = ancestors_of(broader) if broader is not None else None
    return _find(text, mentions, indexed, ancestors, pharm_actions, sentences)


def _find(text: str, mentions: Sequence[Mention], indexed: Collection[str], ancestors: Ancestors | None,
          pharm_actions: PharmActions | None, sentences: Sequence[tuple[int, int]] | None) -> list[StatedRelation]:
    if not any(m.entity_type == "Chemical" for m in mentions):
        return []
    herb_drug = bool(INTERACTION_HEADINGS.intersection(indexed))
    found: dict[tuple[str, str], StatedRelation] = {}
    for start, end in sentence_spans(text) if sentences is None else sentences:
        if end - start > _MAX_INTERACTION_SENTENCE or not (herb_drug or _ANY_CUE.search(text, start, end)):
            continue
        inside = [m for m in mentions if start <= m.start and m.end <= end]
        # A pair needs two names, one of them a chemical.
        if len(inside) < 2 or not any(m.entity_type == "Chemical" for m in inside):
            continue
        plants = _distinct(m for m in inside if is_plant(m.entity_id, ancestors))
        plant_ids = {m.entity_id for m in plants}
        chemicals = _distinct(m for m in inside if m.entity_type == "Chemical" and m.entity_id not in plant_ids)
        drugs = [m for m in chemicals if is_drug(m.entity_id, m.entity_type, ancestors)]
        for source, drug in _interacting_pairs(text, (start, end), plants, chemicals, drugs, herb_drug, pharm_actions):
            if source.entity_id != drug.entity_id:
                found.setdefault((source.entity_id, drug.entity_id), StatedRelation(
                    source.entity_id, INTERACTS_WITH, drug.entity_id, start, end, INTERACTION_EXTRACTOR,
                    INTERACTION_CONFIDENCE))
    return sorted(found.values(), key=lambda r: (r.start, r.src, r.dst))


def _interacting_pairs(text: str, sentence: tuple[int, int], plants: Sequence[Mention], chemicals: Sequence[Mention],
                       drugs: Sequence[Mention], herb_drug: bool,
                       pharm_actions: PharmActions | None) -> Iterable[tuple[Mention, Mention]]:
    """(plant or chemical, drug) pairs a sentence says interact (the module's rules)."""
    start, end = sentence
    if _NEGATED_INTERACTION.search(text, start, end):
        return
    named = sorted([*plants, *chemicals], key=lambda m: m.start)
    plant_ids = {m.entity_id for m in plants}
    for index, (first, second) in enumerate(pairwise(named)):
        if _nested(first, second) or (first.entity_id in plant_ids and second.entity_id in plant_ids):
            continue
        gap = text[first.end : second.start]
        before = text[max(start, first.start - 40) : first.start]
        after = text[second.end : min(end, second.end + 30)]
        stated = (_INTERACTION_BEFORE.search(before) and _PAIR_JOIN.fullmatch(gap) and not _WITH_THIRD.match(after)) \
            or _INTERACTS_WITH.fullmatch(gap) or (_PAIR_JOIN.fullmatch(gap) and _INTERACTION_AFTER.match(after))
        if not stated:
            continue
        yield _oriented(first, second, plant_ids)
        # "interactions of A with B and C", "between A, B, and C": the list goes on with A.
        previous = second
        for following in named[index + 2:]:
            if not _LIST_JOIN.fullmatch(text[previous.end : following.start]) or _nested(previous, following):
                break
            yield _oriented(first, following, plant_ids)
            previous = following
    if (herb_drug or _DRUG_INTERACTION.search(text, start, end)) and len(plants) == 1:
        yield from ((plants[0], chemical) for chemical in chemicals if not _nested(plants[0], chemical))
    if not plants or not drugs or _NEGATION.search(text, start, end):
        return
    cued = bool(_HERB_DRUG_CUE.search(text, start, end)) or bool(
        _ENZYME_CUE.search(text, start, end) and _INDUCE_INHIBIT.search(text, start, end))
    bleeding = pharm_actions is not None and bool(_BLEEDING_CUE.search(text, start, end))
    for drug in drugs:
        if cued or (bleeding and ANTICOAGULANT_ACTIONS.intersection(pharm_actions(drug.entity_id))):  # type: ignore[misc]
            yield from ((plant, drug) for plant in plants if not _nested(plant, drug))


def _oriented(first: Mention, second: Mention, plant_ids: set[str]) -> tuple[Mention, Mention]:
    if second.entity_id in plant_ids:
        return second, first
    if first.entity_id in plant_ids:
        return first, second
    return (first, second) if first.entity_id < second.entity_id else (second, first)


def _distinct(mentions: Iterable[Mention]) -> list[Mention]:
    """The first mention of each entity, in text order."""
    first: dict[str, Mention] = {}
    for mention in mentions:
        first.setdefault(mention.entity_id, mention)
    return sorted(first.values(), key=lambda m: m.start)


def _nested(first: Mention, second: Mention) -> bool:
    return first.start < second.end and second.start < first.end


class IndexCatalog(Protocol):
    """What `indexed_interactions` needs of the vocabulary (`graph.build.EntityCatalog` has both)."""

    def describe(self, entity_id: str) -> tuple[str, str] | None: ...

    def broader(self, entity_id: str) -> Sequence[str]: ...


def indexed_interactions(
    facts: DocumentFacts, sections: Sequence[tuple[str, str]], mentions: Mapping[str, Sequence[EntityMentions]],
    catalog: IndexCatalog,
) -> dict[str, list[StatedRelation]]:
    """chunk_id -> the INTERACTS_WITH relations NLM's indexing of the record gives, each in the first
    sentence of `sections` ((chunk_id, text) in order) that names both ends (`mentions`: each chunk's
    grouped mentions, with their spans)."""
    if not INTERACTION_HEADINGS.intersection(ui for ui, _ in facts.topics):
        return {}
    ancestors = ancestors_of(catalog.broader)
    headings = sorted({mesh_entity_id(ui) for ui, _ in facts.topics} | {mesh_entity_id(ui) for ui, _ in facts.chemicals})
    types = {entity_id: described[1] for entity_id in headings if (described := catalog.describe(entity_id))}
    plants = [entity_id for entity_id in headings if is_plant(entity_id, ancestors)]
    extract = any(entity_id in PLANT_PREPARATIONS for entity_id in headings)
    drugs = [entity_id for entity_id in headings
             if is_drug(entity_id, types.get(entity_id, ""), ancestors) and entity_id not in plants]
    if not drugs or not (plants or extract):
        return {}
    found: dict[str, list[StatedRelation]] = {}
    stated: set[tuple[str, str]] = set()
    for chunk_id, text in sections:
        spans = _Spans(mentions.get(chunk_id, ()))
        named_plants = plants or [entity_id for entity_id in spans.types if is_plant(entity_id, ancestors)]
        for start, end in sentence_spans(text):
            if _NEGATED_INTERACTION.search(text, start, end):
                continue
            inside = spans.within(start, end)
            for plant in named_plants:
                for drug in drugs:
                    if plant in inside and drug in inside and (plant, drug) not in stated:
                        stated.add((plant, drug))
                        found.setdefault(chunk_id, []).append(StatedRelation(
                            plant, INTERACTS_WITH, drug, start, end, INDEXED_EXTRACTOR, INDEXED_CONFIDENCE))
    return found


class _Spans:
    """One chunk's mentions as (start, end, entity id) spans, and each entity's type."""

    def __init__(self, grouped: Sequence[EntityMentions]) -> None:
        self.types = {found.entity_id: found.entity_type for found in grouped}
        self.spans = [(int(span[0]), int(span[1]), found.entity_id) for found in grouped
                      for span in _props(found.props).get("spans", [])]

    def within(self, start: int, end: int) -> set[str]:
        return {entity_id for span_start, span_end, entity_id in self.spans if start <= span_start and span_end <= end}


def _props(props: object) -> dict[str, list[list[object]]]:
    if isinstance(props, str):
        return json.loads(props)
    return props if isinstance(props, dict) else {}
