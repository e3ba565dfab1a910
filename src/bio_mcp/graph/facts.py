"""What NLM indexed a record with, as the graph keeps it for its HAS_TOPIC edges."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class DocumentFacts:
    """What NLM indexed a record with: MeSH headings (descriptor UI, major-topic flag) and the
    trial registry numbers of its DataBankList."""

    topics: tuple[tuple[str, bool], ...] = ()
    trials: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[object]]:
        return {"topics": [[ui, major] for ui, major in self.topics], "trials": list(self.trials)}

    @classmethod
    def from_json(cls, value: Mapping[str, list[object]]) -> DocumentFacts:
        topics = tuple((str(item[0]), bool(item[1])) for item in value.get("topics", []) if isinstance(item, list))
        return cls(topics=topics, trials=tuple(str(t) for t in value.get("trials", [])))
