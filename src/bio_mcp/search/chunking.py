"""Section-aware chunking of a PubMed record into passages that fit all-MiniLM-L6-v2's window.

A record is a title plus abstract sections (labelled, e.g. BACKGROUND / METHODS / RESULTS, or one
unlabelled section for an unstructured abstract). Sentences are packed greedily into chunks of at
most `ChunkPolicy.max_tokens` *estimated* word-piece tokens, the title included, and each chunk
starts with the last sentences of the one before (up to `overlap_tokens`) so a statement that
straddles a boundary is whole in at least one chunk. Every chunk text starts with the title and
names the section it starts in, so a chunk is self-describing for the embedder and for BM25.

Token counts are estimated without the model's tokenizer (so the hash provider and the tests need
no model): an alphabetic run counts ``1 + (len - 3) // 4`` pieces, a digit run one piece per two
digits, and every other non-space character one piece, as BERT's basic tokenizer splits
punctuation. On 4,000 SciFact passages of 150 words this overestimates the real word-piece count
by 16% on average and underestimates it by more than 8% in only 1% of passages. With the default
budget of 230, 2 of SciFact's 12,948 chunks exceed the model's 256-token window, by at most 6
tokens (median chunk: 172 real tokens, 102 words).

Chosen on SciFact's training split (nDCG@10; sizes by ``bench/scifact_tune.py``). The title in
every chunk beat the title in the first chunk only for each retriever alone (local model: vector
0.692 against 0.685, BM25 0.687 against 0.680) and tied in the hybrid (0.739 against 0.741).
With the onnx provider, 230-token chunks overlapping by 48 gave a hybrid 0.741, against 0.737 for
160 / 32 and 0.742 for 254 / 48 (0.744 at another weight), but at 254, 79 of 11,616 chunks
overflow the window by up to 30 tokens. Whole abstracts cut at the window gave vector search
0.660 against 0.687 for chunks.

Identifiers: ``chunk_id`` is the chunk's position ("0", "1", ...) and
``uuid = uuid5(CHUNK_NAMESPACE, f"{pmid}:{chunk_id}")``. Identical input gives identical chunks
and UUIDs in every run. When a record changes, a new version may have fewer chunks: the caller
deletes the UUIDs of the old version that the new one does not reuse.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

# Fixed forever: uuid5(NAMESPACE_URL, "https://github.com/bio-mcp/bio-mcp/chunks"). Changing it
# would orphan every chunk UUID already stored in an index or a vector database.
CHUNK_NAMESPACE = uuid.UUID("5914d192-cf39-5458-8659-5b7094792643")

_PIECE = re.compile(r"[^\W\d_]+|\d+|[^\w\s]|_")
# A sentence ends at . ! or ? followed by space and something that starts a sentence; the
# lookbehind list keeps common abbreviations of biomedical prose from ending one.
_SENTENCE_END = re.compile(
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bet al\.)(?<!\bvs\.)(?<!\bFig\.)(?<!\bNo\.)(?<!\bapprox\.)"
    r"(?<=[.!?])\s+(?=[A-Z0-9(\[])"
)
_SPACE = re.compile(r"\s+")
_NO_LABEL = frozenset({"", "UNLABELLED", "UNLABELED", "ABSTRACT"})


def estimate_tokens(text: str) -> int:
    """A conservative estimate of the word-piece count of `text` (see the module docstring)."""
    count = 0
    for piece in _PIECE.findall(text):
        if piece[0].isdigit():
            count += (len(piece) + 1) // 2
        elif piece[0].isalpha():
            count += 1 + max(0, len(piece) - 3) // 4
        else:
            count += 1
    return count


def chunk_uuid(pmid: str, chunk_id: str) -> str:
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{pmid}:{chunk_id}"))


@dataclass(frozen=True, slots=True)
class AbstractSection:
    """One abstract section; `label` is None for an unstructured abstract."""

    label: str | None
    text: str


@dataclass(frozen=True, slots=True)
class ChunkPolicy:
    """Chunk size and overlap in estimated tokens. The defaults were chosen on SciFact (train)."""

    max_tokens: int = 230
    overlap_tokens: int = 48

    def __post_init__(self) -> None:
        if self.max_tokens < 32:
            raise ValueError("max_tokens must be at least 32")
        if not 0 <= self.overlap_tokens < self.max_tokens // 2:
            raise ValueError("overlap_tokens must be in [0, max_tokens / 2)")

    @property
    def id(self) -> str:
        """Names the chunking so that a change of policy is detectable like a change of model."""
        return f"sections-v1:{self.max_tokens}:{self.overlap_tokens}"


@dataclass(frozen=True, slots=True)
class Chunk:
    pmid: str
    chunk_id: str
    uuid: str
    # What is embedded and indexed: the title, then the body with its section labels.
    text: str
    title: str
    body: str
    sections: tuple[str, ...]
    token_estimate: int


@dataclass(frozen=True, slots=True)
class _Unit:
    """A sentence (or a piece of an overlong one) and the section it belongs to."""

    label: str | None
    section: int
    text: str
    tokens: int


def _normalise(text: str | None) -> str:
    return _SPACE.sub(" ", text or "").strip()


def _label(raw: str | None) -> str | None:
    label = _normalise(raw).rstrip(":").strip().upper()
    return None if label in _NO_LABEL else label


def _label_tokens(label: str | None) -> int:
    return 0 if label is None else estimate_tokens(label) + 1


def _fit_word(word: str, budget: int) -> list[str]:
    """A "word" over the budget (a sequence, a URL) cut into runs of `budget` characters, which
    always fit: no character is estimated at more than one token."""
    if estimate_tokens(word) <= budget:
        return [word]
    return [word[i : i + budget] for i in range(0, len(word), budget)]


def _split_long(sentence: str, budget: int) -> list[str]:
    """Cuts a sentence longer than the budget into word runs that fit it."""
    pieces: list[str] = []
    words: list[str] = []
    used = 0
    for word in (part for whole in sentence.split(" ") for part in _fit_word(whole, budget)):
        cost = estimate_tokens(word)
        if words and used + cost > budget:
            pieces.append(" ".join(words))
            words, used = [], 0
        words.append(word)
        used += cost
    if words:
        pieces.append(" ".join(words))
    return pieces


def _units(sections: Sequence[AbstractSection], budget: int) -> list[_Unit]:
    units: list[_Unit] = []
    for index, section in enumerate(sections):
        text = _normalise(section.text)
        if not text:
            continue
        label = _label(section.label)
        room = budget - _label_tokens(label)
        for sentence in _SENTENCE_END.split(text):
            for piece in _split_long(sentence, room):
                units.append(_Unit(label, index, piece, estimate_tokens(piece)))
    return units


def _cost(units: Sequence[_Unit]) -> int:
    total = 0
    previous: int | None = None
    for unit in units:
        if unit.section != previous:
            total += _label_tokens(unit.label)
            previous = unit.section
        total += unit.tokens
    return total


def _render(units: Sequence[_Unit]) -> tuple[str, tuple[str, ...]]:
    groups: list[tuple[_Unit, list[str]]] = []
    for unit in units:
        if not groups or groups[-1][0].section != unit.section:
            groups.append((unit, []))
        groups[-1][1].append(unit.text)
    lines = [(f"{head.label}: " if head.label else "") + " ".join(texts) for head, texts in groups]
    labels = tuple(dict.fromkeys(head.label for head, _ in groups if head.label))
    return "\n".join(lines), labels


def _pack(units: list[_Unit], budget: int, overlap: int) -> list[list[_Unit]]:
    chunks: list[list[_Unit]] = []
    current: list[_Unit] = []
    for unit in units:
        if current and _cost([*current, unit]) > budget:
            chunks.append(current)
            tail: list[_Unit] = []
            for previous in reversed(current):
                if _cost([previous, *tail]) > overlap:
                    break
                tail.insert(0, previous)
            # The overlap must never stop the next unit from fitting.
            current = tail if _cost([*tail, unit]) <= budget else []
        current.append(unit)
    if current:
        chunks.append(current)
    return chunks


def _title_for_chunks(title: str, max_tokens: int) -> str:
    """The title carried by every chunk, cut to a third of the budget when it is very long."""
    limit = max_tokens // 3
    if estimate_tokens(title) <= limit:
        return title
    return _split_long(title, limit)[0]


def chunk_record(
    pmid: str,
    title: str | None,
    abstract: str | Sequence[AbstractSection] | None,
    policy: ChunkPolicy | None = None,
) -> list[Chunk]:
    """Chunks of one record; a record with a title and no abstract is one title-only chunk."""
    policy = policy or ChunkPolicy()
    sections = [AbstractSection(None, abstract)] if isinstance(abstract, str) else list(abstract or [])
    full_title = _normalise(title)
    carried = _title_for_chunks(full_title, policy.max_tokens)
    head_cost = estimate_tokens(carried) + 1 if carried else 0
    budget = policy.max_tokens - head_cost
    units = _units(sections, budget)
    packed = _pack(units, budget, policy.overlap_tokens) if units else [[]] if carried else []
    chunks: list[Chunk] = []
    for position, group in enumerate(packed):
        body, labels = _render(group)
        text = "\n".join(part for part in (carried, body) if part)
        chunk_id = str(position)
        chunks.append(
            Chunk(
                pmid=pmid,
                chunk_id=chunk_id,
                uuid=chunk_uuid(pmid, chunk_id),
                text=text,
                title=carried,
                body=body,
                sections=labels,
                token_estimate=head_cost + _cost(group),
            )
        )
    return chunks


# A rendered section line starts with its label (`_render`): upper case, then ": ".
_LABEL_PREFIX = re.compile(r"^[A-Z][A-Z0-9 ,&/()'-]*: ")


def sentence_spans(text: str, start: int = 0) -> list[tuple[int, int]]:
    """(start, end) character offsets of the sentences of a chunk's `text` from `start` on (past
    the title line), split by the same rule the chunker packs by; section labels are not part of
    a sentence. `text[s:e]` is the sentence exactly as stored."""
    spans: list[tuple[int, int]] = []
    offset = start
    for line in text[start:].split("\n"):
        label = _LABEL_PREFIX.match(line)
        position = label.end() if label else 0
        for match in _SENTENCE_END.finditer(line):
            if line[position : match.start()].strip():
                spans.append((offset + position, offset + match.start()))
            position = match.end()
        if line[position:].strip():
            spans.append((offset + position, offset + len(line.rstrip())))
        offset += len(line) + 1
    return spans
