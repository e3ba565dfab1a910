"""Ingested text and HTML decoded right without a declared charset: Thai in UTF-8 and in TIS-620
(windows-874), Latin-1; a byte order mark or an HTML <meta charset> wins. Real text: the shared Thai
herb table and author names of a real PMC article's references."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest
import sqlalchemy as sa

from bio_mcp.features.evidence.ingest_charset import decode_text
from bio_mcp.features.evidence.ingest_models import IngestRunRequest
from bio_mcp.store.document_keys import file_document_key
from bio_mcp.store.schema import documents
from tests.evidence.ingest.conftest import IngestEnv
from tests.evidence.ingest.documents import SampleDocument, thai_herb_document


def _latin1_sentences(data_dir: Path) -> str:
    """The sentences of a real PMC article (its references' author names: Balmaña, Béroud,
    Rodríguez-Escudero, ...) whose letters beyond ASCII are all Latin-1."""
    xml = (data_dir / "ncbi" / "biomcp" / "ncbi_efetch_pmc" / "pmc6329583.xml").read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", xml))
    found = [
        sentence.strip() for sentence in re.split(r"(?<=\.) ", text)
        if any(127 < ord(char) < 256 for char in sentence) and all(ord(char) < 256 for char in sentence)
    ]
    assert len(found) >= 3 and any("ñ" in sentence for sentence in found)
    return "\n".join(found)


def _html(document: SampleDocument, head: str = "") -> str:
    body = "".join(f"<p>{line}</p>" for line in document.paragraphs)
    return f"<html><head>{head}<title>{document.title}</title></head><body><h1>{document.title}</h1>{body}</body></html>"


def _decode(data: bytes, html: bool = False) -> str:
    return decode_text(data, html=html, name="file", uri="file:///file")


def test_undeclared_thai_and_latin1_are_detected(data_dir: Path) -> None:
    thai = thai_herb_document(data_dir).text
    latin = _latin1_sentences(data_dir)
    for html in (False, True):
        assert _decode(thai.encode("utf-8"), html) == thai
        assert _decode(thai.encode("tis-620"), html) == thai
        assert _decode(thai.encode("cp874"), html) == thai
        # windows-1250 reads these bytes with the same score; ñ would come out as ń.
        assert _decode(latin.encode("latin-1"), html) == latin


def test_a_byte_order_mark_or_a_declared_charset_wins(data_dir: Path) -> None:
    document = thai_herb_document(data_dir)
    thai = document.text
    assert _decode(codecs.BOM_UTF8 + thai.encode("utf-8")) == thai
    assert _decode(codecs.BOM_UTF16_LE + thai.encode("utf-16-le")) == thai
    assert _decode(codecs.BOM_UTF16_BE + thai.encode("utf-16-be"), html=True) == thai
    # One herb's name is too little for a detector; its declaration says what it is.
    one = SampleDocument(document.paragraphs[0].split()[0], [])
    for head in ('<meta charset="windows-874">', '<meta charset=TIS-620>',
                 '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-11">'):
        assert one.title in _decode(_html(one, head).encode("cp874"), html=True)
    # A declaration is obeyed even where detection would differ, as a browser obeys it.
    name = "Balmaña"
    assert "Balmańa" in _decode(_html(SampleDocument(name, []), '<meta charset="windows-1250">').encode("latin-1"), True)
    # ...and only in HTML: plain text has no markup to declare anything with.
    assert _decode(f'<meta charset="windows-874"> {thai}'.encode()) == f'<meta charset="windows-874"> {thai}'


@pytest.mark.anyio
async def test_ingested_files_without_a_declared_charset_are_stored_in_their_script(
    ingest_env: IngestEnv, data_dir: Path
) -> None:
    document = thai_herb_document(data_dir)
    latin = _latin1_sentences(data_dir)
    files = {
        "thai-utf8.html": _html(document).encode("utf-8"),
        "thai-utf8.txt": document.text.encode("utf-8"),
        "thai-tis620.txt": document.text.encode("tis-620"),
        "thai-cp874.html": _html(document).encode("cp874"),
        "latin1.txt": latin.encode("latin-1"),
    }
    for name, data in files.items():
        (ingest_env.root / name).write_bytes(data)
    service = ingest_env.make()
    request = IngestRunRequest.model_validate(
        {"dry_run": False, "batch": [{"uri": (ingest_env.root / name).as_uri()} for name in files]}
    )

    response = await service.run(request)

    assert response.status == "done", response.error
    with service.corpus.store.read() as tx:
        stored = {
            row.pmid: row for row in tx.connection.execute(sa.select(documents.c.pmid, documents.c.title, documents.c.abstract))
        }
    for name in files:
        row = stored[file_document_key((ingest_env.root / name).resolve().as_uri())]
        text = f"{row.title}\n{row.abstract}"
        if name.startswith("thai"):
            assert row.title == document.title, name
            # Every herb line, Thai name and scientific name, as written.
            assert all(line in text for line in document.paragraphs), name
        else:
            assert all(" ".join(line.split()) in " ".join(text.split()) for line in latin.splitlines()), name
    assert {report.lang for report in response.files if "thai" in report.uri} == {"th"}
