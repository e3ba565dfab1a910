"""Reading the PPR corpus (Cho et al., Sci Data 2022): plants, phenotypes and their relations per sentence.

File layout, sentence by sentence: `PMID_n<TAB>sentence`, then entity lines
`PMID<TAB>start<TAB>end<TAB>text<TAB>type` (offsets within the sentence), then relation lines
`PMID<TAB>Increase|Decrease|Association<TAB>start<TAB>end<TAB>text<TAB>type<TAB>start<TAB>end<TAB>text<TAB>type`,
a blank line between sentences. A document's text is its sentences joined by one space, so every
span also has an offset in the document (`PprDocument.offsets`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bio_mcp.errors import BioMcpError, ErrorCode

PLANT = "Plant"
PHENOTYPE_TYPES = ("Negative_phenotype", "Positive_phenotype", "Neutral_phenotype")


@dataclass(frozen=True, slots=True)
class PprEntity:
    start: int
    end: int
    text: str
    type: str


@dataclass(frozen=True, slots=True)
class PprRelation:
    """`kind` Increase|Decrease|Association between a plant and a phenotype (whichever order the file gave)."""

    kind: str
    plant: PprEntity
    phenotype: PprEntity


@dataclass(slots=True)
class PprSentence:
    text: str
    entities: list[PprEntity] = field(default_factory=list)
    relations: list[PprRelation] = field(default_factory=list)


@dataclass(slots=True)
class PprDocument:
    pmid: str
    sentences: list[PprSentence] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(sentence.text for sentence in self.sentences)

    @property
    def offsets(self) -> list[int]:
        """Where each sentence starts in `text`."""
        starts, position = [], 0
        for sentence in self.sentences:
            starts.append(position)
            position += len(sentence.text) + 1
        return starts


def _entity(fields: list[str]) -> PprEntity:
    # One relation line in the training file types its phenotype twice ("Negative_phenotypeNegative_phenotype").
    kind = next((t for t in (PLANT, *PHENOTYPE_TYPES) if fields[3].startswith(t)), fields[3])
    return PprEntity(int(fields[0]), int(fields[1]), fields[2], kind)


def read_ppr(path: Path) -> list[PprDocument]:
    """Every document of a PPR file, in file order; a malformed line is a VALIDATION error naming it."""
    documents: dict[str, PprDocument] = {}
    current: PprSentence | None = None
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            fields = line.rstrip("\n").split("\t")
            if fields == [""]:
                continue
            try:
                if len(fields) == 2 and "_" in fields[0]:
                    pmid = fields[0].rsplit("_", 1)[0]
                    current = PprSentence(fields[1])
                    documents.setdefault(pmid, PprDocument(pmid)).sentences.append(current)
                elif len(fields) == 5 and current is not None:
                    current.entities.append(_entity(fields[1:]))
                elif len(fields) in (10, 12) and current is not None:
                    first = _entity(fields[2:6])
                    # One training line gives its phenotype two spans (12 fields): read as the whole stretch.
                    bounds = [int(value) for value in fields[6:-2]]
                    second = _entity([str(min(bounds)), str(max(bounds)), fields[-2], fields[-1]])
                    plant, phenotype = (first, second) if first.type == PLANT else (second, first)
                    current.relations.append(PprRelation(fields[1], plant, phenotype))
                else:
                    raise ValueError(f"{len(fields)} fields")
            except ValueError as exc:
                raise BioMcpError(ErrorCode.VALIDATION, f"{path}:{number}: not a PPR line ({exc})",
                                  {"field": "data", "line": number}) from exc
    return list(documents.values())
