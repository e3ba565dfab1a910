"""Thai words in English, from two lexicons nobody here wrote: the Thai WordNet that ships in
pythainlp's wheel (`corpus/wordnet_th.db`: Thai lemma -> Princeton WordNet 3.0 synset id such as
"14117805-n", no English) and Princeton WordNet 3.0's own data files (Debian's `wordnet-base`,
/usr/share/wordnet: each synset's English lemmas, at its offset in `data.noun` / `data.adj`).

    words = thai_english_words()     # {'เบาหวาน': ('diabetes',), 'ยา': ('drug', 'medicine'), ...}

Only nouns and adjectives are kept (the words of a disease or a drug question), and only senses
that fit a health question, by the WordNet lexicographer file a synset is filed in (`SENSE_TIERS`):
first diseases and symptoms (noun.state), the body, plants, foods and substances; then drugs and
other things (noun.artifact), acts, people, processes and the like; adjectives last; never letters
and words (noun.communication: ไอ, cough, is also the letter I), places, groups or possessions (ทับทิม
is a pomegranate, not a cut ruby). Within a tier a Thai lemma's synsets are ranked by how often
their senses were tagged in WordNet's SemCor counts (`cntlist.rev`), most frequent first, and each
gives its first English lemma. The first sense is always kept; another only from the same file,
and untagged only when the first is too, up to `PER_WORD` distinct words: เลือด is blood, not
"blood gore"; ใบ is leaf, not "leaf bladed"; น้ำตาล is sugar, not "brown sugar"; มะเร็งตับ is liver
cancer and hepatoma. Without the WordNet files the map is empty and
one warning says how to install them: Thai queries still reach English through herb names and
loanwords.
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
import threading
from pathlib import Path
from typing import BinaryIO

from pythainlp.corpus import corpus_path

from bio_mcp.pickle_cache import load_cached

logger = logging.getLogger(__name__)

DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
INSTALL_HINT = "apt-get install wordnet-base"
PER_WORD = 2

# WordNet's lexicographer files (lexnames(5WN)) by how well their senses fit a health question,
# best first; a file not listed is never read (noun.cognition 09 holds memory, so it stays).
SENSE_TIERS: tuple[frozenset[str], ...] = (
    # noun.state, noun.body, noun.plant, noun.food, noun.substance
    frozenset({"26", "08", "20", "13", "27"}),
    # noun.artifact (drugs), noun.act, noun.person, noun.process, noun.phenomenon, noun.attribute,
    # noun.animal, noun.feeling, noun.quantity, noun.event, noun.Tops, noun.time, noun.cognition
    frozenset({"06", "04", "18", "22", "19", "07", "05", "12", "23", "11", "03", "28", "09"}),
    # adj.all, adj.pert, adj.ppl: a Thai word's adjective sense only when it has no noun one (ขม, bitter)
    frozenset({"00", "01", "44"}),
)
# Within the first tier, senses tagged equally often (mostly never) go in this order: a complaint,
# then a part of the body, then a plant or a food, then a substance (ทับทิม: pomegranate, not ruby).
_FIRST_TIER_ORDER = ("26", "08", "20", "13", "27")

# Thai WordNet tags adjective satellites "-a" too; both live in data.adj.
_DATA_FILES = {"n": "data.noun", "a": "data.adj"}
_SS_TYPE_NUMBER = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}
_THAI_CHAR = re.compile(r"[\u0E01-\u0E5B]")
# data.adj marks a lemma's syntactic position after it: "galore(ip)".
_ADJ_MARKER = re.compile(r"\((?:a|p|ip)\)$")
# Debian's data.adj has one byte more than the file Thai WordNet was built on, so from 01687168 on
# its adjective offsets are one past Thai WordNet's; a synset is the line starting this close after.
_OFFSET_DRIFT = 4


def _sense_prefix(lemma: str, ss_type: str, lex_filenum: str, lex_id: str) -> str:
    """A sense key up to its lex_id (`lemma%ss_type:lex_filenum:lex_id`): a satellite's head word,
    which follows, is not in the data line's word list."""
    return f"{lemma.lower()}%{_SS_TYPE_NUMBER[ss_type]}:{lex_filenum}:{int(lex_id, 16):02d}"


