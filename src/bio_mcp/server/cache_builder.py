"""The server's compiled caches (the MeSH vocabulary, the entity linker, the Thai -> English words, a
trained relation extractor), built by a short-lived child process rather than by the server.

Built in the server, parsing MeSH and compiling the linker grew its heap, and the heap stayed grown
once the parse was freed (a fresh cache: 439 MB resident once warm, against 384 MB when the pickles
were there already, bench/serve_footprint.py). `serve` names a `ChildCacheBuilder` to
`pickle_cache.build_elsewhere`: the first pickle the server misses (or, on an empty cache folder,
the server's start) starts one child process (`python -m bio_mcp.server.cache_builder`) that
builds every cache the server's toolsets read, under the same file locks as any build, then exits;
the server reads each pickle back as soon as it is written. What the child could not build (a
missing file, a failure it logged) the server builds itself as before, so a caller meets the same
typed error.
"""

from __future__ import annotations

import logging
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError
from bio_mcp.logs import configure_logging, get_logger, log_event

log = get_logger("caches")

# The kinds the child builds, by the class name `pickle_cache.load_cached` is asked for (names, so
# the server imports none of their modules before it needs them), in the order they are built:
# the linker and the relation extractor read the vocabulary the first one wrote.
VOCABULARY, LINKER, RELATIONS, THAI = "Vocabulary", "EntityLinker", "RelationExtractor", "ThaiEnglishWords"
BUILD_ORDER = (VOCABULARY, LINKER, RELATIONS, THAI)
CORPUS_TOOLSETS = frozenset({"corpus", "kb", "evidence"})
THAI_TOOLSETS = frozenset({"kb", "evidence"})
_POLL_S = 0.05


def kinds_read_by(settings: Settings) -> set[str]:
    """The caches a server with these settings reads: the vocabulary (every toolset has a MeSH
    tool); the linker and the relation extractor where the corpus links; the Thai words where a
    Thai question is read (kb, evidence)."""
    toolsets = set(settings.toolsets)
    kinds = {VOCABULARY}
    if toolsets & CORPUS_TOOLSETS and settings.graph_linking:
        kinds |= {LINKER, RELATIONS}
    if toolsets & THAI_TOOLSETS:
        kinds.add(THAI)
    return kinds


