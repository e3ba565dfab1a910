"""The query sets `tool.eval.run` scores retrieval on, each as BEIR-shaped data (corpus, queries,
graded relevance judgments).

- smoke: built at run time from the server's own corpus (known-item retrieval: each sampled
  document's title must find that document), so it runs in seconds on any installation that has
  synced something, with no data files at all. On a fresh install (an empty corpus) it is built
  from the installed MeSH instead (public-domain NLM data): a scratch corpus of `MESH_SMOKE_DOCUMENTS`
  descriptors sampled evenly by id, each document its heading, its other entry terms and its tree
  parents' headings (the installed descriptor file carries no scope notes); each query one entry
  term that is not the heading (left out of the document), relevant: that descriptor.
- curated: the folders under BIO_MCP_EVAL_DATA, each read as published:
  * any BEIR folder (`corpus.jsonl`, `queries*.jsonl`, `qrels/{split}.tsv`, e.g. SciFact): its own
    queries and judgments;
  * `pubmedqa/` (PQA-L): each question must find its own abstract (the contexts, conclusion left out);
  * `bc5cdr/` (development set): one query per chemical-induces-disease pair, "<chemical> <disease>"
    as first written in the first abstract stating it; relevant: every abstract stating that pair;
  * `ppr/`: the train and dev abstracts form the corpus; one query per dev plant-phenotype relation,
    "<plant> <phenotype>"; relevant: every abstract relating that plant to that phenotype.
- custom: one BEIR folder given in `params.path`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.eval.beir import first_queries, load_beir
from bio_mcp.eval.ppr import read_ppr
from bio_mcp.eval.pubmedqa import load_pubmedqa
from bio_mcp.eval.pubtator import read_pubtator
from bio_mcp.graph.vocabulary import Concept, load_vocabulary, search_key
from bio_mcp.store import MetadataStore
from bio_mcp.store.schema import documents as documents_table

SPLIT_PREFERENCE = ("test", "dev", "train")
# A few hundred: embedding them is most of the run (about 20 ms of CPU each with the default model).
MESH_SMOKE_DOCUMENTS = 100
CURATED_NAMES = ("beir", "pubmedqa", "bc5cdr", "ppr")


@dataclass
class QuerySet:
    """`corpus` None: the queries run against the server's own corpus, whose ids are PMIDs."""

    name: str
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    corpus: list[dict[str, Any]] | None
    description: str
    lang: dict[str, str] = field(default_factory=dict)


def _trim_corpus(corpus: list[dict[str, Any]], qrels: dict[str, dict[str, int]], max_docs: int | None) -> list[dict[str, Any]]:
    """The judged documents plus the first others, up to `max_docs` in all (None: every document)."""
    if max_docs is None:
        return corpus
    relevant = {doc for judged in qrels.values() for doc in judged}
    kept: list[dict[str, Any]] = []
    others = 0
    for item in corpus:
        if str(item["_id"]) in relevant:
            kept.append(item)
        elif others < max(0, max_docs - len(relevant)):
            kept.append(item)
            others += 1
    return kept


# ---- smoke --------------------------------------------------------------------------------------


