"""Relations stated in a text, from its entity mentions and cue words (no model download, no LLM).

    extractor = load_relation_extractor(settings)     # trained once per process on PPR's train split, else cue rules
    extractor.relations(text, linker.link(text))       # -> [StatedRelation, ...]

(Trained in a few seconds; kept as a pickle under BIO_MCP_HOME/cache keyed by the input files' hashes.)

Three steps, each over one sentence (`graph/sentences.py`) that names both ends:
1. Plants: the linker's mentions of MeSH plant and fungus descriptors, plus Dr. Duke's taxa and
   common names (`graph/plant_names.py`) and the plant names PPR's training split annotates; an
   abbreviation a text defines for a plant ("Solanum muricatum (CSG)") names that plant wherever it
   recurs. Phenotypes: the linker's Disease mentions (negative), the phenotype terms PPR's training
   split annotates (negative, positive or neutral: "anti-inflammatory" is positive), and words of the
   forms anti-X and X-protective (positive). Every name key is kept only if it was right at least
   `MIN_KEY_PRECISION` of the times it occurred in the training split (smoothed).
2. Each plant x phenotype pair in a sentence is classified Increase, Decrease or none by a naive
   Bayes model over cue features (the words between the two, the words before the first, their
   order and distance, the phenotype's polarity and whether other entities lie between), trained on
   the pairs of PPR's training split the same recognisers find. Plant -> chemical pairs are
   HAS_CONSTITUENT when a constituent cue joins them ("isolated from", "constituents of", "contains")
   and Dr. Duke's tables list that chemical for that plant (`graph/duke_constituents.py`).
   A pair whose words say the plant causes, induces or worsens the disease (`graph/harm_cues.py`)
   is never a Decrease, and no TREATS is stated from a sentence saying so; nor is a Decrease the
   words deny ("X did not inhibit Y").
3. Graph relations: Decrease of a negative or neutral phenotype -> TREATS, Increase of a negative
   one -> CAUSES (harm), Increase of a positive "anti-X" phenotype naming a disease X -> TREATS X;
   the phenotype must overlap a linked Disease mention (the graph only holds entities with ids).

`confidence` of a relation is the pair model's precision for its edge type (TREATS, CAUSES),
measured two-fold on the training split; HAS_CONSTITUENT's was judged by hand on a sample (no gold).

Without PPR's training split (an install: PPR may not be redistributed, nor a model fitted on it,
so neither ships in the package) the extractor is untrained: the same recognisers minus PPR's
annotated names and key filter, and cue rules in place of the pair model (`graph/relation_cues.py`,
with their own measured confidence). BIO_MCP_RELATIONS_TRAINING names PPR's training file, or the
`RelationModel` built from it once by `bio-mcp data build-vocabularies --relation-model FILE`.
"""

from __future__ import annotations

import math
import re
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple, Protocol

import ahocorasick

from bio_mcp.config import Settings
from bio_mcp.data_files import is_json, member, read_json
from bio_mcp.eval import ppr
from bio_mcp.eval.ppr import PLANT, PprDocument, read_ppr
from bio_mcp.graph import (
    abbreviations,
    duke_constituents,
    linking,
    plant_names,
    relation_kinds,
    sentences,
)
from bio_mcp.graph.abbreviations import Abbreviation, find_abbreviations
from bio_mcp.graph.duke_constituents import CONSTITUENTS, farmacy_dir_of, load_duke_constituents
from bio_mcp.graph.elements import CAUSES, HAS_CONSTITUENT, TREATS, StatedRelation
from bio_mcp.graph.harm_cues import HARM, NEGATED, benefit_denied, harm_between
from bio_mcp.graph.herb_catalog import duke_dir_of
from bio_mcp.graph.ids import sha256_hex
from bio_mcp.graph.linking import fold, term_key, training_path_of
from bio_mcp.graph.mentions import Mention
from bio_mcp.graph.plant_names import (
    COMMON_NAMES,
    FNFTAX,
    duke_plant_names,
    herb_id,
    mesh_plant_names,
    plant_descriptors,
)
from bio_mcp.graph.relation_cues import CUE_CONFIDENCE, CUE_EXTRACTOR, CueRules
from bio_mcp.graph.relation_kinds import DECREASE, INCREASE, NEGATIVE, NONE, PLANT_KIND, POSITIVE, Span
from bio_mcp.graph.sentences import sentence_spans
from bio_mcp.graph.vocabulary import Vocabulary, file_digest
from bio_mcp.mesh_files import mesh_path_of
from bio_mcp.pickle_cache import load_cached

