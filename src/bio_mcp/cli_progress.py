"""Rich progress bars on stderr for the CLI: one line per stage, with counts, rate and times.

`ProgressBars` is a `features.progress.Progress` sink: the first report of a stage adds its line,
later ones move it. A stage without a total shows a count and a rate but no bar. Reports may come
from worker threads (rich's Progress takes a lock).
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    """Units per second over rich's sliding window, e.g. ``112.4 chunks/s``."""

    def render(self, task: Task) -> Text:
        unit = task.fields.get("unit", "")
        if task.speed is None:
            return Text(f"– {unit}/s", style="progress.data.speed")
        return Text(f"{task.speed:,.1f} {unit}/s", style="progress.data.speed")


class CountColumn(ProgressColumn):
    """``done/total`` when the total is known, else the count alone."""

    def __init__(self) -> None:
        super().__init__()
        self._with_total = MofNCompleteColumn()

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text(f"{int(task.completed):,}", style="progress.download")
        return self._with_total.render(task)


class ProgressBars:
    def __init__(self, console: Console, labels: dict[str, str] | None = None) -> None:
        """`labels` names the stages a command reports (stage -> what the line says)."""
        self._labels = labels or {}
        self._tasks: dict[str, TaskID] = {}
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            CountColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )

    def __enter__(self) -> Self:
        self._progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.stop()

    def stage(self, stage: str, total: int | None = None) -> None:
        """Shows a stage before its first report (a spinner while it has none)."""
        if stage not in self._tasks:
            self._tasks[stage] = self._progress.add_task(self._labels.get(stage, stage), total=total, unit=stage)

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        self.stage(stage, total)
        self._progress.update(self._tasks[stage], completed=done, total=total)
