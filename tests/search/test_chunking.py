from __future__ import annotations

import itertools
import uuid

import pytest

from bio_mcp.search.chunking import (
    CHUNK_NAMESPACE,
    AbstractSection,
    ChunkPolicy,
    chunk_record,
    chunk_uuid,
    estimate_tokens,
)

TITLE = "Once-weekly semaglutide in adults with overweight or obesity"


def _sentences(prefix: str, count: int) -> str:
    return " ".join(
        f"{prefix} sentence {i} reports that participants lost 14.9% of body weight (95% CI, 13.5 to 16.3)."
        for i in range(count)
    )


STRUCTURED = [
    AbstractSection("BACKGROUND", _sentences("Background", 3)),
    AbstractSection("METHODS", _sentences("Methods", 12)),
    AbstractSection("RESULTS", _sentences("Results", 14)),
    AbstractSection("CONCLUSIONS", _sentences("Conclusions", 2)),
]


def test_uuid_is_uuid5_of_pmid_and_chunk_id() -> None:
    chunks = chunk_record("34567890", TITLE, STRUCTURED)
    assert len(chunks) > 2
    for position, chunk in enumerate(chunks):
        assert chunk.chunk_id == str(position)
        assert chunk.uuid == str(uuid.uuid5(CHUNK_NAMESPACE, f"34567890:{chunk.chunk_id}"))
        assert chunk.uuid == chunk_uuid("34567890", chunk.chunk_id)
    # The namespace is a published constant: changing it would orphan every stored chunk.
    assert str(CHUNK_NAMESPACE) == "5914d192-cf39-5458-8659-5b7094792643"
    assert chunk_uuid("1", "0") == "edd5edf6-889e-5a1c-809c-6d4b88c1719b"


def test_identical_input_gives_identical_chunks() -> None:
    assert chunk_record("1", TITLE, STRUCTURED) == chunk_record("1", TITLE, list(STRUCTURED))


@pytest.mark.parametrize("policy", [ChunkPolicy(), ChunkPolicy(128, 24), ChunkPolicy(254, 0)])
def test_chunks_stay_within_the_token_budget(policy: ChunkPolicy) -> None:
    chunks = chunk_record("1", TITLE, STRUCTURED, policy)
    for chunk in chunks:
        assert chunk.token_estimate <= policy.max_tokens
        assert estimate_tokens(chunk.text) <= policy.max_tokens + 2  # the joining newlines


def test_every_chunk_carries_the_title_and_its_section_label() -> None:
    chunks = chunk_record("1", TITLE, STRUCTURED)
    assert all(c.text.startswith(TITLE + "\n") for c in chunks)
    assert all(c.body.split(":")[0] in {"BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"} for c in chunks)
    assert chunks[0].sections[0] == "BACKGROUND"
    assert chunks[-1].sections[-1] == "CONCLUSIONS"
    covered = [label for c in chunks for label in c.sections]
    assert set(covered) == {"BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"}


def test_consecutive_chunks_overlap_by_whole_sentences() -> None:
    chunks = chunk_record("1", TITLE, _sentences("Plain", 40), ChunkPolicy(200, 60))
    assert len(chunks) >= 3
    for before, after in itertools.pairwise(chunks):
        last_sentence = before.body.split(". ")[-1]
        assert last_sentence in after.body


def test_no_text_is_lost() -> None:
    text = _sentences("Plain", 30)
    chunks = chunk_record("1", TITLE, text, ChunkPolicy(150, 0))
    assert " ".join(c.body for c in chunks) == text


def test_unstructured_abstract_and_edge_cases() -> None:
    [only] = chunk_record("7", "A title", "One short unstructured abstract.")
    assert only.text == "A title\nOne short unstructured abstract."
    assert only.sections == ()
    [title_only] = chunk_record("7", "A title", None)
    assert title_only.text == "A title" and title_only.body == ""
    assert chunk_record("7", None, None) == []
    assert chunk_record("7", "  ", [AbstractSection("RESULTS", "  ")]) == []
    # UNLABELLED is PubMed's label for "no label".
    [unlabelled] = chunk_record("7", "T", [AbstractSection("UNLABELLED", "Text here.")])
    assert unlabelled.body == "Text here."


def test_an_overlong_word_is_cut_to_fit() -> None:
    sequence = "ACGT" * 1000 + " then 0123456789" * 40 + " " + "-" * 700
    chunks = chunk_record("9", "A sequence", sequence, ChunkPolicy(128, 0))
    assert all(c.token_estimate <= 128 for c in chunks)
    assert "".join(c.body.replace(" ", "") for c in chunks) == sequence.replace(" ", "")


def test_an_overlong_sentence_and_title_are_cut_to_fit() -> None:
    words = " ".join(f"word{i}" for i in range(600))
    chunks = chunk_record("9", words, words, ChunkPolicy(120, 20))
    assert len(chunks) > 3
    assert all(c.token_estimate <= 120 for c in chunks)
    assert all(estimate_tokens(c.title) <= 40 for c in chunks)


def test_token_estimate_tracks_the_word_piece_count() -> None:
    # all-MiniLM-L6-v2's tokenizer: 18 pieces for plain prose, 26 for dense notation. The estimate
    # errs high on prose and stays within 10% on notation (see the module docstring).
    assert (
        estimate_tokens(
            "Participants who received the intervention had lower systolic blood pressure at twelve months than controls."
        )
        >= 18
    )
    assert estimate_tokens("Semaglutide reduced HbA1c by 1.5% versus placebo (p<0.001).") >= 0.9 * 26
    assert estimate_tokens("") == 0


def test_policy_validation_and_id() -> None:
    assert ChunkPolicy().id == "sections-v1:230:48"
    with pytest.raises(ValueError):
        ChunkPolicy(16, 0)
    with pytest.raises(ValueError):
        ChunkPolicy(100, 60)
