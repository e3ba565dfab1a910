"""ESpell (eSpellResult): NCBI's spelling suggestion for a query, or None when it has none."""

from __future__ import annotations

from dataclasses import dataclass

from bio_mcp.sources.ncbi.parsers.body import load_xml
from bio_mcp.sources.ncbi.xml import element_text


@dataclass(frozen=True)
class SpellResult:
    query: str
    # ESpell's whole corrected query; empty when it found nothing to correct.
    corrected: str
    # The words it replaced, in query order.
    replaced: tuple[str, ...]

    @property
    def suggestion(self) -> str | None:
        """The corrected query when it differs from what was asked (ESpell lower-cases operators)."""
        if not self.corrected or self.corrected.casefold() == self.query.casefold():
            return None
        return self.corrected


def parse_espell(body: bytes | str) -> SpellResult:
    root = load_xml(body, "eSpellResult")
    spelled = root.find("SpelledQuery")
    replaced = tuple(
        element_text(part) for part in (spelled if spelled is not None else ()) if part.tag == "Replaced"
    )
    return SpellResult(
        query=element_text(root.find("Query")),
        corrected=element_text(root.find("CorrectedQuery")),
        replaced=tuple(word for word in replaced if word),
    )
