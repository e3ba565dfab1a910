"""tool.rag_answer on PubMedQA's 500 labelled questions (pqal_dev.json) among SciFact distractors.

    PYTHONPATH=src python bench/pubmedqa_answers.py --scratch /work/cache/answers/pubmedqa-corpus \
        --records /work/cache/answers/pubmedqa-records.jsonl [--fit]

Each question is asked with its abstract in the index (answerable) and again with the abstract's
chunks deleted from the index (unanswerable; put back afterwards). Per question the signals,
answer_conf, citation count and whether its own abstract was cited are written to --records (a
later run re-reads them instead of asking again: signals do not depend on answer_conf's weights).

Printed per half (tune: the first 250 items, dev: the other 250), as JSON lines: own-abstract
citation rate, AUROC of answer_conf (answerable against removed), withhold rate on answerable and
on removed questions under the seed's policy (< 3 citations or answer_conf < τ), and the latency
of a call. --fit fits answer_conf's logistic weights on the tune half (balanced, light L2) and
prints them, with the intercept raised until τ withholds at most 15% of the answerable tune questions
(`prior_shift`); paste them into features/evidence/answer_confidence.py and run again to report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from answer_corpus import DATA, build, open_context

from bio_mcp.features.evidence import answer_confidence as confidence
from bio_mcp.features.evidence.answer import AnswerContext, rag_answer
from bio_mcp.features.evidence.answer_eval import auroc, chunk_uuids_of, load_pubmedqa
from bio_mcp.features.evidence.answer_models import RagAnswerRequest

TUNE = 250
MIN_CITATIONS = 3
# The withhold rate on answerable tune questions the prior shift aims at: 5 points under the 20% bar,
# the margin for the held-out questions.
TARGET_WITHHOLD = 0.15


def emit(name: str, value: float, unit: str, params: dict[str, object]) -> None:
    print(json.dumps({"name": name, "value": round(value, 4), "unit": unit, "params": params}), flush=True)


async def ask_all(scratch: Path, data: Path, records: Path, limit: int | None) -> list[dict[str, object]]:
    done = {}
    if records.is_file():
        for line in records.read_text().splitlines():
            row = json.loads(line)
            done[row["pmid"]] = row
    items = load_pubmedqa(data / "bench" / "pubmedqa" / "pqal_dev.json")[:limit]
    if all(item.pmid in done for item in items):
        return [done[item.pmid] for item in items]
    kb = open_context(scratch)
    context = AnswerContext(kb, tau=0.0)
    with records.open("a") as out:
        for number, item in enumerate(items):
            if item.pmid in done:
                continue
            request = RagAnswerRequest(question=item.question)
            started = time.perf_counter()
            answerable = await rag_answer(request, context)
            latency = (time.perf_counter() - started) * 1000
            uuids = chunk_uuids_of(kb.index, item.pmid)
            kb.index.apply(uuids, [])
            try:
                removed = await rag_answer(request, context)
            finally:
                kb.index.apply([], uuids)
            row = {
                "pmid": item.pmid, "position": number, "latency_ms": round(latency, 1),
                "own_cited": f"pmid:{item.pmid}" in {c.id for c in answerable.citations},
                "answerable": {"signals": answerable.scores.signals, "citations": len(answerable.citations)},
                "removed": {"signals": removed.scores.signals, "citations": len(removed.citations)},
            }
            out.write(json.dumps(row) + "\n")
            out.flush()
            done[item.pmid] = row
    kb.store.close()
    return [done[item.pmid] for item in items]


def fit(rows: list[dict[str, object]], l2: float = 0.01) -> tuple[dict[str, float], float]:
    """Logistic regression (Newton's method) of answerable (1) against removed (0)."""
    names = confidence.SIGNALS
    x = np.array([[row[kind]["signals"][n] for n in names] for row in rows for kind in ("answerable", "removed")])
    y = np.array([1.0 if kind == "answerable" else 0.0 for _ in rows for kind in ("answerable", "removed")])
    design = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(design.shape[1])
    penalty = l2 * np.eye(design.shape[1])
    penalty[0, 0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-design @ w))
        gradient = design.T @ (p - y) + penalty @ w
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return {n: round(float(v), 3) for n, v in zip(names, w[1:], strict=True)}, round(float(w[0]), 3)


def prior_shift(rows: list[dict[str, object]], weights: dict[str, float], bias: float, tau: float) -> float:
    """The smallest raise of the intercept (log prior odds in favour of answerable) with which τ
    withholds at most TARGET_WITHHOLD of the answerable questions in `rows`."""
    threshold = float(np.log(tau / (1 - tau)))
    scores = [bias + sum(weights[n] * r["answerable"]["signals"][n] for n in weights) for r in rows]
    few = [r["answerable"]["citations"] < MIN_CITATIONS for r in rows]
    for step in range(501):
        shift = step / 100
        withheld = sum(f or z + shift < threshold for z, f in zip(scores, few, strict=True))
        if withheld / len(rows) <= TARGET_WITHHOLD:
            return shift
    return 5.0


def report(rows: list[dict[str, object]], half: str, tau: float, params: dict[str, object]) -> None:
    def conf(side: dict[str, object]) -> float:
        return confidence.answer_confidence(side["signals"])

    def withheld(side: dict[str, object]) -> bool:
        return side["citations"] < MIN_CITATIONS or conf(side) < tau

    base = {**params, "half": half, "questions": len(rows), "tau": tau}
    emit("own_abstract_cited_rate", sum(r["own_cited"] for r in rows) / len(rows), "ratio", base)
    emit("answer_conf_auroc", auroc([conf(r["answerable"]) for r in rows], [conf(r["removed"]) for r in rows]), "auroc", base)
    emit("withhold_rate_answerable", sum(withheld(r["answerable"]) for r in rows) / len(rows), "ratio", base)
    emit("withhold_rate_removed", sum(withheld(r["removed"]) for r in rows) / len(rows), "ratio", base)
    latencies = sorted(r["latency_ms"] for r in rows)
    emit("rag_answer_p50_ms", statistics.median(latencies), "ms", base)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--records", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--tau", type=float, default=0.6)
    parser.add_argument("--fit", action="store_true")
    args = parser.parse_args()
    built = build(args.scratch, args.data)
    rows = asyncio.run(ask_all(args.scratch, args.data, args.records, args.limit))
    params = {"documents": built["documents"], "chunks": built["chunks"], "model_id": built["model_id"],
              "top_k": 5, "load_avg_1m": round(os.getloadavg()[0], 2)}
    tune, dev = rows[:TUNE], rows[TUNE:]
    if args.fit:
        weights, bias = fit(tune)
        shift = prior_shift(tune, weights, bias, args.tau)
        print(json.dumps({"name": "answer_conf_weights", "weights": weights, "balanced_bias": bias,
                          "prior_shift": shift, "bias": round(bias + shift, 3), "fitted_on": "tune"}))
    report(tune, "tune", args.tau, params)
    if dev:
        report(dev, "dev", args.tau, params)


if __name__ == "__main__":
    main()
