"""kb.search and kb.retrieve_evidence against seed 002's shapes, on a corpus synced from the fake
E-utilities over the real records with the real MeSH linker and graph; SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client
from pydantic import ValidationError

from bio_mcp.features.corpus.models import SyncDeltaRequest
from bio_mcp.features.corpus.search import EMPTY_CORPUS_NOTE
from bio_mcp.features.corpus.service import CorpusService
from bio_mcp.features.corpus.sync import SyncOptions
from bio_mcp.features.kb.graph_service import KbGraph
from bio_mcp.features.kb.models import EntitiesRequest, KbSearchRequest, RetrieveEvidenceRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.features.kb.search import NO_QUERY_WORD_NOTE
from bio_mcp.graph.ids import section_node_id
from bio_mcp.graph.indexer import GraphIndexer, load_catalog
from bio_mcp.graph.linking import load_linker_from
from bio_mcp.graph.store import SqlGraphStore
from bio_mcp.server.app import build_server
from bio_mcp.server.toolsets.kb import build_kb_toolset
from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.testing import FakesApp, run_fakes
from tests.corpus.corpus_fixtures import SPREAD, TERM, UNTIL, corpus_settings
from tests.graph.graph_sync_fixtures import synced

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="session")
def graph_indexer(data_dir, linker_cache) -> GraphIndexer:
    """The MeSH linker with the BC5CDR training pairs, as deployed: MeSH 2024 has no entry term
    "hepatotoxicity", the training set maps it to D056486."""
    mesh = data_dir / "mesh" / "mesh_descriptors_2024.jsonl"
    training = data_dir / "bench" / "bc5cdr" / "CDR_TrainingSet.PubTator.txt"
    return GraphIndexer(load_catalog(mesh, linker_cache), load_linker_from(mesh, training, linker_cache))


@pytest.fixture(scope="module")
async def sqlite_corpus(
    tmp_path_factory: pytest.TempPathFactory, fakes_app: FakesApp, data_dir: Path, graph_indexer: GraphIndexer
) -> AsyncIterator[CorpusService]:
    """The corpus synced once on SQLite for the tests below that only read it: a sync of its own in
    each took most of the module's time."""
    fakes_app.reset()
    fakes_app.eutils.spread_edats(*SPREAD)
    with run_fakes(data_dir, app=fakes_app) as running:
        settings = corpus_settings(tmp_path_factory.mktemp("kb-home"), running)
        eutils = EutilsClient(settings)
        service = CorpusService(settings, eutils, sync_options=SyncOptions(until=UNTIL, batch_size=100),
                                embed_in_background=False, graph=graph_indexer)
        await service.sync_delta(SyncDeltaRequest(query_key="graph", term=TERM))
        yield service
        await service.aclose()
        await eutils.aclose()
    fakes_app.reset()

LIVER_INJURY = "mesh:D056486"  # Chemical and Drug Induced Liver Injury
SORAFENIB = "mesh:D000077157"  # MeSH 2024's descriptor
SORAFENIB_2015 = "mesh:C471405"  # the supplementary concept BC5CDR's 2015 annotations name
CLOFIBRATE_ETHYL = "mesh:C012282"  # a supplementary concept no descriptor covers

# Seed 002's search_documentation request, as JSON Schema (descriptions dropped).
SEARCH_REQUEST = {
    "type": "object", "required": ["query"], "additionalProperties": False,
    "properties": {
        "query": {"type": "string", "minLength": 1},
        "top_k": {"type": "integer", "minimum": 1, "maximum": 20, "default": 8},
        "verbosity": {"type": "string", "enum": ["snippet", "full", "graph"], "default": "snippet"},
        "providers": {"type": "object", "additionalProperties": False, "properties": {
            "embedding": {"type": "string", "enum": ["jina", "openai", "hf", "auto"]},
            "reranker": {"type": "string", "enum": ["jina", "cohere", "none"]}}},
        "limits": {"type": "object", "additionalProperties": False, "properties": {"graph": {
            "type": "object", "additionalProperties": False, "properties": {
                "max_depth_soft": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3},
                "max_depth_hard": {"type": "integer", "minimum": 1, "maximum": 5, "default": 5},
                "max_nodes_hard": {"type": "integer", "minimum": 1, "maximum": 200, "default": 200},
                "rel_whitelist": {"type": "array", "items": {"type": "string"}}}}}},
    },
}
_METADATA = {"type": "object", "required": ["doc_uri", "anchor", "score"], "properties": {
    "doc_uri": {"type": "string"}, "anchor": {"type": "string"}, "score": {"type": "number", "minimum": 0, "maximum": 1}}}
_SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_RETRIEVAL = {"type": "object", "required": ["provider", "reranker", "lat_ms"], "properties": {
    "provider": {"type": "string"}, "reranker": {"type": "string"}, "lat_ms": {"type": "integer"}}}


def _evidence(full: bool) -> dict[str, Any]:
    required = ["section_id", "title", "snippet", "metadata"] + (["full_text"] if full else [])
    properties: dict[str, Any] = {"section_id": _SHA256, "title": {"type": "string"},
                                  "snippet": {"type": "string", "maxLength": 200}, "metadata": _METADATA}
    if full:
        properties["full_text"] = {"type": "string", "maxLength": 16 * 1024}
    return {"type": "object", "required": required, "properties": properties}


def search_response(verbosity: str) -> dict[str, Any]:
    full = verbosity != "snippet"
    schema: dict[str, Any] = {
        "type": "object", "required": ["evidence", "diagnostics"],
        "properties": {
            "answer": {"type": "string"},
            "evidence": {"type": "array", "items": _evidence(full)},
            "diagnostics": {"type": "object", "required": ["retrieval"], "properties": {"retrieval": _RETRIEVAL}},
            "diagnostic_id": {"type": "string"},
        },
    }
    if verbosity == "graph":
        schema["required"].append("graph")
        schema["properties"]["graph"] = {
            "type": "object", "required": ["nodes", "edges", "budget"],
            "properties": {
                "nodes": {"type": "array", "items": {"type": "object", "required": ["id", "label", "title", "score"],
                          "properties": {"id": {"type": "string"}, "label": {"enum": ["Chunk", "Entity", "Topic", "Document"]},
                                         "title": {"type": "string"}, "score": {"type": "number", "minimum": 0, "maximum": 1}}}},
                "edges": {"type": "array", "items": {"type": "object", "required": ["src", "dst", "type", "path", "depth"],
                          "properties": {"src": {"type": "string"}, "dst": {"type": "string"},
                                         "type": {"enum": ["MENTIONS", "HAS_SECTION"]},
                                         "path": {"type": "array", "items": {"type": "string"}},
                                         "depth": {"type": "integer", "minimum": 1, "maximum": 5}}}},
                "budget": {"type": "object", "required": ["expanded", "skipped", "depth_reached"],
                           "properties": {k: {"type": "integer", "minimum": 0} for k in ("expanded", "skipped", "depth_reached")}},
            },
        }
        schema["properties"]["diagnostics"]["required"] += ["graph", "plan"]
        schema["properties"]["diagnostics"]["properties"] |= {
            "graph": {"type": "object", "required": ["expanded", "pruned", "reason"], "properties": {
                "expanded": {"type": "integer"}, "pruned": {"type": "integer"},
                "reason": {"enum": ["delta<τ", "budget_exhausted", "depth_limit"]}}},
            "plan": {"type": "object", "required": ["explain_ok", "timeout_ms"], "properties": {
                "explain_ok": {"type": "boolean"}, "timeout_ms": {"type": "integer"}}},
        }
    else:
        schema["not"] = {"required": ["graph"]}
    return schema


