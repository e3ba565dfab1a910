"""Node ids of the knowledge graph: SHA-256 hex for documents and sections, namespaced entity ids.

A Document's id is the SHA-256 of its `source_uri` (`pubmed:<pmid>`); a Section's is the SHA-256 of
`<source_uri>#<chunk_id>`, so the same record chunked the same way gets the same ids in every run,
whether a sync or a rebuild wrote them.
"""

from __future__ import annotations

import hashlib
import re

PUBMED_SOURCE_TYPE = "pubmed"
# The source_type of an ingested file's Document node (its source_uri is the file's `file://` URI).
FILE_SOURCE_TYPE = "file"
_PMID_ALIAS = re.compile(r"^(?:pubmed|pmid):([0-9]{1,16})$", re.IGNORECASE)
_MESH_UI = re.compile(r"^(?:mesh:)?([DC][0-9]{6,9})$", re.IGNORECASE)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def pubmed_source_uri(pmid: str) -> str:
    return f"{PUBMED_SOURCE_TYPE}:{pmid}"


def document_node_id(source_uri: str) -> str:
    return sha256_hex(source_uri)


def section_node_id(source_uri: str, chunk_id: str) -> str:
    return sha256_hex(f"{source_uri}#{chunk_id}")


def mesh_entity_id(ui: str) -> str:
    return f"mesh:{ui}"


def gene_entity_id(symbol: str) -> str:
    """A gene by the symbol a record lists (MEDLINE's GeneSymbolList), as written: symbols are
    case-sensitive across species (human FOS, mouse Fos)."""
    return f"gene:{symbol}"


def trial_entity_id(nct_id: str) -> str:
    return f"nct:{nct_id.upper()}"


def resolve_alias(node_id: str) -> str:
    """`pmid:123` or `pubmed:123` -> that document's node id; a bare MeSH UI (`D000082`) -> its
    entity id; anything else unchanged."""
    value = node_id.strip()
    match = _PMID_ALIAS.match(value)
    if match:
        return document_node_id(pubmed_source_uri(match.group(1)))
    mesh = _MESH_UI.match(value)
    if mesh:
        return mesh_entity_id(mesh.group(1).upper())
    return value
