"""answer_conf: the estimated probability that the cited evidence answers the question.

A logistic model over retrieval and evidence signals, each in [0, 1], then calibrated:

- `chunk_cos`: cosine of the question and the best retrieved section (stored section vectors);
- `chunk_gap`: how far that best section stands above the next document's best one;
- `sentence_cos`: mean cosine of the question and the three most relevant evidence sentences;
- `coverage`: share of the question's content words found in the best document's text;
- `doc_share`: share of the citations that come from the most cited document.

Fitted by `bench/pubmedqa_answers.py --fit` on the tune half of PubMedQA's labelled questions (the
first 250 of `pqal_dev.json`; PubMedQA ships no other labelled split here), each asked with its
abstract in the index and again with it removed. The event is "the question's own abstract is
among the citations" (never, when it was removed): a logistic regression (light L2) fitted to that
event is its own calibration (Platt's). Isotonic regression on top of it fitted the tune half
closer (ECE 0.002) but the dev half worse (0.0345 against 0.0325): 250 questions are too few for it.
The dev half is reported (expected calibration error, reliability table). Refit when the
embedder, the retrieval or the sentence selection changes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

SIGNALS = ("chunk_cos", "chunk_gap", "sentence_cos", "coverage", "doc_share")

# Fitted on the PubMedQA tune half (see the module docstring); the signals are in [0, 1]. chunk_cos
# comes out negative once chunk_gap and sentence_cos are in: a high cosine without a gap to the next
# document is a crowd of near-misses, not the answer.
WEIGHTS: Mapping[str, float] = {
    "chunk_cos": -4.327,
    "chunk_gap": 13.683,
    "sentence_cos": 7.405,
    "coverage": 7.582,
    "doc_share": 0.557,
}
BIAS = -6.839
# A word: letters and digits, hyphens and apostrophes inside ("anti-inflammatory", "Crohn's").
WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
_STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "may", "me", "might", "more", "most", "must", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yes", "versus", "vs", "whether", "among", "within", "without", "patients", "patient", "study"]
)


def stem(word: str) -> str:
    """A light suffix strip so that plural and verb forms meet (treatments / treatment / treated)."""
    for suffix in ("ations", "ation", "ments", "ment", "ings", "ing", "ies", "ied", "ed", "es", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def content_terms(text: str) -> list[str]:
    """The text's content words, lower-cased and stemmed, in order, without repeats."""
    words = (word.lower() for word in WORD.findall(text))
    return list(dict.fromkeys(stem(word) for word in words if word not in _STOPWORDS and len(word) > 1))


def answer_confidence(signals: Mapping[str, float]) -> float:
    """The logistic model's probability, in [0, 1]."""
    z = BIAS + sum(WEIGHTS[name] * signals.get(name, 0.0) for name in SIGNALS)
    return 1.0 / (1.0 + math.exp(-z))
