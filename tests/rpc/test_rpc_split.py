"""The demo model split over two real RPC servers on 127.0.0.1 gives the local run's greedy text.

Needs llama-cpp-python built with GGML_RPC=ON, which the default build is not: `make rpc-check`
builds it in its own virtualenv and runs this directory with ``LLM_SCOUT_RPC_PYTHON`` pointing
at that virtualenv's python (the servers and the workers run there; the test runs here).
`make test` does not collect this directory (``--ignore=tests/rpc`` in pyproject.toml).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from desktop.core.engine import EngineClient, LoadSettings, Session, WorkerError
from desktop.core.engine import protocol as p

ROOT = Path(__file__).resolve().parents[2]
GREEDY = p.SamplingParams(temperature=0.0, seed=42, max_tokens=32)
SERVER_ARGS = ("--host", "127.0.0.1", "--threads", "1", "--port")
QUESTION = (p.ChatMessage("user", "Name three colours of the rainbow."),)


@pytest.fixture(scope="module")
def rpc_python() -> str:
    python = os.environ.get("LLM_SCOUT_RPC_PYTHON", "")
    if not python or not os.access(python, os.X_OK):
        pytest.fail(
            "LLM_SCOUT_RPC_PYTHON must name the python of a virtualenv whose llama-cpp-python "
            "was built with GGML_RPC=ON (`make rpc-check` makes one)."
        )
    return python


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"The RPC server on port {port} exited with {proc.returncode}.")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"The RPC server on port {port} did not listen within {timeout} s.")


@pytest.fixture(scope="module")
def servers(rpc_python: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, int]]:
    """Two RPC servers served from Python (desktop.core.engine.rpc), one thread each."""
    logs = tmp_path_factory.mktemp("rpc")
    procs: list[subprocess.Popen[bytes]] = []
    endpoints: dict[str, int] = {}  # endpoint -> the server's pid
    try:
        for index in range(2):
            port = _free_port()
            with (logs / f"server{index}.log").open("wb") as log:
                proc = subprocess.Popen(
                    [rpc_python, "-m", "desktop.core.engine.rpc", *SERVER_ARGS, str(port)],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env=_env(),
                )
            procs.append(proc)
            _wait_listening(port, proc)
            endpoints[f"127.0.0.1:{port}"] = proc.pid
        yield endpoints
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _answer(
    rpc_python: str,
    path: Path,
    load: LoadSettings,
    while_loaded: Callable[[], None] = lambda: None,
) -> tuple[str, p.Loaded, str]:
    """(greedy answer, loaded event, the worker's log) from a worker in the RPC build;
    ``while_loaded`` runs after the answer, with the model still loaded."""
    logs: list[str] = []

    def on_event(event: p.Event) -> None:
        if isinstance(event, p.Log):
            logs.append(event.message)

    client = EngineClient(command=[rpc_python, "-m", "desktop.core.engine.worker"], env=_env())
    client._on_event = on_event
    with Session(path, load, client=client) as session:
        loaded = session.open(timeout=300)
        request = session.generate(messages=QUESTION, params=GREEDY)
        pieces: list[str] = []
        done = session.stream(request, pieces.append)
        assert done.generated_tokens > 0
        while_loaded()
        log = client.stderr_tail(lines=400, max_chars=200_000) + "\n" + "\n".join(logs)
        return "".join(pieces), loaded, log


def test_the_demo_model_split_over_two_servers_answers_like_a_local_run(
    rpc_python: str, servers: dict[str, int], smollm2_path: Path
) -> None:
    local, local_loaded, _ = _answer(rpc_python, smollm2_path, LoadSettings(n_ctx=512))
    idle = {endpoint: psutil.Process(pid).memory_info().rss for endpoint, pid in servers.items()}
    loaded_rss: dict[str, int] = {}

    def measure() -> None:
        for endpoint, pid in servers.items():
            loaded_rss[endpoint] = psutil.Process(pid).memory_info().rss

    split, loaded, log = _answer(
        rpc_python,
        smollm2_path,
        LoadSettings(n_ctx=512, n_gpu_layers=-1, rpc_servers=tuple(servers)),
        measure,
    )
    assert local_loaded.n_gpu_layers == 0
    assert loaded.n_gpu_layers == -1
    # Both servers were registered, and both hold a share of the 92 MiB of weights and the
    # KV cache: each server's memory grew while the model was loaded.
    first, second = servers
    assert f"RPC devices: RPC0 at {first} " in log
    assert f"RPC1 at {second} " in log
    for endpoint in servers:
        assert loaded_rss[endpoint] - idle[endpoint] > 30 * 1024 * 1024, (endpoint, log[-2000:])
    assert len(split) > 20
    assert split == local


def test_an_unreachable_server_fails_the_load_clearly(rpc_python: str, smollm2_path: Path) -> None:
    port = _free_port()  # nothing listens there
    with pytest.raises(WorkerError) as caught:
        _answer(
            rpc_python,
            smollm2_path,
            LoadSettings(n_ctx=512, n_gpu_layers=-1, rpc_servers=(f"127.0.0.1:{port}",)),
        )
    assert caught.value.kind == "engine.load_failed"
    assert f"The RPC server at 127.0.0.1:{port} cannot be reached" in str(caught.value)


def test_the_rpc_build_serves_and_refuses_a_busy_port(
    rpc_python: str, servers: dict[str, int]
) -> None:
    port = next(iter(servers)).rsplit(":", 1)[1]
    result = subprocess.run(
        [rpc_python, "-m", "desktop.core.engine.rpc", "--host", "127.0.0.1", "--port", port],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert f"Cannot listen on 127.0.0.1:{port}" in result.stderr
    probe = subprocess.run(
        [rpc_python, "-c", "from desktop.core.engine import rpc; print(rpc.supports_rpc())"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=True,
    )
    assert probe.stdout.strip() == "True", sys.executable
