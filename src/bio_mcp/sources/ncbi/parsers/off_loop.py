"""Parsing off the event loop, abandoned as soon as its caller is cancelled.

A large EFetch answer takes seconds to parse. In a worker thread it does not stall every other
call on the loop; and since a thread cannot be cancelled, the parse is handed a `stop` question
it asks before each record, answered yes once the awaiting task has been cancelled.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Collection
from typing import TypeVar

T = TypeVar("T")

Parse = Callable[[bytes, Collection[str] | None, Callable[[], bool]], T]


async def parse_off_loop(parse: Parse[T], body: bytes, wanted: Collection[str] | None) -> T:
    stop = threading.Event()
    try:
        return await asyncio.to_thread(parse, body, wanted, stop.is_set)
    except BaseException:
        stop.set()
        raise
