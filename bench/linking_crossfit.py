"""The linker on BC5CDR's training split, cross-fit: each half linked by a linker built without it.

    PYTHONPATH=src:bench python bench/linking_crossfit.py [--training CDR_TrainingSet.PubTator.txt] [--dev CDR_DevelopmentSet.PubTator.txt]

Where linker rules are chosen (the development split only reports them): the training documents
not in the development file, split in two by position; each half is linked by a linker learnt from
the other half (and never from the development split), as `bench/adverse_fit.py` links them.
Prints JSON lines: document-level concept precision, recall and F1 per type (`bio-mcp eval
linking`'s measure) and the share of gold chemical-induces-disease pairs one sentence names both
ends of as linked (`bio-mcp eval adverse`'s `one_sentence`: the most recall the stated CAUSES can
reach).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bc5cdr_folds import DEVELOPMENT, TRAINING, training_split
from figures import emit

from bio_mcp.config import load_settings
from bio_mcp.eval.metrics import Counts
from bio_mcp.graph import linking_eval
from bio_mcp.graph.adverse_eval import gold_pairs, scored_pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--training", type=Path, default=TRAINING)
    parser.add_argument("--dev", type=Path, default=DEVELOPMENT)
    args = parser.parse_args()
    settings = load_settings()
    split = training_split(args.training, args.dev, settings)
    concept = {kind: Counts() for kind in linking_eval.SCORED_TYPES}
    gold_total = named = 0
    for half, linker in split.folds(settings):
        report, _ = linking_eval.evaluate(linker, half)
        assert report is not None
        for kind, counts in concept.items():
            scores = report["concept"][kind]  # type: ignore[index]
            counts.tp, counts.fp, counts.fn = counts.tp + scores["tp"], counts.fp + scores["fp"], counts.fn + scores["fn"]
        for document in half:
            gold = gold_pairs(document)
            _, one_sentence = scored_pairs(document.text, linker.link(document.text), None)
            gold_total += len(gold)
            named += len(gold & one_sentence)
    params = {"documents": len(split.documents), "folds": 2}
    for kind, counts in concept.items():
        scores = counts.scores()
        emit(f"bc5cdr_train_crossfit_{kind.lower()}_f1", scores["f1"], "f1", params, precision=scores["precision"],
             recall=scores["recall"])
    emit("bc5cdr_train_crossfit_one_sentence", round(named / gold_total, 4), "recall", params, gold_pairs=gold_total)


if __name__ == "__main__":
    main()
