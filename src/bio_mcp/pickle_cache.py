"""What is built from data files, kept as pickles under BIO_MCP_HOME/cache: the MeSH vocabulary,
the entity linker and the relation extractor (graph), read back in about a second instead of built
again in up to half a minute, and the Thai -> English word map (search), whose build leaves its
temporaries' memory with the server.

`load_cached` builds a missing pickle once across processes. On a fresh home a server's warm-up, a
CLI sync and the annotation worker it starts would otherwise each build the same linker at the same
time, on a machine of two cores. The first takes a lock beside the pickle (an flock, which the kernel
releases if its process dies); the others wait for it and read what it wrote.

A long-lived process may name a builder (`build_elsewhere`) that writes missing pickles from another
process: a server that parsed MeSH and compiled the linker itself kept the heap that parsing grew
(about 55 MB of its warm resident memory on a fresh cache), where one that reads the pickles back
holds only what they hold. The builder is asked once per kind; what it leaves missing is built
here, as without it.
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from bio_mcp.file_lock import lock_within

log = logging.getLogger(__name__)

T = TypeVar("T")

# Longer than any build takes on a slow machine; past it a waiting process builds its own copy.
BUILD_WAIT_S = 600.0
_UNREADABLE = (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError)

# Writes a missing pickle (path, kind) from another process, returning once it is there or will not be.
_builder: Callable[[Path, type], None] | None = None


def build_elsewhere(builder: Callable[[Path, type], None] | None) -> None:
    """Have this process's missing pickles written by `builder(path, kind)` before it would build
    one itself (None: build here). The builder must be thread-safe: threads that miss at once each
    call it."""
    global _builder
    _builder = builder


def read_pickle(path: Path) -> object:
    # The collector would otherwise walk the half-built object graph many times over while
    # hundreds of thousands of small objects are created: a third of the load time.
    enabled = gc.isenabled()
    gc.disable()
    try:
        with path.open("rb") as handle:
            return pickle.load(handle)
    finally:
        if enabled:
            gc.enable()


def write_pickle(path: Path, value: object) -> None:
    """Written to a temporary name and renamed, so a killed process never leaves half a cache.

    The name is the writer's own: processes sharing a cache folder may build the same file at once,
    and each rename then installs a whole file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
    with partial.open("wb") as handle:
        pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
    partial.replace(path)


def load_cached(
    path: Path, kind: type[T], build: Callable[[], T], *, stale: str | None = None, wait_s: float = BUILD_WAIT_S
) -> T:
    """The `kind` pickled at `path`, else `build()`, pickled there by this process or by another
    building it at the same time. `stale`: a glob, in the same folder, of the pickles earlier code
    built from the same files (dead weight once this one is written)."""
    found = _read(path, kind)
    if found is not None:
        return found
    if _builder is not None:
        _builder(path, kind)
        found = _read(path, kind)
        if found is not None:
            return found
    with _building(path, wait_s):
        found = _read(path, kind)
        if found is not None:
            return found
        value = build()
        write_pickle(path, value)
    if stale is not None:
        for old in path.parent.glob(stale):
            if old != path:
                old.unlink(missing_ok=True)
    return value


def _read(path: Path, kind: type[T]) -> T | None:
    if not path.is_file():
        return None
    try:
        value = read_pickle(path)
    except _UNREADABLE:
        return None  # a torn pickle, or one of classes that have changed: built again
    return value if isinstance(value, kind) else None


@contextmanager
def _building(path: Path, wait_s: float) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(f".{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not lock_within(fd, wait_s):
            log.warning("another process has been building %s for %.0f s; building it here too", path, wait_s)
        yield
    finally:
        os.close(fd)  # releases the lock
