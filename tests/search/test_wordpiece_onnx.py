"""The shipped tokenizer.onnx as the `onnx` provider runs it: BERT's normalisation, truncation, no torch.

That its ids are HF `tokenizers`' for the model's tokenizer.json is tests/model_build/test_tokenizer_graph.py's.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from bio_mcp.search.embeddings.onnx_int8 import MAX_SEQ_LENGTH, SHIPPED_MODEL_DIR, custom_ops_library
from bio_mcp.search.embeddings.wordpiece_onnx import WordpieceOnnxTokenizer, bert_normalise


def _shipped() -> WordpieceOnnxTokenizer:
    return WordpieceOnnxTokenizer(SHIPPED_MODEL_DIR / "tokenizer.onnx", MAX_SEQ_LENGTH, custom_ops_library())


def test_normalisation_is_bert_normalizers() -> None:
    assert bert_normalise("Ångström ΣΊΣΥΦΟΣ\tCafé\x00\ufffd\u200b x") == "angstrom σισυφοσ cafe x"
    assert bert_normalise("ASCII\tonly\x07\r\n") == "ascii only  "


def test_a_long_text_is_cut_to_the_models_length() -> None:
    ids = _shipped().encode("the " * 1000)
    assert ids.shape == (MAX_SEQ_LENGTH,) and ids.dtype == np.int64
    assert ids[0] == 101 and ids[-1] == 102 and set(ids[1:-1].tolist()) == {1996}


def test_the_shipped_model_loads_without_torch_or_transformers_even_where_they_are_installed() -> None:
    # onnxruntime-extensions' __init__ imports onnx, transformers and torch when they are installed
    # (the local extra, as in the test venv): 260 MB of a server's memory for a library path.
    code = (
        "import sys\nfrom bio_mcp.search.embeddings.onnx_int8 import OnnxEmbeddings\n"
        "OnnxEmbeddings().load()\nprint(sorted({'torch', 'transformers', 'onnx'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert done.stdout.strip() == "[]", done.stdout
