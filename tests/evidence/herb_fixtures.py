"""Fixtures for the herb-knowledge tests: a store holding the Thai tables (examples/kg), the herb catalog
(MeSH plants + Dr. Duke), and relations taken from real sentences with their real sources: PPR train
abstracts (PMIDs), one SciFact abstract and real PubMed records (whose quality is in the corpus)."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from bio_mcp.config import load_settings
from bio_mcp.eval.ppr import read_ppr
from bio_mcp.features.corpus.records import document_record
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.graph.catalog import MeshCatalog
from bio_mcp.graph.herb_catalog import write_herb_catalog
from bio_mcp.graph.indexer import GraphIndexer, load_catalog
from bio_mcp.graph.kg_import import import_file
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.parsers.efetch import parse_efetch
from bio_mcp.store import MetadataStore

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "kg"
TODAY = date(2026, 11, 24)

# (corpus, sentence id, subject, relation, object, part): what each real sentence states.
# ppr: `PMID_n` of PPR_train_corpus.txt; scifact: the abstract's first sentence; pubmed: the record's title.
RELATIONS: list[tuple[str, str, str, str, str, str]] = [
    ("ppr", "21069254_1", "Curcuma longa", "indication", "Pancreatitis", ""),
    ("ppr", "27034601_5", "Curcuma longa", "indication", "Arthritis", "rhizome"),
    ("ppr", "26013326_1", "Curcuma longa", "indication", "Inflammation", ""),
    ("scifact", "343052", "Curcuma longa", "constituent", "Curcumin", ""),
    ("pubmed", "26585812", "Curcumin", "indication", "Carcinoma, Hepatocellular", ""),
    ("ppr", "27748188_8", "Allium sativum", "indication", "Hypertension", ""),
    ("ppr", "27748188_8", "Allium sativum", "indication", "Atherosclerosis", ""),
    ("ppr", "12537594_2", "Garlic", "indication", "Cardiovascular Diseases", ""),
    ("ppr", "11238818_5", "Allium sativum", "interaction", "Cytochrome P-450 Enzyme System", ""),
    ("ppr", "10592946_1", "Camellia sinensis", "adverse_effect", "Rhabdomyolysis", ""),
    ("ppr", "10592946_2", "Camellia sinensis", "adverse_effect", "Delirium", ""),
    ("ppr", "10592946_7", "Camellia sinensis", "constituent", "Caffeine", ""),
    ("ppr", "10592946_7", "Caffeine", "adverse_effect", "Rhabdomyolysis", ""),
    ("pubmed", "23121403", "Aspirin", "indication", "Venous Thromboembolism", ""),
]
# Real records whose corpus quality the strength reads: an RCT (23121403) and a journal article (26585812).
CORPUS_PMIDS = ("23121403", "26585812")


def ppr_sentences(data_dir: Path) -> dict[str, str]:
    """`PMID_n` (n from 1) -> that sentence of PPR_train_corpus.txt."""
    return {f"{document.pmid}_{number}": sentence.text
            for document in read_ppr(data_dir / "bench" / "ppr" / "PPR_train_corpus.txt")
            for number, sentence in enumerate(document.sentences, 1)}


def real_articles(data_dir: Path) -> dict[str, object]:
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        body = handle.read()
    return {article.pmid: article for article in parse_efetch(body)}


def relation_rows(data_dir: Path) -> list[dict[str, str]]:
    """The RELATIONS as import rows, each with its real sentence and source."""
    ppr = ppr_sentences(data_dir)
    articles = real_articles(data_dir)
    scifact: dict[str, str] = {}
    with (data_dir / "bench" / "scifact" / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record["_id"] == "343052":
                scifact["343052"] = record["text"].split(". ")[0] + "."
    rows = []
    for corpus, key, subject, relation, target, part in RELATIONS:
        if corpus == "ppr":
            sentence, source = ppr[key], f"pmid:{key.split('_')[0]}"
        elif corpus == "scifact":
            sentence, source = scifact[key], f"scifact:{key}"
        else:
            sentence, source = articles[key].title, f"pmid:{key}"  # type: ignore[attr-defined]
        rows.append({"subject": subject, "relation": relation, "object": target, "evidence": sentence,
                     "source": source, "part": part})
    return rows


def write_relations_tsv(path: Path, rows: list[dict[str, str]]) -> Path:
    columns = ["subject", "relation", "object", "evidence", "source", "part"]
    lines = ["\t".join(columns)] + ["\t".join(row[c] for c in columns) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def mesh_catalog(data_dir: Path, linker_cache: Path) -> MeshCatalog:
    return load_catalog(data_dir / "mesh" / "mesh_descriptors_2024.jsonl", linker_cache)


@dataclass
class HerbGraph:
    service: CorpusService
    store: MetadataStore
    relations_file: Path


def load_herb_graph(store: MetadataStore, catalog: MeshCatalog, data_dir: Path, tmp: Path) -> Path:
    """Thai tables, then the herb catalog, then the relations: the documented order."""
    with store.transaction() as tx:
        import_file(tx.connection, EXAMPLES / "thai_herb_names.tsv", catalog)
    with store.transaction() as tx:
        import_file(tx.connection, EXAMPLES / "thai_formulations.tsv", catalog)
    with store.transaction() as tx:
        write_herb_catalog(tx.connection, catalog, data_dir / "herbs" / "duke")
    relations = write_relations_tsv(tmp / "relations.tsv", relation_rows(data_dir))
    with store.transaction() as tx:
        import_file(tx.connection, relations, catalog)
    return relations


def store_corpus_records(store: MetadataStore, data_dir: Path) -> None:
    articles = real_articles(data_dir)
    with store.transaction() as tx:
        tx.documents.upsert([document_record(articles[pmid], TODAY) for pmid in CORPUS_PMIDS])  # type: ignore[arg-type]


@pytest.fixture
async def herb_graph(bio_home: Path, data_dir: Path, mesh_catalog: MeshCatalog, tmp_path: Path) -> AsyncIterator[HerbGraph]:
    # The curated tables and the literature only: with Dr. Duke's constituent table, a herb's first
    # read would write its constituents too (tests/evidence/test_herb_constituents_fresh.py).
    no_farmacy = tmp_path / "no-duke-farmacy"
    no_farmacy.mkdir()
    settings = load_settings(
        BIO_MCP_HOME=str(bio_home), BIO_MCP_EMBEDDINGS_PROVIDER="hash",
        BIO_MCP_MESH_PATH=str(data_dir / "mesh" / "mesh_descriptors_2024.jsonl"),
        BIO_MCP_DUKE_DIR=str(data_dir / "herbs" / "duke"), BIO_MCP_DUKE_FARMACY_DIR=str(no_farmacy),
        BIO_MCP_DO_XREFS_PATH=str(data_dir / "ontology" / "do_xrefs.tsv"),
    )
    eutils = EutilsClient(settings)
    service = CorpusService(settings, eutils, graph=GraphIndexer(mesh_catalog, None), embed_in_background=False)
    await service.open()
    relations = load_herb_graph(service.store, mesh_catalog, data_dir, tmp_path)
    yield HerbGraph(service, service.store, relations)
    await service.aclose()
    await eutils.aclose()
