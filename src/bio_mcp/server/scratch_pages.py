"""A scratch text read in pages no larger than a result's text budget.

A scratch text holds what did not fit a result (records, citations, a long answer), and can be
megabytes: read whole, it would flood the client as the result would have. So a text longer than
one page is served in pages: `bio-mcp://scratch/{id}` is its first page, `bio-mcp://scratch/{id}/{n}`
its n-th. Pages end at a line end where one falls in the page's second half, and each page of a
paged text ends with one note line saying which page it is and which URI reads the next, so a
client that shows only text still knows there is more. Joining the pages with their note lines
removed gives the text back exactly.
"""

from __future__ import annotations

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store.scratch import SCRATCH_URI_PREFIX

# Room kept in each page for its note line.
NOTE_ROOM = 400
NOTE_PREFIX = "\n[bio-mcp scratch page "


def page_bounds(text: str, size: int) -> list[tuple[int, int]]:
    """Where each page starts and ends, for pages of at most `size` characters less the note's room."""
    body = max(1, size - NOTE_ROOM)
    bounds: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + body)
        if end < len(text):
            line_end = text.rfind("\n", start, end)
            if line_end >= start + body // 2:
                end = line_end + 1
        bounds.append((start, end))
        start = end
    return bounds or [(0, 0)]


def scratch_page(text: str, scratch_id: str, page: int, size: int) -> str:
    """Page `page` (1-based) of a scratch text; the text itself when it fits one page."""
    if len(text) <= size:
        if page != 1:
            raise BioMcpError(ErrorCode.NOT_FOUND, f"scratch text {scratch_id} has one page", {"pages": 1})
        return text
    bounds = page_bounds(text, size)
    if not 1 <= page <= len(bounds):
        raise BioMcpError(ErrorCode.NOT_FOUND, f"scratch text {scratch_id} has pages 1 to {len(bounds)}",
                          {"pages": len(bounds)})
    start, end = bounds[page - 1]
    after = (f"the next page is {SCRATCH_URI_PREFIX}{scratch_id}/{page + 1}" if page < len(bounds)
             else "this is the last page")
    note = (f"{NOTE_PREFIX}{page} of {len(bounds)}: characters {start + 1:,} to {end:,} of {len(text):,}; "
            f"{after}; join the pages without these lines for the whole text]")
    return text[start:end] + note
