"""Adverse effects stated in a text: CAUSES (chemical -> disease), from the linker's mentions and
cue words (no model download, no LLM). Interactions (INTERACTS_WITH) are `graph/interactions.py`'s.

    find_adverse_effects(text, linker.link(text), broader=catalog.broader, priors=priors)  # -> [StatedRelation, ...]
    AdverseEffectExtractor(catalog.broader, priors).relations(text, mentions)   # the same, as a sync's extractor

CAUSES: every chemical x disease pair that one sentence names both of is scored by a logistic
model over named features of the pair in its text: where each is first named (the lead sentence,
i.e. a title), how often, whether the chemical is the text's most named one, cue words between the
two ("X-induced Y", "Y after X", "caused by", "toxicity"), whether the disease is named as
something treated ("patients with Y", "treatment of Y") or the chemical as a protective agent,
whether the disease or chemical is an ancestor in the MeSH tree of another one the text names
(BC5CDR's relations name the most specific disease), what the words between the two say of the
chemical (`graph/harm_cues.py`: harm, association, hedged, denied), and what annotated abstracts say of each end
(`priors`, `graph/adverse_priors.py`: how often the disease is reported as induced, the chemical as
inducing, whether the pair is a known one; the linker's training file). A second stage judges each
pair's log-odds against the text's best pair (an abstract states few CID pairs). The weights were
fitted on BC5CDR's 500 training abstracts with the project's own linker (`bench/adverse_fit.py`,
which prints them); a pair scoring at least `THRESHOLD` becomes a relation whose evidence is the
sentence naming both with the strongest cue, and whose confidence is the measured precision on the
training split of the pairs in its score band.

Pairs no one sentence names both of (about a sixth of BC5CDR's: typically the title's chemical
and a disease a later sentence reports) are candidates too when the lead names the chemical or
the disease, or the chemical is the text's most named one; the same model scores them with their
own features (`cross_*`: which end the lead names, cue words in and near the other end's sentence,
whether that sentence names no other entity of the lead's end's kind, counts), so that the second
stage judges each pair beside all of them. They are never stated: no sentence could be quoted that
names both ends (`CAUSES_LEAD_EXTRACTOR` is the extractor name older graphs' rows of them carry;
`tool.query_kg` lists those as co-mentions).

A chemical that is a laboratory measure (ALT, creatinine, bilirubin: `graph/lab_measures.py`) is
never a candidate cause.

Document-level signals (`topics`: MeSH headings with their qualifiers, which BC5CDR does not
have) only add: a disease heading qualified `chemically induced` paired with a chemical heading
qualified `adverse effects`, `toxicity` or `poisoning` gives CAUSES in the sentence naming both
when the text model did not already.

The stated tier trades recall for precision: `THRESHOLD` is the lowest score at which the pairs
one sentence names both of reach 0.80 precision on BC5CDR's training split (`bench/adverse_fit.py`;
0.75 is asked of the development split and the test split is scored later). BC5CDR (dev, end to
end with the project's linker, priors from the 500 training abstracts): P 0.789 R 0.259 (F1 0.390;
before the tier, every pair scoring 0.25 including those the lead names one end of: P 0.513
R 0.532, measured with an earlier linker); with gold entities P 0.850 R 0.303 (`bio-mcp eval
adverse`). The linker caps recall: every pair of its entities covers 0.74 of the gold pairs, the
pairs one sentence names 0.56 (0.76 with the gold mentions), and over the gold mentions this model
gives P 0.776 R 0.424 at 0.45.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from bio_mcp.graph.adverse_priors import NO_PRIORS, AdversePriors
from bio_mcp.graph.cue_words import CueWords
from bio_mcp.graph.elements import CAUSES, StatedRelation
from bio_mcp.graph.facts import DocumentFacts
from bio_mcp.graph.harm_cues import ASSOCIATED, HARM, HEDGED, NEGATED, harm_between
from bio_mcp.graph.lab_measures import is_lab_measure
from bio_mcp.graph.mentions import Mention
from bio_mcp.graph.sentences import sentence_spans
from bio_mcp.graph.vocabulary import ancestors_of

CAUSES_EXTRACTOR = "cid-cues-logistic"
# The same model on a pair the lead (title) names one end of and a later sentence the other.
CAUSES_LEAD_EXTRACTOR = "cid-lead-logistic"
QUALIFIER_EXTRACTOR = "mesh-qualifier-cooccurrence"

# Fitted by bench/adverse_fit.py on BC5CDR's 500 training abstracts (the linker's mentions, each
# half linked by a linker trained on the other half); the intercept is "bias".
WEIGHTS: dict[str, float] = {
    "bias": -2.8469,
    "between_after": 0.1465,
    "between_associate": 0.5631,
    "between_develop": -0.0318,
    "between_induce": 0.2913,
    "between_negation": -0.1756,
    "between_protect": -0.4257,
    "between_toxic": 0.2957,
    "between_treat": -0.1894,
    "both_lead": -0.1287,
    "chemical_between": -0.3322,
    "chemical_for_disease": -0.436,
    "chemical_general": -1.8505,
    "chemical_induced_disease": 0.0933,
    "chemical_inducer": 0.4551,
    "chemical_lead": 0.0641,
    "chemical_protective": 0.3734,
    "chemical_top": 0.3895,
    "cross": -1.4583,
    "cross_alone": 0.3713,
    "cross_chemical_general": -0.7668,
    "cross_chemical_inducer": 0.3713,
    "cross_chemical_lead": 0.2478,
    "cross_chemical_protective": 0.3162,
    "cross_chemical_top": 0.8731,
    "cross_disease_general": -1.2318,
    "cross_disease_induced": -0.8051,
    "cross_disease_lead": 0.6258,
    "cross_disease_top": 0.5072,
    "cross_disease_treated": -0.2987,
    "cross_log_chemical_mentions": 0.9302,
    "cross_log_chemicals": -0.405,
    "cross_log_disease_mentions": -0.2116,
    "cross_log_diseases": 0.2802,
    "cross_near_cue": -0.2524,
    "cross_sentence_after": -0.2688,
    "cross_sentence_associate": 0.079,
    "cross_sentence_develop": 0.5516,
    "cross_sentence_induce": -0.1031,
    "cross_sentence_negation": -0.6216,
    "cross_sentence_protect": -0.3078,
    "cross_sentence_toxic": 0.7167,
    "cross_sentence_treat": -0.6974,
    "cue_between": -0.2524,
    "disease_between": 0.5186,
    "disease_by_chemical": 0.2599,
    "disease_first_position": 0.3367,
    "disease_general": -0.8992,
    "disease_induced": 0.0359,
    "disease_lead": -0.0703,
    "disease_top": 0.1976,
    "disease_treated": -0.7113,
    "harm_associated": 0.9195,
    "harm_harm": 1.2543,
    "harm_hedged": 0.6007,
    "harm_negated": -0.1787,
    "log_chemical_mentions": 0.038,
    "log_chemicals": 0.0613,
    "log_disease_mentions": 0.2323,
    "log_diseases": -0.1522,
    "log_sentences_both": 0.4726,
    "near": 0.195,
    "prior_chemical": 0.9404,
    "prior_chemical_seen": -0.5341,
    "prior_disease": 2.8931,
    "prior_disease_seen": -1.0949,
    "prior_pair": 1.1552,
    "sentence_after": -0.0576,
    "sentence_associate": -0.192,
    "sentence_develop": 0.6471,
    "sentence_induce": -0.2925,
    "sentence_negation": -0.4216,
    "sentence_protect": 0.1141,
    "sentence_toxic": -0.1514,
    "sentence_treat": -0.1253,
}
# The second stage, fitted on the first's out-of-fold log-odds: a pair is judged against the
# text's best one (an abstract states few CID pairs, mostly of its main chemical).
RELATIVE_WEIGHTS: dict[str, float] = {"bias": 0.2499, "gap": 0.4753, "logit": 0.5933, "positives": 0.0206, "top": -0.0566}
# The stated tier's threshold: 0.80 precision on the training split (bench/adverse_fit.py).
THRESHOLD = 0.59
# (lowest score of the band, precision of the band's pairs on the training split), highest first.
CONFIDENCE_BANDS: tuple[tuple[float, float], ...] = ((0.7, 0.842), (0.55, 0.688), (0.4, 0.457))
# BC5CDR has no MeSH headings: measured by hand on the shared PubMed records (466, with headings),
# where the rule adds 3 relations the text model did not give, 2 of them right; (2 + 1) / (3 + 2).
QUALIFIER_CONFIDENCE = 0.6

CHEMICALLY_INDUCED = "chemically induced"
HARMFUL_CHEMICAL_QUALIFIERS = frozenset(("adverse effects", "toxicity", "poisoning"))

_STRONG_CUE = re.compile(r"induc|caus|due to|toxic|secondary to|side effect|adverse|attribut|precipitat|provok|"
                         r"elicit|evok", re.IGNORECASE)
_AFTER_CHEMICAL = re.compile(r"^\s*-?\s*(induced|associated|related|provoked|evoked|treated|exposed|intoxicat|"
                             r"toxicity|overdose|poisoning|abuse|use)", re.IGNORECASE)
_DISEASE_BY = re.compile(r"(induced|caused|produced|provoked|evoked|elicited|precipitated|triggered) by\s*(\w+\s+){0,3}$|"
                         r"(due|secondary|attributed|attributable|related) to\s*(\w+\s+){0,3}$|"
                         r"(after|following|during|with)\s+(\w+\s+){0,3}$", re.IGNORECASE)
_FOR_DISEASE = re.compile(r"\b(for|of|in|against)\s+(the\s+)?(treatment|therapy|management|prevention)?\s*(of\s+)?$",
                          re.IGNORECASE)
_PROTECTIVE = re.compile(r"protect|prevent|attenuat|ameliorat|antagoni|revers|inhibit|block|suppress|abolish|"
                         r"counteract|pretreat|treatment with|treated with|therapy with|efficacy|effective|beneficial|"
                         r"improv", re.IGNORECASE)
_TREATED = re.compile(r"(treat(ment|ed|ing)?|therap(y|ies)|manag(ement|ed|ing)|patients|prevention|control|relief|"
                      r"prophylaxis|suffering|subjects|cases|men|women|children|history) (of|for|with|in|from)\s+"
                      r"(\w+\s+){0,3}$", re.IGNORECASE)
_INDUCED_BEFORE = re.compile(r"(induced|associated|related)\s*$", re.IGNORECASE)
_INDUCED_AFTER = re.compile(r"^\s*(induced|caused|produced|following|after|due to|secondary to)", re.IGNORECASE)
# Cue families looked for between the two names and in their sentence; the model weighs each.
_CUE_FAMILIES: dict[str, re.Pattern[str]] = {
    "induce": re.compile(r"induc|caus|provok|precipitat|elicit|evok|produc|trigger", re.IGNORECASE),
    "associate": re.compile(r"associat|related|link|correlat|attribut|due to|secondary to", re.IGNORECASE),
    "toxic": re.compile(r"toxic|side effect|adverse|complication|overdos|poison|intoxicat", re.IGNORECASE),
    "after": re.compile(r"\b(after|following|during|receiv|taking|exposure|exposed|administ)", re.IGNORECASE),
    "develop": re.compile(r"develop|occur|experienc|onset|incidence|risk|report", re.IGNORECASE),
    "treat": re.compile(r"\btreat|therap|efficacy|effective|improv|reliev|benefi|manage", re.IGNORECASE),
    "protect": re.compile(r"protect|prevent|attenuat|ameliorat|revers|inhibit|block|antagoni|suppress", re.IGNORECASE),
    "negation": re.compile(r"\b(no|not|without|neither|nor|absence|lack)\b", re.IGNORECASE),
}


# A pair whose every sentence gives the disease to another agent between the two (`_preempted`).
PREEMPTED = "preempted"
# A pair whose every sentence names the chemical as what another agent acts on (`_acted_on`).
ACTED_ON = "acted_on"
# What one agent does to another named a few words after it ("DEHP may disturb cholesterol homeostasis").
_ACTION = re.compile(r"\b(?:disturb|increas|decreas|reduc|elevat|rais|lower|alter|affect|modulat|regulat|"
                     r"deregulat|inhibit|stimulat|promot|accumul|deplet|enhanc|suppress|block|activat)\w*",
                     re.IGNORECASE)
_ACTION_WORDS = 6
# The words from a disease to the agent it is given to: "hepatotoxicity of DEHP". Only "of": on
# BC5CDR's training split "Y induced by X" also reads "induced by the dopamine antagonist sulpiride"
# and "induced by levetiracetam added to valproate", where the later chemical is a cause too.
_GIVEN_TO = re.compile(r"\s*of\s+(?:the\s+|a\s+|an\s+)?", re.IGNORECASE)
# Between two agents listed together: "X and Y", "X, Y", "X or Y", "X/Y", "X plus Y", "X (Y)".
_LISTED_TOGETHER = re.compile(r"\s*(?:\)?\s*(?:,|and|or|/|plus|with|\()\s*)+", re.IGNORECASE)

# The cue patterns asked of many stretches of a text, answered from one pass for their words
# (`graph/cue_words.py`); the protective words before a chemical are asked apart.
_PAIR_CUES = CueWords((_STRONG_CUE, *_CUE_FAMILIES.values()))
_PROTECTIVE_CUES = CueWords((_PROTECTIVE,))
# Each family's counts of a pair (cue between the names, cue in their sentence) and, in this order,
# the features made of them (named once here, not per pair).
_CUE_COUNTS = tuple((family, pattern, f"between_{family}", f"sentence_{family}")
                    for family, pattern in _CUE_FAMILIES.items())
_CUE_FEATURES = tuple(f"{where}_{family}" for where in ("between", "sentence") for family in _CUE_FAMILIES)
# What the words between the two names say of the chemical (`graph/harm_cues.py`), one feature each.
HARM_READINGS = (HARM, ASSOCIATED, HEDGED, NEGATED)
# Cue families looked for in the sentence that names the other end of a pair the lead names one end of.
_CROSS_CUES = ("induce", "toxic", "associate", "after", "develop", "treat", "protect", "negation")


@dataclass(frozen=True, slots=True)
class Topic:
    """A MeSH heading of the document: descriptor UI (no namespace) and its qualifier names, lower case."""

    descriptor_ui: str
    qualifiers: tuple[str, ...] = ()


def topics_of(facts: DocumentFacts) -> list[Topic]:
    """The document's MeSH headings with their qualifiers, as `find_adverse_effects` reads them."""
    qualifiers: dict[str, list[str]] = {}
    for ui, name in facts.qualifiers:
        qualifiers.setdefault(ui, []).append(name)
    return [Topic(ui, tuple(qualifiers.get(ui, ()))) for ui, _ in facts.topics]


