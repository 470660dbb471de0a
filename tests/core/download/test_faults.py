"""Downloads under faults: dropped connections, wrong bytes, Hub errors, slow servers, full disks.

Every test runs the real huggingface_hub client against the real fake Hub on 127.0.0.1.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.catalog import Variant, VariantFile
from desktop.core.download import (
    DiskFullError,
    DownloadBusyError,
    DownloadCancelledError,
    DownloadGatedError,
    DownloadJob,
    DownloadManager,
    DownloadNetworkError,
    DownloadNotFoundError,
    DownloadProgress,
    DownloadRequest,
    DownloadResult,
    DownloadState,
    RetryPolicy,
    VerifyFailedError,
    download,
    request_for_files,
    request_for_variant,
)
from desktop.core.download.fetch import CHUNK_SIZE
from tests.fixtures.hubserver import FakeHub, Fault, blob

REPO = "TheBloke/Tiny-GGUF"
FILE = "tiny.Q4_K_M.gguf"
FAST_RETRY = RetryPolicy(attempts=3, base_delay_s=0.05, max_delay_s=0.2)


def fetch(
    hub: FakeHub,
    models: Path,
    request: DownloadRequest,
    token: str | None = None,
    **kwargs: Any,
) -> DownloadResult:
    kwargs.setdefault("retry", FAST_RETRY)
    access = hub.access(token)
    return download(request, models_dir=models, hub=access, **kwargs)


def final_path(models: Path, repo: str = REPO, name: str = FILE) -> Path:
    return models.joinpath(*repo.split("/"), name)


def partial_path(models: Path, repo: str = REPO, name: str = FILE) -> Path:
    return models.joinpath(".downloads", *repo.split("/"), name + ".part")


def state_of(job: DownloadJob) -> DownloadState:
    return job.state


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.01)


# --- dropped connections ------------------------------------------------------------------------


def test_drops_at_several_offsets_resume_and_refetch_less_than_a_chunk_each(
    hub: FakeHub, models: Path
) -> None:
    data = blob(2_000_000)
    hub.add_file(REPO, FILE, data)
    drops = [150_000, 333_333, 500_000]
    hub.inject(REPO, FILE, *(Fault(drop_after=n) for n in drops))
    result = fetch(hub, models, request_for_files(REPO, [FILE]))
    assert final_path(models).read_bytes() == data
    gets = hub.content_gets(REPO, FILE)
    assert len(gets) == len(drops) + 1
    assert gets[0].range_start is None
    # Each resume asks for exactly the bytes that were written: whole chunks, so what is
    # fetched again after a drop is the unfinished chunk, less than CHUNK_SIZE.
    position = 0
    for dropped_get, sent in zip(gets, drops, strict=False):
        assert dropped_get.body_bytes == sent
        position += sent // CHUNK_SIZE * CHUNK_SIZE
    assert [g.range_start for g in gets[1:]] == [
        sum(d // CHUNK_SIZE * CHUNK_SIZE for d in drops[: i + 1]) for i in range(len(drops))
    ]
    refetched = hub.bytes_sent(REPO, FILE) - len(data)
    assert refetched == sum(d % CHUNK_SIZE for d in drops)
    assert refetched < len(drops) * CHUNK_SIZE
    assert result.files[0].fetched_bytes == len(data)


def test_connection_reset_mid_file_is_retried_by_the_app(hub: FakeHub, models: Path) -> None:
    data = blob(1_000_000, seed=1)
    hub.add_file(REPO, FILE, data)
    hub.inject(REPO, FILE, Fault(drop_after=400_000, drop_mode="reset"))
    events: list[DownloadProgress] = []
    fetch(hub, models, request_for_files(REPO, [FILE]), on_progress=events.append)
    assert final_path(models).read_bytes() == data
    gets = hub.content_gets(REPO, FILE)
    assert len(gets) == 2
    assert gets[1].range_start is not None
    assert 0 < gets[1].range_start <= 400_000 // CHUNK_SIZE * CHUNK_SIZE
    assert any(e.state is DownloadState.RETRYING for e in events)


def test_partial_left_by_an_earlier_run_is_resumed_not_restarted(
    hub: FakeHub, models: Path
) -> None:
    data = blob(900_000, seed=2)
    hub.add_file(REPO, FILE, data)
    # The first run gets half the file, then the server fails for good.
    hub.inject(REPO, FILE, Fault(drop_after=450_000), *(Fault(status=500) for _ in range(5)))
    with pytest.raises(DownloadNetworkError):
        fetch(hub, models, request_for_files(REPO, [FILE]))
    kept = partial_path(models).stat().st_size
    assert kept == 450_000 // CHUNK_SIZE * CHUNK_SIZE
    assert not final_path(models).exists()
    hub.file(REPO, FILE).faults.clear()
    hub.clear_log()
    result = fetch(hub, models, request_for_files(REPO, [FILE]))
    assert final_path(models).read_bytes() == data
    assert [g.range_start for g in hub.content_gets(REPO, FILE)] == [kept]
    assert result.files[0].resumed_from == kept
    assert result.files[0].fetched_bytes == len(data) - kept


def test_partial_of_an_older_version_is_thrown_away(hub: FakeHub, models: Path) -> None:
    old = blob(600_000, seed=3)
    new = blob(600_000, seed=4)
    hub.add_file(REPO, FILE, old)
    hub.inject(REPO, FILE, Fault(drop_after=300_000), *(Fault(status=503) for _ in range(5)))
    with pytest.raises(DownloadNetworkError):
        fetch(hub, models, request_for_files(REPO, [FILE]))
    assert partial_path(models).stat().st_size > 0
    hub.add_file(REPO, FILE, new)  # the publisher replaced the file
    hub.clear_log()
    fetch(hub, models, request_for_files(REPO, [FILE]))
    assert final_path(models).read_bytes() == new
    assert [g.range_start for g in hub.content_gets(REPO, FILE)] == [None]


# --- wrong bytes --------------------------------------------------------------------------------


def test_wrong_bytes_are_removed_and_reported(hub: FakeHub, models: Path) -> None:
    data = blob(700_000, seed=5)
    hub.add_file(REPO, FILE, data)
    hub.file(REPO, FILE).wrong_bytes = True
    with pytest.raises(VerifyFailedError) as caught:
        fetch(hub, models, request_for_files(REPO, [FILE]))
    assert caught.value.kind == "download.verify_failed"
    assert FILE in caught.value.message
    assert "removed" in caught.value.message
    # Which hash is whose: the bytes' own, against the one the Hub publishes.
    assert "do not match the sha256 the Hub publishes (got" in caught.value.message
    assert caught.value.message.endswith(".")
    assert not final_path(models).exists()
    assert not partial_path(models).exists()
    # A good server afterwards: a fresh, full download that verifies.
    hub.file(REPO, FILE).wrong_bytes = False
    hub.clear_log()
    fetch(hub, models, request_for_files(REPO, [FILE]))
    assert final_path(models).read_bytes() == data
    assert [g.range_start for g in hub.content_gets(REPO, FILE)] == [None]


def test_catalog_hash_differing_from_the_hub_stops_before_downloading(
    hub: FakeHub, models: Path
) -> None:
    hub.add_file(REPO, FILE, blob(100_000, seed=6))
    stale = Variant(
        id="tiny:Q4_K_M",
        model_id="tiny",
        format="gguf",
        quant="Q4_K_M",
        repo=REPO,
        files=(VariantFile(FILE, 100_000, "0" * 64, verified=True),),
    )
    with pytest.raises(VerifyFailedError, match="catalog refresh"):
        fetch(hub, models, request_for_variant(stale))
    assert hub.content_gets(REPO, FILE) == []


def test_plain_file_with_wrong_bytes_fails_its_git_hash(hub: FakeHub, models: Path) -> None:
    hub.add_file(REPO, "config.json", b'{"model_type": "llama"}' * 10)
    hub.file(REPO, "config.json").wrong_bytes = True
    with pytest.raises(VerifyFailedError, match="the git blob sha1 the Hub publishes"):
        fetch(hub, models, request_for_files(REPO, ["config.json"]))
    assert not final_path(models, name="config.json").exists()


# --- Hub errors ---------------------------------------------------------------------------------


def test_missing_file_repo_and_revision_are_not_found(hub: FakeHub, models: Path) -> None:
    hub.add_file(REPO, FILE, b"x" * 10)
    cases = [
        (request_for_files(REPO, ["nope.gguf"]), "has no file 'nope.gguf'"),
        (request_for_files("nobody/nothing", [FILE]), "repository nobody/nothing was not found"),
        (request_for_files(REPO, [FILE], revision="v9"), "no revision 'v9'"),
    ]
    for request, words in cases:
        with pytest.raises(DownloadNotFoundError) as caught:
            fetch(hub, models, request)
        assert caught.value.kind == "download.not_found"
        assert words in caught.value.message
    assert not any(r.method == "GET" for r in hub.requests)


def test_gated_repo_explains_the_licence_and_the_token(
    hub: FakeHub, models: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    repo = "meta-llama/Llama-3.2-1B-Instruct"
    secret = "hf_SeCrEtTokenThatMustNeverLeak"
    hub.add_repo(repo, gated=True, tokens=(secret,))
    hub.add_file(repo, FILE, blob(300_000, seed=7))

    with pytest.raises(DownloadGatedError) as anonymous:
        fetch(hub, models, request_for_files(repo, [FILE]))
    message = anonymous.value.message
    assert anonymous.value.kind == "download.gated"
    assert f"https://huggingface.co/{repo}" in message
    assert f"{hub.url}/{repo}" in message  # the mirror's page too
    assert "HF_TOKEN" in message
    assert "huggingface-cli login" in message

    with pytest.raises(DownloadGatedError) as refused:
        fetch(hub, models, request_for_files(repo, [FILE]), token="hf_wrongTokenValue123")
    assert "refused your token" in refused.value.message
    assert "hf_wrongTokenValue123" not in refused.value.message
    assert any(r.status == 403 for r in hub.requests)

    monkeypatch.setenv("HF_TOKEN", secret)
    fetch(hub, models, request_for_files(repo, [FILE]))
    assert final_path(models, repo).is_file()
    hub_auth = {r.authorization for r in hub.requests if r.server == "hub" and r.method == "HEAD"}
    assert f"Bearer {secret}" in hub_auth
    assert all(r.authorization is None for r in hub.requests if r.server == "cdn")
    assert secret not in caplog.text
    assert "hf_wrongTokenValue123" not in caplog.text


def test_server_error_then_success_is_retried(hub: FakeHub, models: Path) -> None:
    data = blob(400_000, seed=8)
    hub.add_file(REPO, FILE, data)
    hub.inject(REPO, FILE, Fault(on="head", status=500), Fault(on="get", status=503))
    events: list[DownloadProgress] = []
    fetch(hub, models, request_for_files(REPO, [FILE]), on_progress=events.append)
    assert final_path(models).read_bytes() == data
    statuses = [(r.method, r.status) for r in hub.requests if r.filename == FILE]
    assert ("HEAD", 500) in statuses
    assert ("GET", 503) in statuses
    retrying = [e for e in events if e.state is DownloadState.RETRYING]
    assert len(retrying) == 2
    assert "HTTP 500" in retrying[0].message
    assert events[-1].state is DownloadState.DONE


def test_an_expired_cdn_link_is_renewed_through_the_hub(hub: FakeHub, models: Path) -> None:
    data = blob(500_000, seed=15)
    hub.add_file(REPO, FILE, data)
    # The CDN refuses once (as a signed URL does once it expired), mid-way and at the start.
    hub.inject(REPO, FILE, Fault(drop_after=200_000, drop_mode="reset"), Fault(status=403))
    fetch(hub, models, request_for_files(REPO, [FILE]))
    assert final_path(models).read_bytes() == data
    heads = [r for r in hub.requests if r.method == "HEAD"]
    assert len(heads) >= 3  # a new HEAD after the reset and after the 403
    assert [r.status for r in hub.content_gets(REPO, FILE)] == [200, 403, 206]


def test_persistent_server_errors_give_up_with_a_network_error(hub: FakeHub, models: Path) -> None:
    hub.add_file(REPO, FILE, blob(1000))
    hub.inject(REPO, FILE, *(Fault(on="any", status=502) for _ in range(10)))
    began = time.monotonic()
    with pytest.raises(DownloadNetworkError) as caught:
        fetch(hub, models, request_for_files(REPO, [FILE]))
    assert caught.value.kind == "download.network"
    assert "after 3 attempts" in caught.value.message
    assert time.monotonic() - began < 5
    heads = [r for r in hub.requests if r.method == "HEAD"]
    assert len(heads) == 3


# --- slow server: cancel, pause, resume ---------------------------------------------------------


def test_slow_download_cancels_promptly_and_removes_the_partial(hub: FakeHub, models: Path) -> None:
    hub.add_file(REPO, FILE, blob(4 << 20, seed=9))
    hub.file(REPO, FILE).rate_bps = 512 << 10
    done: list[Any] = []
    with DownloadManager(models, hub.access(), 1, retry=FAST_RETRY) as manager:
        job = manager.submit(request_for_files(REPO, [FILE]), on_done=done.append)
        wait_for(lambda: job.progress.bytes_done >= 3 * CHUNK_SIZE)
        assert partial_path(models).exists()
        asked = time.monotonic()
        job.cancel()
        assert job.wait(5)
        assert time.monotonic() - asked < 1.5
    assert job.state is DownloadState.CANCELLED
    assert isinstance(job.error, DownloadCancelledError)
    assert job.error.kind == "download.cancelled"
    with pytest.raises(DownloadCancelledError):
        job.result()
    assert done == [job]
    assert not partial_path(models).exists()
    assert not final_path(models).exists()
    assert hub.bytes_sent(REPO, FILE) < 4 << 20


def test_pause_keeps_the_partial_and_resume_continues_from_it(hub: FakeHub, models: Path) -> None:
    data = blob(3 << 20, seed=10)
    hub.add_file(REPO, FILE, data)
    hub.file(REPO, FILE).rate_bps = 1 << 20
    states: list[DownloadState] = []
    with DownloadManager(models, hub.access(), 1, retry=FAST_RETRY) as manager:
        job = manager.submit(
            request_for_files(REPO, [FILE]), on_progress=lambda p: states.append(p.state)
        )
        wait_for(lambda: job.progress.bytes_done >= 5 * CHUNK_SIZE)
        job.pause()
        wait_for(lambda: job.state is DownloadState.PAUSED)
        assert not job.wait(0.2)  # paused is not finished
        kept = partial_path(models).stat().st_size
        assert kept >= 5 * CHUNK_SIZE
        assert job.progress.bytes_done == kept
        hub.file(REPO, FILE).rate_bps = None
        job.resume()
        result = job.result(timeout=30)
    assert final_path(models).read_bytes() == data
    gets = hub.content_gets(REPO, FILE)
    assert [g.range_start for g in gets] == [None, kept]
    assert result.files[0].resumed_from == kept
    assert result.files[0].fetched_bytes == len(data) - kept
    assert DownloadState.PAUSED in states
    assert states[-1] is DownloadState.DONE


def test_a_queued_job_can_be_paused_and_cancelled_before_it_starts(
    hub: FakeHub, models: Path
) -> None:
    hub.add_file(REPO, "a.gguf", blob(2 << 20, seed=11))
    hub.file(REPO, "a.gguf").rate_bps = 1 << 20
    hub.add_file(REPO, "b.gguf", blob(1000, seed=12))
    with DownloadManager(models, hub.access(), 1, retry=FAST_RETRY) as manager:
        first = manager.submit(request_for_files(REPO, ["a.gguf"]))
        second = manager.submit(request_for_files(REPO, ["b.gguf"]))
        assert state_of(second) is DownloadState.QUEUED
        second.pause()
        assert state_of(second) is DownloadState.PAUSED
        second.cancel()
        assert state_of(second) is DownloadState.CANCELLED
        assert second.wait(0)
        first.cancel()
        assert first.wait(5)
    assert hub.content_gets(REPO, "b.gguf") == []


def test_two_processes_never_write_the_same_partial(hub: FakeHub, models: Path) -> None:
    hub.add_file(REPO, FILE, blob(2 << 20, seed=13))
    hub.file(REPO, FILE).rate_bps = 2 << 20
    with (
        DownloadManager(models, hub.access(), 1, retry=FAST_RETRY) as one,
        DownloadManager(models, hub.access(), 1, retry=FAST_RETRY) as two,
    ):
        first = one.submit(request_for_files(REPO, [FILE]))
        wait_for(lambda: first.progress.bytes_done > 0)
        second = two.submit(request_for_files(REPO, [FILE]))
        assert second.wait(10)
        assert isinstance(second.error, DownloadBusyError)
        assert first.result(timeout=30).files[0].path.is_file()


# --- the disk -----------------------------------------------------------------------------------


def test_a_real_disk_full_error_keeps_the_partial_for_later(hub: FakeHub, models: Path) -> None:
    data = blob(300_000, seed=14)
    hub.add_file(REPO, FILE, data)
    partial = partial_path(models)
    partial.parent.mkdir(parents=True)
    # The partial is the kernel's always-full device: every write fails with ENOSPC.
    partial.symlink_to("/dev/full")
    meta = partial.with_name(partial.name + ".json")
    meta.write_text(json.dumps({"etag": hub.file(REPO, FILE).sha256}))
    with pytest.raises(DiskFullError) as caught:
        fetch(hub, models, request_for_files(REPO, [FILE]))
    assert caught.value.kind == "download.disk_full"
    assert "full" in caught.value.message
    assert partial.is_symlink()  # kept, not deleted
    assert not final_path(models).exists()
    partial.unlink()
    fetch(hub, models, request_for_files(REPO, [FILE]))
    assert final_path(models).read_bytes() == data
