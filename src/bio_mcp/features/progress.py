"""How a long feature call reports progress to whoever shows it (the CLI draws rich bars).

A report names the stage, the units done so far in it, and the stage's total when known (None
for a count without an end, such as records fetched from a search whose size is learned late).
Reports may come from worker threads; a sink must be thread-safe (rich's Progress is).
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def __call__(self, stage: str, done: int, total: int | None) -> None: ...