@dataclass(slots=True)
class PairCandidate:
    """A chemical x disease pair, its features and its evidence sentence: the best sentence naming
    both, or (`features["cross"]`, no sentence names both) the best sentence naming the end the
    lead does not name."""

    chemical: str
    disease: str
    features: dict[str, float]
    sentence: tuple[int, int]
    cue: int


Broader = Callable[[str], Iterable[str]]


def _general(entities: Collection[str], ancestors: Callable[[str], frozenset[str]]) -> set[str]:
    """The `entities` that are an ancestor of another one of them."""
    return {parent for entity in entities for parent in ancestors(entity) if parent != entity and parent in entities}


def pair_candidates(text: str, mentions: Sequence[Mention], broader: Broader | None = None,
                    priors: AdversePriors = NO_PRIORS,
                    sentences: Sequence[tuple[int, int]] | None = None) -> list[PairCandidate]:
    """Every chemical x disease pair some sentence of `text` names both of, and every other pair
    whose chemical or disease the lead names (or whose chemical is the most named one), with the
    features the model scores (see the module docstring); the first sentence counts as the lead (a
    title). `sentences`: `sentence_spans(text)` when the caller has it already."""
    # A laboratory measure ("serum ALT", "creatinine") is reported, never a cause.
    chemicals = [m for m in mentions if m.entity_type == "Chemical" and not is_lab_measure(m.entity_id, m.text)]
    diseases = [m for m in mentions if m.entity_type == "Disease"]
    if not chemicals or not diseases:
        return []
    spans = sentence_spans(text) if sentences is None else sentences
    starts = [start for start, _ in spans]
    # Mention start -> its sentence's index, looked up once per mention (pairs ask it again and again).
    sentence_at = {m.start: max(0, bisect.bisect_right(starts, m.start) - 1) for m in (*chemicals, *diseases)}

    def sentence_of(mention: Mention) -> int:
        return sentence_at[mention.start]

    pair_cues = _PAIR_CUES.scan(text)
    # Which cue families each sentence holds, found once per sentence (not once per pair in it).
    sentence_cues: dict[int, dict[str, bool]] = {}

    def cues_of(index: int) -> dict[str, bool]:
        if index not in sentence_cues:
            start, end = spans[index] if spans else (0, len(text))
            found = pair_cues.matching(start, end, sliced=False)
            sentence_cues[index] = {family: pattern in found for family, pattern in _CUE_FAMILIES.items()}
        return sentence_cues[index]

    lead_end = spans[0][1] if spans else len(text)
    chemical_counts = Counter(m.entity_id for m in chemicals)
    disease_counts = Counter(m.entity_id for m in diseases)
    top_chemical = chemical_counts.most_common(1)[0][0]
    top_disease = disease_counts.most_common(1)[0][0]
    inducer: Counter[str] = Counter()
    protective: Counter[str] = Counter()
    induced: Counter[str] = Counter()
    treated: Counter[str] = Counter()
    protective_cues = _PROTECTIVE_CUES.scan(text)
    for mention in chemicals:
        sentence_start = spans[sentence_of(mention)][0] if spans else 0
        inducer[mention.entity_id] += bool(_AFTER_CHEMICAL.match(text[mention.end : mention.end + 20]))
        protective[mention.entity_id] += bool(protective_cues.matching(max(sentence_start, mention.start - 40),
                                                                      mention.start))
    for mention in diseases:
        before = text[max(0, mention.start - 40) : mention.start]
        induced[mention.entity_id] += bool(_INDUCED_BEFORE.search(before)
                                           or _INDUCED_AFTER.match(text[mention.end : mention.end + 25]))
        treated[mention.entity_id] += bool(_TREATED.search(before))
    if broader is not None:
        ancestors = ancestors_of(broader)
        general = _general(disease_counts.keys(), ancestors) | _general(chemical_counts.keys(), ancestors)
    else:
        general = set()
    log_chemicals, log_diseases = math.log(len(chemical_counts)), math.log(len(disease_counts))
    diseases_in: dict[int, list[Mention]] = {}
    for disease in diseases:
        diseases_in.setdefault(sentence_of(disease), []).append(disease)
    by_pair: dict[tuple[str, str], list[tuple[Mention, Mention]]] = {}
    for chemical in chemicals:
        for disease in diseases_in.get(sentence_of(chemical), ()):
            by_pair.setdefault((chemical.entity_id, disease.entity_id), []).append((chemical, disease))
    candidates = []
    for (chemical_id, disease_id), pairs in by_pair.items():
        counts: Counter[str] = Counter()
        best: tuple[bool, int, int, tuple[int, int]] | None = None
        nearest = 999
        readings: set[str | None] = set()
        for chemical, disease in pairs:
            readings.add(harm_between(text, (chemical.start, chemical.end), (disease.start, disease.end)))
            low, high = min(chemical.end, disease.end), max(chemical.start, disease.start)
            between = text[low:high] if low < high else ""
            words = len(between.split())
            nearest = min(nearest, words)
            cue = 0
            # text[low:high] as a string of its own (its ends are word boundaries).
            found = pair_cues.matching(low, high)
            if _STRONG_CUE in found:
                counts["cue_between"] += 1
                cue += 1
            sentence = spans[sentence_of(chemical)] if spans else (0, len(text))
            in_sentence = cues_of(sentence_of(chemical))
            for family, pattern, between_name, sentence_name in _CUE_COUNTS:
                if pattern in found:
                    counts[between_name] += 1
                if in_sentence[family]:
                    counts[sentence_name] += 1
            if any(low <= m.start and m.end <= high for m in diseases if m.entity_id != disease.entity_id):
                counts["disease_between"] += 1
            if any(low <= m.start and m.end <= high for m in chemicals if m.entity_id != chemical.entity_id):
                counts["chemical_between"] += 1
            if chemical.end <= disease.start and words <= 4 and _AFTER_CHEMICAL.match(text[chemical.end : chemical.end + 20]):
                counts["chemical_induced_disease"] += 1
                cue += 2
            if disease.end <= chemical.start and _DISEASE_BY.search(text[disease.end : chemical.start]):
                counts["disease_by_chemical"] += 1
                cue += 2
            if chemical.end <= disease.start and _FOR_DISEASE.search(text[chemical.end : disease.start][-40:]):
                counts["chemical_for_disease"] += 1
                cue -= 2
            preempted = _preempted(text, chemical, disease, chemicals)
            counts["preempted"] += preempted
            counts[ACTED_ON] += _acted_on(text, chemical, chemicals, sentence[0])
            if best is None or (not preempted, cue, -words) > best[:3]:
                best = (not preempted, cue, -words, sentence)
        chemical_n, disease_n = chemical_counts[chemical_id], disease_counts[disease_id]
        chemical_lead = any(m.end <= lead_end for m in chemicals if m.entity_id == chemical_id)
        disease_lead = any(m.end <= lead_end for m in diseases if m.entity_id == disease_id)
        first_disease = min(m.start for m in diseases if m.entity_id == disease_id)
        features = {
            "chemical_lead": float(chemical_lead),
            "disease_lead": float(disease_lead),
            "both_lead": float(chemical_lead and disease_lead),
            "chemical_top": float(chemical_id == top_chemical),
            "disease_top": float(disease_id == top_disease),
            "chemical_inducer": float(inducer[chemical_id] > 0),
            "disease_induced": float(induced[disease_id] > 0),
            "disease_general": float(disease_id in general),
            "chemical_general": float(chemical_id in general),
            "cue_between": float(counts["cue_between"] > 0),
            "chemical_induced_disease": float(counts["chemical_induced_disease"] > 0),
            "disease_by_chemical": float(counts["disease_by_chemical"] > 0),
            "chemical_for_disease": float(counts["chemical_for_disease"] > 0),
            "chemical_protective": protective[chemical_id] / chemical_n,
            "disease_treated": treated[disease_id] / disease_n,
            "log_chemical_mentions": math.log1p(chemical_n),
            "log_disease_mentions": math.log1p(disease_n),
            "log_sentences_both": math.log1p(len({sentence_of(c) for c, _ in pairs})),
            "log_chemicals": log_chemicals,
            "log_diseases": log_diseases,
            "disease_first_position": first_disease / max(1, len(text)),
            "near": float(nearest <= 5),
            "disease_between": counts["disease_between"] / len(pairs),
            "chemical_between": counts["chemical_between"] / len(pairs),
            **{name: float(counts[name] > 0) for name in _CUE_FEATURES},
            **{f"harm_{reading}": float(reading in readings) for reading in HARM_READINGS},
            # Not model features (no weight): `may_be_stated`'s guards.
            PREEMPTED: float(counts["preempted"] == len(pairs)),
            ACTED_ON: float(counts[ACTED_ON] == len(pairs)),
        }
        assert best is not None
        candidates.append(PairCandidate(chemical_id, disease_id, features, best[3], best[1]))
    lead_chemicals = {m.entity_id for m in chemicals if m.end <= lead_end}
    lead_diseases = {m.entity_id for m in diseases if m.end <= lead_end}
    for chemical_id in chemical_counts:
        for disease_id in disease_counts:
            if (chemical_id, disease_id) in by_pair:
                continue
            chemical_lead, disease_lead = chemical_id in lead_chemicals, disease_id in lead_diseases
            if not (chemical_lead or disease_lead or chemical_id == top_chemical):
                continue
            # The lead (title) names one end; the evidence is a sentence naming the other end.
            named, others = (diseases, chemicals) if chemical_lead or not disease_lead else (chemicals, diseases)
            named_id = disease_id if named is diseases else chemical_id
            best_cross: tuple[tuple[float, ...], tuple[int, int]] | None = None
            for mention in named:
                if mention.entity_id != named_id:
                    continue
                sentence = spans[sentence_of(mention)] if spans else (0, len(text))
                alone = not any(sentence[0] <= m.start and m.end <= sentence[1] for m in others)
                in_sentence = cues_of(sentence_of(mention))
                cues = tuple(float(in_sentence[family]) for family in _CROSS_CUES)
                near_cue = float(bool(_INDUCED_BEFORE.search(text[max(0, mention.start - 40) : mention.start])
                                      or _INDUCED_AFTER.match(text[mention.end : mention.end + 25])))
                rank = (near_cue, float(alone), cues[0] + cues[1], -sentence[0])
                if best_cross is None or rank > best_cross[0][:4]:
                    best_cross = ((near_cue, float(alone), cues[0] + cues[1], -sentence[0], *cues), sentence)
            assert best_cross is not None
            (near_cue, alone, _, _, *cues), sentence = best_cross
            features = {
                "cross": 1.0,
                "cross_chemical_lead": float(chemical_lead),
                "cross_disease_lead": float(disease_lead),
                "cross_chemical_top": float(chemical_id == top_chemical),
                "cross_disease_top": float(disease_id == top_disease),
                "cross_chemical_inducer": float(inducer[chemical_id] > 0),
                "cross_disease_induced": float(induced[disease_id] > 0),
                "cross_near_cue": near_cue,
                "cross_alone": alone,
                "cross_disease_general": float(disease_id in general),
                "cross_chemical_general": float(chemical_id in general),
                "cross_disease_treated": treated[disease_id] / disease_counts[disease_id],
                "cross_chemical_protective": protective[chemical_id] / chemical_counts[chemical_id],
                "cross_log_chemical_mentions": math.log1p(chemical_counts[chemical_id]),
                "cross_log_disease_mentions": math.log1p(disease_counts[disease_id]),
                "cross_log_chemicals": log_chemicals,
                "cross_log_diseases": log_diseases,
                **{f"cross_sentence_{family}": cue for family, cue in zip(_CROSS_CUES, cues)},
            }
            candidates.append(PairCandidate(chemical_id, disease_id, features, sentence, -1))
    for candidate in candidates:
        candidate.features.update(priors.features(candidate.chemical, candidate.disease))
    candidates.sort(key=lambda c: (c.chemical, c.disease))
    return candidates


