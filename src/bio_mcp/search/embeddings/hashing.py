"""A deterministic feature-hashing embedding for tests and model-free installs.

Lower-cased words (minus a few English stopwords) and word bigrams are hashed with BLAKE2b into
`dim` signed buckets, weighted ``1 + log(tf)`` (bigrams at half weight), then L2-normalised. Texts
that share words share buckets, so overlapping texts are closer than unrelated ones; it knows no
synonyms. BLAKE2b rather than `hash()` because Python salts `hash()` per process.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections import Counter

import numpy as np

from bio_mcp.search.embeddings.base import Embeddings

HASH_VERSION = "v1"
_WORD = re.compile(r"[^\W_]+")
_STOPWORDS = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "which",
        "with",
    )
)


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little")
    return digest % dim, 1.0 if digest >> 63 else -1.0


class HashEmbeddings(Embeddings):
    def __init__(self, dim: int = 384, batch_size: int = 256) -> None:
        super().__init__(batch_size)
        if dim < 8:
            raise ValueError("dim must be at least 8")
        self._dim = dim

    @property
    def model_id(self) -> str:
        return f"hash:{HASH_VERSION}:{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def _features(self, text: str) -> Counter[str]:
        words = [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]
        features: Counter[str] = Counter(f"w:{w}" for w in words)
        features.update(f"b:{a} {b}" for a, b in itertools.pairwise(words))
        if not features:
            # Punctuation or stopwords only: the text itself is the one feature, never a zero vector.
            features[f"t:{text.strip().lower()}"] = 1
        return features

    def _encode(self, batch: list[str]) -> np.ndarray:
        out = np.zeros((len(batch), self._dim), dtype=np.float32)
        for row, text in enumerate(batch):
            for feature, count in self._features(text).items():
                index, sign = _bucket(feature, self._dim)
                weight = 1.0 + math.log(count)
                out[row, index] += sign * (weight if feature[0] != "b" else 0.5 * weight)
        return out
