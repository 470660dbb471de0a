"""Downloads through the real huggingface_hub client from a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.catalog import Variant, VariantFile
from desktop.core.download import (
    DiskFullError,
    DiskUsage,
    DownloadManager,
    DownloadOfflineError,
    DownloadProgress,
    DownloadRequest,
    DownloadResult,
    DownloadState,
    FileSpec,
    RetryPolicy,
    UnsafeNameError,
    download,
    installed_path,
    request_for_files,
    request_for_variant,
)
from desktop.core.download.progress import MIN_INTERVAL_S, ProgressTracker
from desktop.core.download.request import check_disk_space, required_margin
from desktop.core.hub import Hub
from tests.fixtures.hubserver import FakeHub, blob

REPO = "bartowski/Tiny-Model-GGUF"
FAST_RETRY = RetryPolicy(attempts=4, base_delay_s=0.05, max_delay_s=0.2)


def fetch(hub: FakeHub, models: Path, request: DownloadRequest, **kwargs: Any) -> DownloadResult:
    return download(
        request,
        models_dir=models,
        hub=hub.access(),
        retry=FAST_RETRY,
        **kwargs,
    )


def variant(repo: str, files: list[tuple[str, bytes, bool]], fmt: str = "gguf") -> Variant:
    """A catalog variant; each file is (name, content, give the catalog's sha256)."""
    return Variant(
        id=f"tiny:{fmt}",
        model_id="tiny",
        format=fmt,  # type: ignore[arg-type]
        quant="Q4_K_M" if fmt == "gguf" else "AWQ",
        repo=repo,
        files=tuple(
            VariantFile(
                name,
                len(data),
                hashlib.sha256(data).hexdigest() if with_sha else None,
                verified=with_sha,
            )
            for name, data, with_sha in files
        ),
    )


def test_clean_download_lands_in_owner_repo_layout(hub: FakeHub, models: Path) -> None:
    data = blob(1_500_000)
    hub.add_file(REPO, "tiny.Q4_K_M.gguf", data)
    hub.add_file(REPO, "README.md", b"# tiny\n")
    events: list[DownloadProgress] = []
    result = fetch(
        hub, models, request_for_files(REPO, ["tiny.Q4_K_M.gguf", "README.md"]),
        on_progress=events.append,
    )  # fmt: skip
    final = models / "bartowski" / "Tiny-Model-GGUF" / "tiny.Q4_K_M.gguf"
    assert result.path == final
    assert final.read_bytes() == data
    assert (final.parent / "README.md").read_bytes() == b"# tiny\n"
    by_name = {f.name: f for f in result.files}
    assert by_name["tiny.Q4_K_M.gguf"].verified_against == "hub sha256"
    assert by_name["tiny.Q4_K_M.gguf"].sha256 == hashlib.sha256(data).hexdigest()
    assert by_name["README.md"].verified_against == "hub git sha1"
    assert result.fetched_bytes == len(data) + 7
    assert result.commit == hub.repo(REPO).commit
    # Nothing half-done is left next to the models, and no partial remains.
    visible = sorted(p.name for p in final.parent.iterdir())
    assert visible == ["README.md", "tiny.Q4_K_M.gguf"]
    assert not list(models.rglob("*.part"))
    assert events[-1].state is DownloadState.DONE
    assert events[-1].bytes_done == events[-1].bytes_total == len(data) + 7
    assert events[-1].files_done == 2


def test_second_download_of_installed_files_needs_no_network(
    hub: FakeHub, models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub.add_file(REPO, "a.gguf", blob(10_000))
    fetch(hub, models, request_for_files(REPO, ["a.gguf"]))
    hub.clear_log()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    again = fetch(hub, models, request_for_files(REPO, ["a.gguf"]))
    assert again.files[0].skipped
    assert again.fetched_bytes == 0
    assert hub.requests == []


def test_catalog_sha256_is_what_the_file_is_checked_against(hub: FakeHub, models: Path) -> None:
    data = blob(50_000, seed=3)
    hub.add_file(REPO, "tiny.Q4_K_M.gguf", data)
    tiny = variant(REPO, [("tiny.Q4_K_M.gguf", data, True)])
    result = fetch(hub, models, request_for_variant(tiny))
    assert result.variant_id == "tiny:gguf"
    assert result.files[0].verified_against == "catalog sha256"
    assert installed_path(tiny, models) == result.path


def test_split_gguf_parts_all_arrive_and_install_together(hub: FakeHub, models: Path) -> None:
    names = [f"big/model-Q8_0-0000{i}-of-00003.gguf" for i in (1, 2, 3)]
    parts = [blob(300_000 + i, seed=i) for i in range(3)]
    for name, data in zip(names, parts, strict=True):
        hub.add_file(REPO, name, data)
    split = variant(REPO, [(n, d, False) for n, d in zip(names, parts, strict=True)])
    assert installed_path(split, models) is None
    events: list[DownloadProgress] = []
    result = fetch(hub, models, request_for_variant(split), on_progress=events.append)
    folder = models / "bartowski" / "Tiny-Model-GGUF" / "big"
    assert [f.path for f in result.files] == [folder / Path(n).name for n in names]
    for name, data in zip(names, parts, strict=True):
        assert (models / "bartowski" / "Tiny-Model-GGUF" / name).read_bytes() == data
    assert installed_path(split, models) == folder / Path(names[0]).name
    assert events[-1].bytes_total == sum(len(p) for p in parts)
    assert max(e.files_done for e in events) == 3
    # One part missing: the variant is not installed.
    (folder / Path(names[2]).name).unlink()
    assert installed_path(split, models) is None


def test_installed_path_without_records_trusts_only_verified_sizes(tmp_path: Path) -> None:
    data = blob(4096, seed=4)
    folder = tmp_path / "bartowski" / "Tiny-Model-GGUF"
    folder.mkdir(parents=True)
    (folder / "tiny.gguf").write_bytes(data)  # copied in by hand: no verification record
    verified = variant(REPO, [("tiny.gguf", data, True)])
    assert installed_path(verified, tmp_path) == folder / "tiny.gguf"
    estimated = variant(REPO, [("tiny.gguf", data, False)])  # size not checked on the Hub
    assert installed_path(estimated, tmp_path) is None
    (folder / "tiny.gguf").write_bytes(data[:-1])
    assert installed_path(verified, tmp_path) is None


def test_awq_file_set_installs_as_a_folder(hub: FakeHub, models: Path) -> None:
    files = [("config.json", b'{"a": 1}', False), ("model.safetensors", blob(40_000), True)]
    for name, data, _ in files:
        hub.add_file("Qwen/Tiny-AWQ", name, data)
    awq = variant("Qwen/Tiny-AWQ", files, fmt="awq")
    fetch(hub, models, request_for_variant(awq))
    assert installed_path(awq, models) == models / "Qwen" / "Tiny-AWQ"


@pytest.mark.parametrize(
    "name",
    ["../evil.gguf", "a/../../evil.gguf", "/etc/passwd", "C:/x.gguf", "a\\b.gguf", "a//b.gguf",
     "./a.gguf", ".downloads/a.gguf.part", "a\x00b", ""],
)  # fmt: skip
def test_path_escaping_file_names_are_refused(name: str) -> None:
    with pytest.raises(UnsafeNameError) as caught:
        request_for_files(REPO, [name])
    assert caught.value.kind == "download.unsafe_name"


@pytest.mark.parametrize("repo", ["../x", "a/b/c", "a/..", "", "a/.hidden", "a b/c"])
def test_unsafe_repo_ids_are_refused(repo: str) -> None:
    with pytest.raises(UnsafeNameError):
        request_for_files(repo, ["a.gguf"])


def test_catalog_names_are_checked_too() -> None:
    bad = variant(REPO, [("../../.bashrc", b"x", False)])
    with pytest.raises(UnsafeNameError):
        request_for_variant(bad)


def test_a_symlink_in_the_models_folder_cannot_lead_outside(tmp_path: Path) -> None:
    models = tmp_path / "models"
    outside = tmp_path / "outside"
    outside.mkdir()
    (models / "bartowski" / "Tiny-Model-GGUF").mkdir(parents=True)
    (models / "bartowski" / "Tiny-Model-GGUF" / "sub").symlink_to(outside)
    request = request_for_files(REPO, ["sub/x.gguf"])
    with pytest.raises(UnsafeNameError, match="outside"):
        request.plans(models)


def test_not_enough_disk_refuses_before_any_transfer(hub: FakeHub, models: Path) -> None:
    data = blob(2_000_000)
    hub.add_file(REPO, "tiny.gguf", data)
    seen: list[Path] = []

    def small_disk(path: Path) -> DiskUsage:
        seen.append(path)
        return DiskUsage(total=8 << 30, used=(8 << 30) - (600 << 20), free=600 << 20)

    with pytest.raises(DiskFullError) as caught:
        fetch(hub, models, request_for_files(REPO, ["tiny.gguf"]), disk_usage=small_disk)
    message = caught.value.message
    assert caught.value.kind == "download.disk_full"
    assert "1.0 GiB safety margin" in message
    assert "600.0 MiB are free" in message
    assert "1.9 MiB of files" in message
    assert seen  # the check ran through the injected function
    assert hub.content_gets(REPO, "tiny.gguf") == []
    assert not (models / "bartowski" / "Tiny-Model-GGUF" / "tiny.gguf").exists()


def test_disk_check_margin_and_numbers(tmp_path: Path) -> None:
    assert required_margin(1000) == 1 << 30
    assert required_margin(100 << 30) == 5 << 30

    def disk(free: int) -> Callable[[Path], DiskUsage]:
        return lambda _path: DiskUsage(free * 2, free, free)

    check_disk_space(tmp_path / "new" / "dir", 1 << 30, 1 << 30, disk((2 << 30) + 1))
    with pytest.raises(DiskFullError, match=r"needs 2\.0 GiB"):
        check_disk_space(tmp_path, 1 << 30, 1 << 30, disk((2 << 30) - 1))


def test_offline_mode_fails_at_once_without_any_request(
    hub: FakeHub, models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub.add_file(REPO, "tiny.gguf", blob(1000))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hub.access().offline == "offline mode is on (HF_HUB_OFFLINE=1)"
    began = time.monotonic()
    with pytest.raises(DownloadOfflineError) as caught:
        fetch(hub, models, request_for_files(REPO, ["tiny.gguf"]))
    assert time.monotonic() - began < 2
    assert caught.value.kind == "download.offline"
    assert "offline" in caught.value.message
    assert hub.requests == []


def test_no_network_says_downloads_are_unavailable_quickly(models: Path) -> None:
    hub = FakeHub()
    endpoint = hub.url
    hub.close()  # nothing listens there any more: connection refused, like no network
    began = time.monotonic()
    with pytest.raises(DownloadOfflineError, match="Cannot reach"):
        download(
            request_for_files(REPO, ["tiny.gguf"]),
            models_dir=models,
            hub=Hub.from_settings(endpoint=endpoint),
            retry=FAST_RETRY,
        )
    assert time.monotonic() - began < 5


def test_importing_the_module_touches_neither_network_nor_huggingface_hub() -> None:
    code = (
        "import sys, socket\n"
        "def refuse(*a, **k): raise AssertionError('network at import')\n"
        "socket.socket.connect = refuse\n"
        "import desktop.core.download, desktop.commands.download\n"
        "print(sorted(m for m in sys.modules if m.startswith(('huggingface_hub', 'httpx'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_progress_is_throttled_smoothed_and_final(hub: FakeHub, models: Path) -> None:
    data = blob(3 << 20, seed=7)
    hub.add_file(REPO, "tiny.gguf", data)
    hub.file(REPO, "tiny.gguf").rate_bps = 2 << 20  # ~1.5 s
    stamped: list[tuple[float, DownloadProgress]] = []
    fetch(
        hub, models, request_for_files(REPO, ["tiny.gguf"]),
        on_progress=lambda p: stamped.append((time.monotonic(), p)),
    )  # fmt: skip
    moving = [(t, p) for t, p in stamped if p.state is DownloadState.DOWNLOADING]
    assert len(moving) >= 4
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(moving)]
    assert min(gaps) >= MIN_INTERVAL_S - 0.02  # never more than 4 updates per second
    done = [p.bytes_done for _, p in moving]
    assert done == sorted(done)
    speeds = [p.speed_bps for _, p in moving[2:]]
    # The server sends 2 MiB/s; the smoothed speed stays near it (a loaded machine may lag).
    assert all((512 << 10) < s < (4 << 20) for s in speeds), speeds
    assert all(p.eta_s is not None and p.eta_s < 5 for _, p in moving[2:])
    last = stamped[-1][1]
    assert last.state is DownloadState.DONE
    assert last.bytes_done == len(data)


def test_tracker_emits_state_changes_and_final_even_when_throttled() -> None:
    now = [0.0]
    got: list[DownloadProgress] = []
    tracker = ProgressTracker("o/r", 1, got.append, clock=lambda: now[0])
    tracker.set_total(1000)
    tracker.set_state(DownloadState.DOWNLOADING)
    for _ in range(100):
        tracker.advance(5)
        now[0] += 0.01  # 100 chunks in 1 s
    tracker.finish(DownloadState.DONE)
    downloading = [p for p in got if p.state is DownloadState.DOWNLOADING]
    assert 3 <= len(downloading) <= 5
    assert got[-1].state is DownloadState.DONE
    assert got[-1].bytes_done == 500
    assert downloading[-1].speed_bps == pytest.approx(500, rel=0.05)


def test_queue_runs_at_most_max_parallel_jobs(hub: FakeHub, models: Path) -> None:
    for i in range(3):
        hub.add_file(REPO, f"m{i}.gguf", blob(400_000, seed=i))
        hub.file(REPO, f"m{i}.gguf").rate_bps = 1 << 20
    lock = threading.Lock()
    active: set[int] = set()
    most = [0]

    def watch(job_id: int) -> Callable[[DownloadProgress], None]:
        def on_progress(p: DownloadProgress) -> None:
            with lock:
                if p.state in (DownloadState.CHECKING, DownloadState.DOWNLOADING):
                    active.add(job_id)
                else:
                    active.discard(job_id)
                most[0] = max(most[0], len(active))

        return on_progress

    finished: list[int] = []
    with DownloadManager(models, hub.access(), max_parallel=2, retry=FAST_RETRY) as manager:
        jobs = [
            manager.submit(
                request_for_files(REPO, [f"m{i}.gguf"]),
                on_progress=watch(i),
                on_done=lambda job: finished.append(job.id),
            )
            for i in range(3)
        ]
        assert jobs[2].state is DownloadState.QUEUED
        results = [job.result(timeout=30) for job in jobs]
    assert most[0] == 2
    assert sorted(finished) == [j.id for j in jobs]
    assert all(r.files[0].path.is_file() for r in results)


def test_request_with_explicit_destination(hub: FakeHub, tmp_path: Path) -> None:
    hub.add_file(REPO, "x/tiny.gguf", blob(5000))
    dest = tmp_path / "elsewhere"
    request = DownloadRequest(REPO, (FileSpec("x/tiny.gguf"),), dest=dest)
    result = download(
        request,
        models_dir=tmp_path / "m",
        hub=hub.access(),
        retry=FAST_RETRY,
    )
    assert result.path == dest / "x" / "tiny.gguf"
    assert not (tmp_path / "m").exists()
    record = json.loads((dest / ".downloads" / "x" / "tiny.gguf.verified.json").read_text())
    assert record["verified_against"] == "hub sha256"


def test_the_workspace_gives_the_endpoint_and_folder_from_the_settings(
    hub: FakeHub, scout_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.core.settings import update_settings
    from desktop.core.workspace import Workspace

    hub.add_file(REPO, "tiny.gguf", blob(2000))
    update_settings(models_dir=str(scout_home / "my-models"), hub_endpoint=hub.url)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the setting wins over the env
    ws = Workspace.load()
    with DownloadManager(ws.models_dir, ws.hub()) as manager:
        assert manager.hub.endpoint == hub.url
        assert manager.models_dir == scout_home / "my-models"
        job = manager.submit(request_for_files(REPO, ["tiny.gguf"]))
        result = job.result(30)
    assert result.path == scout_home / "my-models" / "bartowski" / "Tiny-Model-GGUF" / "tiny.gguf"
    update_settings(hub_endpoint="hf-mirror")
    assert Workspace.load().hub().endpoint == "https://hf-mirror.com"
    assert Workspace.load().hub(endpoint=hub.url).endpoint == hub.url  # --endpoint wins
    assert os.environ["HF_ENDPOINT"] == "http://127.0.0.1:9"


def test_proxy_from_the_environment_is_used(models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    data = blob(20_000, seed=9)
    with FakeHub(cdn=False) as proxy:
        # The endpoint's name never resolves: only the proxy can answer for it.
        proxy.add_file(REPO, "tiny.gguf", data)
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "")
        huggingface_hub.close_session()  # the shared client reads the environment when made
        try:
            result = download(
                request_for_files(REPO, ["tiny.gguf"]),
                models_dir=models,
                hub=Hub.from_settings(endpoint="http://hub.invalid"),
                retry=FAST_RETRY,
            )
        finally:
            monkeypatch.delenv("HTTP_PROXY")
            monkeypatch.delenv("NO_PROXY")
            huggingface_hub.close_session()
        assert result.path.read_bytes() == data
        seen = proxy.requests
        assert seen
        assert all(r.proxied for r in seen)
