"""The medicinal plants of examples/kg/thai_herb_names.tsv by their Thai names, shipped with the
package (`thai_herb_names.tsv` beside this module is that table), so a Thai question reads a herb by
its name before `bio-mcp kg import` has put the names in the graph: มะระขี้นก is bitter melon, not
มะระ (a word nobody knows) and ขี้นก ("pigeon droppings", Thai WordNet's reading).

    known_herbs()['มะระขี้นก']    # ('Momordica charantia', 'Bitter melon')
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

HERB_NAMES = Path(__file__).with_name("thai_herb_names.tsv")


@lru_cache(maxsize=1)
def known_herbs() -> dict[str, tuple[str, str]]:
    """Thai name -> (scientific name, English name)."""
    with HERB_NAMES.open(encoding="utf-8") as handle:
        return {row["thai_name"]: (row["scientific_name"], row["english_name"])
                for row in csv.DictReader(handle, delimiter="\t")}
