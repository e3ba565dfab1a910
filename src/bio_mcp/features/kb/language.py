"""Thai and English queries: which language a text is in, Thai word segmentation that keeps the
graph's herb names whole, and the cross-lingual step from a Thai query to the English literature.
`kb.search` reads a query with Thai words so, and the evidence tools (tool.hybrid_search,
tool.rag_answer) build on it: one reading of Thai for every search.

    lexicon = load_lexicon(connection)                    # kg_names, cached per database and row count
    query = cross_lingual("ฟ้าทะลายโจรรักษาไข้หวัด", "auto", lexicon)
    query.lang                 # 'th'
    query.tokens               # ('ฟ้าทะลายโจร', 'รักษา', 'ไข้หวัด')
    query.entity_ids           # ('mesh:D035685',)
    query.search_text_en       # 'Andrographis paniculata Green chiretta'

Segmentation is pythainlp's `newmm` (dictionary-based maximal matching) over its shipped Thai word
list plus every Thai name in `kg_names`, so "ฟ้าทะลายโจร" stays one token instead of ฟ้า/ทะลาย/โจร
and maps to its entity; the herbs of examples/kg/thai_herb_names.tsv (`search.thai_herbs`) are kept
whole and read by their names even before the graph holds them. The English side of an entity is
its non-Thai names (English and scientific) and, when a describer is given, its MeSH preferred name;
a linker looking for more entities reads only the scientific and MeSH ones (`link_text_en`), as a
synonym may be another herb's name. Thai loanwords (ไวรัส, อินซูลิน)
are carried over through pythainlp's Thai-English transliteration dictionary, drug and chemical
names spelt in Thai (วาร์ฟาริน, warfarin) through their MeSH names (`search.thai_loanwords`), and other
Thai words (เบาหวาน, ผลข้างเคียง) through Thai WordNet joined to Princeton WordNet (`search.thai_english`),
when Debian's `wordnet-base` is installed: words the segmenter cut from one lemma as that lemma
(มะเร็ง|ตับ, liver cancer), a bare complaint as the disease or symptom WordNet files it under.
Everything pythainlp reads here ships inside its wheel: nothing is downloaded.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import ahocorasick
import sqlalchemy as sa
from pythainlp.corpus import thai_stopwords, thai_words
from pythainlp.corpus.th_en_translit import get_transliteration_dict
from sqlalchemy.engine import Connection

from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.names import EntityName, all_names, normalise_name
from bio_mcp.search.thai_english import thai_english_words
from bio_mcp.search.thai_health_words import health_words
from bio_mcp.search.thai_herbs import known_herbs
from bio_mcp.search.thai_loanwords import LoanwordIndex, LoanwordMatch
from bio_mcp.search.word_trie import WordTrie, thai_segments
from bio_mcp.store import MetadataStore
from bio_mcp.store.schema import kg_names
from bio_mcp.thai_script import THAI_CHAR, THAI_RUN

Lang = Literal["th", "en"]
LangChoice = Literal["th", "en", "auto"]

_LATIN_CHAR = re.compile(r"[A-Za-z]")
_LATIN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")


def detect_lang(text: str) -> Lang:
    """'th' when Thai letters are at least as many as Latin ones (and there are any), else 'en'.

    Thai questions often carry an English drug or plant name ("ฟ้าทะลายโจร กับ warfarin"); ties go to
    Thai, the product's first language."""
    thai = len(THAI_CHAR.findall(text))
    latin = len(_LATIN_CHAR.findall(text))
    return "th" if thai > 0 and thai >= latin else "en"


def resolve_lang(text: str, lang: LangChoice) -> Lang:
    return detect_lang(text) if lang == "auto" else lang


def fold(name: str) -> str:
    """The key English names are matched by: NFKC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


@lru_cache(maxsize=1)
def _transliterations() -> dict[str, str]:
    """Thai loanword -> its English spelling (the first one listed), from pythainlp's shipped dictionary."""
    return {thai: entry["en"][0] for thai, entry in get_transliteration_dict().items() if entry["en"]}


