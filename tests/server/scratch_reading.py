"""Reading a scratch text as a client does: page by page, each page naming the next."""

from __future__ import annotations

import re

from mcp import Client

from bio_mcp.server.scratch_pages import NOTE_PREFIX


async def read_whole(client: Client, uri: str) -> tuple[str, list[str]]:
    """A scratch text read page by page as a client would (each page names the next), joined."""
    pages: list[str] = []
    while uri:
        page = (await client.read_resource(uri)).contents[0].text
        pages.append(page)
        note = page.rfind(NOTE_PREFIX)
        following = re.search(r"the next page is (\S+);", page[note:]) if note >= 0 else None
        uri = following.group(1) if following else ""
    return "".join(page[:page.rfind(NOTE_PREFIX)] if NOTE_PREFIX in page else page for page in pages), pages
