"""What NLM indexed a record with, as the graph keeps it for its HAS_TOPIC edges and its
relation extractors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class DocumentFacts:
    """What NLM indexed a record with: MeSH headings (descriptor UI, major-topic flag), the
    qualifiers of those headings (descriptor UI, qualifier name in lower case, e.g. `adverse
    effects`, `chemically induced`: what adverse-effect extraction reads), the trial registry numbers
    of its DataBankList, the substances of its ChemicalList (MeSH UI, a descriptor `D...` or a
    supplementary concept `C...`, with its name) and the symbols of its GeneSymbolList."""

    topics: tuple[tuple[str, bool], ...] = ()
    trials: tuple[str, ...] = ()
    qualifiers: tuple[tuple[str, str], ...] = ()
    chemicals: tuple[tuple[str, str], ...] = ()
    genes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[object]]:
        return {
            "topics": [[ui, major] for ui, major in self.topics],
            "trials": list(self.trials),
            "qualifiers": [[ui, name] for ui, name in self.qualifiers],
            "chemicals": [[ui, name] for ui, name in self.chemicals],
            "genes": list(self.genes),
        }

    @classmethod
    def from_json(cls, value: Mapping[str, list[object]]) -> DocumentFacts:
        """Facts saved before chemicals and genes were kept read back without them."""
        topics = tuple((str(item[0]), bool(item[1])) for item in value.get("topics", []) if isinstance(item, list))
        qualifiers = tuple((str(item[0]), str(item[1])) for item in value.get("qualifiers", [])
                           if isinstance(item, list) and len(item) == 2)
        chemicals = tuple((str(item[0]), str(item[1])) for item in value.get("chemicals", []) if isinstance(item, list))
        return cls(
            topics=topics,
            trials=tuple(str(t) for t in value.get("trials", [])),
            qualifiers=qualifiers,
            chemicals=chemicals,
            genes=tuple(str(g) for g in value.get("genes", [])),
        )
