"""An HNSW graph (faiss `IndexHNSWFlat`, inner product) over some rows of `VectorIndex`'s matrix.

The graph knows vectors by *label*, faiss's insertion number, and cannot remove one. So it keeps a
label-to-row table: a row whose vector is deleted or replaced has its label tombstoned (set to
-1) and, when a new vector arrives for the row (a replacement, or a freed row reused for another
chunk), the vector is added under a fresh label. Searches pass faiss an `IDSelectorBitmap` of the
labels that are alive and whose row the caller allows, so a tombstoned vector is never returned
and a filter is applied inside the graph walk, before the top-k. Tombstones still cost graph hops,
so `dead_fraction` tells the owner when to build a fresh graph.

Determinism: faiss adds in parallel in an unspecified order, so vectors are added on one thread;
level assignment is seeded inside faiss. The same sequence of adds then gives the same graph.

faiss-cpu is the `ann` extra (66 MB). Without it `ann_available()` is false and `VectorIndex`
stays exact at any size, with one warning naming the extra.

Parameters, measured on a million embedding-like 384-d vectors (1,000 tight clusters: harder to
walk than real embeddings) with one thread: M 32 against 16 lifts recall@20 from 0.84 to 0.96 at
efSearch 256 (1 to 2 ms a query) for a 7% longer build (7 to 10 minutes) and a graph of 1.8 GB,
vectors included; recall levels off past efSearch 256 (0.97 at 2048, 7 ms). A filter or
tombstones widen the walk (see `search`).
"""

from __future__ import annotations

import functools
import math
import os
from pathlib import Path
from types import ModuleType

import numpy as np

ANN_EXTRA_HINT = "pip install 'bio-mcp[ann]'"


@functools.cache
def _faiss() -> ModuleType | None:
    """faiss, imported when a graph is first needed: importing it costs about 15 MB resident,
    which a server below the graph's threshold (nearly every one) would hold for nothing."""
    try:
        import faiss
    except ImportError:  # the `ann` extra is not installed: see ann_available
        return None
    return faiss


def ann_available() -> bool:
    """Whether faiss (the `ann` extra) is installed."""
    return _faiss() is not None

M = 32
EF_CONSTRUCTION = 64
EF_SEARCH = 256
# A bound on the walk when a filter keeps few labels: past it the owner's exact scan is cheaper.
_MAX_EF = 4096
# Vectors handed to faiss per call, bounding the contiguous copy made from the matrix.
_ADD_BLOCK = 65_536


def _hard_link(source: Path, target: Path) -> bool:
    try:
        os.link(source, target)
    except OSError:  # the file is gone, or the filesystem has no hard links
        return False
    return True