EXTRACTOR = "ppr-cues-nb"
CONSTITUENT_EXTRACTOR = "constituent-cues"
CONSTITUENT_CONFIDENCE = 0.9
MIN_KEY_PRECISION = 0.35
# Longer "sentences" are lists (a conference's programme, a table flattened into an abstract), not
# statements: 99% of PPR's sentences stating a relation are under 420 characters, all under 750.
MAX_SENTENCE = 800
# Below this a key is judged by the training split only when it occurred at least this often.
_MIN_OCCURRENCES = 2
_TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_CONSTITUENT_CUE = re.compile(
    r"\b(?:isolated from|constituents? of|components? of|compounds? (?:from|of|in)|contain(?:s|ed|ing)?|"
    r"extracted from|identified (?:in|from)|present in|rich in|derived from|principles? of)\b",
    re.IGNORECASE,
)
_BINOMIAL = re.compile(r"\b([A-Z][a-z]{2,}) ([a-zA-Z][a-z]{2,}(?:-[a-z]+)?)\b")
# Words that follow a genus name without being its species.
_NOT_EPITHETS = frozenset(["extract", "extracts", "species", "root", "roots", "leaf", "leaves", "seed", "seeds", "plant", "plants", "and", "or", "the", "with", "was", "were", "is", "are", "has", "have", "from", "for", "fruit", "fruits", "bark", "herb", "herbs", "flower", "flowers", "oil"])
_PARTS = (r"(?:leaf|leaves|root|roots|seed|seeds|fruit|fruits|bark|rhizomes?|stems?|flowers?|aerial|extracts?|herb|"
          r"tubers?|bulbs?|peels?|essential oil)")
# What marks a Latin binomial of an unknown genus as a plant: its family in brackets, an author
# abbreviation, a plant part after it, or a preparation of a part before it.
_PLANT_AFTER = re.compile(rf"\s*(?:(?:[A-Z][a-z]*\.|L\.|Linn\.)\s*)?(?:\(\s*[A-Z][a-z]+aceae\s*\)|{_PARTS}\b)")
_PLANT_BEFORE = re.compile(rf"\b(?:{_PARTS}|parts|plants?)\s+(?:of|from)\s+(?:the\s+)?$")
_NOT_GENERA = frozenset(["the", "this", "these", "that", "those", "in", "on", "of", "for", "with", "from", "and", "but", "when", "while", "after", "before", "our", "its", "their", "each", "both", "all", "some", "most", "many", "such"])
_PREPARATION = re.compile(r"\b(?:extracts?|fractions?|powder|decoction|infusion|oil|juice|formula)\b", re.IGNORECASE)
_BRACKETED_ACRONYM = re.compile(r"(?:\s+[\w-]+){0,3}?\s*\(\s*([A-Za-z][\w-]{1,9})\s*[,;)]")
_LONG_WORD = re.compile(r"\b[A-Za-z][A-Za-z-]{5,}")
# Words of a positive phenotype's form ("anti-inflammatory", "hepatoprotective"), and of a disease's
# form that the linker's MeSH terms miss ("hepatocarcinoma", "gastropathy").
_POSITIVE_ENDINGS = ("protective", "protection")
_DISEASE_ENDINGS = tuple(f"{ending}{plural}" for ending in ("oma", "itis", "osis", "pathy", "emia", "algia", "plasia",
                                                            "carcinogenesis") for plural in ("", "s"))
_SECTION_LABEL = re.compile(r"^[A-Z][A-Z /&]{3,}:")


@dataclass(frozen=True, slots=True)
class Finding:
    """A classified pair: `plant` -[label]-> `phenotype` in the sentence `sentence` (offsets of the text)."""

    plant: Span
    phenotype: Span
    label: str
    sentence: tuple[int, int]


class _Entry(NamedTuple):
    entity_id: str | None
    kind: str
    forms: frozenset[str] | None  # exact spellings it matches only as, None: any case


class NameMatcher:
    """One Aho–Corasick automaton over folded names; the longest match wins where matches overlap."""

    def __init__(self, names: dict[str, _Entry]) -> None:
        # A form's value is its number, which indexes its padded length and its name: a tuple and
        # an int per form took 6 MB of the warm server.
        self._automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
        self._names = names
        self._lengths = array("H")
        self._keys: list[str] = []
        for key, entry in names.items():
            # Spelt forms ("S. muricatum") are added as folded, keeping the double space a stop
            # folds to; the folded text is matched as is.
            for form in {key, *(fold(form) for form in entry.forms or ())}:
                self._automaton.add_word(f" {form} ", len(self._keys))
                self._lengths.append(len(form) + 2)
                self._keys.append(key)
        if names:
            self._automaton.make_automaton()
        self._empty = not names

    def spans(self, text: str) -> list[Span]:
        if self._empty:
            return []
        hits: list[Span] = []
        for end_index, number in self._automaton.iter(f" {fold(text)} "):
            key = self._keys[number]
            entry = self._names[key]
            start, end = end_index - self._lengths[number] + 1, end_index - 1
            if entry.forms is not None and text[start:end] not in entry.forms:
                continue
            hits.append(Span(start, end, entry.kind, entry.entity_id, key))
        return _longest(hits)


def _longest(spans: Iterable[Span]) -> list[Span]:
    kept: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -(s.end - s.start))):
        if kept and span.start < kept[-1].end:
            if span.end - span.start > kept[-1].end - kept[-1].start:
                kept[-1] = span
            continue
        kept.append(span)
    return kept