def logit(features: dict[str, float], weights: dict[str, float] = WEIGHTS) -> float:
    """The first stage's log-odds that the pair is a stated adverse effect."""
    return weights.get("bias", 0.0) + sum([weights.get(name, 0.0) * value for name, value in features.items()])


def relative_features(logits: Sequence[float]) -> list[dict[str, float]]:
    """Each pair's first-stage log-odds beside the text's others: whether it is the best, how far
    below the best it is, and how many pairs the first stage finds likelier than not."""
    if not logits:
        return []
    best = max(logits)
    top = logits.index(best)
    positives = float(sum(z > 0 for z in logits))
    return [{"logit": z, "top": float(i == top), "gap": z - best, "positives": positives}
            for i, z in enumerate(logits)]


def probabilities(candidates: Sequence[PairCandidate]) -> list[float]:
    """The model's probability for each of one text's candidates: the second stage
    (`RELATIVE_WEIGHTS`) over the first's log-odds (`WEIGHTS`) and their place in the text."""
    return [1.0 / (1.0 + math.exp(-logit(features, RELATIVE_WEIGHTS)))
            for features in relative_features([logit(c.features) for c in candidates])]


def may_be_stated(candidate: PairCandidate) -> bool:
    """A pair no one sentence names both of is mentioned together, not stated: its quote could not
    name both. A pair only ever denied ("X did not induce Y") is never stated, whatever its score,
    nor one whose every sentence gives the disease to another agent named between the two, or names
    the chemical as what another agent acts on."""
    features = candidate.features
    denied = features.get("harm_negated") and not (features.get("harm_harm") or features.get("harm_associated"))
    return not features.get("cross") and not denied and not features.get(PREEMPTED) and not features.get(ACTED_ON)


