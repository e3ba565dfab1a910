"""A BERT tokenizer.json as the ONNX graph the `onnx` provider's tokenizer runs (step 2 of `wordpiece_onnx`).

Its operators are onnxruntime-extensions' BasicTokenizer and WordpieceTokenizer and an ai.onnx.ml
LabelEncoder; normalisation (step 1) and the whole-word ``[UNK]`` rule and special tokens (step 3)
stay with `bio_mcp.search.embeddings.wordpiece_onnx`, which reads the special ids from the model's
metadata.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bio_mcp.search.embeddings.wordpiece_onnx import SPECIAL_TOKENS

if TYPE_CHECKING:
    import onnx

_CONTRIB = "ai.onnx.contrib"


def build_tokenizer_graph(tokenizer_json: str) -> onnx.ModelProto:
    """The graph of step 2 for a BERT tokenizer.json; refuses settings it does not reproduce."""
    from onnx import TensorProto, helper

    spec = json.loads(tokenizer_json)
    normalizer, model = spec["normalizer"], spec["model"]
    expected = {
        "normalizer": (
            normalizer["type"],
            normalizer["clean_text"],
            normalizer["handle_chinese_chars"],
            normalizer["strip_accents"] in (None, True),
            normalizer["lowercase"],
        ),
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
            "BasicTokenizer",
            ["text"],
            ["words"],
            domain=_CONTRIB,
            do_lower_case=0,
            strip_accents=0,
            tokenize_chinese_chars=1,
            tokenize_punctuation=1,
            remove_control_chars=1,
        ),
        helper.make_node(
            "WordpieceTokenizer",
            ["words", "no_row_splits"],
            ["pieces", "row_lengths", "row_begins", "row_limits"],
            domain=_CONTRIB,
            vocab=json.dumps(vocab, ensure_ascii=False, separators=(",", ":")),
            suffix_indicator=model["continuing_subword_prefix"],
            unknown_token=model["unk_token"],
            max_input_chars_per_word=model["max_input_chars_per_word"],
        ),
        helper.make_node(
            "LabelEncoder",
            ["pieces"],
            ["ids"],
            domain="ai.onnx.ml",
            keys_strings=pieces,
            values_int64s=list(range(len(pieces))),
            default_int64=vocab[model["unk_token"]],
        ),
    ]
    graph = helper.make_graph(
        nodes,
        "bert_wordpiece",
        [helper.make_tensor_value_info("text", TensorProto.STRING, [1])],
        [
            helper.make_tensor_value_info(name, TensorProto.INT64, [None])
            for name in ("ids", "row_begins", "row_limits")
        ],
        initializer=[helper.make_tensor("no_row_splits", TensorProto.INT64, [0], [])],
    )
    # Pinned IR version and opsets: the same bytes from any onnx release, loadable by onnxruntime>=1.20.
    tokenizer = helper.make_model(
        graph,
        ir_version=8,
        producer_name="bio-mcp",
        opset_imports=[helper.make_opsetid("ai.onnx.ml", 2), helper.make_opsetid(_CONTRIB, 1)],
    )
    helper.set_model_props(tokenizer, {key: str(vocab[token]) for key, token in SPECIAL_TOKENS.items()})
    return tokenizer
