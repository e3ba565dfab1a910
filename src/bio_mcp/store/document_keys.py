"""How the corpus keys its documents: a PubMed record by its PMID (digits), an ingested file by
`file:` and 11 lowercase base32 characters of SHA-256(source_uri).

Both fit the `documents.pmid` column (16 characters) without a migration, and a file key can never
be read as a PMID: the PubMed contracts (`pmid:N` doc ids, `rag.get`, `rag.search`) keep seeing
PubMed records only. 55 bits make a collision between two files of one corpus vanishingly rare, and
`ingested_files` maps each key to its one source_uri, so a collision would be detected, not merged.
"""

from __future__ import annotations

import base64
import hashlib
import re

FILE_KEY_PREFIX = "file:"
_FILE_KEY = re.compile(r"^file:[a-z2-7]{11}$")
DOCUMENT_KEY_PATTERN = r"^(?:[0-9]{1,16}|file:[a-z2-7]{11})$"


def file_document_key(source_uri: str) -> str:
    digest = hashlib.sha256(source_uri.encode("utf-8")).digest()
    return FILE_KEY_PREFIX + base64.b32encode(digest).decode("ascii").lower()[:11]


def is_file_key(key: str) -> bool:
    return bool(_FILE_KEY.match(key))


def is_pubmed_key(key: str) -> bool:
    return key.isascii() and key.isdigit()


def is_document_key(key: str) -> bool:
    return isinstance(key, str) and (is_pubmed_key(key) or is_file_key(key))
