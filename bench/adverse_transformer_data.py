"""The candidate pairs `bench/adverse_transformer.py` reads: every pair `pair_candidates` gives on
BC5CDR's training split (each half linked by the linker built without it, priors leaving the
scored document out, as `bench/adverse_fit.py`) and on the development split (end to end with the
linker and priors built without it, and over the gold mentions, as `bio-mcp eval adverse`), with
its features, label and, for a pair one sentence names both of, the text a sentence classifier
reads: the candidate's evidence sentence (the sentence naming both with the strongest cue) with
the chemical's mentions wrapped in [unused0] .. [unused1] and the disease's in [unused2] ..
[unused3], and the title (lead sentence) as a second segment.

    BIO_MCP_MESH_PATH=../shared/data/mesh/mesh_descriptors_2024.jsonl \
    BIO_MCP_LINKER_TRAINING=../shared/data/bench/bc5cdr/CDR_TrainingSet.PubTator.txt \
        PYTHONPATH=src:bench python bench/adverse_transformer_data.py --out /tmp/relbert/rows.pkl
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path

from bc5cdr_folds import DEVELOPMENT, TRAINING, training_split

from bio_mcp.config import load_settings
from bio_mcp.eval.pubtator import read_pubtator
from bio_mcp.graph.adverse_effects import may_be_stated, pair_candidates
from bio_mcp.graph.adverse_eval import broader_of, gold_mentions, gold_pairs
from bio_mcp.graph.adverse_priors import load_adverse_priors
from bio_mcp.graph.linking import load_linker_from, training_path_of
from bio_mcp.graph.sentences import sentence_spans
from bio_mcp.graph.vocabulary import load_vocabulary

MARKERS = ("[unused0]", "[unused1]", "[unused2]", "[unused3]")


def marked(text: str, sentence: tuple[int, int], mentions, chemical: str, disease: str) -> str:
    start, end = sentence
    inside = sorted((m for m in mentions if start <= m.start and m.end <= end
                     and ((m.entity_type == "Chemical" and m.entity_id == chemical)
                          or (m.entity_type == "Disease" and m.entity_id == disease))),
                    key=lambda m: (m.start, -m.end))
    pieces, at = [], start
    for m in inside:
        if m.start < at:  # overlapping mention: keep the first
            continue
        opening, closing = (MARKERS[0], MARKERS[1]) if m.entity_type == "Chemical" else (MARKERS[2], MARKERS[3])
        pieces += [text[at:m.start], f" {opening} ", text[m.start:m.end], f" {closing} "]
        at = m.end
    pieces.append(text[at:end])
    return " ".join("".join(pieces).split())


def rows_of(document, mentions, broader, priors, split: str, fold: int) -> list[dict]:
    text = document.text
    spans = sentence_spans(text)
    title = text[spans[0][0]:spans[0][1]] if spans else ""
    gold = gold_pairs(document)
    rows = []
    for candidate in pair_candidates(text, mentions, broader, priors, spans):
        pair = (candidate.chemical.split(":", 1)[1], candidate.disease.split(":", 1)[1])
        cross = bool(candidate.features.get("cross"))
        row = {"split": split, "fold": fold, "pmid": document.pmid, "pair": pair,
               "features": dict(candidate.features), "label": pair in gold, "cross": cross,
               "stateable": may_be_stated(candidate), "text": None, "title": None}
        if not cross:
            row["text"] = marked(text, candidate.sentence, mentions, candidate.chemical, candidate.disease)
            row["title"] = None if candidate.sentence == spans[0] else title
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--training", type=Path, default=TRAINING)
    parser.add_argument("--dev", type=Path, default=DEVELOPMENT)
    parser.add_argument("--out", type=Path, default=Path("/tmp/relbert/rows.pkl"))
    args = parser.parse_args()
    settings = load_settings()
    split = training_split(args.training, args.dev, settings)
    training = split.documents
    broader = broader_of(load_vocabulary(split.mesh_path, settings.caches))
    rows: list[dict] = []
    for document, mentions, priors, fold in split.linked(settings):
        rows += rows_of(document, mentions, broader, priors, "train", fold)
    development = read_pubtator(args.dev)
    held_out = frozenset(document.pmid for document in development)
    linker = load_linker_from(split.mesh_path, training_path_of(settings), settings.caches, held_out)
    priors = load_adverse_priors(training_path_of(settings), held_out)
    for document in development:
        rows += rows_of(document, linker.link(document.text), broader, priors, "dev", -1)
        rows += rows_of(document, gold_mentions(document), broader, priors, "dev_gold", -1)
    gold_total = {"train": sum(len(gold_pairs(d)) for d in training),
                  "dev": sum(len(gold_pairs(d)) for d in development)}
    gold_total["dev_gold"] = gold_total["dev"]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("wb") as handle:
        pickle.dump({"rows": rows, "gold_total": gold_total}, handle)
    print(len(rows), gold_total)


if __name__ == "__main__":
    main()
