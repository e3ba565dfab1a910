"""An exclusive lock on a file shared by processes: `flock`, which the kernel drops when the process
holding it dies, so a killed process never leaves it taken."""

from __future__ import annotations

import fcntl
import time

_POLL_S = 0.05


def lock_within(fd: int, timeout_s: float) -> bool:
    """Take the exclusive lock of the open file `fd`, waiting up to `timeout_s`; False if another
    process still holds it then. Closing `fd` releases it."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)
