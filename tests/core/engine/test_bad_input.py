"""Bad input to the engine: each case gives one clear error event and leaves the client usable.

Real workers, real llama.cpp, real broken files (``tests/fixtures/tiny_models.py`` plus a GGUF of
an architecture llama.cpp does not know, written here). Running out of memory is real too: the
worker's address space is capped. Only the "worker that writes garbage" is a stand-in script,
since the real worker cannot be made to do that. After every test no child process is left,
running or defunct.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import gguf
import numpy as np
import psutil
import pytest

from desktop.core.engine import EngineClient, Request, WorkerError, worker_command
from desktop.core.engine import protocol as p
from desktop.core.errors import EngineError
from tests.fixtures.tiny_models import write_broken_files, write_tiny_model

pytestmark = [pytest.mark.e2e]

TIMEOUT = 180.0


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    children = psutil.Process().children(recursive=True)
    assert not children, f"processes left behind: {children}"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_model(tmp_path_factory.mktemp("tiny") / "tiny.gguf")


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory: pytest.TempPathFactory, smollm2_path: Path) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bad")
    files = write_broken_files(root / "broken")
    files["missing"] = root / "missing.gguf"
    files["directory"] = root / "a-folder.gguf"
    files["directory"].mkdir()
    files["text"] = root / "notes.gguf"
    files["text"].write_text("hello world, not a model\n" * 10)
    data = smollm2_path.read_bytes()
    files["half_of_smollm2"] = root / "half.gguf"
    files["half_of_smollm2"].write_bytes(data[: len(data) // 2])
    unknown = root / "notarealarch.gguf"
    writer = gguf.GGUFWriter(str(unknown), "notarealarch")
    writer.add_block_count(1)
    writer.add_tensor("token_embd.weight", np.zeros((8, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    files["notarealarch"] = unknown
    return files


class Recorder:
    """Every event a client delivers, through its callback."""

    def __init__(self) -> None:
        self.events: list[p.Event] = []

    def __call__(self, event: p.Event) -> None:
        self.events.append(event)

    def errors(self) -> list[p.Error]:
        return [e for e in self.events if isinstance(e, p.Error)]


def _client(**options: object) -> tuple[EngineClient, Recorder]:
    recorder = Recorder()
    client = EngineClient(on_event=recorder, **options)  # type: ignore[arg-type]
    return client, recorder


@contextlib.contextmanager
def _running_client(**options: object) -> Iterator[tuple[EngineClient, Recorder]]:
    """A started client with its recorder, closed at the end of the block."""
    client, recorder = _client(**options)
    client.start()
    try:
        yield client, recorder
    finally:
        client.close()


def _long_answer(client: EngineClient, model: Path, *, after_tokens: int) -> Request:
    """Load ``model`` and start a 400-token answer; return once ``after_tokens`` have come."""
    client.load_model(model, n_ctx=512, timeout=TIMEOUT)
    request = client.generate(
        prompt="Once upon a time", params=p.SamplingParams(max_tokens=400, ignore_eos=True)
    )
    deadline = time.perf_counter() + TIMEOUT
    while request.meter.generated_tokens < after_tokens and time.perf_counter() < deadline:
        time.sleep(0.01)
    return request


def _assert_usable(client: EngineClient, tiny: Path) -> None:
    if not client.alive:
        client.start()
    client.load_model(tiny, n_ctx=128, timeout=TIMEOUT)
    request = client.generate(
        prompt="hello", params=p.SamplingParams(max_tokens=3, ignore_eos=True)
    )
    done = request.wait(TIMEOUT)
    assert isinstance(done, p.Done)
    assert done.generated_tokens == 3


# --------------------------------------------------------------------------- bad files


@pytest.mark.parametrize(
    ("case", "kind", "words"),
    [
        ("missing", "not_found", "does not exist"),
        ("directory", "not_a_file", "is a folder"),
        ("text", "not_gguf", "is not a GGUF model file"),
        ("bad_magic", "not_gguf", "is not a GGUF model file"),
        ("empty", "truncated", "incomplete"),
        ("truncated_kv", "truncated", "incomplete"),
        ("truncated_tensor_info", "truncated", "incomplete"),
        ("truncated_tensor_data", "truncated", "incomplete"),
        ("half_of_smollm2", "truncated", "incomplete"),
        ("notarealarch", "unknown_architecture", "'notarealarch'"),
    ],
)
def test_a_bad_model_file_gives_one_clear_error(
    case: str, kind: str, words: str, bad_files: dict[str, Path], tiny: Path
) -> None:
    with _running_client() as (client, recorder):
        request = client.load(bad_files[case], n_ctx=256)
        error = request.wait(TIMEOUT)
        assert isinstance(error, p.Error)
        assert (error.kind, error.id) == (kind, request.id)
        assert words in error.message
        assert "\n" not in error.message
        assert "Traceback" not in error.message
        assert recorder.errors() == [error]
        with pytest.raises(WorkerError) as caught:
            request.result()
        assert caught.value.kind == f"engine.{kind}"
        _assert_usable(client, tiny)
    assert client.returncode == 0


def test_a_load_that_cannot_get_memory_is_out_of_memory(smollm2_path: Path, tiny: Path) -> None:
    # A real allocation failure: the worker's address space is capped 16 MiB above its size
    # at start, so mapping the 98 MB model fails inside llama.cpp.
    headroom = ["--address-space-headroom", str(16 << 20)]
    with _running_client(worker_args=headroom) as (client, recorder):
        error = client.load(smollm2_path, n_ctx=512).wait(TIMEOUT)
        assert isinstance(error, p.Error)
        assert error.kind == "out_of_memory"
        assert "not enough memory" in error.message
        assert error.detail  # llama.cpp's own words, for the details pane
        assert recorder.errors() == [error]
        # The worker lives on and answers.
        after = client.generate(prompt="x", params=p.SamplingParams(max_tokens=1)).wait(TIMEOUT)
        assert isinstance(after, p.Error)
        assert after.kind == "not_loaded"
    assert client.returncode == 0
    fresh, _ = _client()
    try:
        _assert_usable(fresh, tiny)
    finally:
        fresh.close()


# --------------------------------------------------------------------------- dying workers


def test_a_worker_killed_mid_answer_is_one_crashed_error_and_the_text_is_kept(
    smollm2_path: Path, tiny: Path
) -> None:
    with _running_client() as (client, recorder):
        request = _long_answer(client, smollm2_path, after_tokens=5)
        pid = client.pid
        assert pid is not None
        client.kill()
        error = request.wait(TIMEOUT)
        assert isinstance(error, p.Error)
        assert error.kind == "crashed"
        assert "SIGKILL" in error.message
        # The end of the worker's stderr (llama.cpp's log), without its debug dumps.
        log = client.stderr_tail(400, 200_000)
        assert error.detail.strip()
        assert error.detail.splitlines()[-1] == log.strip().splitlines()[-1]
        assert "llama_graph_n_input_tensors" not in error.detail
        streamed = "".join(e.text for e in recorder.events if isinstance(e, p.Tokens))
        assert request.text
        assert request.text == streamed  # what was shown stays
        assert [e for e in recorder.errors() if e.id == request.id] == [error]
        assert len(recorder.errors()) == 1
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() != "zombie"
        assert client.returncode == -9
        # A new worker starts at once.
        _assert_usable(client, tiny)


def test_a_worker_that_dies_while_idle_reports_crashed_once(tiny: Path) -> None:
    with _running_client() as (client, recorder):
        client.kill()
        deadline = time.perf_counter() + 10
        while not recorder.errors() and time.perf_counter() < deadline:
            time.sleep(0.01)
        assert [(e.id, e.kind) for e in recorder.errors()] == [(None, "crashed")]
        with pytest.raises(EngineError, match="not running"):
            client.generate(prompt="x")
        _assert_usable(client, tiny)


GARBAGE_AFTER_READY = textwrap.dedent(
    """
    import os, sys
    from desktop.core.engine import protocol as p
    ready = p.Ready(protocol_version={version}, pid=os.getpid(), llama_cpp_version="fake",
                    gpu_offload=False, physical_cores=1)
    sys.stdout.buffer.write(p.encode(ready)); sys.stdout.flush()
    sys.stdin.buffer.readline()
    sys.stdout.write("llama.cpp says hello on stdout\\n"); sys.stdout.flush()
    sys.stdin.buffer.read()
    """
)


def test_a_worker_that_writes_garbage_is_stopped_with_one_protocol_error(tiny: Path) -> None:
    script = GARBAGE_AFTER_READY.format(version=p.PROTOCOL_VERSION)
    with _running_client(command=[sys.executable, "-c", script]) as (client, recorder):
        request = client.load(tiny, n_ctx=128)
        error = request.wait(TIMEOUT)
        assert isinstance(error, p.Error)
        assert error.kind == "protocol"
        assert "llama.cpp says hello on stdout" in error.message
        assert recorder.errors() == [error]
        assert not client.alive  # a worker that breaks the protocol is not trusted again
        client.command = worker_command()
        _assert_usable(client, tiny)


def test_garbage_before_ready_fails_the_start(tiny: Path) -> None:
    client, _ = _client(
        command=[sys.executable, "-c", "print('hello'); import time; time.sleep(60)"]
    )
    with pytest.raises(EngineError) as caught:
        client.start(timeout=TIMEOUT)
    assert caught.value.kind == "engine.protocol"
    assert "'hello'" in str(caught.value)
    assert not client.alive


def test_a_worker_of_another_protocol_version_is_refused() -> None:
    script = GARBAGE_AFTER_READY.format(version=p.PROTOCOL_VERSION + 1)
    client, _ = _client(command=[sys.executable, "-c", script])
    with pytest.raises(EngineError) as caught:
        client.start(timeout=TIMEOUT)
    assert caught.value.kind == "engine.protocol"
    assert f"needs version {p.PROTOCOL_VERSION}" in str(caught.value)
    assert not client.alive


def test_a_worker_that_exits_before_ready_fails_the_start_with_its_words() -> None:
    script = "import sys; sys.stderr.write('cannot start: missing library\\n'); sys.exit(3)"
    client, _ = _client(command=[sys.executable, "-c", script])
    with pytest.raises(EngineError) as caught:
        client.start(timeout=TIMEOUT)
    assert caught.value.kind == "engine.crashed"
    assert "exit status 3" in str(caught.value)
    assert isinstance(caught.value, WorkerError)
    assert "missing library" in caught.value.detail


def test_a_worker_that_cannot_be_spawned_is_spawn_failed() -> None:
    client, _ = _client(command=["/nonexistent/llm-scout-worker"])
    with pytest.raises(EngineError) as caught:
        client.start()
    assert caught.value.kind == "engine.spawn_failed"


# --------------------------------------------------------------------------- cancel, shutdown


def test_cancel_during_load(gemma3_path: Path, tiny: Path) -> None:
    with _running_client() as (client, recorder):
        request = client.load(gemma3_path, n_ctx=512)
        client.cancel(request.id)
        error = request.wait(TIMEOUT)
        assert isinstance(error, p.Error)
        assert error.kind == "cancelled"
        assert recorder.errors() == [error]
        not_loaded = client.generate(prompt="x").wait(TIMEOUT)
        assert isinstance(not_loaded, p.Error)
        assert not_loaded.kind == "not_loaded"
        _assert_usable(client, tiny)


def test_two_cancels_end_the_request_once(smollm2_path: Path) -> None:
    with _running_client() as (client, recorder):
        request = _long_answer(client, smollm2_path, after_tokens=2)
        client.cancel(request.id)
        client.cancel(request.id)
        done = request.wait(TIMEOUT)
        assert isinstance(done, p.Done)
        assert done.finish_reason == "cancelled"
        client.cancel(request.id)  # long finished: ignored
        after = client.generate(prompt="Hi", params=p.SamplingParams(max_tokens=2, ignore_eos=True))
        assert isinstance(after.wait(TIMEOUT), p.Done)
        finals = [
            e for e in recorder.events if isinstance(e, p.Done | p.Error) and e.id == request.id
        ]
        assert finals == [done]
        assert recorder.errors() == []


def test_shutdown_while_generating_ends_the_answer_and_the_process(smollm2_path: Path) -> None:
    client, recorder = _client()
    client.start()
    request = _long_answer(client, smollm2_path, after_tokens=2)
    started = time.perf_counter()
    client.close()
    assert time.perf_counter() - started < 5.0
    assert client.returncode == 0  # it exited by itself, not killed
    done = request.wait(1.0)
    assert isinstance(done, p.Done)
    assert done.finish_reason == "cancelled"
    assert request.text
    assert recorder.errors() == []
