"""VERIFYING: re-hashing what is already on disk shows progress and obeys pause and cancel.

Three re-hashes: the bytes a resumed partial already holds (before the transfer continues), a
final file found in place without its verification record, and a transferred file whose hash
could not be taken on the way. Real huggingface_hub client, real fake Hub on 127.0.0.1, real
files of a few tens of MiB (past ``VERIFY_SHOWN_BYTES``).
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.download import (
    DownloadCancelledError,
    DownloadManager,
    DownloadProgress,
    DownloadState,
    RetryPolicy,
    request_for_files,
)
from desktop.core.download import fetch as fetch_module
from desktop.core.download.progress import MIN_INTERVAL_S, VERIFY_SHOWN_BYTES
from desktop.core.hashing import HASH_BLOCK
from tests.fixtures.hubserver import FakeHub

REPO = "TheBloke/Tiny-GGUF"
FILE = "tiny.Q4_K_M.gguf"
FAST_RETRY = RetryPolicy(attempts=3, base_delay_s=0.05, max_delay_s=0.2)
SIZE = 24 << 20
KEPT = 20 << 20  # five hash blocks, past the size that shows as VERIFYING

assert KEPT >= VERIFY_SHOWN_BYTES
assert KEPT % HASH_BLOCK == 0


@pytest.fixture(scope="module")
def data() -> bytes:
    return random.Random(7).randbytes(SIZE)


@pytest.fixture
def served(hub: FakeHub, data: bytes) -> FakeHub:
    hub.add_file(REPO, FILE, data)
    return hub


def final_path(models: Path) -> Path:
    return models.joinpath(*REPO.split("/"), FILE)


def partial_path(models: Path) -> Path:
    return models.joinpath(".downloads", *REPO.split("/"), FILE + ".part")


def plant_partial(hub: FakeHub, models: Path, content: bytes) -> Path:
    """What an earlier run leaves when it stops: the partial and its ``.part.json``."""
    partial = partial_path(models)
    partial.parent.mkdir(parents=True, exist_ok=True)
    partial.write_bytes(content)
    hub_file = hub.file(REPO, FILE)
    meta = {
        "repo": REPO,
        "file": FILE,
        "etag": hub_file.etag,
        "size": hub_file.size,
        "commit": hub.repo(REPO).commit,
    }
    partial.with_name(partial.name + ".json").write_text(json.dumps(meta))
    return partial


def verifying(events: list[DownloadProgress]) -> list[DownloadProgress]:
    return [e for e in events if e.state is DownloadState.VERIFYING]


def states(events: list[DownloadProgress]) -> list[DownloadState]:
    """The states in order, each run of repeats once."""
    out: list[DownloadState] = []
    for event in events:
        if not out or out[-1] is not event.state:
            out.append(event.state)
    return out


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.005)


# --- a resumed partial ----------------------------------------------------------------------------


def test_a_resumed_partial_is_verified_with_rising_progress_then_resumed(
    served: FakeHub, models: Path, data: bytes
) -> None:
    plant_partial(served, models, data[:KEPT])
    events: list[DownloadProgress] = []
    with DownloadManager(
        models, served.access(), 1, retry=FAST_RETRY, progress_interval=0.0
    ) as manager:
        job = manager.submit(request_for_files(REPO, [FILE]), on_progress=events.append)
        result = job.result(timeout=60)
    assert states(events) == [
        DownloadState.CHECKING,
        DownloadState.DOWNLOADING,
        DownloadState.VERIFYING,
        DownloadState.DOWNLOADING,
        DownloadState.DONE,
    ]
    checked = verifying(events)
    done = [e.verify_done for e in checked]
    assert done[0] == 0
    assert done[-1] == KEPT
    assert done == sorted(done)
    assert len(set(done)) >= KEPT // HASH_BLOCK  # one step per 4 MiB block at least
    assert all(e.verify_total == KEPT for e in checked)
    assert all(e.file == FILE for e in checked)
    assert checked[-1].verify_fraction == 1.0
    # the download's own bar holds still while its kept part is checked
    assert all(e.bytes_done == KEPT and e.bytes_total == SIZE for e in checked)
    others = [e for e in events if e.state is not DownloadState.VERIFYING]
    assert all(e.verify_done == 0 and e.verify_total is None for e in others)
    assert all(e.verify_fraction is None for e in others)
    # the result is what a resume gave before: the kept bytes are not fetched again
    assert final_path(models).read_bytes() == data
    [fetched] = result.files
    assert fetched.sha256 == hashlib.sha256(data).hexdigest()
    assert fetched.verified_against == "hub sha256"
    assert fetched.resumed_from == KEPT
    assert fetched.fetched_bytes == SIZE - KEPT
    assert [g.range_start for g in served.content_gets(REPO, FILE)] == [KEPT]


def test_verifying_progress_is_throttled_like_the_transfer(
    served: FakeHub, models: Path, data: bytes
) -> None:
    plant_partial(served, models, data[:KEPT])
    events: list[DownloadProgress] = []
    times: list[float] = []

    def record(progress: DownloadProgress) -> None:
        events.append(progress)
        times.append(time.monotonic())

    with DownloadManager(models, served.access(), 1, retry=FAST_RETRY) as manager:
        manager.submit(request_for_files(REPO, [FILE]), on_progress=record).result(timeout=60)
    indexes = [i for i, e in enumerate(events) if e.state is DownloadState.VERIFYING]
    assert indexes
    checked = [events[i] for i in indexes]
    # the state change and the end are always told; in between at most 4 per second
    assert checked[0].verify_done == 0
    assert checked[-1].verify_done == KEPT
    took = times[indexes[-1]] - times[indexes[0]]
    assert len(checked) <= 2 + int(took / MIN_INTERVAL_S) + 1


def test_a_small_partial_is_checked_without_showing_verifying(
    served: FakeHub, models: Path, data: bytes
) -> None:
    kept = VERIFY_SHOWN_BYTES // 2
    plant_partial(served, models, data[:kept])
    events: list[DownloadProgress] = []
    with DownloadManager(
        models, served.access(), 1, retry=FAST_RETRY, progress_interval=0.0
    ) as manager:
        job = manager.submit(request_for_files(REPO, [FILE]), on_progress=events.append)
        result = job.result(timeout=60)
    assert DownloadState.VERIFYING not in states(events)
    assert result.files[0].resumed_from == kept
    assert final_path(models).read_bytes() == data


class Gate:
    """An ``on_progress`` callback that holds the job thread at its first VERIFYING value, as
    a slow disk would, until the test lets it go."""

    def __init__(self) -> None:
        self.events: list[DownloadProgress] = []
        self.reached = threading.Event()
        self.release = threading.Event()

    def __call__(self, progress: DownloadProgress) -> None:
        self.events.append(progress)
        if progress.state is DownloadState.VERIFYING and not self.reached.is_set():
            self.reached.set()
            assert self.release.wait(10)


def test_cancel_while_verifying_a_partial_stops_within_a_block(
    served: FakeHub, models: Path, data: bytes
) -> None:
    partial = plant_partial(served, models, data[:KEPT])
    gate = Gate()
    with DownloadManager(
        models, served.access(), 1, retry=FAST_RETRY, progress_interval=0.0
    ) as manager:
        job = manager.submit(request_for_files(REPO, [FILE]), on_progress=gate)
        assert gate.reached.wait(10)
        assert job.progress.state is DownloadState.VERIFYING
        asked = time.monotonic()
        job.cancel()
        gate.release.set()
        assert job.wait(5)
        stopped_in = time.monotonic() - asked
    assert stopped_in < 1.0
    assert job.state is DownloadState.CANCELLED
    assert isinstance(job.error, DownloadCancelledError)
    hashed = [e.verify_done for e in verifying(gate.events)]
    assert max(hashed) <= HASH_BLOCK  # the cancel was seen after the block in hand
    assert gate.events[-1].state is DownloadState.CANCELLED
    assert gate.events[-1].verify_total is None
    assert not partial.exists()  # a cancel removes the partial, as during a transfer
    assert served.content_gets(REPO, FILE) == []  # nothing was fetched
    assert not final_path(models).exists()


def test_pause_while_verifying_keeps_the_partial_and_resume_verifies_again(
    served: FakeHub, models: Path, data: bytes
) -> None:
    partial = plant_partial(served, models, data[:KEPT])
    gate = Gate()
    with DownloadManager(
        models, served.access(), 1, retry=FAST_RETRY, progress_interval=0.0
    ) as manager:
        job = manager.submit(request_for_files(REPO, [FILE]), on_progress=gate)
        assert gate.reached.wait(10)
        job.pause()
        gate.release.set()
        wait_for(lambda: job.state is DownloadState.PAUSED)
        assert partial.stat().st_size == KEPT  # untouched
        assert served.content_gets(REPO, FILE) == []
        assert job.progress.verify_total is None
        seen = len(gate.events)
        job.resume()
        result = job.result(timeout=60)
    after = gate.events[seen:]
    assert [e.verify_done for e in verifying(after)][-1] == KEPT  # hashed again, whole
    assert result.files[0].resumed_from == KEPT
    assert final_path(models).read_bytes() == data


# --- a file already in place ----------------------------------------------------------------------


def test_a_final_file_without_its_record_is_verified_with_progress(
    served: FakeHub, models: Path, data: bytes
) -> None:
    final = final_path(models)
    final.parent.mkdir(parents=True)
    final.write_bytes(data)  # copied in by hand: no .verified.json
    events: list[DownloadProgress] = []
    with DownloadManager(
        models, served.access(), 1, retry=FAST_RETRY, progress_interval=0.0
    ) as manager:
        job = manager.submit(request_for_files(REPO, [FILE]), on_progress=events.append)
        result = job.result(timeout=60)
    assert states(events) == [
        DownloadState.CHECKING,
        DownloadState.VERIFYING,
        DownloadState.CHECKING,
        DownloadState.DONE,
    ]
    done = [e.verify_done for e in verifying(events)]
    assert done[0] == 0
    assert done[-1] == SIZE
    assert done == sorted(done)
    assert all(e.verify_total == SIZE for e in verifying(events))
    [fetched] = result.files
    assert fetched.skipped
    assert fetched.verified_against == "existing file"
    assert fetched.sha256 == hashlib.sha256(data).hexdigest()
    assert served.content_gets(REPO, FILE) == []
    # recorded now: the next run trusts it without hashing
    events.clear()
    with DownloadManager(
        models, served.access(), 1, retry=FAST_RETRY, progress_interval=0.0
    ) as manager:
        again = manager.submit(request_for_files(REPO, [FILE]), on_progress=events.append)
        assert again.result(timeout=60).files[0].verified_against == "record"
    assert DownloadState.VERIFYING not in states(events)


def test_cancel_while_verifying_a_file_in_place_leaves_it_alone(
    served: FakeHub, models: Path, data: bytes
) -> None:
    final = final_path(models)
    final.parent.mkdir(parents=True)
    final.write_bytes(data)
    gate = Gate()
    with DownloadManager(
        models, served.access(), 1, retry=FAST_RETRY, progress_interval=0.0
    ) as manager:
        job = manager.submit(request_for_files(REPO, [FILE]), on_progress=gate)
        assert gate.reached.wait(10)
        asked = time.monotonic()
        job.cancel()
        gate.release.set()
        assert job.wait(5)
        assert time.monotonic() - asked < 1.0
    assert job.state is DownloadState.CANCELLED
    assert max(e.verify_done for e in verifying(gate.events)) <= HASH_BLOCK
    assert final.read_bytes() == data  # not ours to delete
    assert served.content_gets(REPO, FILE) == []


# --- a transfer whose hash could not be taken on the way ------------------------------------------


def test_a_transferred_file_hashed_again_shows_verifying(
    served: FakeHub, models: Path, data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a writer answers after http_get moved around in the file (seek elsewhere, truncate
    # not to 0): it cannot vouch for its running hash, so the whole file is read again.
    monkeypatch.setattr(fetch_module._HashingWriter, "finish", lambda self: self.abort())
    events: list[DownloadProgress] = []
    with DownloadManager(
        models, served.access(), 1, retry=FAST_RETRY, progress_interval=0.0
    ) as manager:
        job = manager.submit(request_for_files(REPO, [FILE]), on_progress=events.append)
        result = job.result(timeout=60)
    assert states(events) == [
        DownloadState.CHECKING,
        DownloadState.DOWNLOADING,
        DownloadState.VERIFYING,
        DownloadState.DOWNLOADING,
        DownloadState.DONE,
    ]
    done = [e.verify_done for e in verifying(events)]
    assert done[0] == 0
    assert done[-1] == SIZE
    assert done == sorted(done)
    assert all(e.bytes_done == SIZE for e in verifying(events))
    [fetched] = result.files
    assert fetched.sha256 == hashlib.sha256(data).hexdigest()
    assert fetched.verified_against == "hub sha256"
    assert fetched.resumed_from == 0
    assert fetched.fetched_bytes == SIZE
    assert final_path(models).read_bytes() == data
