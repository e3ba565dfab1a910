"""EDAT windows for a sync: day-granular ranges small enough for ESearch's 9,999-id ceiling.

PubMed's ESearch (and its history server) serves only the first 9,999 ids of a result, so a window
whose count exceeds the ceiling is halved by date until every part fits. A single day that still
exceeds it cannot be split by EDAT: it is kept, fetched up to the ceiling, and reported, never
silently truncated.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from bio_mcp.sources.ncbi.client import EutilsClient
from bio_mcp.sources.ncbi.parsers import parse_esearch

ESEARCH_CEILING = 9999
# Before the first Entrez date of any record: no sync window ever starts earlier.
ALL_TIME_START = date(1800, 1, 1)


@dataclass(frozen=True)
class Window:
    """EDAT days `start` to `end`, both inclusive, and how many ids ESearch counted in them."""

    start: date
    end: date
    count: int

    @property
    def truncated(self) -> bool:
        return self.count > ESEARCH_CEILING


@dataclass(frozen=True)
class WindowPlan:
    windows: list[Window]
    warnings: list[str]
    # False when `max_count` stopped the plan before the end of the range.
    complete: bool = True
    # Ids ESearch counted in the whole range asked for.
    range_count: int = 0

    @property
    def total(self) -> int:
        return sum(window.count for window in self.windows)


def entrez_day(day: date) -> str:
    return day.strftime("%Y/%m/%d")


async def count_window(eutils: EutilsClient, term: str, start: date, end: date) -> int:
    response = await eutils.esearch(
        term, retmax=0, datetype="edat", mindate=entrez_day(start), maxdate=entrez_day(end)
    )
    return parse_esearch(response.body).count


async def plan_windows(
    eutils: EutilsClient,
    term: str,
    start: date,
    end: date,
    *,
    ceiling: int = ESEARCH_CEILING,
    max_days: int | None = None,
    max_count: int | None = None,
) -> WindowPlan:
    """Non-empty windows covering [start, end] in date order, each counting at most `ceiling` ids.

    `max_days` also caps each window's span, so the watermark advances in smaller steps;
    `max_count` (a sync's per-call record cap) splits windows counting more ids, down to one day,
    and ends the plan at the first window that would take the planned total past it (the first
    window is always planned), so a broad term costs only the counts of what one call syncs.
    """
    windows: list[Window] = []
    warnings: list[str] = []
    state = {"stopped": False, "range_count": 0}

    async def visit(low: date, high: date, known: int | None) -> None:
        if state["stopped"]:
            return
        span = (high - low).days + 1
        count = known if known is not None else await count_window(eutils, term, low, high)
        if not windows and low == start and high == end:
            state["range_count"] = count
        if count == 0:
            return
        too_long = max_days is not None and span > max_days
        too_many = max_count is not None and count > max_count
        if (count > ceiling or too_long or too_many) and span > 1:
            middle = low + timedelta(days=span // 2 - 1)
            await visit(low, middle, None)
            await visit(middle + timedelta(days=1), high, None)
            return
        planned = sum(window.count for window in windows)
        if max_count is not None and windows and planned + count > max_count:
            state["stopped"] = True
            return
        if count > ceiling:
            warnings.append(
                f"EDAT {low.isoformat()} alone matches {count} records, more than ESearch's {ceiling}; "
                f"only the first {ceiling} were fetched"
            )
        windows.append(Window(low, high, count))

    if start <= end:
        await visit(start, end, None)
    return WindowPlan(windows, warnings, complete=not state["stopped"], range_count=int(state["range_count"]))


async def window_ids(
    eutils: EutilsClient, term: str, window: Window, *, page_size: int = 5000, ceiling: int = ESEARCH_CEILING
) -> list[str]:
    """The PMIDs of one window, paged with retstart, in ascending PMID order."""
    wanted = min(window.count, ceiling)
    ids: dict[str, None] = {}
    retstart = 0
    while retstart < wanted:
        response = await eutils.esearch(
            term,
            retmax=min(page_size, wanted - retstart),
            retstart=retstart,
            datetype="edat",
            mindate=entrez_day(window.start),
            maxdate=entrez_day(window.end),
        )
        page = parse_esearch(response.body).ids
        if not page:
            break
        ids.update(dict.fromkeys(page))
        retstart += len(page)
    return sorted(ids, key=int)