def test_the_request_model_accepts_and_rejects_what_the_seed_schema_does() -> None:
    valid = [
        {"query": "q"},
        {"query": "q", "top_k": 20, "verbosity": "graph", "providers": {"embedding": "auto", "reranker": "none"}},
        {"query": "q", "limits": {"graph": {"max_depth_soft": 2, "max_nodes_hard": 50, "rel_whitelist": ["MENTIONS"]}}},
    ]
    invalid = [
        {}, {"query": ""}, {"query": "q", "top_k": 21}, {"query": "q", "top_k": 0}, {"query": "q", "verbosity": "all"},
        {"query": "q", "providers": {"embedding": "cohere"}}, {"query": "q", "providers": {"reranker": "openai"}},
        {"query": "q", "limits": {"graph": {"max_depth_hard": 6}}},
        {"query": "q", "limits": {"graph": {"max_nodes_hard": 201}}}, {"query": "q", "extra": 1},
    ]
    for example in valid:
        jsonschema.validate(example, SEARCH_REQUEST)
        KbSearchRequest.model_validate(example)
    for example in invalid:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(example, SEARCH_REQUEST)
        with pytest.raises(ValidationError):
            KbSearchRequest.model_validate(example)
    defaults = KbSearchRequest(query="q")
    assert (defaults.top_k, defaults.verbosity) == (8, "snippet")
    assert defaults.limits.graph.rel_whitelist == ["MENTIONS", "HAS_SECTION"]
    assert (defaults.limits.graph.max_depth_soft, defaults.limits.graph.max_nodes_hard) == (3, 200)


async def call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any], str]:
    result = await client.call_tool(name, arguments)
    if result.is_error:
        # A failed call carries the envelope as JSON text (and in _meta), never as structured content.
        return True, json.loads(result.content[0].text), result.content[0].text
    return False, result.structured_content, result.content[0].text


async def test_every_verbosity_matches_the_seed_on_the_synced_corpus(make_graph_service, database_url) -> None:
    service = await synced(make_graph_service, database_url)
    await service.drain()
    retrieval = KbRetrieval(service)
    async with Client(build_server([build_kb_toolset(retrieval, service.settings)])) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert {"kb_search", "kb_retrieve_evidence"} <= listed and "search_documentation" not in listed
        bodies, texts = {}, {}
        for verbosity in ("snippet", "full", "graph"):
            error, body, text = await call(
                client, "kb.search", {"query": "drug-induced hepatotoxicity", "verbosity": verbosity}
            )
            assert not error, body
            jsonschema.validate(body, search_response(verbosity))
            bodies[verbosity] = body
            texts[verbosity] = text
            assert body["diagnostic_id"] in text and body["evidence"][0]["metadata"]["doc_uri"] in text
            # A client that reads only the text gets every section's id (what kb.retrieve_evidence
            # takes) and whole snippet, and in full and graph modes its text.
            for item in body["evidence"]:
                assert f"section `{item['section_id']}`" in text and item["snippet"] in text
                assert ("full_text" in item) == (verbosity != "snippet")
                assert "full_text" not in item or item["full_text"] in text
    snippet, full, graph = bodies["snippet"], bodies["full"], bodies["graph"]
    # One ranking, whatever the verbosity; scores best first, in [0, 1].
    assert [e["section_id"] for e in snippet["evidence"]] == [e["section_id"] for e in graph["evidence"]]
    scores = [e["metadata"]["score"] for e in snippet["evidence"]]
    assert scores == sorted(scores, reverse=True) and 0.0 < scores[-1] <= scores[0] <= 1.0 and 1 <= len(scores) <= 8
    assert "note" not in snippet
    # The query names Chemical and Drug Induced Liver Injury; the best sections are about it.
    assert LIVER_INJURY in snippet["diagnostics"]["retrieval"]["query_entities"]
    top = snippet["evidence"][0]
    assert any(word in (top["snippet"] + top["title"]).lower() for word in ("hepatotox", "liver"))
    # Section ids are the graph's: SHA-256 of "pubmed:<pmid>#<chunk_id>".
    pmid = top["metadata"]["doc_uri"].removeprefix("pubmed:")
    assert top["section_id"] == section_node_id(f"pubmed:{pmid}", top["metadata"]["anchor"].removeprefix("chunk-"))
    # full_text is the section's text, which contains the snippet's words.
    for item in full["evidence"]:
        assert item["snippet"].rstrip("…").lstrip("…").split(" ")[1] in item["full_text"]
    # The subgraph holds the evidence sections, their documents and the liver-injury entity.
    nodes = {node["id"]: node for node in graph["graph"]["nodes"]}
    assert {e["section_id"] for e in graph["evidence"]} <= set(nodes)
    assert nodes[LIVER_INJURY]["label"] == "Entity" and nodes[LIVER_INJURY]["title"] == "Chemical and Drug Induced Liver Injury"
    assert {"Chunk", "Document", "Entity"} <= {node["label"] for node in nodes.values()}
    # The text names every entity and document of the subgraph (its sections and edges are counted).
    assert all(f"`{node_id}`" in texts["graph"] for node_id, node in nodes.items() if node["label"] in ("Entity", "Document"))
    assert f"**{len(graph['graph']['edges'])} edges**" in texts["graph"]
    # What the text leaves out it says, and where it is (a client reading only the text must know).
    assert "not listed here: they are in the structured content (graph.nodes, graph.edges)" in texts["graph"]
    assert len(nodes) <= 200 and graph["graph"]["budget"]["depth_reached"] <= 3
    assert all(edge["path"][-1] in (edge["src"], edge["dst"]) for edge in graph["graph"]["edges"])