@lru_cache(maxsize=1)
def _base_words() -> frozenset[str]:
    return frozenset(thai_words()) | frozenset(_transliterations())


# The question particle ไหม ("...ได้ไหม", can I ...?) ends most Thai questions; pythainlp lists มั้ย
# but not ไหม, which Thai WordNet reads as silk(worm), the word's other sense (silk is mostly
# written ผ้าไหม or เส้นไหม, which the segmenter keeps whole).
_QUESTION_PARTICLES = frozenset({"ไหม"})


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    return frozenset(thai_stopwords()) | _QUESTION_PARTICLES


@dataclass(frozen=True)
class NameLexicon:
    """The names of `kg_names` as matchers: Thai names by exact token, English and scientific names
    by whole-word match (case-folded), and each entity's names for display and expansion.
    `herbs`: the shipped Thai herb names (`search.thai_herbs`) the graph does not hold, each with its
    scientific and English name, read as words (no entity) so that the herb wins over WordNet."""

    thai: dict[str, tuple[str, ...]]
    english: dict[str, tuple[str, ...]]
    names: dict[str, tuple[EntityName, ...]]
    words: WordTrie
    english_matcher: ahocorasick.Automaton | None
    herbs: dict[str, tuple[str, str]]

    def is_name(self, word: str) -> bool:
        """A herb's (or another entity's) Thai name: never cut into WordNet words or drug syllables."""
        return word in self.thai or word in self.herbs

    def english_names(self, entity_id: str) -> list[str]:
        """The entity's non-Thai names, scientific first, then preferred, then common."""
        order = {"scientific": 0, "preferred": 1, "common": 2}
        found = [n for n in self.names.get(entity_id, ()) if n.lang != "th"]
        found.sort(key=lambda n: (order.get(n.kind, 3), n.name))
        return list(dict.fromkeys(n.name for n in found))

    def thai_names(self, entity_id: str) -> list[str]:
        return [n.name for n in self.names.get(entity_id, ()) if n.lang == "th"]


def build_lexicon(names: Iterable[EntityName]) -> NameLexicon:
    thai: dict[str, set[str]] = {}
    english: dict[str, set[str]] = {}
    by_entity: dict[str, list[EntityName]] = {}
    for name in names:
        text = normalise_name(name.name)
        by_entity.setdefault(name.entity_id, []).append(name)
        if name.lang == "th":
            thai.setdefault(text, set()).add(name.entity_id)
        else:
            english.setdefault(fold(text), set()).add(name.entity_id)
    matcher: ahocorasick.Automaton | None = None
    if english:
        matcher = ahocorasick.Automaton()
        for key in english:
            matcher.add_word(key, key)
        matcher.make_automaton()
    herbs = {name: names for name, names in known_herbs().items() if name not in thai}
    words = WordTrie(_base_words() | frozenset(thai) | frozenset(herbs) | frozenset(health_words()))
    return NameLexicon(
        thai={k: tuple(sorted(v)) for k, v in thai.items()},
        english={k: tuple(sorted(v)) for k, v in english.items()},
        names={k: tuple(v) for k, v in by_entity.items()},
        words=words,
        english_matcher=matcher,
        herbs=herbs,
    )


_LEXICONS: dict[tuple[str, int], NameLexicon] = {}
_LEXICON_LOCK = threading.Lock()


def load_lexicon(connection: Connection) -> NameLexicon:
    """The lexicon of the database's `kg_names`, rebuilt only when the table has grown (names are only
    ever added: `write_names` is insert-only), so a `bio-mcp kg import` is seen on the next query."""
    count = connection.execute(sa.select(sa.func.count()).select_from(kg_names)).scalar_one()
    key = (connection.engine.url.render_as_string(hide_password=True), int(count))
    with _LEXICON_LOCK:
        cached = _LEXICONS.get(key)
    if cached is not None:
        return cached
    lexicon = build_lexicon(all_names(connection))
    with _LEXICON_LOCK:
        for stale in [k for k in _LEXICONS if k[0] == key[0]]:
            del _LEXICONS[stale]
        _LEXICONS[key] = lexicon
    return lexicon