@dataclass
class NaiveBayes:
    """Multinomial naive Bayes over binary features, add-one smoothed."""

    classes: tuple[str, ...] = (NONE, INCREASE, DECREASE)
    priors: dict[str, float] = field(default_factory=dict)
    weights: dict[str, dict[str, float]] = field(default_factory=dict)
    unseen: dict[str, float] = field(default_factory=dict)
    # Added to the log-odds of NONE: above 0 fewer relations are stated, below 0 more.
    none_bias: float = 0.0

    @classmethod
    def fit(cls, examples: Sequence[tuple[frozenset[str], str]]) -> NaiveBayes:
        model = cls()
        model._table = None
        counts: dict[str, Counter[str]] = {label: Counter() for label in model.classes}
        totals: Counter[str] = Counter(label for _, label in examples)
        for features, label in examples:
            counts[label].update(features)
        vocabulary = {feature for counter in counts.values() for feature in counter}
        for label in model.classes:
            total = sum(counts[label].values()) + len(vocabulary) + 1
            model.priors[label] = math.log((totals[label] + 1) / (len(examples) + len(model.classes)))
            model.weights[label] = {f: math.log((n + 1) / total) for f, n in counts[label].items()}
            model.unseen[label] = math.log(1 / total)
        model._deltas()  # built here, so it is pickled with the model and a sync never waits for it
        return model

    def __post_init__(self) -> None:
        self._table: dict[str, tuple[float, ...]] | None = None

    def _deltas(self) -> dict[str, tuple[float, ...]]:
        """Feature -> per class, its weight above the unseen one: a pair is scored in one dict lookup per feature."""
        if self._table is None:
            features = {f for weights in self.weights.values() for f in weights}
            self._table = {f: tuple(self.weights[label].get(f, self.unseen[label]) - self.unseen[label]
                                    for label in self.classes) for f in features}
        return self._table

    def scores(self, features: Iterable[str]) -> dict[str, float]:
        table = self._deltas()
        sums = [0.0] * len(self.classes)
        known = 0
        for feature in features:
            deltas = table.get(feature)
            if deltas is not None:
                known += 1
                for index, delta in enumerate(deltas):
                    sums[index] += delta
        scores = {label: self.priors[label] + self.unseen[label] * known + sums[index]
                  for index, label in enumerate(self.classes)}
        scores[NONE] += self.none_bias
        return scores

    def predict(self, features: Iterable[str]) -> str:
        scores = self.scores(features)
        return max(self.classes, key=lambda label: scores[label])

    def label(self, text: str, sentence: tuple[int, int], plant: Span, phenotype: Span, others: Sequence[Span]) -> str:
        """A plant x phenotype pair's label, from its cue features (`pair_features`)."""
        return self.predict(pair_features(text, sentence, plant, phenotype, others))


class PairClassifier(Protocol):
    """Labels a plant x phenotype pair of a sentence Increase, Decrease or none."""

    def label(self, text: str, sentence: tuple[int, int], plant: Span, phenotype: Span,
              others: Sequence[Span]) -> str: ...


def _group_key(span: Span) -> str:
    return f"{PLANT_KIND if span.kind == PLANT_KIND else 'phenotype'}:{span.key}"


