"""Precision of the relations the product states, on the development splits, as JSON lines:
BC5CDR's stated CAUSES end to end (and with gold entities) and end to end at thresholds around
the chosen one (`_curve_`), how many gold pairs one sentence names both ends of (the most recall
the stated tier can reach) and how many gold ends the linker names nowhere, the share of its gold
chemical-induced-disease pairs the plant relations state as TREATS, and PPR's stated Increase and
Decrease relations with the confusion between the two (and gold harms stated as treatments).

    BIO_MCP_RELATIONS_TRAINING=../shared/data/bench/ppr/PPR_train_corpus.txt \
        PYTHONPATH=src .venv/bin/python bench/relation_precision.py [--data ../shared/data] > bench/results/relation_precision.jsonl

(Without BIO_MCP_RELATIONS_TRAINING the plant relations run untrained, as `mode` says in each line.)

The same scoring as `bio-mcp eval adverse` and `bio-mcp eval relations` (`graph/adverse_eval.py`,
`graph/relations_eval.py`); the CAUSES threshold was tuned on BC5CDR's training split
(`bench/adverse_fit.py`), the plant model fitted on PPR's, the harm cues (`graph/harm_cues.py`)
adjusted on PPR's training split.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.graph import adverse_eval, relations_eval

REPO = Path(__file__).resolve().parents[1]



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    args = parser.parse_args()
    settings = load_settings()
    bc5cdr = args.data / "bench" / "bc5cdr" / "CDR_DevelopmentSet.PubTator.txt"
    report = adverse_eval.evaluate_file(bc5cdr, settings)
    for reading in ("end_to_end", "end_to_end_corpus_ids", "gold_entities"):
        scores = report[reading]
        for measure in ("precision", "recall"):
            emit(f"bc5cdr_dev_stated_causes_{measure}", scores[measure], measure, reading=reading,
                 threshold=report["threshold"], tp=scores["tp"], fp=scores["fp"], fn=scores["fn"])
    for reading, curve in (("end_to_end", report["curve"]), ("gold_entities", report["curve_gold_entities"])):
        for point in curve:
            for measure in ("precision", "recall"):
                emit(f"bc5cdr_dev_stated_causes_curve_{measure}", point[measure], measure, reading=reading,
                     threshold=point["threshold"], tp=point["tp"], fp=point["fp"], fn=point["fn"])
    for reading, share in report["one_sentence"].items():
        emit("bc5cdr_dev_gold_cid_named_in_one_sentence", share, "recall", reading=reading)
    unlinked = report["unlinked_ends"]
    emit("bc5cdr_dev_gold_cid_ends_unlinked", unlinked["chemical"] + unlinked["disease"], "ends", **unlinked)
    harm = report["harm_as_treatment"]
    emit("bc5cdr_dev_gold_cid_stated_as_treatment", harm["share"], "share", gold_pairs=harm["gold_pairs"],
         stated_as_treatment=harm["stated_as_treatment"], target="< 0.02")
    ppr = relations_eval.evaluate_file(args.data / "bench" / "ppr" / "PPR_dev_corpus.txt", settings)
    for label in ("Increase", "Decrease"):
        scores = ppr["extractor"]["by_class"][label]
        for measure in ("precision", "recall"):
            emit(f"ppr_dev_{label.lower()}_{measure}", scores[measure], measure, mode=ppr["mode"], tp=scores["tp"],
                 fp=scores["fp"], fn=scores["fn"])
    confusion = ppr["confusion"]
    emit("ppr_dev_increase_as_decrease", confusion["increase_as_decrease"], "pairs", mode=ppr["mode"])
    emit("ppr_dev_decrease_as_increase", confusion["decrease_as_increase"], "pairs", mode=ppr["mode"])
    emit("ppr_dev_harm_as_treatment", confusion["harm_as_treatment"], "pairs", mode=ppr["mode"],
         gold_harms=confusion["gold_harms"])


if __name__ == "__main__":
    main()