def segment(text: str, lexicon: NameLexicon | None = None) -> list[str]:
    """Words of `text`: Thai runs segmented (herb names of `lexicon` kept whole), other words as written."""
    words = lexicon.words if lexicon is not None else _default_words()
    return [token for token in (t.strip() for t in thai_segments(text, words)) if token]


@lru_cache(maxsize=1)
def _default_words() -> WordTrie:
    return WordTrie(_base_words() | frozenset(health_words()))


@dataclass(frozen=True)
class NameMatch:
    text: str
    entity_id: str
    lang: str


@dataclass(frozen=True)
class CrossLingualQuery:
    """A query made ready for the English literature.

    `search_text_en` is what the corpus is searched with: the query's Latin words as written, each
    named entity's English names (drugs spelt in Thai among them), Thai loanwords in English and
    other Thai words by WordNet; when nothing in a Thai query has an English counterpart it is the
    segmented Thai text itself (`translated` False: only words can match it, e.g. in ingested Thai
    documents; an English embedding model cannot read it).
    `untranslated` lists the Thai words (stopwords aside) that had none.
    `link_text_en` is what an entity linker reads for more entities: `search_text_en` without the
    common names and synonyms the named entities were expanded to, only their scientific and MeSH
    names. A synonym may be another herb's name (turmeric's "Indian saffron"), and the user did not
    ask about saffron."""

    query: str
    lang: Lang
    tokens: tuple[str, ...]
    entity_ids: tuple[str, ...]
    matches: tuple[NameMatch, ...]
    search_text_en: str
    untranslated: tuple[str, ...]
    translated: bool = True
    link_text_en: str = ""


def _english_matches(text: str, lexicon: NameLexicon) -> list[tuple[int, str]]:
    """(start, folded name) of every whole-word English name in `text`, longest first where they overlap."""
    if lexicon.english_matcher is None:
        return []
    folded = fold(text)
    spans: list[tuple[int, int, str]] = []
    for end, key in lexicon.english_matcher.iter(folded):
        start = end - len(key) + 1
        before = folded[start - 1] if start > 0 else " "
        after = folded[end + 1] if end + 1 < len(folded) else " "
        if not before.isalnum() and not after.isalnum():
            spans.append((start, end, key))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    chosen: list[tuple[int, str]] = []
    reach = -1
    for start, end, key in spans:
        if start > reach:
            chosen.append((start, key))
            reach = end
    return chosen