async def test_retrieve_evidence_returns_sections_documents_entities_and_scratch(make_graph_service, database_url) -> None:
    service = await synced(make_graph_service, database_url)
    retrieval = KbRetrieval(service)
    found = await retrieval.search(KbSearchRequest(query="drug-induced hepatotoxicity", top_k=3))
    ids = [item.section_id for item in found.evidence]
    got = await retrieval.retrieve_evidence(RetrieveEvidenceRequest(section_ids=[*ids, "0" * 64]))
    assert [s.section_id for s in got.sections] == ids and got.missing == ["0" * 64]
    first = got.sections[0]
    assert first.document.source_uri == found.evidence[0].metadata.doc_uri and first.document.doc_id.startswith("pmid:")
    assert not first.truncated and first.scratch_uri is None
    assert any(entity.id == LIVER_INJURY for section in got.sections for entity in section.entities)
    assert got.diagnostic_id

    cut = await retrieval.retrieve_evidence(RetrieveEvidenceRequest(section_ids=ids[:1], max_chars=200))
    section = cut.sections[0]
    assert section.truncated and len(section.text) == 200 and section.scratch_uri.startswith("bio-mcp://scratch/")
    with service.store.read() as tx:
        whole = tx.scratch.get(section.scratch_uri.removeprefix("bio-mcp://scratch/")).text
    assert whole == first.text and whole.startswith(section.text)

    async with Client(build_server([build_kb_toolset(retrieval, service.settings)])) as client:
        # The text alone carries each section whole: its full id, every entity, all of its text,
        # and where a section cut at max_chars is kept whole.
        error, body, text = await call(client, "kb.retrieve_evidence", {"section_ids": ids})
        assert not error
        for item in body["sections"]:
            assert f"section `{item['section_id']}`" in text and item["text"] in text
            assert all(entity["id"] in text for entity in item["entities"])
        error, body, text = await call(client, "kb.retrieve_evidence", {"section_ids": ids[:1], "max_chars": 200})
        assert not error and body["sections"][0]["scratch_uri"] in text and body["sections"][0]["text"] in text
        error, body, _ = await call(client, "kb.retrieve_evidence", {"section_ids": ["f" * 64]})
        assert error and body["error"]["code"] == "NOT_FOUND"
        # A document passed for a section (its node id or pmid:N): the error names its sections,
        # in reading order, so the agent can call again with them.
        doc_uri = found.evidence[0].metadata.doc_uri
        pmid = doc_uri.removeprefix("pubmed:")
        error, body, text = await call(client, "kb.retrieve_evidence", {"section_ids": [f"pmid:{pmid}"]})
        assert error and body["error"]["code"] == "NOT_FOUND" and "name documents, not sections" in text
        with service.store.read() as tx:
            chunk_ids = sorted((c.chunk_id for c in tx.chunks.for_document(pmid)), key=int)
        expected = [section_node_id(doc_uri, chunk_id) for chunk_id in chunk_ids]
        assert body["error"]["details"]["document_sections"] == {f"pmid:{pmid}": expected}
        assert all(section in text for section in expected)
        error, body, _ = await call(client, "kb.retrieve_evidence", {"section_ids": []})
        assert error and body["error"]["code"] == "VALIDATION"