class AnnGraph:
    def __init__(self, dim: int) -> None:
        faiss = _faiss()
        self.dim = dim
        self._index = faiss.IndexHNSWFlat(dim, M, faiss.METRIC_INNER_PRODUCT)
        self._index.hnsw.efConstruction = EF_CONSTRUCTION
        # label -> matrix row, -1 once tombstoned; and the inverse for the live labels.
        self._label_rows = np.zeros(0, dtype=np.int64)
        self._row_labels = np.zeros(0, dtype=np.int64)
        self._live = 0
        # The file this exact graph was read from or written to, so an unchanged graph is linked
        # into the next generation rather than rewritten (about 1.8 GB at a million rows).
        self._file: Path | None = None

    @classmethod
    def build(cls, dim: int, rows: np.ndarray, matrix: np.ndarray) -> AnnGraph:
        graph = cls(dim)
        graph.add(rows, matrix)
        return graph

    # ---- writes ------------------------------------------------------------------------------

    def _grow_rows(self, rows: int) -> None:
        if rows > self._row_labels.shape[0]:
            grown = np.full(max(rows, 2 * self._row_labels.shape[0]), -1, dtype=np.int64)
            grown[: self._row_labels.shape[0]] = self._row_labels
            self._row_labels = grown

    def add(self, rows: np.ndarray, matrix: np.ndarray) -> None:
        """Adds the vectors of these rows (read from `matrix`); rows must not be in the graph."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.shape[0] == 0:
            return
        self._grow_rows(int(rows.max()) + 1)
        if np.any(self._row_labels[rows] >= 0):
            raise ValueError("a row is already in the graph: remove it first")
        faiss = _faiss()
        first = self._index.ntotal
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            for start in range(0, rows.shape[0], _ADD_BLOCK):
                block = rows[start : start + _ADD_BLOCK]
                self._index.add(np.ascontiguousarray(matrix[block], dtype=np.float32))
        finally:
            faiss.omp_set_num_threads(threads)
        self._label_rows = np.concatenate([self._label_rows, rows])
        self._row_labels[rows] = np.arange(first, first + rows.shape[0], dtype=np.int64)
        self._live += rows.shape[0]
        self._file = None

    def remove(self, rows: np.ndarray) -> None:
        """Tombstones the labels of these rows (rows not in the graph are ignored)."""
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[rows < self._row_labels.shape[0]]
        labels = self._row_labels[rows]
        labels = np.unique(labels[labels >= 0])
        self._label_rows[labels] = -1
        self._row_labels[rows] = -1
        self._live -= labels.shape[0]

    # ---- reads -------------------------------------------------------------------------------

    @property
    def labels(self) -> int:
        return int(self._index.ntotal)

    @property
    def dead_fraction(self) -> float:
        return 1.0 - self._live / self.labels if self.labels else 0.0

    def rows(self) -> np.ndarray:
        """The rows in the graph, ascending."""
        return np.sort(self._label_rows[self._label_rows >= 0])

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None) -> np.ndarray:
        """Up to `k` rows near `query`, among the live ones where `allowed` (indexed by row) is
        true. The walk widens (efSearch) in proportion to the labels a filter or tombstones
        exclude, so about as many allowed labels are explored as in an unfiltered walk."""
        if self._live == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64)
        faiss = _faiss()
        params = faiss.SearchParametersHNSW()
        ef = max(EF_SEARCH, k)
        if allowed is None and self._live == self.labels:
            kept = self.labels
        else:
            alive = self._label_rows >= 0
            keep = alive.copy()
            if allowed is not None:
                keep[alive] = allowed[self._label_rows[alive]]
            kept = int(keep.sum())
            if kept == 0:
                return np.zeros(0, dtype=np.int64)
            bits = np.packbits(keep, bitorder="little")
            # Both stay referenced until the search returns: faiss holds raw pointers to them.
            selector = faiss.IDSelectorBitmap(keep.shape[0], faiss.swig_ptr(bits))
            params.sel = selector
        params.efSearch = min(_MAX_EF, max(ef, math.ceil(ef * self.labels / kept)))
        _, labels = self._index.search(
            np.ascontiguousarray(query, dtype=np.float32)[None, :], min(k, kept), params=params
        )
        found = labels[0]
        return self._label_rows[found[found >= 0]]

    # ---- persistence -------------------------------------------------------------------------

    def save(self, folder: Path, row_remap: np.ndarray) -> None:
        """Writes ``ann.faiss`` and ``ann_rows.npy`` into `folder`, renumbering rows through
        `row_remap` (old row -> row in the saved, compacted matrix) as the owner compacts."""
        target = folder / "ann.faiss"
        if self._file is None or not _hard_link(self._file, target):
            _faiss().write_index(self._index, str(target))
            with target.open("rb") as handle:
                os.fsync(handle.fileno())
        self._file = target
        alive = self._label_rows >= 0
        saved = np.full(self._label_rows.shape[0], -1, dtype=np.int64)
        saved[alive] = row_remap[self._label_rows[alive]]
        with (folder / "ann_rows.npy").open("wb") as handle:
            np.save(handle, saved)
            handle.flush()
            os.fsync(handle.fileno())

    @classmethod
    def load(cls, folder: Path, dim: int) -> AnnGraph | None:
        """The graph saved in `folder`, or None when there is none, it is damaged or it does not
        fit `dim` (the owner then builds one afresh)."""
        path = folder / "ann.faiss"
        if not path.is_file() or not (folder / "ann_rows.npy").is_file() or not ann_available():
            return None
        try:
            index = _faiss().read_index(str(path))
        except RuntimeError:  # faiss reports a truncated or corrupt file this way
            return None
        label_rows = np.load(folder / "ann_rows.npy")
        if index.d != dim or index.ntotal != label_rows.shape[0]:
            return None
        graph = cls(dim)
        graph._index = index
        graph._label_rows = label_rows
        alive = label_rows >= 0
        graph._grow_rows(int(label_rows.max()) + 1 if alive.any() else 0)
        graph._row_labels[label_rows[alive]] = np.flatnonzero(alive)
        graph._live = int(alive.sum())
        graph._file = path
        return graph
