"""PPR relation extraction in both modes, on the training and development splits, as JSON lines:
`trained` (the pair model fitted on PPR's training split, what a checkout with the shared data
runs) and `untrained` (the cue rules of `graph/relation_cues.py`, what an install without that
split runs), each beside the every-pair baseline of the same recognisers.

    .venv/bin/python bench/relations_modes.py [--data ../shared/data]

The same scoring as `bio-mcp eval relations` (`graph/relations_eval.py`). The trained mode's train
figures are in-sample (it was fitted there); the untrained rules were tuned on train only.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.graph.relations_eval import evaluate_file

REPO = Path(__file__).resolve().parents[1]



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    args = parser.parse_args()
    settings = load_settings()
    load = os.getloadavg()[0]
    for split in ("train", "dev"):
        for untrained in (False, True):
            started = time.process_time()
            report = evaluate_file(args.data / "bench" / "ppr" / f"PPR_{split}_corpus.txt", settings, untrained=untrained)
            cpu = time.process_time() - started
            params = {"split": split, "mode": report["mode"], "documents": report["documents"],
                      "gold_relations": report["gold_relations"], "load_1m": round(load, 2)}
            for figure in ("precision", "recall", "f1"):
                emit(f"ppr_relations_{figure}", report["extractor"]["overall"][figure], "ratio", **params)
            emit("ppr_relations_f1_pairs_baseline", report["pairs_baseline"]["overall"]["f1"], "ratio", **params)
            emit("ppr_relations_cpu_s", cpu, "s", **params)


if __name__ == "__main__":
    main()