def smoke_set(store: MetadataStore, mesh_path: Path | None, max_queries: int, cache_dir: Path | None = None) -> QuerySet:
    """Known-item queries over the corpus (an even sample of documents by PMID, each title a query);
    over the MeSH descriptors at `mesh_path` when the corpus has no titled document."""
    with store.read() as tx:
        rows = tx.connection.execute(
            sa.select(documents_table.c.pmid, documents_table.c.title)
            .where(documents_table.c.title.is_not(None))
            .order_by(documents_table.c.pmid)
        ).all()
    rows = [row for row in rows if row.title and row.title.strip()]
    if not rows and mesh_path is not None:
        return mesh_smoke_set(mesh_path, max_queries, cache_dir)
    if not rows:
        raise BioMcpError(
            ErrorCode.NOT_FOUND,
            "the smoke set is built from the local corpus, which has no titled documents, or else from "
            "the MeSH descriptors, which are not installed: sync some (pubmed.sync_delta or `bio-mcp "
            "sync`), install MeSH (`bio-mcp data install-mesh FILE`) or run the curated set",
            {"set": "smoke", "setting": "BIO_MCP_MESH_PATH"},
        )
    step = max(1, len(rows) // max_queries)
    sample = rows[::step][:max_queries]
    queries = {f"smoke-{row.pmid}": row.title.strip() for row in sample}
    qrels = {f"smoke-{row.pmid}": {row.pmid: 1} for row in sample}
    return QuerySet(
        name="smoke", queries=queries, qrels=qrels, corpus=None,
        description=f"known-item: {len(sample)} titles sampled evenly from the {len(rows)} documents of the local corpus",
    )


def _word_set(text: str) -> frozenset[str]:
    """A term's words without case, punctuation or a plural s: "Abattoir" and "Abattoirs" are one."""
    return frozenset(word.removesuffix("s") for word in search_key(text).split())


def _query_term(concept: Concept) -> str | None:
    """The shortest entry term whose words are not the heading's (None: every term restates it)."""
    heading = _word_set(concept.name)
    terms = [term for term in concept.synonyms if _word_set(term) and _word_set(term) != heading]
    return min(terms, key=lambda term: (len(term), term)) if terms else None


def mesh_smoke_set(mesh_path: Path, max_queries: int, cache_dir: Path | None = None) -> QuerySet:
    """Known-item queries over MeSH descriptors (the module docstring): entry term -> its descriptor
    (the vocabulary read from its pickle in `cache_dir` when there is one)."""
    concepts = load_vocabulary(mesh_path, cache_dir).concepts if mesh_path.is_file() else {}
    eligible = [(concept, term) for concept in sorted(concepts.values(), key=lambda c: c.id)
                if (term := _query_term(concept)) is not None]
    if not eligible:
        raise BioMcpError(ErrorCode.NOT_FOUND, f"no MeSH descriptor with an entry term in {mesh_path}",
                          {"set": "smoke", "path": str(mesh_path)})
    sample = eligible[:: max(1, len(eligible) // MESH_SMOKE_DOCUMENTS)][:MESH_SMOKE_DOCUMENTS]
    asked = sample[:: max(1, len(sample) // max_queries)][:max_queries]
    corpus = []
    for concept, term in sample:
        others = [name for name in concept.synonyms if name != term] if (concept, term) in asked else list(concept.synonyms)
        parents = [concepts[parent].name for parent in concept.parents if parent in concepts]
        text = "; ".join(others) + (f". Under: {'; '.join(parents)}." if parents else "")
        corpus.append({"_id": concept.id, "title": concept.name, "text": text})
    return QuerySet(
        name="smoke", queries={f"smoke-{concept.id}": term for concept, term in asked},
        qrels={f"smoke-{concept.id}": {concept.id: 1} for concept, _ in asked}, corpus=corpus,
        description=f"known-item over MeSH ({mesh_path.name}; the local corpus is empty): {len(asked)} entry terms, "
                    f"each to find its descriptor among {len(corpus)} sampled evenly from {len(eligible)} "
                    "(heading, other entry terms and tree parents)",
    )


# ---- curated ------------------------------------------------------------------------------------


def _beir_split(folder: Path, split: str | None) -> str:
    if split is not None:
        return split
    present = {path.stem for path in (folder / "qrels").glob("*.tsv")}
    for name in SPLIT_PREFERENCE:
        if name in present:
            return name
    raise BioMcpError(ErrorCode.VALIDATION, f"{folder} has no qrels/*.tsv", {"path": str(folder)})


def beir_set(folder: Path, split: str | None, max_queries: int, max_docs: int | None, name: str | None = None) -> QuerySet:
    chosen = _beir_split(folder, split)
    dataset = load_beir(folder, chosen, max_queries=max_queries, max_docs=max_docs)
    return QuerySet(
        name=name or folder.name, queries=dataset.queries, qrels=dataset.qrels, corpus=dataset.corpus,
        description=f"BEIR folder {folder.name}, split {chosen}: its own queries and judgments",
    )


def pubmedqa_set(folder: Path, max_queries: int, max_docs: int | None) -> QuerySet:
    path = next(iter(sorted(folder.glob("*.json"))), None)
    if path is None:
        raise BioMcpError(ErrorCode.VALIDATION, f"{folder} holds no PubMedQA json", {"path": str(folder)})
    corpus, queries, qrels = [], {}, {}
    for item in sorted(load_pubmedqa(path), key=lambda item: item.pmid):
        corpus.append({"_id": item.pmid, "title": "", "text": " ".join(section.text for section in item.contexts)})
        queries[item.pmid] = item.question
        qrels[item.pmid] = {item.pmid: 1}
    queries, qrels = first_queries(queries, qrels, max_queries)
    return QuerySet(
        name="pubmedqa", queries=queries, qrels=qrels, corpus=_trim_corpus(corpus, qrels, max_docs),
        description=f"PubMedQA {path.name}: each question must find its own abstract (conclusion left out)",
    )


def bc5cdr_set(folder: Path, max_queries: int, max_docs: int | None) -> QuerySet:
    path = next(iter(sorted(folder.glob("*Development*PubTator*.txt"))), None)
    if path is None:
        raise BioMcpError(ErrorCode.VALIDATION, f"{folder} holds no BC5CDR development set", {"path": str(folder)})
    corpus, queries, qrels = [], {}, {}
    for document in read_pubtator(path):
        corpus.append({"_id": document.pmid, "title": document.title, "text": document.abstract})
        first: dict[str, str] = {}
        for annotation in document.annotations:
            for mesh in annotation.ids:
                first.setdefault(mesh, annotation.text)
        for _, chemical, disease in document.relations:
            key = f"{chemical}>{disease}"
            if key not in queries and chemical in first and disease in first:
                queries[key] = f"{first[chemical]} {first[disease]}"
            if key in queries:
                qrels.setdefault(key, {})[document.pmid] = 1
    queries, qrels = first_queries(queries, qrels, max_queries)
    return QuerySet(
        name="bc5cdr", queries=queries, qrels=qrels, corpus=_trim_corpus(corpus, qrels, max_docs),
        description=f"BC5CDR {path.name}: '<chemical> <disease>' per chemical-induces-disease pair",
    )


def ppr_set(folder: Path, max_queries: int, max_docs: int | None) -> QuerySet:
    dev = next(iter(sorted(folder.glob("PPR_dev_corpus.txt"))), None)
    if dev is None:
        raise BioMcpError(ErrorCode.VALIDATION, f"{folder} holds no PPR_dev_corpus.txt", {"path": str(folder)})
    corpus, queries, qrels = [], {}, {}
    for path in [dev, *sorted(folder.glob("PPR_train_corpus.txt"))]:
        for document in read_ppr(path):
            text = [sentence.text for sentence in document.sentences]
            corpus.append({"_id": document.pmid, "title": text[0], "text": " ".join(text[1:])})
            if path != dev:
                continue
            for relation in (r for sentence in document.sentences for r in sentence.relations):
                plant, phenotype = relation.plant.text, relation.phenotype.text
                key = f"{plant.casefold()}>{phenotype.casefold()}"
                queries.setdefault(key, f"{plant} {phenotype}")
                qrels.setdefault(key, {})[document.pmid] = 1
    queries, qrels = first_queries(queries, qrels, max_queries)
    return QuerySet(
        name="ppr", queries=queries, qrels=qrels, corpus=_trim_corpus(corpus, qrels, max_docs),
        description="PPR dev relations as '<plant> <phenotype>' over the train and dev abstracts",
    )


def curated_sets(root: Path, names: list[str] | None, max_queries: int, max_docs: int | None) -> list[QuerySet]:
    """The curated folders present under `root` (BEIR folders by layout), optionally only `names`."""
    if not root.is_dir():
        raise BioMcpError(ErrorCode.VALIDATION, f"BIO_MCP_EVAL_DATA {root} is not a folder", {"path": str(root)})
    wanted = set(names or CURATED_NAMES)
    sets: list[QuerySet] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if "beir" in wanted and (folder / "corpus.jsonl").is_file() and (folder / "qrels").is_dir():
            sets.append(beir_set(folder, None, max_queries, max_docs))
        elif folder.name == "pubmedqa" and "pubmedqa" in wanted:
            sets.append(pubmedqa_set(folder, max_queries, max_docs))
        elif folder.name == "bc5cdr" and "bc5cdr" in wanted:
            sets.append(bc5cdr_set(folder, max_queries, max_docs))
        elif folder.name == "ppr" and "ppr" in wanted:
            sets.append(ppr_set(folder, max_queries, max_docs))
    if not sets:
        raise BioMcpError(
            ErrorCode.NOT_FOUND, f"no curated evaluation folder (BEIR, pubmedqa, bc5cdr, ppr) under {root}",
            {"path": str(root), "datasets": sorted(wanted)},
        )
    return sets
