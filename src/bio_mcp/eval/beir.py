"""BEIR folders (SciFact's layout): `corpus.jsonl`, `queries.jsonl` or `queries.{split}.jsonl`, and
graded relevance judgments in `qrels/{split}.tsv` (query id, document id, grade; a header line is
skipped)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bio_mcp.errors import BioMcpError, ErrorCode


@dataclass(frozen=True)
class BeirDataset:
    corpus: list[dict[str, Any]]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The objects of a JSON-lines file, blank lines skipped."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def first_queries(
    queries: dict[str, str], qrels: dict[str, dict[str, int]], max_queries: int | None
) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """The first `max_queries` queries by id (shorter ids first) with their judgments."""
    chosen = sorted(queries, key=lambda key: (len(key), key))[:max_queries]
    return {key: queries[key] for key in chosen}, {key: qrels[key] for key in chosen}


def load_beir(
    data_dir: Path, split: str, *, max_queries: int | None = None, max_docs: int | None = None
) -> BeirDataset:
    """The queries with qrels in `split`; with `max_docs`, their relevant documents plus the first others."""
    qrels_path = data_dir / "qrels" / f"{split}.tsv"
    queries_path = next(
        (
            path
            for path in (data_dir / f"queries.{split}.jsonl", data_dir / "queries.jsonl")
            if path.is_file()
        ),
        None,
    )
    if not qrels_path.is_file() or queries_path is None:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"{data_dir} is not a BEIR folder with split {split!r}",
            {"data_dir": str(data_dir)},
        )
    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open(encoding="utf-8") as rows:
        for row in rows:
            parts = row.rstrip("\n").split("\t")
            if len(parts) != 3 or not parts[2].lstrip("-").isdigit():
                continue
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    queries = {
        str(item["_id"]): str(item["text"]) for item in read_jsonl(queries_path) if str(item["_id"]) in qrels
    }
    queries, qrels = first_queries(queries, qrels, max_queries)
    relevant = {doc for judged in qrels.values() for doc in judged}
    corpus: list[dict[str, Any]] = []
    for item in read_jsonl(data_dir / "corpus.jsonl"):
        keep = max_docs is None or str(item["_id"]) in relevant or len(corpus) < max_docs
        if keep:
            corpus.append(item)
    return BeirDataset(corpus=corpus, queries=queries, qrels=qrels)
