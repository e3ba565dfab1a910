"""What a question asks about, and whether a sentence names it: the question's subject (the herb,
drug or exposure) and its outcome or condition, each by any synonym.

tool.rag_answer quotes only sentences that name both (`Focus.admits`), so a paper on hepatitis
caused by another herb is never quoted for "does Phyllanthus help hepatitis?", nor a
cancer-prevention review of green tea for "does green tea help weight loss?".

The question is read through the MeSH linker (the same one the corpus's sections are linked with)
and the names the query reading gives each entity it found (a Thai herb name's English and
scientific names: `QueryReading.names`):
- each entity the query reading named is one anchor, all its names together (Tea and Camellia
  sinensis are one subject);
- a measure the question names ("blood pressure") is one anchor, a disease: the disorders MeSH
  names by it being high or low (Hypertension is "Blood Pressure, High", Hypotension "Blood
  Pressure, Low");
- each other linked MeSH concept is one anchor;
- the content words no anchor covers are terms, except words that frame a question rather than
  name its topic ("effective", "associated", "increase", ...).
A sentence names an anchor when the linker finds in it the anchor's concept, a narrower one
(hepatitis B for hepatitis) or a drug whose MeSH pharmacological action it is (captopril for
antihypertensive agents), or when it holds every content word of one of the anchor's names.

A drug name the linker does not know, recognised by its INN stem (semaglutide: -glutide), is an
anchor too, and the subject.

Subject: the first anchor that is not a disease (when only a disease is linked, the question's first
term stands in for it, and a sentence must hold another of the question's words too). Outcome: the first disease anchor after it, else the next anchor, else any of the terms. Without linked anchors, a sentence must hold two of the terms
(or the only one). A word of the question the reading could not put in English (a Thai herb name
it does not know, ลูกใต้ใบ) must be in the sentence as written, so an English sentence cannot stand
for it: the answer is withheld rather than quote hepatitis papers for "ลูกใต้ใบ and hepatitis".
A question about an interaction ("interacts", "with warfarin", ...) also needs an
interaction cue in the sentence (interacts, potentiates, AUC, CYP, INR, bleeding, ...).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bio_mcp.features.evidence.answer_confidence import WORD, content_terms
from bio_mcp.features.kb.search import QueryLinker
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.inn_stems import inn_drugs
from bio_mcp.graph.mentions import Mention

# Words that say what is asked about a topic, not what the topic is (stemmed as `content_terms` does).
FRAMING = frozenset(content_terms(
    "effective efficacious efficacy effect effects safe safety associated association associate impact influence "
    "influences increase increases decrease decreases reduce reduces reduced improve improves improved affect "
    "affects predict predicts predictive relevant role necessary possible useful related relate relationship "
    "differ different difference better worse lower higher still really justified work works need needed help "
    "helps use used using benefit beneficial cause causes lead leads good bad treat treatment treated therapy "
    "value valuable reliable accurate feasible appropriate important matter evidence risk there exist "
    "prevent prevents preventing prevention preventive protect protects protective "
    # How the subject is met ("Is phthalate exposure safe during pregnancy?"): a sentence naming the
    # subject and "exposure" alone said nothing of pregnancy.
    "exposure exposures exposed expose take takes taking taken intake consume consumed consuming consumption"
))
# Thai words that frame a health question (treat, reduce, help, properties, ...): left untranslated
# by the reading, they are no topic a sentence must name.
THAI_FRAMING = frozenset([
    "รักษา", "การรักษา", "ลด", "ช่วย", "สรรพคุณ", "ประโยชน์", "ป้องกัน", "บรรเทา", "เพิ่ม", "ใช้", "กิน", "ทาน",
    "ได้ผล", "ผล", "ดี", "โรค", "อาการ", "แก้", "บำรุง", "ร่วมกับ", "คือ", "อะไร", "อย่างไร", "จริง",
])
# MeSH's tree is rarely deeper than this above a concept a sentence names.
_MAX_ANCESTOR_STEPS = 12
_BINOMIAL = re.compile(r"([A-Z][a-z]+) ([a-z]{3,})")
# The longest measure looked for: "blood pressure", "bone mineral density".
_MEASURE_WORDS = 3
_INTERACTION_QUESTION = re.compile(
    r"interact|interfer|\bwith (?:\w+ ){0,3}(?:drugs?|medicines?|medications?|warfarin|anticoagulants?)\b"
    r"|together with|combined with|concomitant|co-?administ|ร่วมกับ|ปฏิกิริยา|ตีกัน|กินกับยา|ใช้กับยา",
    re.IGNORECASE,
)
_INTERACTION_CUE = re.compile(
    r"interact|potentiat|synergi|antagoni|co-?administ|concomitant|combin|pharmacokinetic|\bAUC\b|\bC ?max\b|"
    r"\bCYP\s?\d|cytochrome P450|P-glycoprotein|\bP-gp\b|\bINR\b|bleeding|plasma (?:level|concentration)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QueryReading:
    """The English text a question is searched with and, for each entity the reading named (a herb
    named in Thai or English), that entity's English names."""

    text: str
    names: tuple[tuple[str, ...], ...] = ()
    # Words of the question the reading could not put in English (a Thai herb or complaint it does
    # not know): no English sentence can be checked to name them.
    unread: tuple[str, ...] = ()