def _tag_counts(wordnet_dir: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    with (wordnet_dir / "cntlist.rev").open(encoding="utf-8") as lines:
        for line in lines:
            key, _sense, count = line.split()
            prefix = key.rsplit(":", 2)[0]
            counts[prefix] = counts.get(prefix, 0) + int(count)
    return counts


def _line_near(handle: BinaryIO, offset: int) -> bytes:
    """The data line starting at `offset`, or within `_OFFSET_DRIFT` bytes after it; b"" if none does."""
    handle.seek(max(offset - 1, 0))
    if offset > 0 and handle.read(1) != b"\n":
        handle.readline()
        if handle.tell() - offset > _OFFSET_DRIFT:
            return b""
    return handle.readline()


def _tier(lex_filenum: str) -> int | None:
    return next((rank for rank, files in enumerate(SENSE_TIERS) if lex_filenum in files), None)


def _synset(handle: BinaryIO, offset: int, counts: dict[str, int]) -> tuple[str, int, str] | None:
    """The synset at `offset` of an open data file: its first lemma, its senses' summed tag count
    and its lexicographer file number.

    A data line is `offset lex_filenum ss_type w_cnt (word lex_id){w_cnt} ...` (wndb(5WN)), w_cnt in hex."""
    fields = _line_near(handle, offset).decode("utf-8").split()
    if len(fields) < 6:
        return None
    lex_filenum, ss_type, w_cnt = fields[1], fields[2], int(fields[3], 16)
    words = [(_ADJ_MARKER.sub("", fields[4 + 2 * i]), fields[5 + 2 * i]) for i in range(w_cnt)]
    tagged = sum(counts.get(_sense_prefix(word, ss_type, lex_filenum, lex_id), 0) for word, lex_id in words)
    return words[0][0].replace("_", " "), tagged, lex_filenum


class ThaiEnglishWords(dict[str, tuple[str, ...]]):
    """Thai lemma -> English words, and `first_tier`: the lemmas whose first sense is in the first
    of `SENSE_TIERS` (a complaint, a part of the body, a plant, a food or a substance)."""

    def __init__(self, words: dict[str, tuple[str, ...]] | None = None, first_tier: frozenset[str] = frozenset()) -> None:
        super().__init__(words or {})
        self.first_tier = first_tier


def build_thai_english(wordnet_dir: Path, thai_db: Path, per_word: int = PER_WORD) -> ThaiEnglishWords:
    """Thai lemma -> up to `per_word` English words (nouns and adjectives of a health question's
    senses), the best fitting and most frequent sense first; a lemma with no such sense is left out."""
    counts = _tag_counts(wordnet_dir)
    senses: dict[str, list[tuple[int, int, int, str, str]]] = {}
    lexfile: dict[str, str] = {}
    handles = {pos: (wordnet_dir / name).open("rb") for pos, name in _DATA_FILES.items()}
    connection = sqlite3.connect(f"file:{thai_db}?mode=ro", uri=True)
    try:
        synsets: dict[str, tuple[str, int, str] | None] = {}
        # Streamed, not fetched whole: the 91,000 rows at once were 24 MB that the allocator kept
        # as the server's own once freed.
        for thai, synset_id in connection.execute("SELECT li, synsetid FROM word_synset"):
            thai = thai.strip()
            offset, _, pos = synset_id.partition("-")
            if pos not in handles or not _THAI_CHAR.search(thai):
                continue
            if synset_id not in synsets:
                synsets[synset_id] = _synset(handles[pos], int(offset), counts)
            synset = synsets[synset_id]
            if synset is None:
                continue
            english, tagged, lex_filenum = synset
            tier = _tier(lex_filenum)
            if tier is None:
                continue
            order = _FIRST_TIER_ORDER.index(lex_filenum) if tier == 0 else 0
            senses.setdefault(thai, []).append((tier, -tagged, order, synset_id, english))
            lexfile[synset_id] = lex_filenum
    finally:
        connection.close()
        for handle in handles.values():
            handle.close()
    words: dict[str, tuple[str, ...]] = {}
    first_tier: set[str] = set()
    for thai, found in senses.items():
        first, *others = sorted(found)
        if first[0] == 0:
            first_tier.add(thai)
        chosen = {first[4].casefold(): first[4]}
        for _, negative_tagged, _, synset_id, english in others:
            if lexfile[synset_id] == lexfile[first[3]] and (negative_tagged < 0 or first[1] == 0):
                chosen.setdefault(english.casefold(), english)
        words[thai] = tuple(list(chosen.values())[:per_word])
    return ThaiEnglishWords(words, frozenset(first_tier))


_LOADED: dict[Path, ThaiEnglishWords] = {}
_LOADED_LOCK = threading.Lock()


def thai_english_words(wordnet_dir: Path = DEBIAN_WORDNET_DIR, cache_dir: Path | None = None) -> ThaiEnglishWords:
    """The map of `build_thai_english` over pythainlp's Thai WordNet, once per process; empty (with
    one warning) when WordNet's data files are not installed. With `cache_dir` (the server's warm-up
    gives it) it is read from a pickle there, written by the first build: built in the server, the
    build's temporaries (half a million small objects among the map's own) left 42 MB resident for
    a map of 14 MB, and the build took a second of every start."""
    with _LOADED_LOCK:
        found = _LOADED.get(wordnet_dir)
        if found is None:
            found = _LOADED[wordnet_dir] = _thai_english(wordnet_dir, cache_dir)
        return found


def _thai_english(wordnet_dir: Path, cache_dir: Path | None) -> ThaiEnglishWords:
    missing = [name for name in (*_DATA_FILES.values(), "cntlist.rev") if not (wordnet_dir / name).is_file()]
    if missing:
        logger.warning(
            "Princeton WordNet 3.0 is not in %s (%s missing): Thai words other than herb names and "
            "loanwords stay untranslated. Install it with `%s`.",
            wordnet_dir,
            ", ".join(missing),
            INSTALL_HINT,
        )
        return ThaiEnglishWords()
    thai_db = Path(corpus_path()) / "wordnet_th.db"
    if cache_dir is None:
        return build_thai_english(wordnet_dir, thai_db)
    # Keyed by this code and by each input's path, size and time: a WordNet or pythainlp upgrade, or
    # a change here, builds the map again.
    inputs = [Path(__file__), thai_db, *(wordnet_dir / name for name in (*_DATA_FILES.values(), "cntlist.rev"))]
    key = hashlib.sha256(Path(__file__).read_bytes())
    for path in inputs:
        stat = path.stat()
        key.update(f"{path}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    return load_cached(cache_dir / f"thai-english-{key.hexdigest()[:16]}.pickle", ThaiEnglishWords,
                       lambda: build_thai_english(wordnet_dir, thai_db), stale="thai-english-*.pickle")
