"""Citations that check out: every span against the stored text, every answer sentence against
the citations it names.

- `verify_citations`: a citation is kept only when the stored section text at its offsets is its
  quote, character for character (a section re-chunked or edited since, or a tampered span, fails).
- `check_sentences`: a sentence of a written answer checks out when it names at least one [n],
  every [n] it names is a returned citation, and every passage it puts in quotation marks is
  found in one of the quotes it cites.
- `answer_sentences`: the same check over a whole response, for factuality (tool.eval.run).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bio_mcp.features.evidence.answer_models import Citation, RagAnswerResponse
from bio_mcp.graph.ids import pubmed_source_uri, section_node_id
from bio_mcp.search.chunking import chunk_uuid
from bio_mcp.store import MetadataStore

_MARKER = re.compile(r"\[(\d{1,3})\]")
# Quoted passages: curly or straight double quotes.
_QUOTED = re.compile(r"“([^”]+)”|\"([^\"]+)\"")
_OPEN_QUOTES = {"“": "”", '"': '"'}


def chunk_id_of(anchor: str) -> str:
    return anchor.removeprefix("chunk-")


def pmid_of(document_id: str) -> str:
    """The corpus key of a cited document: a PMID, or an ingested file's `file:` key as it is."""
    return document_id.removeprefix("pmid:")


def verify_citations(store: MetadataStore, citations: Sequence[Citation]) -> tuple[list[Citation], list[Citation]]:
    """(kept, dropped): kept citations quote the stored text at their span exactly."""
    uuids = {c.number: chunk_uuid(pmid_of(c.id), chunk_id_of(c.anchor)) for c in citations}
    with store.read() as tx:
        stored = tx.chunks.get_many(set(uuids.values()))
    kept: list[Citation] = []
    dropped: list[Citation] = []
    for citation in citations:
        chunk = stored.get(uuids[citation.number])
        ok = (
            chunk is not None
            and 0 <= citation.start < citation.end <= len(chunk.text)
            and chunk.text[citation.start : citation.end] == citation.quote
            and citation.span == f"{citation.anchor}:{citation.start}-{citation.end}"
            and citation.section_id == section_id_of(citation.id, citation.uri, citation.anchor)
        )
        (kept if ok else dropped).append(citation)
    return kept, dropped


def section_id_of(document_id: str, uri: str, anchor: str) -> str:
    """The graph Section a citation quotes: a PubMed record's (`pmid:N`) or an ingested file's, whose
    source URI is the citation's `uri`."""
    source = pubmed_source_uri(pmid_of(document_id)) if document_id.startswith("pmid:") else uri
    return section_node_id(source, chunk_id_of(anchor))


def split_answer(text: str) -> list[str]:
    """Sentences of an answer: a line break, or white space after . ! ? or a citation marker's ]
    ends one, except inside a quoted passage (a quote is one sentence, whatever it contains)."""
    sentences: list[str] = []
    current: list[str] = []
    closing: str | None = None
    for position, char in enumerate(text):
        if closing is not None:
            closing = None if char == closing else closing
        elif char in _OPEN_QUOTES:
            closing = _OPEN_QUOTES[char]
        ends = closing is None and char.isspace() and (
            char == "\n" or (position > 0 and text[position - 1] in ".!?]")
        )
        if ends:
            sentences.append("".join(current))
            current = []
        else:
            current.append(char)
    sentences.append("".join(current))
    return [sentence.strip() for sentence in sentences if sentence.strip()]


def sentence_checks(sentence: str, citations: Sequence[Citation]) -> bool:
    by_number = {c.number: c for c in citations}
    numbers = [int(n) for n in _MARKER.findall(sentence)]
    if not numbers or any(n not in by_number for n in numbers):
        return False
    quotes = [by_number[n].quote for n in numbers]
    for match in _QUOTED.finditer(sentence):
        passage = (match.group(1) or match.group(2)).strip().rstrip(".,;:…")
        if passage and not any(passage in quote for quote in quotes):
            return False
    return True


def check_sentences(text: str, citations: Sequence[Citation]) -> tuple[list[str], list[str]]:
    """(kept, dropped) sentences of a written answer."""
    kept: list[str] = []
    dropped: list[str] = []
    for sentence in split_answer(text):
        (kept if sentence_checks(sentence, citations) else dropped).append(sentence)
    return kept, dropped


def answer_sentences(response: RagAnswerResponse) -> list[tuple[str, bool]]:
    """Each sentence of the answer and whether its citations check out (empty when withheld).
    An extractive answer is its verdict (citing the quotes it is drawn from) and its quotes; its
    framing line (no marker) is not a claim and is skipped."""
    sentences = split_answer(response.answer)
    if response.mode == "extractive":
        sentences = [sentence for sentence in sentences if _MARKER.search(sentence)]
    return [(sentence, sentence_checks(sentence, response.citations)) for sentence in sentences]