@dataclass
class Anchor:
    label: str
    entity_ids: set[str] = field(default_factory=set)
    phrases: list[tuple[str, ...]] = field(default_factory=list)
    disease: bool = False
    anatomy: bool = False
    # A scientific name's abbreviated form as papers write it after first use (A. paniculata).
    abbreviations: list[re.Pattern[str]] = field(default_factory=list)
    # A word of the question standing for a subject nothing was linked for ("year" of "Is year of
    # radical prostatectomy a predictor of outcome in prostate cancer?").
    stand_in: bool = False


@dataclass
class Focus:
    """The question's anchors and what a quoted sentence must name of them."""

    subject: Anchor | None
    outcome: Anchor | None
    terms: list[str]
    interaction: bool
    linker: QueryLinker | None
    catalog: MeshCatalog | None
    unread: tuple[str, ...] = ()
    _broader: dict[str, frozenset[str]] = field(default_factory=dict)

    @property
    def constrained(self) -> bool:
        return self.subject is not None or bool(self.terms)

    def describe(self) -> tuple[str | None, str | None]:
        outcome = self.outcome.label if self.outcome is not None else (" / ".join(self.terms) or None)
        return (self.subject.label if self.subject is not None else None, outcome)

    def admits(self, sentence: str, linked: Iterable[str] | None = None) -> bool:
        """Whether `sentence` names what the question asks about. `linked`: the entities the linker
        found in it when its whole section was linked (an abbreviation the section defines, HPV for
        human papillomavirus, is only read so); without it the sentence is linked alone."""
        if any(word not in sentence for word in self.unread):
            return False
        if not self.constrained:
            return True
        if self.interaction and not _INTERACTION_CUE.search(sentence):
            return False
        stems = set(content_terms(sentence))
        entities = self._entities(sentence) if linked is None else self._widened(linked)
        if self.subject is not None:
            if not self._names(self.subject, stems, entities, sentence):
                return False
            if self.outcome is not None and not self._names(self.outcome, stems, entities, sentence):
                return False
            if self.outcome is not None and not self.subject.stand_in:
                return True
            # A stand-in subject is one common word ("year", "stage", "symptoms"): another of the
            # question's words must be there too, or any paper on the disease that says "years" is
            # quoted for it.
            return not self.terms or any(term in stems for term in self.terms)
        return sum(term in stems for term in self.terms) >= min(2, len(self.terms))

    def names_subject(self, text: str) -> bool:
        """Whether `text` names the question's subject (False when the question has none)."""
        if self.subject is None:
            return False
        return self._names(self.subject, set(content_terms(text)), self._entities(text), text)

    def _entities(self, sentence: str) -> set[str]:
        return self._widened(m.entity_id for m in _link(self.linker, sentence))

    def _widened(self, entity_ids: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for entity_id in entity_ids:
            found |= self._wider(entity_id)
        return found

    def _wider(self, entity_id: str) -> frozenset[str]:
        """The entity, every broader MeSH concept above it and its pharmacological actions."""
        if entity_id in self._broader:
            return self._broader[entity_id]
        seen = {entity_id}
        if self.catalog is not None:
            seen.update(self.catalog.pharm_actions(entity_id))
            frontier = [entity_id]
            for _ in range(_MAX_ANCESTOR_STEPS):
                frontier = [parent for node in frontier for parent in self.catalog.broader(node) if parent not in seen]
                if not frontier:
                    break
                seen.update(frontier)
        self._broader[entity_id] = frozenset(seen)
        return self._broader[entity_id]

    def _names(self, anchor: Anchor, stems: set[str], entities: set[str], sentence: str) -> bool:
        if anchor.entity_ids & entities:
            return True
        if any(pattern.search(sentence) for pattern in anchor.abbreviations):
            return True
        return any(phrase and all(word in stems for word in phrase) for phrase in anchor.phrases)


def read_focus(
    question: str, reading: QueryReading, linker: QueryLinker | None, catalog: MeshCatalog | None
) -> Focus:
    text = reading.text or question
    anchors: list[Anchor] = []
    for names in reading.names:
        anchor = Anchor(label=names[0] if names else "")
        for name in names:
            anchor.phrases.append(tuple(content_terms(name)))
            anchor.entity_ids |= {m.entity_id for m in _link(linker, name)}
            anchor.abbreviations += _abbreviations(name)
        if anchor.phrases:
            anchors.append(anchor)
    covered = {word for anchor in anchors for phrase in anchor.phrases for word in phrase}
    linked = _link(linker, text)
    measures: list[Anchor] = []
    for phrase_text, disorders in _measures(linker, text, linked):
        phrase = tuple(content_terms(phrase_text))
        if phrase and not all(word in covered for word in phrase):
            measures.append(Anchor(label=phrase_text, entity_ids=set(disorders), phrases=[phrase], disease=True))
            covered.update(phrase)
    anchors += measures
    for mention in linked:
        phrase = tuple(content_terms(mention.text))
        if not phrase or all(word in covered for word in phrase):
            continue
        # A disorder named beside a measure ("blood pressure in hypertensive patients") is its own anchor.
        same = next((a for a in anchors if mention.entity_id in a.entity_ids and a not in measures), None)
        if same is None:
            same = Anchor(label=mention.text, disease=mention.entity_type == "Disease",
                          anatomy=mention.entity_type == "Anatomy")
            anchors.append(same)
        same.entity_ids.add(mention.entity_id)
        same.phrases.append(phrase)
        same.abbreviations += _abbreviations(mention.text)
        covered.update(phrase)
    # A drug the linker does not know is the question's subject: without it, "Does semaglutide reduce
    # body weight?" was answered with rat studies of other chemicals that name body weight.
    for word in inn_drugs(text):
        phrase = tuple(content_terms(word))
        if phrase and not all(part in covered for part in phrase):
            anchors.insert(0, Anchor(label=word, phrases=[phrase]))
            covered.update(phrase)
    # A concept named inside a longer one (carotid artery in carotid artery stenosis) is that one's.
    anchors = [a for a in anchors if not any(
        b is not a and all(any(set(p) < set(q) for q in b.phrases) for p in a.phrases) for b in anchors)]
    terms = [t for t in content_terms(text) if t not in covered and t not in FRAMING and not t.isdigit()]
    # A body part says where, not what: it is the subject or outcome only when nothing else is.
    anchors.sort(key=lambda a: a.anatomy)
    subject = next((a for a in anchors if not a.disease and not a.anatomy),
                   next((a for a in anchors if not a.anatomy), anchors[0] if anchors else None))
    if subject is not None and subject.disease and len(anchors) == 1 and terms:
        # Only a disease was linked ("Does a colonoscopy after acute diverticulitis ..."): it is the
        # outcome, and the question's first other word stands for the subject.
        anchors.insert(0, Anchor(label=terms[0], phrases=[(terms[0],)], stand_in=True))
        subject, terms = anchors[0], terms[1:]
    rest = [a for a in anchors if a is not subject]
    outcome = next((a for a in rest if a.disease), rest[0] if rest else None)
    interaction = bool(_INTERACTION_QUESTION.search(question) or _INTERACTION_QUESTION.search(text))
    unread = tuple(word for word in reading.unread if word not in THAI_FRAMING)
    return Focus(subject, outcome, terms, interaction, linker, catalog, unread)


def _measures(
    linker: QueryLinker | None, text: str, linked: Sequence[Mention]
) -> list[tuple[str, frozenset[str]]]:
    """The measures the question names ("blood pressure", "cholesterol levels", "sperm count"), each
    with the disorders MeSH names by it being high or low ("Blood Pressure, High" is Hypertension):
    a sentence on garlic and hypertension answers "Does garlic lower blood pressure?", which had read
    "blood" alone, as a body part. Longest phrase first, none overlapping another or a disease the
    question names itself ("back pain" of "low back pain" is that disease, not a measure)."""
    if linker is None:
        return []
    words = list(WORD.finditer(text))
    taken = [(m.start, m.end) for m in linked if m.entity_type == "Disease"]
    found: list[tuple[int, str, frozenset[str]]] = []
    for size in range(_MEASURE_WORDS, 0, -1):
        for first in range(len(words) - size + 1):
            start, end = words[first].start(), words[first + size - 1].end()
            if any(start < taken_end and taken_start < end for taken_start, taken_end in taken):
                continue
            phrase = text[start:end]
            disorders = frozenset(
                mention.entity_id for level in ("high", "low") for mention in linker.link(f"{level} {phrase}")
                if mention.entity_type == "Disease" and mention.start == 0 and mention.end == len(level) + 1 + len(phrase)
            )
            if disorders:
                taken.append((start, end))
                found.append((start, phrase, disorders))
    return [(phrase, disorders) for _, phrase, disorders in sorted(found)]


def _abbreviations(name: str) -> list[re.Pattern[str]]:
    """A scientific name as papers abbreviate it after first use (A. paniculata, S. aureus)."""
    binomial = _BINOMIAL.fullmatch(name.strip())
    if binomial is None:
        return []
    genus, epithet = binomial.groups()
    return [re.compile(rf"\b{genus[0]}\.\s?{re.escape(epithet)}\b")]


def _link(linker: QueryLinker | None, text: str) -> Sequence[Mention]:
    return linker.link(text) if linker is not None and text.strip() else ()

