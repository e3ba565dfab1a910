"""A BERT encoder as an ONNX graph built from its safetensors weights, with NumPy and `onnx` only.

The `onnx` provider used to export all-MiniLM-L6-v2 with torch, which made torch (900 MB) part of
every install for a one-time step. This module writes the same graph by hand: embeddings (word +
token type + position, LayerNorm), then per layer self-attention, residual + LayerNorm, a GELU
(erf) feed-forward, residual + LayerNorm; the output is ``last_hidden_state`` and pooling stays
with the caller, as before. The node pattern is the one ``torch.onnx.export`` writes for
transformers' eager BERT, because ONNX Runtime's transformers optimizer recognises exactly that
pattern and fuses it into EmbedLayerNormalization, Attention, SkipLayerNormalization and
BiasGelu (``fusion_counts`` checks it did). The attention mask is the classic additive one,
``(1 - mask) * float32.min``.

safetensors is a little-endian u64 header length, a JSON header naming each tensor's dtype, shape
and byte range, then the raw bytes: `read_safetensors` needs nothing else.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bio_mcp.search.embeddings.onnx_int8 import INPUT_NAMES, OUTPUT_NAME

if TYPE_CHECKING:
    import onnx

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}
OPSET = 17


@dataclass(frozen=True)
class BertConfig:
    hidden_size: int
    num_heads: int
    num_layers: int
    intermediate_size: int
    max_positions: int
    layer_norm_eps: float

    @classmethod
    def from_json(cls, text: str) -> BertConfig:
        raw = json.loads(text)
        if raw.get("model_type") != "bert" or raw.get("hidden_act") != "gelu":
            raise ValueError("only BERT models with erf GELU are supported")
        if raw.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported")
        return cls(
            hidden_size=int(raw["hidden_size"]),
            num_heads=int(raw["num_attention_heads"]),
            num_layers=int(raw["num_hidden_layers"]),
            intermediate_size=int(raw["intermediate_size"]),
            max_positions=int(raw["max_position_embeddings"]),
            layer_norm_eps=float(raw["layer_norm_eps"]),
        )

    @property
    def head_size(self) -> int:
        return self.hidden_size // self.num_heads


def read_safetensors(data: bytes) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file's bytes, as NumPy arrays (copies, safe to keep)."""
    if len(data) < 8:
        raise ValueError("not a safetensors file: shorter than its header length")
    (header_len,) = struct.unpack("<Q", data[:8])
    if header_len > len(data) - 8:
        raise ValueError("not a safetensors file: header longer than the file")
    header: dict[str, Any] = json.loads(data[8 : 8 + header_len])
    body = memoryview(data)[8 + header_len :]
    tensors: dict[str, np.ndarray] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(entry["dtype"])
        if dtype is None:
            raise ValueError(f"tensor {name!r} has an unsupported dtype {entry['dtype']}")
        start, end = entry["data_offsets"]
        shape = tuple(entry["shape"])
        array = np.frombuffer(body[start:end], dtype=np.dtype(dtype).newbyteorder("<"))
        if array.size != math.prod(shape):
            raise ValueError(f"tensor {name!r} has {array.size} values for shape {shape}")
        tensors[name] = array.reshape(shape).astype(dtype)
    return tensors


