"""all-MiniLM-L6-v2's tokenizer run by ONNX Runtime (onnxruntime-extensions), not HF `tokenizers`.

`tokenizers` pulled huggingface_hub and through it hf-xet, fsspec, filelock and tqdm into the
default install: 36 MB of a download chain that is never used. onnxruntime-extensions is one
dependency-free wheel of custom operators for the onnxruntime the provider already runs.

The ids equal `tokenizers`' for the model's tokenizer.json (BertNormalizer lowercasing and stripping
accents, BertPreTokenizer, WordPiece, ``[CLS] ... [SEP]``, truncation) on every SciFact abstract,
the recorded PubMed records, Thai herb names and sentences, Greek, CJK, accents and control
characters (tests/search/test_wordpiece_onnx.py). One difference is left: `tokenizers` reads a
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
   maps each piece to its id.
3. `WordpieceOnnxTokenizer.encode`: a word whose pieces end in ``[UNK]`` becomes one ``[UNK]``, then
   truncation and the special tokens.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import onnx

_CONTRIB = "ai.onnx.contrib"
_SPECIAL = {"cls_id": "[CLS]", "sep_id": "[SEP]", "unk_id": "[UNK]"}
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


def build_tokenizer_graph(tokenizer_json: str) -> onnx.ModelProto:
    """The graph of step 2 for a BERT tokenizer.json; refuses settings it does not reproduce."""
    from onnx import TensorProto, helper

    spec = json.loads(tokenizer_json)
    normalizer, model = spec["normalizer"], spec["model"]
    expected = {
        "normalizer": (normalizer["type"], normalizer["clean_text"], normalizer["handle_chinese_chars"],
                       normalizer["strip_accents"] in (None, True), normalizer["lowercase"]),
        "pre_tokenizer": spec["pre_tokenizer"]["type"],
        "model": (model["type"], model["continuing_subword_prefix"], model["unk_token"]),
    }
    if expected != {
        "normalizer": ("BertNormalizer", True, True, True, True),
        "pre_tokenizer": "BertPreTokenizer",
        "model": ("WordPiece", "##", "[UNK]"),
    }:
        raise ValueError(f"not an uncased BERT WordPiece tokenizer: {expected}")
    vocab: dict[str, int] = model["vocab"]
    pieces = sorted(vocab, key=vocab.__getitem__)
    nodes = [
        # Normalisation is step 1's: lowercasing and accent stripping are off here.
        helper.make_node(
            "BasicTokenizer", ["text"], ["words"], domain=_CONTRIB, do_lower_case=0, strip_accents=0,
            tokenize_chinese_chars=1, tokenize_punctuation=1, remove_control_chars=1,
        ),
        helper.make_node(
            "WordpieceTokenizer", ["words", "no_row_splits"], ["pieces", "row_lengths", "row_begins", "row_limits"],
            domain=_CONTRIB, vocab=json.dumps(vocab, ensure_ascii=False, separators=(",", ":")),
            suffix_indicator=model["continuing_subword_prefix"], unknown_token=model["unk_token"],
            max_input_chars_per_word=model["max_input_chars_per_word"],
        ),
        helper.make_node(
            "LabelEncoder", ["pieces"], ["ids"], domain="ai.onnx.ml",
            keys_strings=pieces, values_int64s=list(range(len(pieces))), default_int64=vocab[model["unk_token"]],
        ),
    ]
    graph = helper.make_graph(
        nodes, "bert_wordpiece",
        [helper.make_tensor_value_info("text", TensorProto.STRING, [1])],
        [helper.make_tensor_value_info(name, TensorProto.INT64, [None]) for name in ("ids", "row_begins", "row_limits")],
        initializer=[helper.make_tensor("no_row_splits", TensorProto.INT64, [0], [])],
    )
    # Pinned IR version and opsets: the same bytes from any onnx release, loadable by onnxruntime>=1.20.
    tokenizer = helper.make_model(
        graph, ir_version=8, producer_name="bio-mcp",
        opset_imports=[helper.make_opsetid("ai.onnx.ml", 2), helper.make_opsetid(_CONTRIB, 1)],
    )
    helper.set_model_props(tokenizer, {key: str(vocab[token]) for key, token in _SPECIAL.items()})
    return tokenizer


class WordpieceOnnxTokenizer:
    """Runs the graph of `build_tokenizer_graph`: one text in, its ids out (step 3 included)."""

    def __init__(self, path: Path, max_length: int, custom_ops_library: str) -> None:
        """`custom_ops_library`: the path of onnxruntime-extensions' operator library (`onnx_int8.custom_ops_library`)."""
        import onnxruntime  # type: ignore[import-untyped]

        options = onnxruntime.SessionOptions()
        options.register_custom_ops_library(custom_ops_library)
        options.intra_op_num_threads = 1
        options.enable_cpu_mem_arena = False  # as the model's session (`onnx_int8._load`)
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        special = self._session.get_modelmeta().custom_metadata_map
        self._cls, self._sep, self._unk = (int(special[key]) for key in _SPECIAL)
        self._max_pieces = max_length - 2

    def encode(self, text: str) -> np.ndarray:
        ids, begins, limits = self._session.run(None, {"text": np.array([bert_normalise(text)], dtype=object)})
        # WordPiece gives a word it cannot cut only [UNK]; the operator keeps the pieces before it.
        bad = (limits > begins) & (ids[np.maximum(limits - 1, 0)] == self._unk)
        keep: Any = np.ones(len(ids), dtype=bool)
        for begin, limit in zip(begins[bad], limits[bad], strict=True):
            keep[begin : limit - 1] = False
        return np.concatenate(([self._cls], ids[keep][: self._max_pieces], [self._sep])).astype(np.int64)