def cross_lingual(
    query: str,
    lang: LangChoice,
    lexicon: NameLexicon,
    describe: Callable[[str], str | None] | None = None,
    substances: LoanwordIndex[str] | None = None,
) -> CrossLingualQuery:
    """Segment `query`, find the entities it names (Thai names by token, drug and chemical names spelt
    in Thai by `substances`, English and scientific names by whole words) and build the English
    search text. `describe(entity_id)` may add a name the entity has outside `kg_names` (its MeSH
    preferred name)."""
    resolved = resolve_lang(query, lang)
    tokens: list[str] = []
    pieces: list[str] = []
    own: list[str] = []  # the pieces an entity linker may read (`CrossLingualQuery.link_text_en`)
    untranslated: list[str] = []
    matches: list[NameMatch] = []
    position = 0
    for run in THAI_RUN.finditer(query):
        latin = query[position : run.start()]
        tokens += _LATIN_WORD.findall(latin)
        pieces.append(latin)
        own.append(latin)
        position = run.end()
        words = _complaints_whole(segment(run.group(), lexicon), lexicon)
        spelt = _substance_spans(words, lexicon, substances) if substances is not None else {}
        index = 0
        while index < len(words):
            if index in spelt:
                end, substance = spelt[index]
                tokens.append(substance.thai)
                matches += [NameMatch(substance.thai, entity, "th") for entity in substance.values]
                pieces.extend([substance.english, *_expansion(substance.values, lexicon, describe)])
                own.extend([substance.english, *_own_names(substance.values, lexicon, describe)])
                index = end
                continue
            if words[index] in health_words() and not lexicon.is_name(words[index]):
                # A common complaint by the glossary before WordNet, whose first sense of ไอ is "vapor".
                tokens.append(words[index])
                pieces.extend(health_words()[words[index]])
                own.extend(health_words()[words[index]])
                index += 1
                continue
            compound = _wordnet_compound(words, index, lexicon, next((start for start in spelt if start > index), None))
            if compound is not None:
                end, lemma = compound
                tokens.append(lemma)
                pieces.extend(thai_english_words()[lemma])
                own.extend(thai_english_words()[lemma])
                index = end
                continue
            token = words[index]
            index += 1
            tokens.append(token)
            entities = lexicon.thai.get(token)
            english: Sequence[str] = ()
            if entities:
                matches += [NameMatch(token, entity, "th") for entity in entities]
                pieces.extend(_expansion(entities, lexicon, describe))
                own.extend(_own_names(entities, lexicon, describe))
            elif token in lexicon.herbs:
                scientific, common = lexicon.herbs[token]
                pieces.extend((scientific, common))
                own.append(scientific)
            elif token in _stopwords():
                continue
            elif token in thai_english_words().first_tier:
                # A plant, food, complaint or substance before the transliteration dictionary, which
                # also spells names by their sound (ทับทิม, pomegranate, is there as the name Ruby).
                english = thai_english_words()[token]
            elif token in _transliterations():
                english = (_transliterations()[token],)
            elif _SYMPTOM_PREFIX + token in thai_english_words():
                # The symptom before the word's other senses, none of which is a complaint or a part
                # of the body (first_tier, above): คัน is itching (อาการคัน, pruritus), not a handle.
                english = thai_english_words()[_SYMPTOM_PREFIX + token]
            elif token in thai_english_words():
                english = thai_english_words()[token]
            elif (lemma := _prefixed_lemma(token)) is not None:
                english = thai_english_words()[lemma]
            else:
                untranslated.append(token)
            pieces.extend(english)
            own.extend(english)
    tail = query[position:]
    tokens += _LATIN_WORD.findall(tail)
    pieces.append(tail)
    own.append(tail)
    latin_text = _each_word_once(" ".join(pieces))
    for _, key in _english_matches(" ".join(p for p in _latin_only(query)), lexicon):
        matches += [NameMatch(key, entity, "en") for entity in lexicon.english[key]]
    entity_ids = tuple(dict.fromkeys(m.entity_id for m in matches))
    translated = bool(_LATIN_WORD.search(latin_text))
    return CrossLingualQuery(
        query=query, lang=resolved, tokens=tuple(tokens), entity_ids=entity_ids, matches=tuple(matches),
        search_text_en=latin_text if translated else " ".join(tokens), untranslated=tuple(untranslated),
        translated=translated, link_text_en=_each_word_once(" ".join(own)),
    )


# WordNet's Thai compounds the segmenter cuts up are at most this many of its words (ความดันโลหิต|สูง).
_MAX_COMPOUND_WORDS = 4


def _wordnet_compound(
    words: Sequence[str], start: int, lexicon: NameLexicon, stop: int | None = None
) -> tuple[int, str] | None:
    """(end, lemma) of the longest run of two or more words from `start` (ending by `stop`, where a
    drug name begins) that is one Thai WordNet lemma, or one after a noun prefix (`_prefixed_lemma`):
    the segmenter cuts โรคหืด (asthma) into โรค|หืด (disease, and a word WordNet lacks) and มะเร็งเต้านม
    (breast cancer) into มะเร็ง|เต้านม. A run holding a herb name is left to the herb."""
    last = min(len(words), start + _MAX_COMPOUND_WORDS, len(words) if stop is None else stop)
    for end in range(last, start + 1, -1):
        run = words[start:end]
        joined = "".join(run)
        lemma = joined if joined in thai_english_words() else _prefixed_lemma(joined)
        if lemma is not None and not any(lexicon.is_name(word) for word in run):
            return end, lemma
    return None


