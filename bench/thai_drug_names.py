"""Drug and chemical names spelt in Thai letters (`search.thai_loanwords` through
`kb.language.cross_lingual`): how many are found, and how often other Thai text is read as one by
chance. JSON lines.

    PYTHONPATH=src python bench/thai_drug_names.py [--titles 5000] [--show 20]

- **Found**: every entry of pythainlp's Thai-English transliteration dictionary whose English word
  is one of the MeSH catalog's substance names (MeSH's Chemicals and Drugs, or a pharmacological
  action), read by the loanword index alone (the dictionary itself is what `cross_lingual` consults
  first, so this is what the index adds for a name the dictionary lacks): right entity, wrong
  entity, none. Many of the "none" are translations, not loanwords (เหล็ก iron, ทองแดง copper), or
  spell keys shorter than the index looks up (กลูโคส glucose). Reported
  for the entries in even and odd positions separately: the spelling rules were written looking at
  dictionary entries, and a rule that fits only some of them shows as a gap between the halves.
- **Chance matches**: a fixed random sample of Thai Wikipedia's article titles (pythainlp ships
  the list: mostly names of people, places and works, transliterated foreign names among them, the
  text most like a drug name that is not one) and every word of pythainlp's Thai word list, each
  read as a query: how many name a substance. Many rightly do (Wikipedia has articles on drugs,
  the word list holds loanwords such as พาราเซตามอล); `--show` prints a sample of each to read.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from pathlib import Path

from figures import emit
from pythainlp.corpus import corpus_path, thai_words
from pythainlp.corpus.th_en_translit import get_transliteration_dict

from bio_mcp.config import load_settings
from bio_mcp.features.kb.language import build_lexicon, cross_lingual, substance_loanwords
from bio_mcp.graph.indexer import build_graph_indexer

_THAI_ONLY = re.compile(r"[\u0E01-\u0E5B]+")



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--titles", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=20)
    args = parser.parse_args()
    catalog = build_graph_indexer(load_settings()).catalog
    started = time.perf_counter()
    substances = substance_loanwords(catalog)
    assert substances is not None
    emit("substance_index_build_s", round(time.perf_counter() - started, 3), "s", keys=len(substances))

    by_name: dict[str, set[str]] = {}  # the names the index holds, case aside
    for name, entity_id in catalog.substance_names():
        by_name.setdefault(name.casefold(), set()).add(entity_id)
    entries = sorted(
        (thai, {entity for english in entry["en"] for entity in by_name.get(english.casefold(), ())})
        for thai, entry in get_transliteration_dict().items()
    )
    entries = [(thai, gold) for thai, gold in entries if gold]
    missed: list[str] = []
    for half in ("even", "odd"):
        right = wrong = none = 0
        for position, (thai, gold) in enumerate(entries):
            if position % 2 != (half == "odd"):
                continue
            match = substances.match(thai)
            if match is None:
                none += 1
                missed.append(thai)
            elif gold & set(match.values):
                right += 1
            else:
                wrong += 1
                missed.append(thai)
        emit("dictionary_substances_found", right, "entries", half=half, entries=right + wrong + none, wrong=wrong, none=none)

    print(json.dumps({"missed": missed[: args.show]}, ensure_ascii=False))
    lexicon = build_lexicon([])

    def substances_named(text: str) -> tuple[str, ...]:
        return cross_lingual(text, "th", lexicon, substances=substances).entity_ids

    titles = [line.strip() for line in (Path(corpus_path()) / "wikipedia_titles_th.txt").open(encoding="utf-8")]
    titles = [title for title in titles if _THAI_ONLY.search(title)]
    sample = random.Random(args.seed).sample(titles, args.titles)
    words = sorted(thai_words())
    for label, texts in (("wikipedia_titles", sample), ("thai_words", words)):
        started = time.perf_counter()
        named = [(text, found) for text in texts if (found := substances_named(text))]
        elapsed = time.perf_counter() - started
        emit("texts_naming_a_substance", len(named), "texts", texts=label, count=len(texts),
             per_1000=round(1000 * len(named) / len(texts), 2), ms_per_text=round(1000 * elapsed / len(texts), 3))
        for text, found in random.Random(args.seed).sample(named, min(args.show, len(named))):
            names = [catalog.describe(entity) or (catalog.name_of(entity), "") for entity in found]
            print(json.dumps({"texts": label, "text": text, "substances": [name[0] for name in names]}, ensure_ascii=False))


if __name__ == "__main__":
    main()
