"""The pure parts of tool.rag_answer on real text: sentence spans of stored chunks (the chunker's
rule), splitting an answer into sentences, and the citation check of written sentences."""

from __future__ import annotations

from pathlib import Path

from bio_mcp.eval.pubmedqa import load_pubmedqa
from bio_mcp.features.evidence.answer_models import Citation
from bio_mcp.features.evidence.citation_checks import sentence_checks, split_answer
from bio_mcp.search.chunking import chunk_record, sentence_spans


def test_sentence_spans_cover_every_word_of_every_chunk_body_without_labels(data_dir: Path) -> None:
    items = load_pubmedqa(data_dir / "bench" / "pubmedqa" / "pqal_dev.json")[:200]
    for item in items:
        for chunk in chunk_record(item.pmid, "A title.", item.sections):
            body = chunk.text.index("\n") + 1
            spans = sentence_spans(chunk.text, body)
            assert spans and all(body <= s < e <= len(chunk.text) for s, e in spans)
            texts = [chunk.text[s:e] for s, e in spans]
            assert all(t == t.strip() and "\n" not in t for t in texts)
            assert not any(t.startswith(f"{label}: ") for t in texts for label in chunk.sections)
            # Every word of the body is in exactly one sentence, labels aside.
            words = [w for line in chunk.text[body:].split("\n")
                     for w in line.split(": ", 1)[-1 if line.split(": ", 1)[0] in chunk.sections else 0].split()]
            assert [w for t in texts for w in t.split()] == words


def _citation(number: int, quote: str) -> Citation:
    return Citation(id="pmid:1", uri="u", title="t", span=f"chunk-0:0-{len(quote)}", number=number, quote=quote,
                    section_id="s", anchor="chunk-0", start=0, end=len(quote), relevance=0.5)


def test_answers_split_at_markers_and_punctuation_but_never_inside_a_quote() -> None:
    text = "Lead:\n“A. B is good vs. bad. C.” [1] Then x [2]. And “y? z” [1][2]\nLast one"
    assert split_answer(text) == ["Lead:", "“A. B is good vs. bad. C.” [1]", "Then x [2].", "And “y? z” [1][2]", "Last one"]


def test_a_written_sentence_checks_out_only_with_valid_markers_and_exact_quotes() -> None:
    citations = [_citation(1, "Aspirin reduced stroke by 20% (p < 0.05)."), _citation(2, "Bleeding rose.")]
    assert sentence_checks("Aspirin helped [1].", citations)
    assert sentence_checks('It "reduced stroke by 20%" [1][2].', citations)
    assert sentence_checks("แอสไพรินช่วยลดโรคหลอดเลือดสมอง [1]", citations)
    assert not sentence_checks("Aspirin helped.", citations)
    assert not sentence_checks("Aspirin helped [3].", citations)
    assert not sentence_checks("Aspirin helped [1][3].", citations)
    assert not sentence_checks('It "reduced stroke by 50%" [1].', citations)
    assert not sentence_checks("It “Bleeding rose” [1].", citations)