def _complaints_whole(words: list[str], lexicon: NameLexicon) -> list[str]:
    """`words` with each glossary complaint (`search.thai_health_words`) the segmenter cut across made
    whole again: newmm ties ท้อง|เสียได้ with ท้องเสีย|ได้ and may keep the first, losing diarrhoea.
    A run is recut only where the rest of its last word is a word of its own; herb names stay."""
    out = list(words)
    index = 0
    while index < len(out):
        for end in range(min(len(out), index + _MAX_COMPOUND_WORDS), index + 1, -1):
            if any(lexicon.is_name(word) for word in out[index:end]):
                continue
            joined, head = "".join(out[index:end]), len("".join(out[index : end - 1]))
            cut = next((cut for cut in range(len(joined), head, -1) if joined[:cut] in health_words()
                        and (cut == len(joined) or joined[cut:] in _base_words())), None)
            if cut is not None:
                out[index:end] = [joined[:cut], joined[cut:]] if cut < len(joined) else [joined]
                break
        index += 1
    return out


# Thai WordNet files a complaint under the noun it makes with one of these, as a dictionary does,
# while people write the bare word: ท้องเสีย is filed as อาการท้องเสีย (the symptom: diarrhea), ตับอักเสบ
# as โรคตับอักเสบ (the disease: hepatitis). The nominalisers การ and ความ are left out: they turn verbs
# into nouns of other senses (ลด, reduce, into "decline"; รักษา, treat, into "medication").
_NOUN_PREFIXES = ("โรค", "อาการ", "ภาวะ")
_SYMPTOM_PREFIX = "อาการ"


def _prefixed_lemma(word: str) -> str | None:
    """The Thai WordNet lemma `word` makes after a disease, symptom or condition prefix, if any."""
    return next((prefix + word for prefix in _NOUN_PREFIXES if prefix + word in thai_english_words()), None)


# A name cut up by the segmenter spans at most this many of its words (โซ|รา|ฟี|นิ|บ: 5).
_MAX_SUBSTANCE_WORDS = 8


def _has_translation(word: str, lexicon: NameLexicon) -> bool:
    return (lexicon.is_name(word) or word in _transliterations() or word in _stopwords()
            or word in thai_english_words())


def _substance_spans(
    words: Sequence[str], lexicon: NameLexicon, substances: LoanwordIndex[str]
) -> dict[int, tuple[int, LoanwordMatch[str]]]:
    """start -> (end, match) of the runs of `words` that spell a drug or chemical name in Thai letters.

    The segmenter does not know most drug names and cuts them into syllables that are words of their
    own (เมท|ฟอร์|มิ|น, metformin; รา is "mould" in WordNet), so runs of words are tried whole. A run
    must hold a word with no translation (a run of translated words is Thai, not a loanword), and
    neither start nor end with a stop word or hold a herb name. Overlapping runs: the longest Thai
    spelling wins, then the one with fewer edits, then the first."""
    found: list[tuple[int, int, LoanwordMatch[str]]] = []
    for start in range(len(words)):
        if words[start] in _stopwords() or lexicon.is_name(words[start]):
            continue
        for end in range(start + 1, min(len(words), start + _MAX_SUBSTANCE_WORDS) + 1):
            run = words[start:end]
            if lexicon.is_name(run[-1]):
                break
            if run[-1] in _stopwords() or all(_has_translation(word, lexicon) for word in run):
                continue
            match = substances.match("".join(run))
            if match is not None:
                found.append((start, end, match))
    found.sort(key=lambda span: (-len(span[2].thai), span[2].edits, span[0]))
    taken: set[int] = set()
    chosen: dict[int, tuple[int, LoanwordMatch[str]]] = {}
    for start, end, match in found:
        if taken.isdisjoint(range(start, end)):
            taken.update(range(start, end))
            chosen[start] = (end, match)
    return chosen


