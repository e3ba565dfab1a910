"""Embedding throughput and single-query latency of each local provider, as JSON lines.

    .venv/bin/python bench/embed_throughput.py --scratch /tmp/bio-mcp-embed [--passages 500]

Passages are SciFact chunks as the index stores them (title + section text, <= 230 estimated
tokens). The `onnx` provider runs the model shipped in the package. Also reports
the cosine between the `onnx` and `local` vectors of the same passages, and the tokenizers alone:
the shipped tokenizer.onnx (onnxruntime-extensions, one text per run as the provider calls it)
against HF tokenizers on the model's tokenizer.json (the `local` extra), one text per call too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tools.model_build reads the model's tokenizer.json; it is not in the package

from figures import emit

from bio_mcp.search.chunking import ChunkPolicy, chunk_record
from bio_mcp.search.embeddings import Embeddings, HashEmbeddings
from bio_mcp.search.embeddings.onnx_int8 import (
    MAX_SEQ_LENGTH,
    SHIPPED_MODEL_DIR,
    OnnxEmbeddings,
    custom_ops_library,
)
from bio_mcp.search.embeddings.sbert import SentenceTransformerEmbeddings
from bio_mcp.search.embeddings.wordpiece_onnx import WordpieceOnnxTokenizer
from tools.model_build.weights import load_model_files

DEFAULT_DATA = Path(os.environ.get("BIO_MCP_DATA", REPO.parent / "shared" / "data"))


def passages(corpus: Path, count: int) -> list[str]:
    texts: list[str] = []
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            texts += [c.text for c in chunk_record(doc["_id"], doc["title"], doc["text"], ChunkPolicy())]
            if len(texts) >= count:
                return texts[:count]
    return texts


def tokenize_throughput(texts: list[str]) -> None:
    from tokenizers import Tokenizer

    shipped = WordpieceOnnxTokenizer(
        SHIPPED_MODEL_DIR / "tokenizer.onnx", MAX_SEQ_LENGTH, custom_ops_library()
    )
    reference = Tokenizer.from_str(load_model_files().tokenizer_json)
    reference.enable_truncation(max_length=MAX_SEQ_LENGTH)
    reference.no_padding()
    rates = {}
    for name, encode in (("tokenizer.onnx", shipped.encode), ("hf-tokenizers", reference.encode)):
        started = time.perf_counter()
        for text in texts:
            encode(text)
        rates[name] = len(texts) / (time.perf_counter() - started)
        emit("tokenize_throughput", rates[name], "passages/s", {"tokenizer": name, "passages": len(texts)})
    emit(
        "tokenize_throughput_ratio",
        rates["tokenizer.onnx"] / rates["hf-tokenizers"],
        "ratio",
        {"a": "tokenizer.onnx", "b": "hf-tokenizers", "passages": len(texts)},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch", type=Path, required=True, help="where the ONNX model is exported")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "bench" / "scifact")
    parser.add_argument("--passages", type=int, default=500)
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    texts = passages(args.data / "corpus.jsonl", args.passages)
    providers: dict[str, Embeddings] = {
        "hash": HashEmbeddings(),
        "local": SentenceTransformerEmbeddings.local(),
        "onnx": OnnxEmbeddings(),
    }
    vectors: dict[str, np.ndarray] = {}
    for name, embeddings in providers.items():
        embeddings.embed_array(texts[:8])  # load (and for onnx, export) outside the timing
        params = {
            "provider": name,
            "model_id": embeddings.model_id,
            "passages": len(texts),
            "batch_size": embeddings.batch_size,
            "threads": os.cpu_count(),
        }
        started = time.perf_counter()
        vectors[name] = embeddings.embed_array(texts)
        emit("embed_throughput", len(texts) / (time.perf_counter() - started), "passages/s", params)
        samples = []
        for text in texts[: args.queries]:
            started = time.perf_counter()
            embeddings.embed_query(text[:120])
            samples.append(time.perf_counter() - started)
        emit("embed_query_p50", float(np.percentile(samples, 50)) * 1000, "ms", params)
    tokenize_throughput(texts)
    cosines = (vectors["onnx"] * vectors["local"]).sum(axis=1)
    params = {"passages": len(texts), "a": providers["onnx"].model_id, "b": providers["local"].model_id}
    emit("onnx_vs_local_cosine_mean", float(cosines.mean()), "cosine", params)
    emit("onnx_vs_local_cosine_min", float(cosines.min()), "cosine", params)


if __name__ == "__main__":
    main()
