"""`tool.query_kg` names its two tiers, stated relations and co-mentions, on the issue's own query
(`{"start": {"type": "indication", "id": "mesh:D056486"}}`, drug-induced liver injury), over
evidence rows quoting real BC5CDR sentences as a sync's extractors wrote them: a CAUSES its
sentence states, one an older graph drew from a pair the title named one end of (its sentence names
only the disease), and an ALT lab value read as Alanine causing the injury."""

from __future__ import annotations

import jsonschema
import pytest
from mcp import Client

from bio_mcp.eval.pubtator import read_pubtator
from bio_mcp.features.evidence.relations import CO_MENTION_NOTE, tier_of
from bio_mcp.graph.adverse_effects import CAUSES_EXTRACTOR, CAUSES_LEAD_EXTRACTOR
from bio_mcp.graph.elements import CAUSES
from bio_mcp.graph.evidence_store import EvidenceRow, SqlEvidenceStore
from tests.evidence.test_herb_tools import QUERY_KG_RESPONSE, call, server

pytestmark = pytest.mark.anyio

LIVER_INJURY = "mesh:D056486"
BUPROPION, CARBIMAZOLE, ALANINE = "mesh:D016642", "mesh:D002231", "mesh:D000409"


def _sentence(text: str, words: str) -> tuple[int, int, str]:
    start = text.rindex(". ", 0, text.index(words)) + 2
    end = text.index(".", text.index(words)) + 1
    return start, end, text[start:end]


def _rows(data_dir) -> list[EvidenceRow]:
    bc5cdr = data_dir / "bench" / "bc5cdr"
    dev = {document.pmid: document for document in read_pubtator(bc5cdr / "CDR_DevelopmentSet.PubTator.txt")}
    training = {document.pmid: document for document in read_pubtator(bc5cdr / "CDR_TrainingSet.PubTator.txt")}
    bupropion = dev["12549952"].text  # fatal liver failure with bupropion and carbimazole
    alt = training["19037603"].text
    rows = []
    for src, words, text, pmid, extractor in (
        (BUPROPION, "The likelihood that bupropion induced", bupropion, "12549952", CAUSES_EXTRACTOR),
        (CARBIMAZOLE, "Liver biopsy showed evidence", bupropion, "12549952", CAUSES_LEAD_EXTRACTOR),
        (ALANINE, "fourth patient: ALT:122", alt, "19037603", CAUSES_EXTRACTOR),
    ):
        start, end, sentence = _sentence(text, words)
        rows.append(EvidenceRow(src, CAUSES, LIVER_INJURY, f"doc:pmid-{pmid}", None, f"pmid:{pmid}", sentence, start,
                                end, extractor, 0.8))
    return rows


async def test_query_kg_names_stated_relations_and_co_mentions_and_never_a_lab_measure(herb_graph, data_dir) -> None:
    rows = _rows(data_dir)
    with herb_graph.store.transaction() as tx:
        SqlEvidenceStore(tx.connection).replace_documents(sorted({row.document_id for row in rows}), rows)
    arguments = {"start": {"type": "indication", "id": LIVER_INJURY}}
    async with Client(server(herb_graph)) as client:
        error, body, text = await call(client, "tool.query_kg", arguments)
    assert not error
    jsonschema.validate(body, QUERY_KG_RESPONSE)
    by_cause = {path[1]["id"]: (path, edges, tier)
                for path, edges, tier in zip(body["paths"], body["edges"], body["path_tiers"], strict=True)}
    # "ALT:122 IU/l" is a lab value: Alanine is never shown causing the injury.
    assert ALANINE not in by_cause
    path, [edge], tier = by_cause[BUPROPION]
    assert tier == "stated" and edge["tier"] == "stated" and "bupropion induced" in edge["evidence"][0]["sentence"]
    # A chemical no curated source says a plant contains is not labelled a constituent.
    assert path[1]["type"] == "chemical"
    _, [edge], tier = by_cause[CARBIMAZOLE]
    assert tier == "co-mention" and edge["tier"] == "co-mention"
    stated, co_mentions = text.split("#### Co-mentions")
    assert "Stated relations" in stated and "Bupropion (chemical)" in stated and "Carbimazole" not in stated
    assert f"({CO_MENTION_NOTE})" in co_mentions and "Carbimazole (chemical)" in co_mentions
    assert "Alanine" not in text


def test_a_sentence_naming_both_ends_by_a_synonym_is_stated_one_naming_one_is_not(data_dir) -> None:
    """An extractor the tiers do not know is judged by its quote: both ends named, by any name."""
    rows = _rows(data_dir)
    bupropion_names, injury_names = {"bupropion", "zyban"}, {"hepatotoxicity", "drug induced liver injury"}
    unknown = [row.__class__(**{**{f: getattr(row, f) for f in row.__dataclass_fields__}, "extractor": "other"})
               for row in rows[:2]]
    assert tier_of(unknown[:1], bupropion_names, injury_names) == "stated"
    assert tier_of(unknown[1:], bupropion_names, injury_names) == "co-mention"
    assert tier_of(rows[1:2], {"carbimazole"}, injury_names) == "co-mention"  # a lead pair's row, whatever it quotes
