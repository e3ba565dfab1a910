"""tool.rag_answer on PubMedQA's 500 labelled questions (pqal_dev.json) among SciFact distractors.

    PYTHONPATH=src python bench/pubmedqa_answers.py --scratch /work/cache/answers/pubmedqa-corpus \
        --records /work/cache/answers/pubmedqa-records.jsonl [--fit]

Each question is asked with its abstract in the index (answerable) and again with the abstract's
chunks deleted from the index (unanswerable; put back afterwards). Per question the signals,
answer_conf, citation count and whether its own abstract was cited are written to --records (a
later run re-reads them instead of asking again: signals do not depend on answer_conf's weights).

PubMedQA ships only its labelled development questions (the test half is kept back), so they are
split deterministically: tune = the first 250 items in file order, dev = the other 250. Everything
fitted is fitted on tune; dev is reported.

Printed per half, as JSON lines: own-abstract citation rate, AUROC of answer_conf (answerable
against removed), withhold rate on answerable and on removed questions under the seed's policy
(< 3 citations or answer_conf < τ), the latency of a call; the verdict's accuracy on the answerable
questions (yes/no/maybe gold; `mixed` counts as maybe, `insufficient` as wrong) beside the
majority-class baseline (the tune half's commonest answer), and per gold label; answer_conf's
expected calibration error (10 equal-width bins) and its reliability table (one line per bin) over
answerable and removed questions, the event being "the question's own abstract is among the
citations" (never, when it was removed).

--fit fits on the tune half and prints: answer_conf's logistic weights (light L2, fitted to the
event, so calibrated as Platt's method is), and the verdict's conclusion weight and thresholds (grid
search for accuracy); paste them into features/evidence/answer_confidence.py
and answer_verdict.py and run again to report.
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
from figures import emit

from bio_mcp.eval.corpus_fill import chunk_uuids_of
from bio_mcp.eval.metrics import auroc, expected_calibration_error, reliability_table
from bio_mcp.eval.pubmedqa import load_pubmedqa
from bio_mcp.features.evidence import answer_confidence as confidence
from bio_mcp.features.evidence import answer_verdict as verdicts
from bio_mcp.features.evidence.answer import AnswerContext, rag_answer
from bio_mcp.features.evidence.answer_focus import QueryReading, read_focus
from bio_mcp.features.evidence.answer_models import RagAnswerRequest, RagAnswerResponse
from bio_mcp.features.evidence.citation_checks import chunk_id_of, pmid_of
from bio_mcp.features.kb.search import KbContext
from bio_mcp.search.chunking import chunk_uuid

TUNE = 250
MIN_CITATIONS = 3
BINS = 10


def _side(response: RagAnswerResponse, kb: KbContext, pmid: str) -> dict[str, object]:
    """What the measures read of one answer: its signals, citations and each quote's verdict reading."""
    uuids = [chunk_uuid(pmid_of(c.id), chunk_id_of(c.anchor)) for c in response.citations]
    with kb.store.read() as tx:
        stored = tx.chunks.get_many(set(uuids))
    quoted = [verdicts.QuotedSentence(c.quote, stored[u].text, c.start, c.title)
              for c, u in zip(response.citations, uuids, strict=True) if u in stored]
    readings = [verdicts.read_sentence(sentence) for sentence in quoted]
    # The quotes themselves too, so a change to how sentences are read is measured without asking again.
    return {"signals": response.scores.signals, "citations": len(response.citations),
            "own_cited": f"pmid:{pmid}" in {c.id for c in response.citations},
            "off_topic": response.focus.off_topic_sentences if response.focus else 0,
            "readings": [[r.conclusion, r.negated, r.hedged] for r in readings],
            "quotes": [sentence.text for sentence in quoted], "verdict": response.verdict}



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
                "pmid": item.pmid, "position": number, "latency_ms": round(latency, 1), "decision": item.decision,
                "own_cited": f"pmid:{item.pmid}" in {c.id for c in answerable.citations},
                "answerable": _side(answerable, kb, item.pmid), "removed": _side(removed, kb, item.pmid),
            }
            out.write(json.dumps(row) + "\n")
            out.flush()
            done[item.pmid] = row
    kb.store.close()
    return [done[item.pmid] for item in items]


# Per question (PMID), what tells whether a clause names its subject, as tool.rag_answer reads it,
# and whether it asks if something is safe.
Subjects = dict[str, tuple[verdicts.NamesSubject | None, bool]]


def question_subjects(scratch: Path, data: Path, rows: list[dict[str, object]]) -> Subjects:
    """Each question's focus, read as tool.rag_answer reads it (the bench asks without a rewriter),
    so recorded quotes are read again with their negations scoped to the subject."""
    questions = {item.pmid: item.question for item in load_pubmedqa(data / "bench" / "pubmedqa" / "pqal_dev.json")}
    kb = open_context(scratch)
    subjects: Subjects = {}
    for row in rows:
        question = questions[row["pmid"]]
        focus = read_focus(question, QueryReading(question), kb.linker, kb.catalog)
        names = focus.names_subject if focus.subject is not None else None
        subjects[row["pmid"]] = (names, verdicts.is_safety_question(question))
    return subjects


def _answered(side: dict[str, object]) -> float:
    """The event answer_conf estimates: the question's own abstract is cited."""
    return 1.0 if side["own_cited"] else 0.0