async def test_a_record_without_an_abstract_gets_its_title_as_snippet(sqlite_corpus: CorpusService) -> None:
    service = sqlite_corpus
    title = "Optimizing antihypertensive therapy in patients with diabetes mellitus."  # PMID 36577847: no abstract
    found = await KbRetrieval(service).search(KbSearchRequest(query=title, top_k=3, verbosity="full"))
    [item] = [item for item in found.evidence if item.metadata.doc_uri == "pubmed:36577847"]
    assert item.full_text == title and item.snippet == title
    # Where there is more than the title, the snippet leaves the title (shown beside it) out.
    assert all(not other.snippet.startswith(other.title.split(" — ")[0]) for other in found.evidence if other is not item)


async def test_graph_entities_finds_what_the_linker_reads_a_name_as(sqlite_corpus: CorpusService) -> None:
    # MeSH has no entry term "hepatotoxicity"; the linker reads it as D056486 through BC5CDR's
    # training pairs, and so kb.search does. graph.entities gave only unrelated close spellings.
    service = sqlite_corpus
    found = await KbGraph(service).entities(EntitiesRequest(query="hepatotoxicity"))
    best = found.entities[0]
    assert (best.id, best.match) == (LIVER_INJURY, "linked") and best.mentions >= 1
    # A name MeSH holds keeps the vocabulary's own match.
    tylenol = (await KbGraph(service).entities(EntitiesRequest(query="tylenol"))).entities[0]
    assert (tylenol.id, tylenol.match) == ("mesh:D000082", "synonym")


async def test_concepts_beyond_the_descriptors_are_named_and_promoted_ones_are_one_entity(
    sqlite_corpus: CorpusService,
) -> None:
    service = sqlite_corpus
    with service.store.read() as tx:
        graph = SqlGraphStore(tx.connection)
        stored = graph.nodes([CLOFIBRATE_ETHYL, SORAFENIB_2015, SORAFENIB])
        sorafenib_sections = graph.mention_counts([SORAFENIB])[SORAFENIB]
    # BC5CDR's training pairs link "ethyl-alpha-p-chlorophenoxyisobutyrate" (PMID 3173343) to a
    # supplementary concept that no descriptor covers and the record's ChemicalList does not name:
    # its node was called "C012282".
    assert (stored[CLOFIBRATE_ETHYL].title, stored[CLOFIBRATE_ETHYL].type) == (
        "ethyl-alpha-p-chlorophenoxyisobutyrate", "Chemical")
    # BC5CDR (2015) links "sorafenib" to C471405, which MeSH 2024 made the descriptor Sorafenib:
    # PMID 38430581's text mentions and NLM's heading are one entity, not two.
    assert SORAFENIB_2015 not in stored and sorafenib_sections >= 1
    found = (await KbGraph(service).entities(EntitiesRequest(query="sorafenib"))).entities
    assert (found[0].id, found[0].name, found[0].mentions) == (SORAFENIB, "Sorafenib", sorafenib_sections)
    assert SORAFENIB_2015 not in {entity.id for entity in found}
    named = (await KbGraph(service).entities(EntitiesRequest(query="ethyl-alpha-p-chlorophenoxyisobutyrate"))).entities
    assert (named[0].id, named[0].name, named[0].match) == (
        CLOFIBRATE_ETHYL, "ethyl-alpha-p-chlorophenoxyisobutyrate", "linked")


