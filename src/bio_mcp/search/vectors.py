"""Vector index: a float32 NumPy matrix with one row per chunk, keyed by UUID, searched exactly,
or through an HNSW graph (`ann`) once it holds more vectors than exact search serves in time.

Each row also carries the few attributes a search filters or reports on (pmid, year, publication
types, quality total), so a year or publication-type filter is a boolean mask over rows applied
*before* the top-k is taken (a filtered search never comes back short because the unfiltered
top-k happened to be filtered out), and a vector hit needs no second lookup. A row may exist
without a vector yet (a chunk searchable by BM25 while its embedding is pending); such rows never
match a vector search.

Search is one matrix-vector product and `argpartition`: exact, about 10 ms at 100k rows and 60 to
80 ms at a million on two cores (``bench/search_latency.py``). When a mask keeps under a quarter of
the rows only those rows are scored, gathered in cache-sized blocks. Ties are broken by UUID so
equal scores come back in a stable order.

Past `ann_threshold` rows with vectors (default `DEFAULT_ANN_THRESHOLD`, a million: where exact
search's P95 nears the 100 ms budget of a hybrid search) an `AnnGraph` over those rows answers
instead, in a few milliseconds, unless the mask keeps under `_ANN_MIN_FRACTION` of the rows, where
the exact gathered scan is both fast and exact. The graph applies the mask inside its walk, never
returns a deleted row or a replaced vector (their labels are tombstoned; a reused row gets a fresh
label), and its hits are rescored from the matrix, so `sim` is always the exact cosine. A walk
that comes back short of the limit falls back to the scan. The graph follows every write: vectors
are added as they arrive (a vector rewritten unchanged costs nothing); it is built afresh from
the live rows when more than `_ANN_MAX_DEAD` of its labels are tombstones, and dropped when the
rows with vectors fall below the threshold (crossing back builds it again). Builds run inside
the write that triggers them, about 7 to 10 minutes at a million rows on one thread.

Persistence: `save()` writes the live rows, compacted, into a new generation folder
(``gen-000042/``: vectors.npy, has_vector.npy, years.npy, quality.npy, pub_types.npy, ids.tsv,
meta.json, and ann.faiss with ann_rows.npy while a graph is on) and then atomically repoints
``CURRENT`` at it, so a crash mid-save leaves the previous generation intact. `VectorIndex.open()`
memory-maps vectors.npy read-only; the first change copies the matrix into memory. It loads the
generation's graph, which was written with the rows it indexes and so is never stale; it builds
the graph when the generation has none but needs one (a threshold lowered, or a generation saved
before graphs existed) rather than serving a large corpus by slow exact search. Saving rewrites
the whole matrix (about 1.5 GB at a million 384-d rows) and the graph when it changed (another
1.8 GB: faiss keeps its own copy of the vectors; an unchanged graph is hard-linked), so callers
save once per batch of changes, not per chunk.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bio_mcp.search.ann import ANN_EXTRA_HINT, AnnGraph, ann_available

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
# Rows with vectors from which searches go through the HNSW graph, unless an index is given its
# own `ann_threshold` (BIO_MCP_ANN_THRESHOLD for the corpus).
DEFAULT_ANN_THRESHOLD = 1_000_000
# Tombstoned share of the graph's labels past which it is built afresh: dead labels still cost
# hops in every walk.
_ANN_MAX_DEAD = 0.25
# Below this share of the rows kept by a mask, the exact scan of the kept rows serves instead of a
# filtered walk. At a million rows (search top 100): keeping 20%, walk 9 ms against scan 64 ms at
# the walk's usual recall (0.95); 10%, 18 against 34 ms but recall 0.94; 5%, the walk is slower
# (28 against 20 ms) and misses (0.77).
_ANN_MIN_FRACTION = 0.15
NO_YEAR = 0
NO_QUALITY = -1
_GATHER_FRACTION = 0.25
# Rows gathered per block: small enough for the copy to stay in cache (one big fancy-index copy
# of 20% of a million rows was slower than scoring all of them).
_GATHER_BLOCK = 1024
_MIN_CAPACITY = 1024


def _write_npy(path: Path, array: np.ndarray) -> None:
    # fsync before CURRENT moves, or a power cut could leave CURRENT naming unwritten files.
    with path.open("wb") as handle:
        np.save(handle, array)
        handle.flush()
        os.fsync(handle.fileno())


def _write_text(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


@dataclass(frozen=True, slots=True)
class VectorRow:
    uuid: str
    pmid: str
    year: int | None = None
    pub_types: tuple[str, ...] = ()
    quality: int | None = None
    # None: the chunk is stored (and BM25-searchable) but has no embedding yet.
    vector: Sequence[float] | np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class RowInfo:
    pmid: str
    year: int | None
    quality: int | None
    has_vector: bool


@dataclass(frozen=True, slots=True)
class VectorHit:
    uuid: str
    pmid: str
    sim: float


class VectorIndex:
    def __init__(
        self, dim: int, model_id: str, folder: Path | None = None, ann_threshold: int | None = None
    ) -> None:
        if dim < 1:
            raise ValueError("dim must be positive")
        self.dim = dim
        self.ann_threshold = DEFAULT_ANN_THRESHOLD if ann_threshold is None else ann_threshold
        if self.ann_threshold < 1:
            raise ValueError("ann_threshold must be positive")
        self.model_id = model_id
        self.folder = Path(folder) if folder is not None else None
        # Set by `open` when the saved vectors came from another model and were dropped.
        self.replaced_model_id: str | None = None
        self._reset()

    def _reset(self) -> None:
        dim = self.dim
        self._size = 0
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._has_vector = np.zeros(0, dtype=bool)
        self._years = np.zeros(0, dtype=np.int16)
        self._quality = np.zeros(0, dtype=np.int16)
        self._pub_bits = np.zeros((0, 1), dtype=np.uint8)
        self._pub_vocab: dict[str, int] = {}
        self._uuids: list[str] = []
        self._pmids: list[str] = []
        self._rows: dict[str, int] = {}
        self._free: list[int] = []
        self._ann: AnnGraph | None = None

    # ---- persistence -------------------------------------------------------------------------

    @classmethod
    def open(cls, folder: Path, dim: int, model_id: str, ann_threshold: int | None = None) -> VectorIndex:
        """The saved index in `folder`, or an empty one bound to it when nothing is saved yet.

        When the saved vectors come from another model (or dimension), the rows and their
        attributes are kept but every vector is dropped, `replaced_model_id` names the old model,
        and `pending_uuids()` lists what to re-embed: vectors of two models are never mixed.
        """
        index = cls(dim, model_id, folder, ann_threshold)
        current = Path(folder) / "CURRENT"
        if not current.is_file():
            return index
        generation = Path(folder) / current.read_text().strip()
        meta = json.loads((generation / "meta.json").read_text())
        if meta["format"] != FORMAT_VERSION:
            raise ValueError(f"vectors in {folder} have format {meta['format']}, not {FORMAT_VERSION}")
        with (generation / "ids.tsv").open(encoding="utf-8") as ids:
            pairs = [line.rstrip("\n").split("\t") for line in ids]
        index._size = len(pairs)
        index._uuids = [uuid for uuid, _ in pairs]
        index._pmids = [pmid for _, pmid in pairs]
        index._rows = {uuid: row for row, uuid in enumerate(index._uuids)}
        index._years = np.load(generation / "years.npy")
        index._quality = np.load(generation / "quality.npy")
        index._pub_bits = np.load(generation / "pub_types.npy")
        index._pub_vocab = {name: bit for bit, name in enumerate(meta["pub_types"])}
        if meta["model_id"] == model_id and meta["dim"] == dim:
            index._matrix = np.load(generation / "vectors.npy", mmap_mode="r")
            index._has_vector = np.load(generation / "has_vector.npy")
            graph = AnnGraph.load(generation, dim)
            # Written in the same generation as the rows, so this holds unless files were damaged.
            if graph is not None and np.array_equal(graph.rows(), np.flatnonzero(index._has_vector)):
                index._ann = graph
        else:
            index.replaced_model_id = str(meta["model_id"])
            index._matrix = np.zeros((index._size, dim), dtype=np.float32)
            index._has_vector = np.zeros(index._size, dtype=bool)
        index._refresh_ann(np.zeros(0, dtype=np.int64))
        return index

    def save(self) -> None:
        if self.folder is None:
            raise ValueError("an in-memory index has no folder to save to")
        self.folder.mkdir(parents=True, exist_ok=True)
        current = self.folder / "CURRENT"
        previous = current.read_text().strip() if current.is_file() else None
        number = int(previous.split("-")[1]) + 1 if previous else 1
        name = f"gen-{number:06d}"
        generation = self.folder / name
        if generation.exists():
            shutil.rmtree(generation)
        generation.mkdir()
        live = np.array([row for row in range(self._size) if self._uuids[row]], dtype=np.int64)
        _write_npy(generation / "vectors.npy", np.asarray(self._matrix[live], dtype=np.float32))
        _write_npy(generation / "has_vector.npy", self._has_vector[live])
        _write_npy(generation / "years.npy", self._years[live])
        _write_npy(generation / "quality.npy", self._quality[live])
        _write_npy(generation / "pub_types.npy", self._pub_bits[live])
        ids = "".join(f"{self._uuids[row]}\t{self._pmids[row]}\n" for row in live)
        _write_text(generation / "ids.tsv", ids)
        if self._ann is not None:
            remap = np.full(self._size, -1, dtype=np.int64)
            remap[live] = np.arange(live.shape[0], dtype=np.int64)
            self._ann.save(generation, remap)
        vocab = sorted(self._pub_vocab, key=self._pub_vocab.__getitem__)
        meta = {
            "format": FORMAT_VERSION,
            "dim": self.dim,
            "model_id": self.model_id,
            "rows": len(live),
            "pub_types": vocab,
        }
        _write_text(generation / "meta.json", json.dumps(meta, indent=1))
        pointer = self.folder / "CURRENT.tmp"
        _write_text(pointer, name)
        os.replace(pointer, current)
        for stale in self.folder.glob("gen-*"):
            if stale.name != name:
                shutil.rmtree(stale, ignore_errors=True)

    # ---- writes ------------------------------------------------------------------------------

    def _ensure_capacity(self, rows: int) -> None:
        """Grows the columns geometrically; also turns a read-only memory map into an array."""
        capacity = self._matrix.shape[0]
        writable = isinstance(self._matrix, np.ndarray) and not isinstance(self._matrix, np.memmap)
        if rows <= capacity and writable:
            return
        new_capacity = max(rows, _MIN_CAPACITY, capacity * 2 if rows > capacity else capacity)

        def grown(column: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
            out = np.zeros(shape, dtype=column.dtype)
            out[: self._size] = column[: self._size]
            return out

        self._matrix = grown(self._matrix, (new_capacity, self.dim))
        self._has_vector = grown(self._has_vector, (new_capacity,))
        self._years = grown(self._years, (new_capacity,))
        self._quality = grown(self._quality, (new_capacity,))
        self._pub_bits = grown(self._pub_bits, (new_capacity, self._pub_bits.shape[1]))

    def _pub_type_bit(self, name: str) -> int:
        bit = self._pub_vocab.get(name)
        if bit is None:
            bit = len(self._pub_vocab)
            self._pub_vocab[name] = bit
            if bit // 8 >= self._pub_bits.shape[1]:
                wider = np.zeros((self._pub_bits.shape[0], self._pub_bits.shape[1] + 1), dtype=np.uint8)
                wider[:, : self._pub_bits.shape[1]] = self._pub_bits
                self._pub_bits = wider
        return bit

    def _check_vector(self, row: VectorRow) -> np.ndarray | None:
        if row.vector is None:
            return None
        vector = np.asarray(row.vector, dtype=np.float32)
        if vector.shape != (self.dim,):
            raise ValueError(f"vector of {row.uuid} has shape {vector.shape}, expected ({self.dim},)")
        norm = float(np.linalg.norm(vector))
        if not abs(norm - 1.0) < 1e-3:
            raise ValueError(f"vector of {row.uuid} is not L2-normalised (norm {norm:.4f})")
        return vector

    def upsert(self, rows: Iterable[VectorRow]) -> None:
        """Adds rows, or replaces them (attributes and vector) when the UUID is present."""
        items = list(rows)
        vectors = [self._check_vector(item) for item in items]
        new = sum(1 for item in dict.fromkeys(i.uuid for i in items) if item not in self._rows)
        self._ensure_capacity(self._size + max(0, new - len(self._free)))
        changed: list[int] = []
        for item, vector in zip(items, vectors):
            row = self._rows.get(item.uuid)
            if row is None:
                row = self._free.pop() if self._free else self._size
                if row == self._size:
                    self._size += 1
                    self._uuids.append(item.uuid)
                    self._pmids.append(item.pmid)
                else:
                    self._uuids[row] = item.uuid
                self._rows[item.uuid] = row
            self._pmids[row] = item.pmid
            self._years[row] = item.year if item.year is not None else NO_YEAR
            self._quality[row] = item.quality if item.quality is not None else NO_QUALITY
            self._pub_bits[row] = 0
            for name in item.pub_types:
                bit = self._pub_type_bit(name)
                self._pub_bits[row, bit // 8] |= np.uint8(1 << (bit % 8))
            had_vector = bool(self._has_vector[row])
            if vector is None:
                if had_vector:
                    changed.append(row)
                self._matrix[row] = 0.0
                self._has_vector[row] = False
            else:
                if not had_vector or not np.array_equal(self._matrix[row], vector):
                    changed.append(row)
                self._matrix[row] = vector
                self._has_vector[row] = True
        self._refresh_ann(np.array(changed, dtype=np.int64))

    def set_vectors(self, uuids: Sequence[str], vectors: np.ndarray) -> None:
        """Attaches embeddings to rows already present (e.g. once a pending embedding arrives)."""
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.shape != (len(uuids), self.dim):
            raise ValueError(f"expected vectors of shape ({len(uuids)}, {self.dim}), got {matrix.shape}")
        missing = [uuid for uuid in uuids if uuid not in self._rows]
        if missing:
            raise KeyError(f"unknown uuids: {missing[:5]}")
        norms = np.linalg.norm(matrix, axis=1)
        if not np.all(np.abs(norms - 1.0) < 1e-3):
            raise ValueError("vectors must be L2-normalised")
        self._ensure_capacity(self._size)
        rows = np.array([self._rows[uuid] for uuid in uuids], dtype=np.int64)
        differs = ~self._has_vector[rows] | np.any(self._matrix[rows] != matrix, axis=1)
        self._matrix[rows] = matrix
        self._has_vector[rows] = True
        self._refresh_ann(rows[differs])

    def delete(self, uuids: Iterable[str]) -> int:
        """Frees the rows of these UUIDs (unknown ones are ignored); returns how many were freed."""
        rows = [self._rows.pop(uuid) for uuid in set(uuids) if uuid in self._rows]
        if rows:
            self._ensure_capacity(self._size)
        for row in rows:
            self._uuids[row] = ""
            self._pmids[row] = ""
            self._has_vector[row] = False
            self._matrix[row] = 0.0
            self._free.append(row)
        self._free.sort(reverse=True)
        self._refresh_ann(np.array(rows, dtype=np.int64))
        return len(rows)

    def _refresh_ann(self, changed: np.ndarray) -> None:
        """Brings the graph in step with the rows whose vector was added, replaced or removed:
        none below the threshold, a fresh one on crossing it or when tombstones pile up, else
        the changed rows tombstoned and their current vectors added."""
        if self.vector_count < self.ann_threshold:
            self._ann = None
            return
        if not ann_available():
            _warn_no_ann(self.vector_count, self.ann_threshold)
            return
        if self._ann is not None:
            rows = np.unique(changed)
            self._ann.remove(rows)
            self._ann.add(rows[self._has_vector[rows]], self._matrix)
            if self._ann.dead_fraction <= _ANN_MAX_DEAD:
                return
        self._ann = AnnGraph.build(self.dim, np.flatnonzero(self._has_vector[: self._size]), self._matrix)

    def clear(self) -> None:
        self._reset()

    # ---- reads -------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, uuid: object) -> bool:
        return uuid in self._rows

    @property
    def vector_count(self) -> int:
        return int(self._has_vector[: self._size].sum())

    @property
    def has_vectors(self) -> bool:
        return bool(self._has_vector[: self._size].any())

    @property
    def uses_ann(self) -> bool:
        """Whether searches go through the HNSW graph (masks keeping few rows still scan)."""
        return self._ann is not None

    def uuids(self) -> list[str]:
        return sorted(self._rows)

    def pending_uuids(self) -> list[str]:
        """Rows still waiting for an embedding."""
        return sorted(uuid for uuid, row in self._rows.items() if not self._has_vector[row])

    def info(self, uuid: str) -> RowInfo | None:
        row = self._rows.get(uuid)
        if row is None:
            return None
        year = int(self._years[row])
        quality = int(self._quality[row])
        return RowInfo(
            pmid=self._pmids[row],
            year=None if year == NO_YEAR else year,
            quality=None if quality == NO_QUALITY else quality,
            has_vector=bool(self._has_vector[row]),
        )

    def qualities(self, uuids: Sequence[str]) -> dict[str, int | None]:
        """The quality total of each of these rows (None when unknown); rows not held are absent."""
        found: dict[str, int | None] = {}
        for uuid in uuids:
            row = self._rows.get(uuid)
            if row is not None:
                quality = int(self._quality[row])
                found[uuid] = None if quality == NO_QUALITY else quality
        return found

    def similarities(self, query: np.ndarray, uuids: Sequence[str]) -> dict[str, float]:
        """Cosine of the query with each of these chunks that has a vector."""
        rows = [(uuid, self._rows[uuid]) for uuid in uuids if uuid in self._rows]
        rows = [(uuid, row) for uuid, row in rows if self._has_vector[row]]
        if not rows:
            return {}
        scores = self._matrix[np.array([row for _, row in rows])] @ np.asarray(query, dtype=np.float32)
        return {uuid: float(score) for (uuid, _), score in zip(rows, scores)}

    def mask(
        self, year_range: tuple[int | None, int | None] | None = None, pub_types: Iterable[str] | None = None
    ) -> np.ndarray | None:
        """Rows matching the filters (None when nothing filters). A row without a year never
        matches a year range; `pub_types` matches rows carrying any of the named types, and an
        empty list filters nothing."""
        keep: np.ndarray | None = None
        if year_range is not None:
            low, high = year_range
            years = self._years[: self._size]
            keep = years != NO_YEAR
            if low is not None:
                keep &= years >= low
            if high is not None:
                keep &= years <= high
        names = list(pub_types or ())
        if names:
            wanted = np.zeros(self._size, dtype=bool)
            for name in names:
                bit = self._pub_vocab.get(name)
                if bit is not None:
                    wanted |= (self._pub_bits[: self._size, bit // 8] & np.uint8(1 << (bit % 8))) != 0
            keep = wanted if keep is None else keep & wanted
        return keep

    def _ann_rows(self, q: np.ndarray, k: int, mask: np.ndarray | None, count: int) -> np.ndarray | None:
        """The graph's `k` nearest rows, or None where the exact scan serves instead: no graph,
        a mask keeping under `_ANN_MIN_FRACTION` of the rows, or a walk that came back short of
        `k` (so a filtered search still never returns fewer hits than there are matching rows)."""
        if self._ann is None or count < _ANN_MIN_FRACTION * self._size:
            return None
        rows = self._ann.search(q, k, mask)
        return rows if rows.shape[0] == k else None

    def search(
        self, query: np.ndarray | Sequence[float], limit: int, mask: np.ndarray | None = None
    ) -> list[VectorHit]:
        q = np.asarray(query, dtype=np.float32)
        if q.shape != (self.dim,):
            raise ValueError(f"query vector has shape {q.shape}, expected ({self.dim},)")
        valid = self._has_vector[: self._size]
        if mask is not None:
            if mask.shape != (self._size,):
                raise ValueError(f"mask has shape {mask.shape}, expected ({self._size},)")
            valid = valid & mask
        count = int(valid.sum())
        k = min(limit, count)
        if k <= 0:
            return []
        ann_rows = self._ann_rows(q, k, mask, count)
        if ann_rows is not None:
            rows = ann_rows
            scores = self._matrix[rows] @ q
        elif count < _GATHER_FRACTION * self._size:
            rows = np.flatnonzero(valid)
            scores = np.empty(rows.shape[0], dtype=np.float32)
            for start in range(0, rows.shape[0], _GATHER_BLOCK):
                block = rows[start : start + _GATHER_BLOCK]
                scores[start : start + _GATHER_BLOCK] = self._matrix[block] @ q
        else:
            rows = None
            scores = self._matrix[: self._size] @ q
            scores[~valid] = -np.inf
        top = np.argpartition(-scores, k - 1)[:k] if k < scores.shape[0] else np.arange(scores.shape[0])
        picked = [(float(scores[i]), int(rows[i]) if rows is not None else int(i)) for i in top]
        picked = [(score, row) for score, row in picked if score != -np.inf]
        picked.sort(key=lambda item: (-item[0], self._uuids[item[1]]))
        return [VectorHit(self._uuids[row], self._pmids[row], score) for score, row in picked]


_warned_no_ann = False


def _warn_no_ann(vectors: int, threshold: int) -> None:
    """Once per process: exact search still answers, only slower than the graph would."""
    global _warned_no_ann
    if not _warned_no_ann:
        _warned_no_ann = True
        log.warning(
            "%d vectors are past BIO_MCP_ANN_THRESHOLD (%d) but faiss is not installed: vector search "
            "stays exact (slower at this size); for the HNSW graph, %s",
            vectors, threshold, ANN_EXTRA_HINT,
        )
