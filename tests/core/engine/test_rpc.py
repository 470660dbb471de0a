"""llama.cpp's RPC backend: the Load field, and what this (RPC-less) build says when asked.

The real split over two servers needs a GGML_RPC=ON build: tests/rpc (`make rpc-check`).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from desktop import cli
from desktop.core.engine import EngineClient, LoadSettings, WorkerError, rpc
from desktop.core.engine import protocol as p
from desktop.core.errors import EngineError, UsageError

NO_RPC = "This llama.cpp build has no RPC backend; build it with CMAKE_ARGS="


def test_load_carries_rpc_servers_and_old_lines_still_decode() -> None:
    load = p.Load(id="l1", path="m.gguf", n_gpu_layers=-1, rpc_servers=("10.0.0.2:50052", "b:1"))
    line = p.encode(load)
    assert json.loads(line)["rpc_servers"] == ["10.0.0.2:50052", "b:1"]
    assert p.decode(line) == load
    # A load line from before the field (protocol 4) decodes with no RPC servers.
    old = b'{"type":"load","id":"l2","path":"m.gguf","n_ctx":512,"cache_type":"f16"}'
    decoded = p.decode(old)
    assert isinstance(decoded, p.Load)
    assert decoded.rpc_servers == ()
    # The field is checked like every other one.
    bad = json.dumps({"type": "load", "id": "l3", "path": "m.gguf", "rpc_servers": "a:1"})
    with pytest.raises(p.ProtocolError, match="rpc_servers"):
        p.decode(bad)
    with pytest.raises(p.ProtocolError):
        p.decode(json.dumps({"type": "load", "id": "l4", "path": "m", "rpc_servers": [1]}))
    assert p.PROTOCOL_VERSION >= 5


def test_load_settings_check_the_endpoints() -> None:
    assert LoadSettings(rpc_servers=("127.0.0.1:50052",)).rpc_servers == ("127.0.0.1:50052",)
    for bad in ("127.0.0.1", "host:0", "host:99999", ":1"):
        with pytest.raises(UsageError, match="HOST:PORT"):
            LoadSettings(rpc_servers=(bad,))


def test_this_build_has_no_rpc_backend_and_says_how_to_get_one() -> None:
    """The real lookup in llama_cpp's libraries: no mocks."""
    ggml = rpc.Ggml.from_llama_cpp()
    names = [Path(str(lib._name)).name for lib in ggml.libraries]
    assert "libggml.so.0" in names  # the copy libllama loaded, not libggml.so
    assert "libggml.so" not in names
    assert ggml.supports_rpc() is False
    assert rpc.supports_rpc(ggml) is False
    assert ggml.dev_count() >= 1  # the CPU device, seen through the same registry
    with pytest.raises(EngineError, match="no RPC backend") as caught:
        rpc.add_servers(["127.0.0.1:50052"], ggml=ggml)
    assert str(caught.value).startswith(NO_RPC)
    assert "-DGGML_RPC=ON" in str(caught.value)
    with pytest.raises(EngineError, match="no RPC backend"):
        rpc.serve("127.0.0.1", 50052, ggml=ggml)
    assert rpc.add_servers([], ggml=ggml) == ()


def test_library_choice_prefers_what_libllama_loads(tmp_path: Path) -> None:
    for name in (
        "libggml.so",
        "libggml.so.0",
        "libggml.so.0.25.3",
        "libggml-base.so",
        "libggml-base.so.0",
        "libggml-rpc.so",
        "libllama.so",
        "ggml-cpu.dll",
    ):
        (tmp_path / name).write_bytes(b"")
    chosen = [path.name for path in rpc.ggml_library_paths(tmp_path)]
    assert chosen == ["ggml-cpu.dll", "libggml-base.so.0", "libggml-rpc.so", "libggml.so.0"]


def test_an_endpoint_nobody_listens_on_is_refused_before_ggml_sees_it() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(EngineError, match=f"127.0.0.1:{port} cannot be reached"):
        rpc.check_reachable(f"127.0.0.1:{port}", timeout=2.0)
    with pytest.raises(EngineError, match="HOST:PORT"):
        rpc.split_endpoint("no-port")
    assert rpc.split_endpoint("[::1]:50052") == ("::1", 50052)


def test_the_worker_refuses_an_rpc_load_in_this_build(smollm2_path: Path) -> None:
    client = EngineClient()
    client.start()
    try:
        request = client.submit(
            p.Load(id="r1", path=str(smollm2_path), n_gpu_layers=-1, rpc_servers=("a:1",))
        )
        with pytest.raises(WorkerError) as caught:
            request.result(120)
        assert caught.value.kind == "engine.load_failed"
        assert "no RPC backend" in str(caught.value)
        # The worker lives on and loads without RPC servers.
        loaded = client.load_model(smollm2_path, timeout=120, n_ctx=256)
        assert loaded.n_layer == 30
    finally:
        client.close()


def test_rpc_server_command_fails_clearly_in_this_build(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["rpc-server", "--port", "50999"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("llm-scout: " + NO_RPC)


def test_run_with_rpc_needs_layers_to_send(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["run", "smollm2", "--prompt", "hi", "--rpc", "127.0.0.1:50052"])
    assert code == 2
    assert "--ngl -1" in capsys.readouterr().err
