"""Which folder of BIO_MCP_HOME a process keeps its derived index in.

The index is per process (each follows the store's change log), and tantivy and the vector files
admit one writer, so a process leases a folder with `flock`: the first free of ``index``,
``index-2``, ``index-3``, ... A restarted process usually gets its old folder back and replays only
the changes it missed; the kernel drops a dead process's lease, so a kill never strands a folder.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

from bio_mcp.errors import BioMcpError, ErrorCode

MAX_INDEX_FOLDERS = 64


@dataclass
class IndexLease:
    folder: Path
    _fd: int

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def folder_name(slot: int) -> str:
    return "index" if slot == 1 else f"index-{slot}"


def lease_index_folder(home: Path) -> IndexLease:
    home.mkdir(parents=True, exist_ok=True)
    for slot in range(1, MAX_INDEX_FOLDERS + 1):
        name = folder_name(slot)
        fd = os.open(home / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return IndexLease(home / name, fd)
    raise BioMcpError(
        ErrorCode.STORE,
        f"{MAX_INDEX_FOLDERS} processes already hold an index folder in {home}",
        {"home": str(home)},
    )