def _preempted(text: str, chemical: Mention, disease: Mention, chemicals: Sequence[Mention]) -> bool:
    """Whether another agent named between `chemical` and `disease` is the one the words give the
    disease to: before a later disease ("The CCl4-induced fibrosis model showed that DEHP promoted
    liver damage": DEHP's liver damage, not CCl4's), or right after an earlier one ("Hepatotoxicity
    of DEHP is attributed to calcium aggravation": DEHP's, calcium a step of it), unless the two
    agents are listed together ("cisplatin and doxorubicin induced nephrotoxicity")."""
    if disease.start < chemical.end:
        return disease.end <= chemical.start and any(
            other.entity_id != chemical.entity_id and disease.end <= other.start and other.end <= chemical.start
            and _GIVEN_TO.fullmatch(text[disease.end : other.start])
            and not _LISTED_TOGETHER.fullmatch(text[other.end : chemical.start])
            for other in chemicals)
    for other in chemicals:
        if other.entity_id == chemical.entity_id or not (chemical.end <= other.start and other.end <= disease.start):
            continue
        if _LISTED_TOGETHER.fullmatch(text[chemical.end : other.start]):
            continue
        if harm_between(text, (other.start, other.end), (disease.start, disease.end)) == HARM:
            return True
    return False


def _acted_on(text: str, chemical: Mention, chemicals: Sequence[Mention], sentence_start: int) -> bool:
    """Whether another agent named earlier in the sentence acts on `chemical` a few words before it
    ("DEHP may disturb cholesterol homeostasis ..., thus leading to accelerated atherosclerosis": the
    atherosclerosis is DEHP's, cholesterol what DEHP disturbs), unless the chemical is named as the
    cause right after ("naloxone reduced morphine-induced rigidity": morphine's). On BC5CDR's
    training abstracts no pair the stated tier keeps is such a pair."""
    if _AFTER_CHEMICAL.match(text[chemical.end : chemical.end + 20]):
        return False
    for other in chemicals:
        if other.entity_id == chemical.entity_id or other.start < sentence_start or other.end > chemical.start:
            continue
        between = text[other.end : chemical.start]
        if len(between.split()) <= _ACTION_WORDS and _ACTION.search(between):
            return True
    return False


