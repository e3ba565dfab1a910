"""The sync lock across real processes: serialisation, timeout, and release when the holder is SIGKILLed."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import MetadataStore

# Takes the lock, optionally records a running job, says so, holds the lock, says when it lets go.
HOLDER = """
import sys, time
from pathlib import Path
from bio_mcp.store import MetadataStore

url, lock_dir, key, hold_s, job_id = sys.argv[1:6]
store = MetadataStore(url, lock_dir=Path(lock_dir))
with store.sync_lock(key, timeout_s=30):
    if job_id:
        with store.transaction() as tx:
            tx.jobs.start(job_id, key, "(GLP-1 receptor agonist) AND obesity")
    print("locked", flush=True)
    time.sleep(float(hold_s))
    print(f"releasing {time.time()}", flush=True)
"""


class Holder:
    def __init__(self, store_url: str, lock_dir: Path, key: str, hold_s: float, job_id: str = "") -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDER, store_url, str(lock_dir), key, str(hold_s), job_id],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def wait_until_locked(self) -> None:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if line.strip() != "locked":
            _, stderr = self.process.communicate(timeout=10)
            pytest.fail(f"the lock holder did not start: {line!r} {stderr}")

    def released_at(self) -> float:
        stdout, stderr = self.process.communicate(timeout=30)
        assert self.process.returncode == 0, stderr
        return float(stdout.split()[-1])

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    started: list[Holder] = []
    yield started
    for holder in started:
        if holder.process.poll() is None:
            holder.kill()


def test_a_second_sync_of_the_same_key_waits_for_the_first(
    store: MetadataStore, store_url: str, tmp_path: Path, holders: list[Holder]
) -> None:
    key = f"key-{uuid.uuid4().hex}"
    holder = Holder(store_url, tmp_path / "locks", key, hold_s=1.0)
    holders.append(holder)
    holder.wait_until_locked()

    # Another key is free meanwhile.
    with store.sync_lock(f"other-{key}", timeout_s=0):
        pass

    started = time.monotonic()
    with store.sync_lock(key, timeout_s=30):
        acquired = time.time()
        waited = time.monotonic() - started
    assert acquired >= holder.released_at()
    assert waited > 0.3


def test_a_waiting_sync_times_out_with_a_clear_error_and_a_killed_holder_releases(
    store: MetadataStore, store_url: str, tmp_path: Path, holders: list[Holder]
) -> None:
    key = f"glp1 obesity / {uuid.uuid4().hex}"
    holder = Holder(store_url, tmp_path / "locks", key, hold_s=600, job_id="sync_killed")
    holders.append(holder)
    holder.wait_until_locked()

    for timeout_s in (0.0, 0.3):
        with pytest.raises(BioMcpError) as caught, store.sync_lock(key, timeout_s=timeout_s):
            pytest.fail("took a lock another process holds")
        assert caught.value.code is ErrorCode.STORE
        assert key in caught.value.message and "still running" in caught.value.message

    holder.kill()
    started = time.monotonic()
    with store.sync_lock(key, timeout_s=10):
        assert time.monotonic() - started < 5
        # The killed sync's job is still 'running'; whoever holds the lock now knows it is dead.
        with store.transaction() as tx:
            assert tx.jobs.abandon_running(key) == ["sync_killed"]
            job = tx.jobs.get("sync_killed")
    assert job is not None and job.status == "failed" and job.error is not None and "abandoned" in job.error


def test_a_held_lock_blocks_a_second_holder_in_the_same_process(store: MetadataStore) -> None:
    key = f"key-{uuid.uuid4().hex}"
    with store.sync_lock(key, timeout_s=1), pytest.raises(BioMcpError), store.sync_lock(key, timeout_s=0.2):
        pass
    with store.sync_lock(key, timeout_s=0):
        pass