class ChildCacheBuilder:
    """`pickle_cache.build_elsewhere`'s builder for a server. The first miss of a kind starts a child
    for it and for every kind the server reads that no child was started for; a thread that misses
    waits only until its own pickle is written (the server reads the vocabulary while the child
    compiles the linker) or until the child has exited."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        # kind -> the child building it (None: none could start)
        self._children: dict[str, _Child | None] = {}

    def __call__(self, path: Path, kind: type) -> None:
        before = _installed(path)
        with self._lock:
            if kind.__name__ not in self._children:
                self._start(kinds_read_by(self._settings) | {kind.__name__})
            child = self._children.get(kind.__name__)
        if child is not None:
            child.wait_for(path, before)

    def start_on_a_fresh_cache(self) -> None:
        """Start the child at once when the cache folder holds no pickle at all (a first start): it
        builds while the server imports its modules and opens its store, seconds of its first corpus
        answer on two cores. A folder with pickles mostly holds what the server reads: the child
        waits for a miss."""
        if not any(self._settings.caches.glob("*.pickle")):
            with self._lock:
                self._start(kinds_read_by(self._settings))

    def _start(self, wanted: set[str]) -> None:
        kinds = [name for name in BUILD_ORDER if name in wanted and name not in self._children]
        if not kinds:
            return
        try:
            child: _Child | None = _Child(self._settings, kinds)
        except OSError as exc:  # no process to be had: this one builds them, as without a child
            log_event(log, logging.WARNING, "could not start a child process to build the compiled caches",
                      kinds=kinds, error=str(exc))
            child = None
        self._children.update(dict.fromkeys(kinds, child))


class _Child:
    """One `python -m bio_mcp.server.cache_builder` building `kinds`: given the settings on its
    stdin, its stdout sent to stderr (on stdio the server's stdout is the MCP stream). A thread of
    its own waits for it and logs how it ended."""

    def __init__(self, settings: Settings, kinds: list[str]) -> None:
        self.kinds = kinds
        self._started = time.perf_counter()
        self._exited = threading.Event()
        self._process = subprocess.Popen(
            # -P: a module in the server's working folder must not shadow one of ours. fd 2: the
            # process's own stderr, whatever sys.stderr has been replaced by.
            [sys.executable, "-P", "-m", __name__], stdin=subprocess.PIPE, stdout=2
        )
        threading.Thread(target=self._reap, args=(settings,), name="bio-mcp-cache-builder", daemon=True).start()

    def wait_for(self, path: Path, before: tuple[int, int] | None) -> None:
        """Until a pickle other than `before` is installed at `path`, or the process has exited."""
        while _installed(path) == before and not self._exited.wait(_POLL_S):
            pass

    def _reap(self, settings: Settings) -> None:
        try:
            self._process.communicate(pickle.dumps((settings, self.kinds)))
            seconds = round(time.perf_counter() - self._started, 2)
            if self._process.returncode == 0:
                log_event(log, logging.INFO, "compiled caches built by a child process", kinds=self.kinds,
                          seconds=seconds)
            else:
                log_event(log, logging.WARNING, "the child process building the compiled caches failed; "
                          "what it left missing is built in this process", kinds=self.kinds,
                          exit_code=self._process.returncode)
        finally:
            self._exited.set()


def _installed(path: Path) -> tuple[int, int] | None:
    """Which file is at `path` (a build installs a new one by renaming it there); None if none is."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_mtime_ns


def build_caches(settings: Settings, kinds: Iterable[str]) -> bool:
    """Build (or find) the pickles of `kinds` for these settings; False if any failed (each is logged)."""
    built = True
    for kind in kinds:
        try:
            _BUILDERS[kind](settings)
        except BioMcpError as error:
            log_event(log, logging.WARNING, f"building the {kind} cache failed", code=error.code.value,
                      message=error.message)
            built = False
        except Exception:
            log.exception("building the %s cache failed unexpectedly", kind)
            built = False
    return built


def _vocabulary(settings: Settings) -> None:
    from bio_mcp.graph.vocabulary import load_vocabulary
    from bio_mcp.mesh_files import mesh_path_of

    mesh_path = mesh_path_of(settings)
    if mesh_path is not None and mesh_path.is_file():
        load_vocabulary(mesh_path, settings.caches)


def _linker(settings: Settings) -> None:
    from bio_mcp.graph.linking import load_linker
    from bio_mcp.mesh_files import mesh_path_of

    mesh_path = mesh_path_of(settings)
    if mesh_path is not None and mesh_path.is_file():
        load_linker(settings)


def _relations(settings: Settings) -> None:
    """Only a trained extractor is cached; built from what the server's graph indexer passes it."""
    from bio_mcp.graph.linking import load_linker
    from bio_mcp.graph.relations import load_relation_extractor, ppr_train_path_of
    from bio_mcp.graph.vocabulary import load_vocabulary
    from bio_mcp.mesh_files import mesh_path_of

    mesh_path = mesh_path_of(settings)
    if ppr_train_path_of(settings) is not None and mesh_path is not None and mesh_path.is_file():
        load_relation_extractor(settings, load_linker(settings), load_vocabulary(mesh_path, settings.caches))


def _thai(settings: Settings) -> None:
    from bio_mcp.search.thai_english import thai_english_words

    thai_english_words(cache_dir=settings.caches)


_BUILDERS: dict[str, Callable[[Settings], None]] = {
    VOCABULARY: _vocabulary, LINKER: _linker, RELATIONS: _relations, THAI: _thai,
}


def _main() -> None:
    # Ctrl-C reaches the whole process group: the server decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    settings, kinds = pickle.load(sys.stdin.buffer)
    configure_logging(settings.log_level)
    sys.exit(0 if build_caches(settings, kinds) else 1)


if __name__ == "__main__":
    _main()