def confidence_of(probability: float) -> float:
    for lowest, precision in CONFIDENCE_BANDS:
        if probability >= lowest:
            return precision
    return CONFIDENCE_BANDS[-1][1]


def find_adverse_effects(text: str, mentions: Sequence[Mention], topics: Sequence[Topic] = (),
                         broader: Broader | None = None, threshold: float = THRESHOLD,
                         priors: AdversePriors = NO_PRIORS) -> list[StatedRelation]:
    """CAUSES relations `text` states, each with the sentence that states it.

    `mentions`: the linker's mentions of `text`; `topics`: the document's MeSH headings with their
    qualifiers (empty when unknown); `broader`: entity id -> its parents in the MeSH tree (e.g.
    the graph catalog's `broader`), used to prefer the most specific disease; `priors`: what
    annotated abstracts say of each end (`graph/adverse_priors.py`; the linker's training file).
    """
    relations: dict[tuple[str, str, str], StatedRelation] = {}
    # Every relation here has a chemical source.
    if not any(m.entity_type == "Chemical" for m in mentions):
        return []
    sentences = sentence_spans(text)
    candidates = pair_candidates(text, mentions, broader, priors, sentences)
    for candidate, probability in zip(candidates, probabilities(candidates), strict=True):
        if probability >= threshold and may_be_stated(candidate):
            start, end = candidate.sentence
            relations[(candidate.chemical, CAUSES, candidate.disease)] = StatedRelation(
                candidate.chemical, CAUSES, candidate.disease, start, end, CAUSES_EXTRACTOR, confidence_of(probability))
    for relation in _qualifier_relations(candidates, topics):
        relations.setdefault((relation.src, relation.type, relation.dst), relation)
    return sorted(relations.values(), key=lambda r: (r.start, r.src, r.type, r.dst))