def _sides(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    return [row[kind] for row in rows for kind in ("answerable", "removed")]


def fit(rows: list[dict[str, object]], l2: float = 0.01) -> tuple[dict[str, float], float]:
    """Logistic regression (Newton's method) of own abstract cited (1) against not (0)."""
    names = confidence.SIGNALS
    x = np.array([[side["signals"][n] for n in names] for side in _sides(rows)])
    y = np.array([_answered(side) for side in _sides(rows)])
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


def _verdict(
    side: dict[str, object], weight: float, no_share: float, hedge_share: float,
    names_subject: verdicts.NamesSubject | None = None, safety: bool = False,
) -> str:
    if side["citations"] < MIN_CITATIONS:
        return "insufficient"
    # Sentences are read again when their text was recorded: the reading measured is the current one.
    if "quotes" in side:
        readings = [verdicts.read_text(quote, flags[0], names_subject)
                    for quote, flags in zip(side["quotes"], side["readings"], strict=True)]
    else:
        readings = [verdicts.SentenceReading(*flags) for flags in side["readings"]]
    if safety:
        return verdicts.decide_safety(readings)
    return verdicts.decide(verdicts.shares(readings, weight), no_share, hedge_share)


def _correct(predicted: str, gold: str) -> bool:
    return {"yes": "yes", "no": "no", "mixed": "maybe"}.get(predicted) == gold


def fit_verdict(rows: list[dict[str, object]], subjects: Subjects) -> tuple[float, float, float]:
    best = (-1.0, 0.0, 0.0, 0.0)
    for weight in (1.0, 2.0, 3.0, 5.0, 10.0):
        for no_share in np.arange(0.1, 1.01, 0.05):
            for hedge_share in np.arange(0.1, 1.51, 0.05):
                hits = sum(_correct(_verdict(r["answerable"], weight, no_share, hedge_share, *subjects[r["pmid"]]),
                                    r["decision"]) for r in rows)
                if hits > best[0]:
                    best = (hits, weight, round(float(no_share), 2), round(float(hedge_share), 2))
    return best[1], best[2], best[3]


def report_verdict(rows: list[dict[str, object]], majority: str, base: dict[str, object], subjects: Subjects) -> None:
    predicted = [_verdict(r["answerable"], verdicts.CONCLUSION_WEIGHT, verdicts.NO_SHARE, verdicts.HEDGE_SHARE,
                          *subjects[r["pmid"]])
                 for r in rows]
    emit("verdict_accuracy", sum(_correct(p, r["decision"]) for p, r in zip(predicted, rows, strict=True)) / len(rows),
         "ratio", base)
    emit("verdict_majority_baseline", sum(r["decision"] == majority for r in rows) / len(rows), "ratio",
         {**base, "majority": majority})
    emit("verdict_insufficient_rate", predicted.count("insufficient") / len(rows), "ratio", base)
    answered = [(p, r) for p, r in zip(predicted, rows, strict=True) if p != "insufficient"]
    if answered:
        params = {**base, "questions": len(answered), "answered_only": True}
        emit("verdict_accuracy", sum(_correct(p, r["decision"]) for p, r in answered) / len(answered), "ratio", params)
        emit("verdict_majority_baseline", sum(r["decision"] == majority for _, r in answered) / len(answered), "ratio",
             {**params, "majority": majority})
    for gold in ("yes", "no", "maybe"):
        of = [p for p, r in zip(predicted, rows, strict=True) if r["decision"] == gold]
        if of:
            emit("verdict_recall", sum(_correct(p, gold) for p in of) / len(of), "ratio", {**base, "gold": gold,
                                                                                          "questions": len(of)})


def report_calibration(rows: list[dict[str, object]], base: dict[str, object]) -> None:
    sides = _sides(rows)
    scores = [confidence.answer_confidence(side["signals"]) for side in sides]
    events = [_answered(side) for side in sides]
    params = {**base, "answers": len(sides), "bins": BINS, "event": "own abstract cited"}
    emit("answer_conf_ece", expected_calibration_error(scores, events, BINS), "ratio", params)
    for row in reliability_table(scores, events, BINS):
        emit("answer_conf_reliability", row.observed, "ratio", params, bin=[row.low, row.high], count=row.count,
             mean_conf=row.mean_conf)


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
    emit("off_topic_sentences_mean", statistics.mean(r["answerable"]["off_topic"] for r in rows), "sentences", base)


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
    subjects = question_subjects(args.scratch, args.data, rows)
    params = {"documents": built["documents"], "chunks": built["chunks"], "model_id": built["model_id"],
              "top_k": 5, "load_avg_1m": round(os.getloadavg()[0], 2)}
    tune, dev = rows[:TUNE], rows[TUNE:]
    if args.fit:
        weights, bias = fit(tune)
        print(json.dumps({"name": "answer_conf_weights", "weights": weights, "bias": bias, "fitted_on": "tune"}))
        print(json.dumps({"name": "verdict_parameters", "fitted_on": "tune",
                          **dict(zip(("conclusion_weight", "no_share", "hedge_share"), fit_verdict(tune, subjects), strict=True))}))
    majority = max(("yes", "no", "maybe"), key=lambda label: sum(r["decision"] == label for r in tune))
    for half, rows_of in (("tune", tune), ("dev", dev)):
        if rows_of:
            base = {**params, "half": half, "questions": len(rows_of), "tau": args.tau}
            report(rows_of, half, args.tau, params)
            report_verdict(rows_of, majority, base, subjects)
            report_calibration(rows_of, base)


if __name__ == "__main__":
    main()
