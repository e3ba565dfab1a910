"""The Thai -> English word map (`thai_english.build_thai_english`) built once, as JSON lines: its
size (Thai words, English words), wall and CPU seconds of the build, and the load average beside them.

    .venv/bin/python bench/thai_english_map.py
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from figures import emit
from pythainlp.corpus import corpus_path

from bio_mcp.search.thai_english import DEBIAN_WORDNET_DIR, PER_WORD, build_thai_english


def main() -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    words = build_thai_english(DEBIAN_WORDNET_DIR, Path(corpus_path()) / "wordnet_th.db")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    params = {"per_word": PER_WORD, "load_avg_1m": round(os.getloadavg()[0], 2), "cores": os.cpu_count()}
    emit("thai_english_thai_words", len(words), "words", **params)
    emit("thai_english_english_words", sum(len(english) for english in words.values()), "words", **params)
    emit("thai_english_build_wall", wall, "s", **params)
    emit("thai_english_build_cpu", cpu, "s", **params)


if __name__ == "__main__":
    main()
