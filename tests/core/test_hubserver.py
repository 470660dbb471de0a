"""The fake Hub answers huggingface_hub's real client the way the Hub does."""

from __future__ import annotations

import hashlib
import http.client
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hubserver import FakeHub, Fault, git_blob_sha1

REPO = "fake-org/Tiny-GGUF"
GGUF = bytes(range(256)) * 4096  # 1 MiB
README = b"# Tiny\n"


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub() as server:
        server.add_file(REPO, "tiny.Q4_0.gguf", GGUF)
        server.add_file(REPO, "README.md", README)
        server.add_file(REPO, "sub/dir/part.gguf", b"x" * 100)
        yield server


def _get(
    url: str, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        try:
            body = response.read()
        except http.client.IncompleteRead as exc:
            body = exc.partial
        return response.status, dict(response.getheaders()), body
    finally:
        conn.close()


def test_hf_hub_download_gets_lfs_and_plain_files(hub: FakeHub, tmp_path: Path) -> None:
    from huggingface_hub import hf_hub_download

    for name, data in (("tiny.Q4_0.gguf", GGUF), ("README.md", README)):
        path = hf_hub_download(
            REPO, name, endpoint=hub.url, cache_dir=tmp_path / "cache", token=False
        )
        assert Path(path).read_bytes() == data
    heads = [r for r in hub.requests if r.method == "HEAD"]
    assert {r.filename for r in heads} == {"tiny.Q4_0.gguf", "README.md"}
    lfs_get = hub.content_gets(REPO, "tiny.Q4_0.gguf")
    assert [r.server for r in lfs_get] == ["cdn"]
    assert lfs_get[0].body_bytes == len(GGUF)


def test_file_metadata_matches_the_hub_headers(hub: FakeHub) -> None:
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    lfs = get_hf_file_metadata(hf_hub_url(REPO, "tiny.Q4_0.gguf", endpoint=hub.url), token=False)
    assert lfs.etag == hashlib.sha256(GGUF).hexdigest()
    assert lfs.size == len(GGUF)
    assert lfs.commit_hash == hub.repo(REPO).commit
    assert lfs.location.startswith(hub.cdn_url)
    plain = get_hf_file_metadata(hf_hub_url(REPO, "README.md", endpoint=hub.url), token=False)
    assert plain.etag == git_blob_sha1(README)
    assert plain.size == len(README)


def test_api_routes_parse_with_hfapi(hub: FakeHub) -> None:
    from huggingface_hub import HfApi
    from huggingface_hub.hf_api import RepoFile

    api = HfApi(endpoint=hub.url, token=False)
    info = api.model_info(REPO, files_metadata=True)
    siblings = {s.rfilename: s for s in info.siblings or []}
    assert set(siblings) == {"tiny.Q4_0.gguf", "README.md", "sub/dir/part.gguf"}
    lfs = siblings["tiny.Q4_0.gguf"].lfs
    assert lfs is not None
    assert lfs.sha256 == hashlib.sha256(GGUF).hexdigest()
    assert siblings["README.md"].lfs is None
    assert siblings["README.md"].size == len(README)

    top = {e.path for e in api.list_repo_tree(REPO)}
    assert top == {"README.md", "tiny.Q4_0.gguf", "sub"}
    deep = {e.path for e in api.list_repo_tree(REPO, recursive=True)}
    assert "sub/dir/part.gguf" in deep

    infos = api.get_paths_info(REPO, ["tiny.Q4_0.gguf", "missing.bin"])
    assert [i.path for i in infos] == ["tiny.Q4_0.gguf"]
    assert isinstance(infos[0], RepoFile)
    assert infos[0].size == len(GGUF)


def test_hub_errors_map_to_huggingface_hub_exceptions(hub: FakeHub, tmp_path: Path) -> None:
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import (
        GatedRepoError,
        RemoteEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    hub.add_repo("meta-llama/Gated", gated=True, tokens=("hf_good",))
    hub.add_file("meta-llama/Gated", "w.gguf", b"secret")
    cache = tmp_path / "cache"
    with pytest.raises(RemoteEntryNotFoundError):
        hf_hub_download(REPO, "nope.gguf", endpoint=hub.url, cache_dir=cache, token=False)
    with pytest.raises(RevisionNotFoundError):
        hf_hub_download(
            REPO, "README.md", revision="v9", endpoint=hub.url, cache_dir=cache, token=False
        )
    with pytest.raises(RepositoryNotFoundError) as missing:
        hf_hub_download("no/such", "a.gguf", endpoint=hub.url, cache_dir=cache, token=False)
    assert not isinstance(missing.value, GatedRepoError)
    with pytest.raises(GatedRepoError) as anonymous:
        hf_hub_download(
            "meta-llama/Gated", "w.gguf", endpoint=hub.url, cache_dir=cache, token=False
        )
    assert anonymous.value.response.status_code == 401
    with pytest.raises(GatedRepoError) as refused:
        hf_hub_download(
            "meta-llama/Gated", "w.gguf", endpoint=hub.url, cache_dir=cache, token="hf_other"
        )
    assert refused.value.response.status_code == 403
    path = hf_hub_download(
        "meta-llama/Gated", "w.gguf", endpoint=hub.url, cache_dir=cache, token="hf_good"
    )
    assert Path(path).read_bytes() == b"secret"
    # The token reached the Hub but not the CDN (the client drops it on the redirect).
    assert any(r.authorization == "Bearer hf_good" and r.server == "hub" for r in hub.requests)
    assert all(r.authorization is None for r in hub.requests if r.server == "cdn")


def test_ranges_faults_and_request_log(hub: FakeHub) -> None:
    hub.use_cdn = False
    target = f"/{REPO}/resolve/main/tiny.Q4_0.gguf"
    status, headers, body = _get(hub.url, target, {"Range": "bytes=1000-1999"})
    assert status == 206
    assert headers["Content-Range"] == f"bytes 1000-1999/{len(GGUF)}"
    assert body == GGUF[1000:2000]
    status, _, body = _get(hub.url, target, {"Range": "bytes=-10"})
    assert (status, body) == (206, GGUF[-10:])
    status, headers, _ = _get(hub.url, target, {"Range": f"bytes={len(GGUF)}-"})
    assert status == 416
    assert headers["Content-Range"] == f"bytes */{len(GGUF)}"

    hub.inject(REPO, "tiny.Q4_0.gguf", Fault(drop_after=5000), Fault(status=503))
    status, headers, body = _get(hub.url, target)
    assert status == 200
    assert headers["Content-Length"] == str(len(GGUF))
    assert body == GGUF[:5000]
    assert _get(hub.url, target)[0] == 503
    hub.file(REPO, "tiny.Q4_0.gguf").wrong_bytes = True
    status, _, body = _get(hub.url, target)
    assert status == 200
    assert len(body) == len(GGUF)
    assert body != GGUF

    gets = hub.content_gets(REPO, "tiny.Q4_0.gguf")
    assert [g.range_start for g in gets[:2]] == [1000, len(GGUF) - 10]
    assert [g.status for g in gets] == [206, 206, 416, 200, 503, 200]
    assert gets[3].body_bytes == 5000


def test_slow_file_is_served_at_about_its_rate(hub: FakeHub) -> None:
    import time

    hub.use_cdn = False
    hub.file(REPO, "tiny.Q4_0.gguf").rate_bps = 2 << 20  # 2 MiB/s -> 1 MiB in ~0.5 s
    began = time.monotonic()
    status, _, body = _get(hub.url, f"/{REPO}/resolve/main/tiny.Q4_0.gguf")
    elapsed = time.monotonic() - began
    assert status == 200
    assert body == GGUF
    assert 0.4 < elapsed < 5


def test_serves_large_files_from_disk(tmp_path: Path) -> None:
    source = tmp_path / "big.gguf"
    data = bytes(reversed(range(256))) * 8192
    source.write_bytes(data)
    with FakeHub(cdn=False) as hub:
        hub.add_file("o/big", "big.gguf", source=source)
        status, _, body = _get(hub.url, "/o/big/resolve/main/big.gguf")
        assert status == 200
        assert body == data
        status, _, body = _get(hub.url, "/o/big/resolve/main/big.gguf", {"Range": "bytes=7-"})
        assert (status, body) == (206, data[7:])
        assert hub.file("o/big", "big.gguf").sha256 == hashlib.sha256(data).hexdigest()
