"""all-MiniLM-L6-v2's tokenizer run by ONNX Runtime (onnxruntime-extensions), not HF `tokenizers`.

`tokenizers` pulled huggingface_hub and through it hf-xet, fsspec, filelock and tqdm into the
default install: 36 MB of a download chain that is never used. onnxruntime-extensions is one
dependency-free wheel of custom operators for the onnxruntime the provider already runs.

The ids equal `tokenizers`' for the model's tokenizer.json (BertNormalizer lowercasing and stripping
accents, BertPreTokenizer, WordPiece, ``[CLS] ... [SEP]``, truncation) on every SciFact abstract,
the recorded PubMed records, Thai herb names and sentences, Greek, CJK, accents and control
characters (tests/model_build/test_tokenizer_graph.py). One difference is left: `tokenizers` reads a
special token spelled out in the text ("[CLS]", "[SEP]", "[UNK]", "[MASK]", "[PAD]") as that
token, where this tokenizer splits it like any other bracketed word.

Why three steps and not the extensions' single BertTokenizer node: that node lowercases and strips
accents with its own tables (Δ stays Δ and becomes [UNK], the Ångström sign is not decomposed,
U+FFFD is kept) and, for a word holding a character outside the vocabulary, emits the pieces it
matched before ``[UNK]`` where WordPiece gives the word one ``[UNK]`` (every Thai word): 107 of
16,560 SciFact, PubMed and Thai texts got other ids. So:

1. `bert_normalise`, in Python: BertNormalizer's cleaning, accent stripping and lowercasing, with
   the same Unicode data as `tokenizers` (its order too: NFD, drop nonspacing marks, lowercase
   each character alone, so a final capital sigma becomes σ as there).
2. the graph, in ONNX Runtime: BasicTokenizer splits on whitespace, punctuation and CJK
   characters, WordpieceTokenizer cuts each word into pieces (one row per word), and LabelEncoder
   maps each piece to its id. tools/model_build writes it (tokenizer.onnx) from tokenizer.json.
3. `WordpieceOnnxTokenizer.encode`: a word whose pieces end in ``[UNK]`` becomes one ``[UNK]``, then
   truncation and the special tokens.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import numpy as np

# The model metadata keys of the graph's special token ids, and the tokens they name.
SPECIAL_TOKENS = {"cls_id": "[CLS]", "sep_id": "[SEP]", "unk_id": "[UNK]"}
# Characters `tokenizers` turns into a space (its clean_text); every other control or format
# character, and U+FFFD, it drops.
_SPACE_CATEGORIES = frozenset(("Zs", "Zl", "Zp"))
_ASCII_CLEAN = {code: None for code in (*range(0x20), 0x7F)} | {ord(c): " " for c in "\t\n\r"}


def bert_normalise(text: str) -> str:
    """BertNormalizer(clean_text, strip_accents, lowercase) as `tokenizers` applies it."""
    if text.isascii():
        return text.translate(_ASCII_CLEAN).lower()
    kept = []
    # NFD before cleaning changes nothing: no character decomposes into a control or a space.
    for char in unicodedata.normalize("NFD", text):
        category = unicodedata.category(char)
        if char in "\t\n\r" or category in _SPACE_CATEGORIES:
            kept.append(" ")
        elif category != "Mn" and category[0] != "C" and char != "\ufffd":
            kept.append(char.lower())
    return "".join(kept)


class WordpieceOnnxTokenizer:
    """Runs the graph of tools/model_build/tokenizer_graph.py: one text in, its ids out (step 3 included)."""

    def __init__(self, path: Path, max_length: int, custom_ops_library: str) -> None:
        """`custom_ops_library`: the path of onnxruntime-extensions' operator library (`onnx_int8.custom_ops_library`)."""
        import onnxruntime  # type: ignore[import-untyped]

        options = onnxruntime.SessionOptions()
        options.register_custom_ops_library(custom_ops_library)
        options.intra_op_num_threads = 1
        options.enable_cpu_mem_arena = False  # as the model's session (`onnx_int8._load`)
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        special = self._session.get_modelmeta().custom_metadata_map
        self._cls, self._sep, self._unk = (int(special[key]) for key in SPECIAL_TOKENS)
        self._max_pieces = max_length - 2

    def encode(self, text: str) -> np.ndarray:
        ids, begins, limits = self._session.run(
            None, {"text": np.array([bert_normalise(text)], dtype=object)}
        )
        # WordPiece gives a word it cannot cut only [UNK]; the operator keeps the pieces before it.
        bad = (limits > begins) & (ids[np.maximum(limits - 1, 0)] == self._unk)
        keep: Any = np.ones(len(ids), dtype=bool)
        for begin, limit in zip(begins[bad], limits[bad], strict=True):
            keep[begin : limit - 1] = False
        return np.concatenate(([self._cls], ids[keep][: self._max_pieces], [self._sep])).astype(np.int64)