class _GraphWriter:
    """Collects nodes and initializers, naming each output after the module that makes it."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(value.copy(order="C"), name))
        return name

    def op(self, op_type: str, inputs: list[str], name: str, **attrs: Any) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op_type, inputs, [f"{name}_output_0"], name=name, **attrs))
        return f"{name}_output_0"


def _weights(tensors: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    """Tensors named with or without the ``bert.`` prefix some checkpoints carry."""
    out = {}
    for name, value in tensors.items():
        key = name.removeprefix("bert.")
        if key.startswith(prefix):
            out[key] = value
    return out


def build_bert_graph(tensors: dict[str, np.ndarray], config: BertConfig) -> onnx.ModelProto:
    from onnx import TensorProto, checker, helper

    w = _weights(tensors, "")
    g = _GraphWriter()
    f32 = np.float32

    def linear(x: str, module: str, name: str) -> str:
        # torch.nn.Linear stores (out, in); MatMul wants (in, out).
        weight = g.const(f"{module}.weight_t", w[f"{module}.weight"].astype(f32).T)
        bias = g.const(f"{module}.bias", w[f"{module}.bias"].astype(f32))
        product = g.op("MatMul", [x, weight], f"/{name}/MatMul")
        return g.op("Add", [bias, product], f"/{name}/Add")

    def layer_norm(x: str, module: str, name: str) -> str:
        scale = g.const(f"{module}.weight", w[f"{module}.weight"].astype(f32))
        bias = g.const(f"{module}.bias", w[f"{module}.bias"].astype(f32))
        return g.op(
            "LayerNormalization",
            [x, scale, bias],
            f"/{name}/LayerNormalization",
            axis=-1,
            epsilon=config.layer_norm_eps,
        )

    # Embeddings: position ids are a slice of 0..max_positions as long as the input.
    one = g.const("const_one_i64", np.array(1, dtype=np.int64))
    zero_1d = g.const("const_zero_1d", np.array([0], dtype=np.int64))
    one_1d = g.const("const_one_1d", np.array([1], dtype=np.int64))
    positions = g.const("position_ids", np.arange(config.max_positions, dtype=np.int64)[None, :])
    shape = g.op("Shape", ["input_ids"], "/embeddings/Shape")
    seq_len = g.op("Gather", [shape, one], "/embeddings/Gather", axis=0)
    seq_len_1d = g.op("Unsqueeze", [seq_len, zero_1d], "/embeddings/Unsqueeze")
    position_ids = g.op("Slice", [positions, zero_1d, seq_len_1d, one_1d, one_1d], "/embeddings/Slice")
    tables = {
        part: g.const(f"embeddings.{part}.weight", w[f"embeddings.{part}.weight"].astype(f32))
        for part in ("word_embeddings", "token_type_embeddings", "position_embeddings")
    }
    words = g.op("Gather", [tables["word_embeddings"], "input_ids"], "/embeddings/word_embeddings/Gather")
    types = g.op(
        "Gather",
        [tables["token_type_embeddings"], "token_type_ids"],
        "/embeddings/token_type_embeddings/Gather",
    )
    summed = g.op("Add", [words, types], "/embeddings/Add")
    places = g.op(
        "Gather", [tables["position_embeddings"], position_ids], "/embeddings/position_embeddings/Gather"
    )
    summed = g.op("Add", [summed, places], "/embeddings/Add_1")
    hidden = layer_norm(summed, "embeddings.LayerNorm", "embeddings/LayerNorm")

    # Additive attention mask, (batch, 1, 1, sequence): 0 where attended, float32.min elsewhere.
    axis1 = g.const("const_axis1", np.array([1], dtype=np.int64))
    axis2 = g.const("const_axis2", np.array([2], dtype=np.int64))
    mask = g.op("Unsqueeze", ["attention_mask", axis1], "/mask/Unsqueeze")
    mask = g.op("Unsqueeze", [mask, axis2], "/mask/Unsqueeze_1")
    mask = g.op("Cast", [mask], "/mask/Cast", to=TensorProto.FLOAT)
    mask = g.op("Sub", [g.const("const_one_f32", np.array(1.0, dtype=f32)), mask], "/mask/Sub")
    mask_bias = g.op(
        "Mul", [mask, g.const("const_f32_min", np.array(np.finfo(f32).min, dtype=f32))], "/mask/Mul"
    )

    heads_shape = g.const(
        "const_heads_shape", np.array([0, 0, config.num_heads, config.head_size], dtype=np.int64)
    )
    merged_shape = g.const("const_merged_shape", np.array([0, 0, config.hidden_size], dtype=np.int64))
    # A Div, not a Mul by the inverse: the optimizer's mask match takes the first Mul parent of
    # the Add, so a scaling Mul there would hide the mask's Mul from it.
    scale = g.const("const_attention_scale", np.array(math.sqrt(config.head_size), dtype=f32))
    sqrt2 = g.const("const_sqrt2", np.array(math.sqrt(2.0), dtype=f32))
    half = g.const("const_half", np.array(0.5, dtype=f32))
    one_f32 = "const_one_f32"

    for index in range(config.num_layers):
        module = f"encoder.layer.{index}"
        name = f"encoder/layer.{index}"
        heads = {}
        for part in ("query", "key", "value"):
            projected = linear(hidden, f"{module}.attention.self.{part}", f"{name}/attention/self/{part}")
            heads[part] = g.op("Reshape", [projected, heads_shape], f"/{name}/attention/self/{part}/Reshape")
        query = g.op("Transpose", [heads["query"]], f"/{name}/attention/self/Transpose", perm=[0, 2, 1, 3])
        key = g.op("Transpose", [heads["key"]], f"/{name}/attention/self/Transpose_2", perm=[0, 2, 3, 1])
        value = g.op("Transpose", [heads["value"]], f"/{name}/attention/self/Transpose_1", perm=[0, 2, 1, 3])
        scores = g.op("MatMul", [query, key], f"/{name}/attention/self/MatMul")
        scores = g.op("Div", [scores, scale], f"/{name}/attention/self/Div")
        scores = g.op("Add", [scores, mask_bias], f"/{name}/attention/self/Add")
        probs = g.op("Softmax", [scores], f"/{name}/attention/self/Softmax", axis=-1)
        context = g.op("MatMul", [probs, value], f"/{name}/attention/self/MatMul_1")
        context = g.op("Transpose", [context], f"/{name}/attention/self/Transpose_3", perm=[0, 2, 1, 3])
        context = g.op("Reshape", [context, merged_shape], f"/{name}/attention/self/Reshape_3")
        attended = linear(context, f"{module}.attention.output.dense", f"{name}/attention/output/dense")
        attended = g.op("Add", [attended, hidden], f"/{name}/attention/output/Add")
        attended = layer_norm(
            attended, f"{module}.attention.output.LayerNorm", f"{name}/attention/output/LayerNorm"
        )
        inner = linear(attended, f"{module}.intermediate.dense", f"{name}/intermediate/dense")
        act = f"{name}/intermediate/intermediate_act_fn"
        gelu = g.op("Div", [inner, sqrt2], f"/{act}/Div")
        gelu = g.op("Erf", [gelu], f"/{act}/Erf")
        gelu = g.op("Add", [gelu, one_f32], f"/{act}/Add")
        gelu = g.op("Mul", [inner, gelu], f"/{act}/Mul")
        gelu = g.op("Mul", [gelu, half], f"/{act}/Mul_1")
        out = linear(gelu, f"{module}.output.dense", f"{name}/output/dense")
        out = g.op("Add", [out, attended], f"/{name}/output/Add")
        hidden = layer_norm(out, f"{module}.output.LayerNorm", f"{name}/output/LayerNorm")

    g.nodes.append(helper.make_node("Identity", [hidden], [OUTPUT_NAME], name="/output/Identity"))
    dims = ["batch", "sequence"]
    graph = helper.make_graph(
        g.nodes,
        "bert",
        [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in INPUT_NAMES],
        [helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, [*dims, config.hidden_size])],
        g.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="bio-mcp")
    model.ir_version = 8
    checker.check_model(model)
    return model