class AdverseEffectExtractor:
    """`find_adverse_effects` in the shape a sync's relation extractors take: `relations(text,
    mentions)` per section (whose text starts with the title, the lead sentence), plus the record's
    MeSH headings when the caller has them (`topics_of(facts)`)."""

    def __init__(self, broader: Broader | None = None, priors: AdversePriors = NO_PRIORS) -> None:
        # The tree is read for every text (which of its entities are ancestors of others) and does
        # not change: its parents are remembered across texts (looking them up was a tenth of the
        # extractor's time).
        self._broader = None if broader is None else lru_cache(maxsize=1 << 16)(lambda entity_id: tuple(broader(entity_id)))
        self._priors = priors

    def relations(self, text: str, mentions: Sequence[Mention], topics: Sequence[Topic] = ()) -> list[StatedRelation]:
        return find_adverse_effects(text, mentions, topics, self._broader, priors=self._priors)


def _qualifier_relations(candidates: Sequence[PairCandidate], topics: Sequence[Topic]) -> Iterable[StatedRelation]:
    induced = {f"mesh:{t.descriptor_ui}" for t in topics if CHEMICALLY_INDUCED in t.qualifiers}
    harmful = {f"mesh:{t.descriptor_ui}" for t in topics if HARMFUL_CHEMICAL_QUALIFIERS.intersection(t.qualifiers)}
    for candidate in candidates:
        if candidate.chemical in harmful and candidate.disease in induced and not candidate.features.get("cross"):
            start, end = candidate.sentence
            yield StatedRelation(candidate.chemical, CAUSES, candidate.disease, start, end, QUALIFIER_EXTRACTOR,
                                 QUALIFIER_CONFIDENCE)
