"""The graph's build caches: built once across processes that want the same pickle at once, and
rebuilt when torn. Real processes, real files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bio_mcp.pickle_cache import load_cached, write_pickle

# A process that wants the cache: its build takes a second and says that it ran.
WANTS_THE_CACHE = """
import os, sys, time
from pathlib import Path
from bio_mcp.pickle_cache import load_cached

cache, builds = Path(sys.argv[1]), Path(sys.argv[2])

def build():
    with builds.open("a") as log:
        log.write(f"{os.getpid()}\\n")
    time.sleep(1.0)
    return {"built_by": os.getpid()}

print(load_cached(cache, dict, build)["built_by"])
"""


def test_processes_wanting_the_same_cache_at_once_build_it_once(tmp_path: Path) -> None:
    cache, builds = tmp_path / "cache" / "thing.pickle", tmp_path / "builds.log"
    processes = [
        subprocess.Popen([sys.executable, "-c", WANTS_THE_CACHE, str(cache), str(builds)], stdout=subprocess.PIPE,
                         text=True)
        for _ in range(3)
    ]
    answers = [process.communicate(timeout=120)[0].strip() for process in processes]
    assert all(process.returncode == 0 for process in processes)
    built = builds.read_text().split()
    # One built it; the others waited for it and read what it wrote.
    assert len(built) == 1 and answers == built * 3


def test_a_torn_or_foreign_pickle_is_built_again_and_earlier_versions_go(tmp_path: Path) -> None:
    cache = tmp_path / "linker-new-abc.pickle"
    cache.write_bytes(b"\x80\x05torn")
    old = tmp_path / "linker-old-abc.pickle"
    write_pickle(old, {"old": True})
    assert load_cached(cache, dict, lambda: {"fresh": True}, stale="linker-*-abc.pickle") == {"fresh": True}
    assert not old.exists()
    # A pickle of another kind (a class that changed, another file's) is not taken for this one.
    write_pickle(cache, ["not", "a", "dict"])
    assert load_cached(cache, dict, lambda: {"again": True}) == {"again": True}
    assert load_cached(cache, dict, lambda: {"unused": True}) == {"again": True}
