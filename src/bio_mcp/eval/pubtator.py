"""PubTator files (BC5CDR's format): title and abstract lines, then one tab-separated line per mention.

    12345|t|Title text
    12345|a|Abstract text
    12345<TAB>0<TAB>8<TAB>Naloxone<TAB>Chemical<TAB>D009270
    12345<TAB>CID<TAB>D003000<TAB>D006973           (a relation: chemical induces disease)

Offsets count characters of `title + " " + abstract`. An id may be `D1|D2` (a composite mention)
or `-1` (no MeSH concept); a file may hold no mention lines at all (texts to be linked).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bio_mcp.errors import BioMcpError, ErrorCode


@dataclass(frozen=True, slots=True)
class Annotation:
    start: int
    end: int
    text: str
    type: str
    ids: tuple[str, ...]  # MeSH uis without a namespace; empty for `-1`


@dataclass(slots=True)
class PubtatorDocument:
    pmid: str
    title: str = ""
    abstract: str = ""
    annotations: list[Annotation] = field(default_factory=list)
    # (type, first MeSH ui, second MeSH ui): BC5CDR's CID lines, chemical then disease.
    relations: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return f"{self.title} {self.abstract}" if self.abstract else self.title


def parse_ids(field_text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in field_text.split("|") if part.strip() and part.strip() != "-1")


def read_pubtator(path: Path) -> list[PubtatorDocument]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise BioMcpError(ErrorCode.VALIDATION, f"cannot read PubTator file {path}: {error.strerror}",
                          {"path": str(path)}) from error
    return list(parse_pubtator(lines, str(path)))


def parse_pubtator(lines: Iterable[str], source: str = "<lines>") -> Iterator[PubtatorDocument]:
    document: PubtatorDocument | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if "|t|" in line[:40] or "|a|" in line[:40]:
            pmid, kind, body = line.split("|", 2)
            if document is None or document.pmid != pmid:
                if document is not None:
                    yield document
                document = PubtatorDocument(pmid)
            if kind == "t":
                document.title = body
            else:
                document.abstract = body
            continue
        fields = line.split("\t")
        if document is None or fields[0] != document.pmid:
            raise BioMcpError(ErrorCode.VALIDATION, f"{source}:{number}: a mention line outside its document",
                              {"line": number})
        if len(fields) >= 6 and fields[1].isdigit():
            document.annotations.append(Annotation(int(fields[1]), int(fields[2]), fields[3], fields[4],
                                                   parse_ids(fields[5])))
        elif len(fields) >= 4 and fields[1] == "CID":
            document.relations.append((fields[1], fields[2].strip(), fields[3].strip()))
        else:
            raise BioMcpError(ErrorCode.VALIDATION, f"{source}:{number}: not a PubTator mention line",
                              {"line": number})
    if document is not None:
        yield document


def format_document(document: PubtatorDocument) -> str:
    """The document back in PubTator form, its annotations in offset order, then its relation lines,
    ending in a blank line."""
    lines = [f"{document.pmid}|t|{document.title}", f"{document.pmid}|a|{document.abstract}"]
    for annotation in sorted(document.annotations, key=lambda a: (a.start, a.end, a.type, a.ids)):
        ids = "|".join(annotation.ids) or "-1"
        lines.append(f"{document.pmid}\t{annotation.start}\t{annotation.end}\t{annotation.text}\t"
                     f"{annotation.type}\t{ids}")
    lines.extend(f"{document.pmid}\t{kind}\t{first}\t{second}" for kind, first, second in document.relations)
    return "\n".join(lines) + "\n\n"