async def test_a_promoted_concepts_old_id_finds_its_descriptor(sqlite_corpus: CorpusService) -> None:
    # The graph holds Sorafenib as mesh:D000077157 only; asked for BC5CDR's mesh:C471405 (what a
    # client may have from PubTator or an older graph), graph.entities found nothing.
    service = sqlite_corpus
    with service.store.read() as tx:
        sections = SqlGraphStore(tx.connection).mention_counts([SORAFENIB])[SORAFENIB]
    server = build_server([build_kb_toolset(KbRetrieval(service), service.settings, KbGraph(service))])
    async with Client(server) as client:
        for query in (SORAFENIB_2015, "C471405", "mesh:c471405"):
            error, body, text = await call(client, "graph.entities", {"query": query})
            assert not error, body
            best = body["entities"][0]
            assert (best["id"], best["name"], best["match"], best["score"]) == (SORAFENIB, "Sorafenib", "promoted", 1.0)
            assert best["mentions"] == sections >= 1
            assert SORAFENIB_2015 not in {entity["id"] for entity in body["entities"]}
            assert f"`{SORAFENIB}` **Sorafenib**" in text and "supplementary concept" in text
        # The descriptor's own id is an id match, as before.
        error, body, _ = await call(client, "graph.entities", {"query": SORAFENIB})
        assert not error and (body["entities"][0]["id"], body["entities"][0]["match"]) == (SORAFENIB, "id")


async def test_a_query_no_section_holds_a_word_of_scores_low_and_says_so(sqlite_corpus: CorpusService) -> None:
    service = sqlite_corpus
    await service.drain()
    retrieval = KbRetrieval(service)
    nonsense = await retrieval.search(KbSearchRequest(query="zzzzqqq nonexistentterm"))
    # The nearest sections by meaning are still listed, but nothing reads as a strong match.
    assert nonsense.evidence and nonsense.note is not None and nonsense.note.endswith(NO_QUERY_WORD_NOTE)
    assert nonsense.unmatched_terms == ["zzzzqqq", "nonexistentterm"]
    assert nonsense.note.startswith("No document mentions zzzzqqq or nonexistentterm;")
    assert max(item.metadata.score for item in nonsense.evidence) <= 0.5
    real = await retrieval.search(KbSearchRequest(query="drug-induced hepatotoxicity"))
    assert real.note is None and real.evidence[0].metadata.score > max(item.metadata.score for item in nonsense.evidence)


async def test_an_empty_corpus_says_so_and_how_to_fill_it(make_graph_service) -> None:
    service = make_graph_service()
    async with Client(build_server([build_kb_toolset(KbRetrieval(service), service.settings)])) as client:
        error, body, text = await call(client, "kb.search", {"query": "aspirin"})
    assert not error and body["evidence"] == [] and body["note"] == EMPTY_CORPUS_NOTE
    assert "pubmed.sync_delta" in text


async def test_unconfigured_providers_are_validation_errors_naming_the_setting(make_graph_service) -> None:
    service = make_graph_service()
    retrieval = KbRetrieval(service)
    async with Client(build_server([build_kb_toolset(retrieval, service.settings)])) as client:
        for providers, setting in (({"embedding": "jina"}, "JINA_API_KEY"), ({"reranker": "cohere"}, "COHERE_API_KEY"),
                                   ({"embedding": "openai"}, "BIO_MCP_EMBEDDINGS_BASE_URL")):
            error, body, _ = await call(client, "kb.search", {"query": "aspirin", "providers": providers})
            assert error and body["error"]["code"] == "VALIDATION" and setting in body["error"]["message"]
        error, body, _ = await call(client, "kb.search", {"query": "aspirin", "providers": {"embedding": "auto"}})
        assert not error and body["diagnostics"]["retrieval"]["provider"] == "hash"
        error, body, _ = await call(
            client, "kb.search", {"query": "aspirin", "verbosity": "graph", "limits": {"graph": {"rel_whitelist": ["CITES"]}}}
        )
        assert error and body["error"]["code"] == "VALIDATION" and "MENTIONS" in body["error"]["message"]
