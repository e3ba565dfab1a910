"""`lookupMeshTerms`: MeSH descriptors by name, entry term or id, from the local MeSH 2024 file.

The local file holds names, entry terms and tree numbers; it has no scope notes, so none are
returned (the response says so). The vocabulary is read once per process (pickled under
BIO_MCP_HOME/cache after the first read).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.features.pubmed.models import SeedInput
from bio_mcp.graph.vocabulary import Vocabulary, load_vocabulary
from bio_mcp.mesh_files import mesh_path_of
from bio_mcp.models import NonBlank, ToolOutput

NO_SCOPE_NOTES = "The local MeSH file has names, entry terms and tree numbers but no scope notes."


class MeshLookupRequest(SeedInput):
    query: NonBlank = Field(max_length=300,
                       description="A MeSH id (D000082), heading, entry term or brand name ('tylenol'); "
                       "prefixes and small typos match too")
    limit: int = Field(default=10, ge=1, le=50, description="How many descriptors to return, best match first")


class MeshParent(ToolOutput):
    id: str
    name: str


class MeshDescriptor(ToolOutput):
    id: str = Field(description="Namespaced id, e.g. mesh:D000082 (the knowledge graph's entity id)")
    ui: str = Field(description="The MeSH descriptor UI, e.g. D000082")
    name: str
    type: str = Field(description="Disease, Chemical, Organism, Anatomy or Concept, from the tree numbers")
    synonyms: list[str]
    tree_numbers: list[str] = Field(alias="treeNumbers")
    parents: list[MeshParent] = Field(description="The descriptors one level up the MeSH tree")
    matched: str = Field(description="The folded term the query matched")
    matched_by: str = Field(alias="matchedBy", description="id, name, synonym, prefix, words or fuzzy")
    score: float = Field(ge=0, le=1)


class MeshLookupResponse(ToolOutput):
    query: str
    descriptors: list[MeshDescriptor]
    scope_notes_available: bool = Field(default=False, alias="scopeNotesAvailable")
    note: str = NO_SCOPE_NOTES


@lru_cache(maxsize=2)
def _vocabulary(mesh_path: Path, cache_dir: Path) -> Vocabulary:
    return load_vocabulary(mesh_path, cache_dir)


def mesh_vocabulary(settings: Settings) -> Vocabulary:
    mesh_path = mesh_path_of(settings)
    if mesh_path is None or not mesh_path.is_file():
        raise BioMcpError(ErrorCode.NOT_FOUND, "the MeSH descriptors file was not found; set BIO_MCP_MESH_PATH "
                          "to mesh_descriptors_2024.jsonl", {"setting": "BIO_MCP_MESH_PATH", "path": str(mesh_path)})
    return _vocabulary(mesh_path, settings.caches)


def lookup_mesh_terms(request: MeshLookupRequest, vocabulary: Vocabulary) -> MeshLookupResponse:
    descriptors = []
    for match in vocabulary.search(request.query, request.limit):
        concept = match.concept
        parents = [MeshParent(id=parent.id, name=parent.name)
                   for parent in map(vocabulary.get, concept.parents) if parent is not None]
        descriptors.append(MeshDescriptor(
            id=concept.id, ui=concept.id.split(":", 1)[1], name=concept.name, type=concept.type,
            synonyms=list(concept.synonyms), treeNumbers=list(concept.tree_numbers), parents=parents,
            matched=match.matched, matchedBy=match.how, score=match.score,
        ))
    return MeshLookupResponse(query=request.query, descriptors=descriptors)


def summarize(response: MeshLookupResponse) -> str:
    if not response.descriptors:
        return f"No MeSH descriptor matches {response.query!r}. {response.note}"
    lines = [f"MeSH descriptors for {response.query!r} (best first):"]
    for descriptor in response.descriptors:
        parents = ", ".join(parent.name for parent in descriptor.parents) or "none"
        synonyms = "; ".join(descriptor.synonyms[:15]) + (" ..." if len(descriptor.synonyms) > 15 else "")
        lines.append(
            f"- **{descriptor.name}** ({descriptor.id}, {descriptor.type}; matched by {descriptor.matched_by}, "
            f"score {descriptor.score:.2f})\n  trees: {', '.join(descriptor.tree_numbers) or 'none'}; "
            f"broader: {parents}\n  synonyms: {synonyms or 'none'}"
        )
    lines.append(response.note)
    return "\n".join(lines)