def _words(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def pair_features(
    text: str, sentence: tuple[int, int], plant: Span, phenotype: Span, others: Sequence[Span]
) -> frozenset[str]:
    """The cue features of one plant x phenotype pair inside `sentence`."""
    first, second = (plant, phenotype) if plant.start <= phenotype.start else (phenotype, plant)
    between = _words(text[first.end : second.start])
    before = _words(text[sentence[0] : first.start])[-4:]
    after = _words(text[second.end : sentence[1]])[:3]
    polarity = phenotype.kind
    features = {f"pol={polarity}", f"order={'plant' if first is plant else 'phenotype'}",
                f"dist={min(len(between), 20) // 3}", f"key={phenotype.key}"}
    features.update(f"b={word}" for word in between)
    features.update(f"{polarity}:b={word}" for word in between)
    features.update(f"pre={word}" for word in before)
    features.update(f"{polarity}:pre={word}" for word in before)
    features.update(f"post={word}" for word in after)
    kinds_between = {span.kind for span in others if first.end <= span.start and span.end <= second.start}
    features.update(f"between={kind}" for kind in kinds_between)
    if _SECTION_LABEL.match(text[sentence[0] : sentence[1]]):
        features.add("label=" + text[sentence[0] : sentence[1]].split(":", 1)[0].lower())
    if len(between) <= 2 and between[:1] in (["of"], ["on"], ["against"], ["in"]):
        features.add(f"adjacent={between[0]}")
    return frozenset(features)


class RelationExtractor:
    """Finds plants and phenotypes in a linked text and the relations its sentences state between them."""

    def __init__(self, names: NameMatcher, plants: frozenset[str], model: PairClassifier | None,
                 confidence: dict[str, float], dropped: frozenset[str] = frozenset(),
                 genera: dict[str, str | None] | None = None, name: str = EXTRACTOR,
                 contents: dict[str, frozenset[str]] | None = None) -> None:
        self.names = names
        # Plant id -> the folded names of the chemicals Dr. Duke's tables say it contains: a
        # constituent is stated only where they agree (`graph/duke_constituents.py`).
        self.contents = contents or {}
        # The evidence rows' extractor: the trained pair model's or the untrained cue rules'.
        self.name = name
        # Plant genus -> its MeSH descriptor id (None: Duke's only).
        self.genera = genera or {}
        self.plants = plants
        self.model = model
        self.confidence = confidence
        # `plant:<key>` / `phenotype:<key>`: names the training split showed to be mostly something else.
        self.dropped = dropped

    # ---- recognition ---------------------------------------------------------------------

    def spans(self, text: str, mentions: Sequence[Mention]) -> list[Span]:
        """Plant and phenotype spans of `text`: the dictionary's, then the mentions' where they add one."""
        found = self.names.spans(text)
        for mention in mentions:
            if mention.entity_id in self.plants:
                found.append(Span(mention.start, mention.end, PLANT_KIND, mention.entity_id, term_key(mention.text)))
            elif mention.entity_type == "Disease":
                found.append(Span(mention.start, mention.end, NEGATIVE, mention.entity_id, term_key(mention.text)))
        if self.dropped:
            found = [span for span in found if _group_key(span) not in self.dropped]
        others = [m for m in mentions if m.entity_type == "Organism" and m.entity_id not in self.plants]
        found.extend(self._binomials(text, found, others))
        # Most texts name no plant: the rest is only done for those that do.
        if not any(span.kind == PLANT_KIND for span in found):
            return _longest(found)
        for match in _LONG_WORD.finditer(text):
            word = match.group().lower()
            if word.startswith("anti") or word.endswith(_POSITIVE_ENDINGS):
                found.append(Span(match.start(), match.end(), POSITIVE, None, term_key(word)))
            elif word.endswith(_DISEASE_ENDINGS):
                found.append(Span(match.start(), match.end(), NEGATIVE, None, term_key(word)))
        spans = _longest(span for span in found if _group_key(span) not in self.dropped)
        abbreviations = find_abbreviations(text)
        # Twice: an abbreviation's long form may hold an abbreviation ("n-BuOH fraction of EAC (EAC-B)").
        spans = _longest(spans + self._abbreviated_plants(text, spans, abbreviations))
        return _longest(spans + self._abbreviated_plants(text, spans, abbreviations))

    def _binomials(self, text: str, spans: Sequence[Span], others: Sequence[Mention]) -> list[Span]:
        """Latin binomials of a known plant genus ("Ficus religiosa"), and their abbreviated
        forms ("F. religiosa") anywhere in the text."""
        added: list[Span] = []
        for match in _BINOMIAL.finditer(text):
            genus, epithet = match.group(1), match.group(2).lower()
            if epithet in _NOT_EPITHETS or genus.lower() in _NOT_GENERA:
                continue
            known = genus in self.genera
            if not known and not (_PLANT_AFTER.match(text, match.end())
                                  or _PLANT_BEFORE.search(text, max(0, match.start() - 40), match.start())):
                continue
            if any(m.start < match.end() and match.start() < m.end for m in others):
                continue
            key = term_key(f"{genus} {epithet}")
            entity_id = (self.genera.get(genus) if known else None) or herb_id(key)
            added.extend(Span(m.start(), m.end(), PLANT_KIND, entity_id, key)
                         for m in re.finditer(rf"\b{re.escape(match.group())}\b", text))
        # A binomial named in full is then abbreviated: "Ficus religiosa" ... "F. religiosa".
        for span in [*spans, *added]:
            if span.kind != PLANT_KIND:
                continue
            words = text[span.start : span.end].split()
            if len(words) == 2 and words[0][:1].isupper() and words[0].isalpha() and words[1].islower():
                pattern = rf"\b{words[0][0]}\.\s?{re.escape(words[1])}\b"
                added.extend(Span(m.start(), m.end(), PLANT_KIND, span.entity_id, span.key)
                             for m in re.finditer(pattern, text))
        return added

    def _abbreviated_plants(
        self, text: str, spans: Sequence[Span], abbreviations: Sequence[Abbreviation]
    ) -> list[Span]:
        plants = [span for span in spans if span.kind == PLANT_KIND]
        added: list[Span] = []
        named: dict[str, Span] = {}
        for abbreviation in abbreviations:
            plant = next((p for p in plants if p.start < abbreviation.long_end and abbreviation.long_start < p.end),
                         None)
            if plant is None and _PREPARATION.search(text, abbreviation.long_start, abbreviation.long_end):
                # "the aqueous extract (SPE) of Strychnos potatorum": a preparation named just before or after.
                plant = next((p for p in plants if 0 <= p.start - abbreviation.short_start <= 60), None) or \
                    next((p for p in reversed(plants) if 0 <= abbreviation.long_start - p.end <= 40), None)
            if plant is not None:
                named.setdefault(abbreviation.short, plant)
        # "Tetrapleura tetraptera (TTE, 50-800 mg/kg)", "Salvia ... extract (SG)": an acronym in brackets
        # after a plant, even where its letters do not spell the plant's name.
        for plant in plants:
            match = _BRACKETED_ACRONYM.match(text, plant.end)
            if match and sum(char.isupper() for char in match.group(1)) >= 2:
                named.setdefault(match.group(1), plant)
        for short, plant in named.items():
            pattern = re.compile(r"(?<![\w-])" + re.escape(short) + r"(?![\w])")
            added.extend(Span(m.start(), m.end(), PLANT_KIND, plant.entity_id, plant.key)
                         for m in pattern.finditer(text))
        return added

    # ---- relations -----------------------------------------------------------------------

    def findings(self, text: str, mentions: Sequence[Mention], spans: Sequence[Span] | None = None,
                 sentences: Sequence[tuple[int, int]] | None = None) -> list[Finding]:
        """Every plant x phenotype pair of each sentence the model says is stated (label Increase or Decrease)."""
        if self.model is None:
            return []
        spans = self.spans(text, mentions) if spans is None else spans
        if not any(span.kind == PLANT_KIND for span in spans):
            return []
        found: list[Finding] = []
        for sentence in sentence_spans(text) if sentences is None else sentences:
            if sentence[1] - sentence[0] > MAX_SENTENCE:
                continue
            inside = [span for span in spans if sentence[0] <= span.start and span.end <= sentence[1]]
            plants = [span for span in inside if span.kind == PLANT_KIND]
            phenotypes = [span for span in inside if span.kind != PLANT_KIND]
            for plant in plants:
                for phenotype in phenotypes:
                    label = self.model.label(text, sentence, plant, phenotype, inside)
                    if label != NONE and phenotype.kind != POSITIVE:
                        label = _read_harm(text, plant, phenotype, label, harms=self.name != CUE_EXTRACTOR)
                    if label != NONE:
                        found.append(Finding(plant, phenotype, label, sentence))
        return found

    def relations(self, text: str, mentions: Sequence[Mention]) -> list[StatedRelation]:
        """The graph relations `text` states (sentence offsets into `text`), one per (src, type, dst, sentence)."""
        stated: dict[tuple[str, str, str, int], StatedRelation] = {}
        spans = self.spans(text, mentions)
        if not any(span.kind == PLANT_KIND for span in spans):
            return []
        diseases = [m for m in mentions if m.entity_type == "Disease"]
        sentences = sentence_spans(text)
        for finding in self.findings(text, mentions, spans, sentences):
            edge_type, disease = self._graph_reading(finding, diseases)
            if edge_type is None or finding.plant.entity_id is None:
                continue
            start, end = finding.sentence
            if edge_type == TREATS and _harm_in_sentence(text, spans, diseases, finding, disease):
                continue
            stated.setdefault(
                (finding.plant.entity_id, edge_type, disease, start),
                StatedRelation(finding.plant.entity_id, edge_type, disease, start, end, self.name,
                               self.confidence.get(edge_type, 0.5)),
            )
        for relation in self.constituents(text, mentions, spans, sentences):
            stated.setdefault((relation.src, relation.type, relation.dst, relation.start), relation)
        return sorted(stated.values(), key=lambda r: (r.start, r.src, r.type, r.dst))

    def _graph_reading(self, finding: Finding, diseases: Sequence[Mention]) -> tuple[str | None, str]:
        phenotype = finding.phenotype
        inside = [m for m in diseases if phenotype.start <= m.start and m.end <= phenotype.end]
        overlapping = inside or [m for m in diseases if m.start < phenotype.end and phenotype.start < m.end]
        if not overlapping:
            return None, ""
        disease = overlapping[0].entity_id
        if phenotype.kind == POSITIVE:
            anti = phenotype.key.startswith("anti")
            return (TREATS if anti and finding.label == INCREASE else None), disease
        if finding.label == DECREASE:
            return TREATS, disease
        return (CAUSES if phenotype.kind == NEGATIVE else None), disease

    def constituents(self, text: str, mentions: Sequence[Mention], spans: Sequence[Span],
                     sentences: Sequence[tuple[int, int]]) -> list[StatedRelation]:
        """Plant -> chemical where a constituent cue lies between the two in one sentence (either
        order) and Dr. Duke's tables list the chemical (by the name the text gives it) for the plant."""
        chemicals = [m for m in mentions if m.entity_type == "Chemical"]
        if not chemicals:
            return []
        plants = [span for span in spans if span.kind == PLANT_KIND and span.entity_id]
        found: list[StatedRelation] = []
        for start, end in sentences if plants else ():
            if end - start > MAX_SENTENCE:
                continue
            for plant in (p for p in plants if start <= p.start and p.end <= end):
                for chemical in (c for c in chemicals if start <= c.start and c.end <= end):
                    if chemical.start < plant.end and plant.start < chemical.end:
                        continue
                    listed = self.contents.get(plant.entity_id) or self.contents.get(
                        herb_id(" ".join(plant.key.split()[:2])), frozenset())
                    if term_key(chemical.text) not in listed:
                        continue
                    low, high = sorted((plant.end, chemical.end))
                    gap = text[min(plant.start, chemical.start) : max(plant.end, chemical.end)]
                    if high - low < 120 and _CONSTITUENT_CUE.search(gap):
                        found.append(StatedRelation(plant.entity_id, HAS_CONSTITUENT, chemical.entity_id, start, end,
                                                    CONSTITUENT_EXTRACTOR,
                                                    self.confidence.get(HAS_CONSTITUENT, CONSTITUENT_CONFIDENCE)))
        return found


def _read_harm(text: str, plant: Span, phenotype: Span, label: str, harms: bool = True) -> str:
    """The label once the words between the two are read for harm (`graph/harm_cues.py`): a plant
    said to cause, induce or worsen a disease increases it (a harm, never a treatment; without
    `harms`, as the untrained cue rules state none, no relation); one said to be associated with
    it, a risk of it, or to possibly cause it is never its treatment (the model's Increase
    stands); a denied harm is no relation."""
    harm = harm_between(text, (plant.start, plant.end), (phenotype.start, phenotype.end))
    if harm is None:
        # "X did not inhibit Y", "X suppresses A but not Y": no treatment either.
        denied = label == DECREASE and benefit_denied(text, (plant.start, plant.end), (phenotype.start, phenotype.end))
        return NONE if denied else label
    if harm == HARM:
        return INCREASE if harms else NONE
    return INCREASE if label == INCREASE and harm != NEGATED else NONE


def _harm_in_sentence(text: str, spans: Sequence[Span], diseases: Sequence[Mention], finding: Finding,
                      disease_id: str) -> bool:
    """Whether the finding's sentence speaks of its plant (any mention of it) as a harm with the
    disease (any mention of it): then no pair of the two there is a treatment."""
    start, end = finding.sentence
    plants = [span for span in spans if span.kind == PLANT_KIND and span.entity_id == finding.plant.entity_id
              and start <= span.start and span.end <= end]
    named = [m for m in diseases if m.entity_id == disease_id and start <= m.start and m.end <= end]
    return any(harm_between(text, (plant.start, plant.end), (disease.start, disease.end)) is not None
               for plant in plants for disease in named)


class TextLinker(Protocol):
    def link(self, text: str) -> list[Mention]: ...


# ---- training on PPR ---------------------------------------------------------------------------


def _gold_spans(document: PprDocument) -> list[tuple[int, int, str]]:
    return [(offset + e.start, offset + e.end, e.type)
            for sentence, offset in zip(document.sentences, document.offsets) for e in sentence.entities]


def _key_precision(
    extractor: RelationExtractor, documents: Sequence[tuple[PprDocument, str, list[Mention]]]
) -> set[str]:
    """Keys (kind, folded name) whose spans were a gold entity of their kind (plant, or any
    phenotype) less than MIN_KEY_PRECISION of the time, smoothed with one right and one wrong."""
    seen: Counter[tuple[str, str]] = Counter()
    right: Counter[tuple[str, str]] = Counter()
    for document, text, mentions in documents:
        gold = _gold_spans(document)
        for span in extractor.spans(text, mentions):
            plant = span.kind == PLANT_KIND
            key = _group_key(span)
            seen[key] += 1
            right[key] += any(s < span.end and span.start < e and (t == PLANT) == plant for s, e, t in gold)
    return {key for key, n in seen.items()
            if n >= _MIN_OCCURRENCES and (right[key] + 1) / (n + 2) < MIN_KEY_PRECISION}


def training_examples(extractor: RelationExtractor, document: PprDocument, text: str,
                      mentions: Sequence[Mention]) -> list[tuple[frozenset[str], str, tuple[Span, Span]]]:
    """Every plant x phenotype pair the recognisers find in a PPR document, labelled by the gold
    relation whose plant and phenotype spans overlap them (NONE when none does; Association skipped)."""
    gold = [(offset + r.plant.start, offset + r.plant.end, offset + r.phenotype.start, offset + r.phenotype.end, r.kind)
            for sentence, offset in zip(document.sentences, document.offsets) for r in sentence.relations]
    spans = extractor.spans(text, mentions)
    examples = []
    for sentence in sentence_spans(text):
        inside = [span for span in spans if sentence[0] <= span.start and span.end <= sentence[1]]
        for plant in (s for s in inside if s.kind == PLANT_KIND):
            for phenotype in (s for s in inside if s.kind != PLANT_KIND):
                labels = {kind for ps, pe, qs, qe, kind in gold
                          if ps < plant.end and plant.start < pe and qs < phenotype.end and phenotype.start < qe}
                if "Association" in labels and not labels - {"Association"}:
                    continue
                label = DECREASE if DECREASE in labels else INCREASE if INCREASE in labels else NONE
                examples.append((pair_features(text, sentence, plant, phenotype, inside), label, (plant, phenotype)))
    return examples


def _dictionary_names(
    vocabulary: Vocabulary | None, duke_dir: Path | None
) -> tuple[dict[str, _Entry], frozenset[str], dict[str, str | None]]:
    """The plant names no annotated corpus is needed for (MeSH's plants, Dr. Duke's taxa and common
    names), MeSH's plant descriptors, and the plant genera binomials are recognised by."""
    plants = frozenset(plant_descriptors(vocabulary)) if vocabulary is not None else frozenset()
    names: dict[str, _Entry] = {}
    if vocabulary is not None:
        for key, (entity_id, _) in mesh_plant_names(vocabulary).items():
            names[key] = _Entry(entity_id, PLANT_KIND, None)
    if duke_dir is not None and member(duke_dir, FNFTAX) is not None:
        for name, (entity_id, sensitive) in duke_plant_names(duke_dir, vocabulary).items():
            names[term_key(name)] = _Entry(entity_id, PLANT_KIND, frozenset({name}) if sensitive else None)
    genera: dict[str, str | None] = {}
    for name, entry in names.items():
        if entry.kind == PLANT_KIND and entry.forms is not None:
            for form in entry.forms:
                if form.isalpha() and form[:1].isupper():
                    genera.setdefault(form, entry.entity_id if entry.entity_id.startswith("mesh:") else None)
    if vocabulary is not None:
        for entity_id in sorted(plants):
            concept = vocabulary.concepts[entity_id]
            if concept.name.isalpha() and any(t.count(".") >= 3 for t in concept.tree_numbers):
                genera.setdefault(concept.name, entity_id)
    return names, plants, genera


def untrained_extractor(vocabulary: Vocabulary | None, duke_dir: Path | None) -> RelationExtractor:
    """Without an annotated corpus: the dictionary's plant names, the linker's Disease mentions and the
    anti-X / X-protective words, labelled by the cue rules (`graph/relation_cues.py`)."""
    names, plants, genera = _dictionary_names(vocabulary, duke_dir)
    confidence = {**CUE_CONFIDENCE, HAS_CONSTITUENT: CONSTITUENT_CONFIDENCE}
    return RelationExtractor(NameMatcher(names), plants, CueRules(), confidence, genera=genera, name=CUE_EXTRACTOR,
                             contents=load_duke_constituents(farmacy_dir_of(duke_dir), vocabulary))


@dataclass
class RelationModel:
    """What PPR's training split teaches the extractor: the gold names the dictionary lacks, the
    names found mostly wrong there, the pair model and its measured precision. Built once from a
    local copy of PPR (`bio-mcp data build-vocabularies --relation-model FILE`) so a server need
    not retrain; never shipped (PPR's gold names are in it)."""

    # Folded name -> (entity id or None, kind).
    names: dict[str, tuple[str | None, str]]
    dropped: frozenset[str]
    model: NaiveBayes
    confidence: dict[str, float]

    def to_json(self) -> dict[str, object]:
        model = self.model
        return {"names": {key: list(value) for key, value in self.names.items()}, "dropped": sorted(self.dropped),
                # Sorted: training meets the features in a set's order, which varies from run to run.
                "model": {"classes": list(model.classes), "priors": model.priors,
                          "weights": {label: dict(sorted(weights.items())) for label, weights in model.weights.items()},
                          "unseen": model.unseen, "none_bias": model.none_bias},
                "confidence": self.confidence}

    @classmethod
    def from_json(cls, data: dict) -> RelationModel:
        raw = data["model"]
        model = NaiveBayes(tuple(raw["classes"]), raw["priors"], raw["weights"], raw["unseen"], raw["none_bias"])
        model._deltas()
        return cls({key: (value[0], value[1]) for key, value in data["names"].items()}, frozenset(data["dropped"]),
                   model, data["confidence"])


def _learnt_names(documents: Sequence[PprDocument]) -> dict[str, tuple[str | None, str]]:
    """The training documents' gold entity names, by their most frequent kind."""
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    # Acronyms a training abstract defines ("AGE": aged garlic extract) mean something else in the
    # next one; the abbreviation rule finds them where a text defines them.
    acronyms: set[str] = set()
    for document in documents:
        for sentence in document.sentences:
            for entity in sentence.entities:
                kinds[term_key(entity.text)][entity.type] += 1
                if sum(char.isupper() for char in entity.text) >= 2 and len(entity.text) <= 8:
                    acronyms.add(term_key(entity.text))
    learnt: dict[str, tuple[str | None, str]] = {}
    for key, counts in kinds.items():
        kind = counts.most_common(1)[0][0]
        if len(key) < 3 or key in acronyms:
            continue
        learnt[key] = (herb_id(key) if kind == PLANT else None, PLANT_KIND if kind == PLANT else kind)
    return learnt


def _names_with(vocabulary: Vocabulary | None, duke_dir: Path | None, learnt: dict[str, tuple[str | None, str]]
                ) -> tuple[dict[str, _Entry], frozenset[str], dict[str, str | None]]:
    """The dictionary's names (`_dictionary_names`), then the learnt ones it does not have."""
    names, plants, genera = _dictionary_names(vocabulary, duke_dir)
    for key, (entity_id, kind) in learnt.items():
        if key not in names:
            names[key] = _Entry(entity_id, kind, None)
    return names, plants, genera


def train_relation_model(documents: Sequence[PprDocument], linker: TextLinker, vocabulary: Vocabulary | None,
                         duke_dir: Path | None) -> RelationModel:
    """Names from Duke, MeSH and the training documents' gold entities, filtered by their precision
    there; then the pair model, fitted on the same documents."""
    learnt = _learnt_names(documents)
    names, plants, genera = _names_with(vocabulary, duke_dir, learnt)
    linked = [(document, document.text, linker.link(document.text)) for document in documents]
    extractor = RelationExtractor(NameMatcher(names), plants, None, {}, genera=genera)
    dropped = frozenset(_key_precision(extractor, linked))
    extractor = RelationExtractor(NameMatcher(names), plants, None, {}, dropped, genera,
                                  contents=load_duke_constituents(farmacy_dir_of(duke_dir), vocabulary))
    halves: tuple[list, list] = ([], [])
    for number, (document, text, mentions) in enumerate(linked):
        halves[number % 2].extend(training_examples(extractor, document, text, mentions))
    examples = halves[0] + halves[1]
    model = NaiveBayes.fit([(features, label) for features, label, _ in examples])
    return RelationModel(learnt, dropped, model, _class_precision(halves))


def extractor_of(model: RelationModel, vocabulary: Vocabulary | None, duke_dir: Path | None) -> RelationExtractor:
    names, plants, genera = _names_with(vocabulary, duke_dir, model.names)
    return RelationExtractor(NameMatcher(names), plants, model.model, model.confidence, model.dropped, genera,
                             contents=load_duke_constituents(farmacy_dir_of(duke_dir), vocabulary))


def train_extractor(documents: Sequence[PprDocument], linker: TextLinker, vocabulary: Vocabulary | None,
                    duke_dir: Path | None) -> RelationExtractor:
    return extractor_of(train_relation_model(documents, linker, vocabulary, duke_dir), vocabulary, duke_dir)


def _class_precision(halves: tuple[list, list]) -> dict[str, float]:
    """Per graph edge type, how often a pair the model states was stated in the gold: two-fold over
    the training documents (a model fitted on one half predicts the other), so not its own examples."""
    hits: Counter[str] = Counter()
    total: Counter[str] = Counter()
    folds = ((NaiveBayes.fit([(f, label) for f, label, _ in halves[1 - held]]), halves[held]) for held in (0, 1))
    for model, held_out in folds:
        for features, label, (_, phenotype) in held_out:
            predicted = model.predict(features)
            if predicted == NONE:
                continue
            edge_type = TREATS if predicted == DECREASE or phenotype.kind == POSITIVE else CAUSES
            total[edge_type] += 1
            hits[edge_type] += predicted == label
    confidence = {edge_type: round(hits[edge_type] / total[edge_type], 4) for edge_type in total}
    # Constituent cues have no gold annotation to be scored on: 24 of 25 of the 70 pairs they state
    # on PPR's training split, drawn at random, were right when read by hand (the wrong one named the
    # "Plant Extracts" descriptor); 0.9 leaves room for a sample that small. Only the 9 of the 70
    # that Dr. Duke's tables confirm are stated now.
    confidence[HAS_CONSTITUENT] = CONSTITUENT_CONFIDENCE
    return confidence


def ppr_train_path_of(settings: Settings) -> Path | None:
    """BIO_MCP_RELATIONS_TRAINING: a PPR corpus file, or a model built from one
    (`bio-mcp data build-vocabularies --relation-model FILE`); None without it. Nothing learnt from
    PPR ships in the package (see the module docstring)."""
    path = settings.relations_training_path
    return path if path is not None and path.is_file() else None


@lru_cache(maxsize=2)
def _cached_extractor(training: Path, duke_dir: Path | None, linker: TextLinker, vocabulary: Vocabulary | None,
                      cache_dir: Path | None, inputs: tuple[Path, ...]) -> RelationExtractor:
    """Trained (or assembled from the shipped model) once per process, or read from a pickle in
    `cache_dir` keyed by this code and every input file's hash (training takes seconds: it links
    the 400 training abstracts)."""
    def build() -> RelationExtractor:
        if is_json(training):
            return extractor_of(RelationModel.from_json(read_json(training)), vocabulary, duke_dir)  # type: ignore[arg-type]
        return train_extractor(read_ppr(training), linker, vocabulary, duke_dir)

    if cache_dir is None:
        return build()
    files = sha256_hex(" ".join(file_digest(path) for path in inputs))[:12]
    cache = cache_dir / f"relation-extractor-{_code_digest()[:12]}-{files}.pickle"
    # Pickles of the same files trained by earlier code are dead weight.
    return load_cached(cache, RelationExtractor, build, stale=f"relation-extractor-*-{files}.pickle")


def _code_digest() -> str:
    # By module, not by file name: a renamed module must not break (or silently leave) the digest.
    modules = (plant_names, sentences, ppr, abbreviations, linking, relation_kinds, duke_constituents)
    sources = [Path(__file__), *(Path(module.__file__) for module in modules)]
    return sha256_hex("".join(path.read_text(encoding="utf-8") for path in sources))


@lru_cache(maxsize=2)
def _cached_untrained(duke_dir: Path | None, vocabulary: Vocabulary | None) -> RelationExtractor:
    return untrained_extractor(vocabulary, duke_dir)


def load_relation_extractor(
    settings: Settings, linker: TextLinker, vocabulary: Vocabulary | None, *, untrained: bool = False
) -> RelationExtractor:
    """The process's extractor: trained on PPR's training split when it is there, else (or when
    `untrained`) the cue rules over the dictionary's names (`untrained_extractor`)."""
    training = ppr_train_path_of(settings)
    duke_dir = duke_dir_of(settings)
    if training is None or untrained:
        return _cached_untrained(duke_dir, vocabulary)
    inputs = [training, *(path for name in (FNFTAX, COMMON_NAMES) if duke_dir is not None
                          and (path := member(duke_dir, name)) is not None)]
    farmacy = farmacy_dir_of(duke_dir)
    inputs.extend(path for path in (member(farmacy, CONSTITUENTS) if farmacy is not None else None,) if path)
    mesh_path, linker_training = mesh_path_of(settings), training_path_of(settings)
    inputs.extend(path for path in (mesh_path, linker_training) if path is not None and path.is_file())
    return _cached_extractor(training, duke_dir, linker, vocabulary, settings.caches, tuple(inputs))