_SINGLE_WORD = re.compile(r"[A-Za-z]+")


def substance_loanwords(catalog: MeshCatalog | None) -> LoanwordIndex[str] | None:
    """The catalog's drug and chemical names by their Thai spelling, one word each (Thai spells an INN
    or a brand, not "acid, valproic"); built once per catalog, in about 0.2 s."""
    return None if catalog is None else _substance_index(catalog)


@lru_cache(maxsize=4)
def _substance_index(catalog: MeshCatalog) -> LoanwordIndex[str]:
    words: dict[str, set[str]] = {}
    for name, entity_id in catalog.substance_names():
        if _SINGLE_WORD.fullmatch(name):
            words.setdefault(name, set()).add(entity_id)
    return LoanwordIndex(words)


# Thai words of each kind `cross_lingual` reads: a herb name, a loanword, a stop word, a common word,
# a drug name the segmenter cuts up (warfarin).
_WARM_UP_QUERY = "ขมิ้นชัน วิตามิน และ ตับ วาร์ฟาริน"


def warm_up(store: MetadataStore, catalog: MeshCatalog | None = None, cache_dir: Path | None = None) -> None:
    """Build what a first Thai query would otherwise wait for (about 3 s on two cores): the lexicon
    of `kg_names` with its tokenizer, pythainlp's word lists, the Thai -> English word map (read
    from a pickle in `cache_dir` once built there) and the catalog's drug and chemical names by
    Thai spelling."""
    thai_english_words(cache_dir=cache_dir)
    with store.read() as tx:
        lexicon = load_lexicon(tx.connection)
    cross_lingual(_WARM_UP_QUERY, "th", lexicon, substances=substance_loanwords(catalog))


def _each_word_once(text: str) -> str:
    """The words of `text`, each at its first appearance (`fold`ed: case aside). A herb's names
    share words (Panax ginseng, Ginseng, Panax), and repeating them would make the query's
    embedding mostly the herb and drown the rest of the question."""
    seen: set[str] = set()
    kept: list[str] = []
    for word in text.split():
        key = fold(word)
        if key not in seen:
            seen.add(key)
            kept.append(word)
    return " ".join(kept)


def _latin_only(text: str) -> list[str]:
    return [part for part in THAI_RUN.split(text) if part.strip()]


def _expansion(
    entities: Sequence[str], lexicon: NameLexicon, describe: Callable[[str], str | None] | None
) -> list[str]:
    words: list[str] = []
    for entity in entities:
        names = lexicon.english_names(entity)
        described = describe(entity) if describe is not None else None
        if described and fold(described) not in {fold(n) for n in names}:
            names.append(described)
        words.extend(names)
    return words


def _own_names(
    entities: Sequence[str], lexicon: NameLexicon, describe: Callable[[str], str | None] | None
) -> list[str]:
    """The names that are the entities' own, no other entity's: scientific names and the MeSH name."""
    words: list[str] = []
    for entity in entities:
        words.extend(n.name for n in lexicon.names.get(entity, ()) if n.kind == "scientific" and n.lang != "th")
        described = describe(entity) if describe is not None else None
        if described:
            words.append(described)
    return words


def mesh_describer(catalog: MeshCatalog | None) -> Callable[[str], str | None]:
    """An entity's MeSH preferred name, for `cross_lingual` to search with beside its imported names."""

    def describe(entity_id: str) -> str | None:
        found = catalog.describe(entity_id) if catalog is not None else None
        return found[0] if found else None

    return describe


def english_query(
    query: str, lang: LangChoice, store: MetadataStore, catalog: MeshCatalog | None
) -> CrossLingualQuery:
    """`cross_lingual` with the store's `kg_names` and the entities' MeSH names."""
    with store.read() as tx:
        lexicon = load_lexicon(tx.connection)
    return cross_lingual(query, lang, lexicon, mesh_describer(catalog), substance_loanwords(catalog))
