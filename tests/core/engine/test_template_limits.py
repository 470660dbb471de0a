"""Hostile chat templates on a real worker (issue 22): a render that loops for hours or asks for
gigabytes is stopped by its limits or by a cancel, the worker stays usable, a file whose own
template is broken still loads with another one, and a worker ends with the process that
started it, even in the middle of a render."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from desktop.core.engine import EngineClient
from desktop.core.engine import protocol as p
from tests.fixtures.tiny_models import write_tiny_model

pytestmark = [pytest.mark.e2e]

TIMEOUT = 120.0
# Ten billion loop turns: hours of rendering.
LOOP = "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"
TEN_GB = "{{ 'x' * 10**10 }}"
# Doubling a text forty times: each step is one allocation, the last ones gigabytes.
DOUBLING = (
    "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
    "{% endfor %}{{ ns.s | length }}"
)
HELLO = [{"role": "user", "content": "Hello"}]
SHORT = p.SamplingParams(max_tokens=4, seed=1)


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    yield
    after = psutil.Process().children(recursive=True)
    left = [c for c in after if c.pid not in before]
    assert not left, f"processes left behind: {left}"


def _client(path: Path, template: str | None, *worker_args: str) -> EngineClient:
    client = EngineClient(worker_args=list(worker_args))
    client.start()
    client.load_model(path, timeout=TIMEOUT, n_ctx=256, template=template)
    return client


def _still_answers(client: EngineClient) -> None:
    done = client.generate(prompt="Hello", params=SHORT).result(TIMEOUT)
    assert isinstance(done, p.Done)
    assert done.generated_tokens > 0


def _cpu_seconds(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def _wait_rendering(pid: int, cpu_s: float = 1.0) -> None:
    """Until the worker has burnt ``cpu_s`` more CPU seconds: the render is under way."""
    start = _cpu_seconds(pid)
    deadline = time.monotonic() + TIMEOUT
    while _cpu_seconds(pid) - start < cpu_s:
        assert time.monotonic() < deadline, "the worker never got busy"
        time.sleep(0.1)


def test_cancel_stops_a_render_that_would_take_hours(smollm2_path: Path) -> None:
    client = _client(smollm2_path, LOOP)
    try:
        request = client.generate(messages=HELLO, params=SHORT)
        assert client.pid is not None
        _wait_rendering(client.pid)
        client.cancel(request.id)
        done = request.wait(30.0)
        assert isinstance(done, p.Done)
        assert done.finish_reason == "cancelled"
        assert done.generated_tokens == 0
        _still_answers(client)
    finally:
        client.close()


def test_a_render_past_its_time_limit_is_stopped_with_a_sentence(smollm2_path: Path) -> None:
    client = _client(smollm2_path, LOOP, "--template-time-limit", "1")
    try:
        error = client.generate(messages=HELLO, params=SHORT).wait(TIMEOUT)
        assert isinstance(error, p.Error)
        assert error.kind == "invalid_request"
        assert "stopped after 1 s" in error.message
        _still_answers(client)
    finally:
        client.close()


@pytest.mark.parametrize(
    ("template", "words"),
    [(TEN_GB, "tried to build too much"), (DOUBLING, "more memory than a template may use")],
)
def test_a_template_that_asks_for_gigabytes_is_refused(
    smollm2_path: Path, template: str, words: str
) -> None:
    client = _client(smollm2_path, template, "--template-memory-limit", str(256 << 20))
    try:
        assert client.pid is not None
        error = client.generate(messages=HELLO, params=SHORT).wait(TIMEOUT)
        assert isinstance(error, p.Error)
        assert error.kind == "invalid_request"
        assert words in error.message
        assert psutil.Process(client.pid).memory_info().rss < 2 << 30
        _still_answers(client)
    finally:
        client.close()


def test_a_file_whose_own_template_is_broken_runs_with_another(tmp_path: Path) -> None:
    path = write_tiny_model(tmp_path / "broken-template.gguf", chat_template="{% for %}")
    own = _client(path, None)
    try:  # it loads; its own template is refused when used, with what to do instead
        error = own.generate(messages=HELLO, params=SHORT).wait(TIMEOUT)
        assert isinstance(error, p.Error)
        assert "own chat template cannot be used" in error.message
        assert "chatml" in error.message
    finally:
        own.close()
    client = _client(path, "chatml")
    try:
        assert client.loaded is not None
        assert client.loaded.template_name == "chatml"
        done = client.generate(messages=HELLO, params=SHORT).wait(TIMEOUT)
        assert isinstance(done, p.Done)
        assert done.prompt_tokens > 0
    finally:
        client.close()


PARENT = textwrap.dedent(
    """
    import sys, time
    from desktop.core.engine import EngineClient
    client = EngineClient()
    client.start()
    client.load_model(sys.argv[1], n_ctx=256, template=sys.argv[2])
    client.generate(messages=[{"role": "user", "content": "Hello"}])
    print(client.pid, flush=True)
    time.sleep(3600)
    """
)


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.1)
    return False


def test_a_worker_ends_with_its_parent_in_the_middle_of_a_render(smollm2_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(smollm2_path), LOOP],
        stdout=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    worker_pid = 0
    try:
        assert parent.stdout is not None
        worker_pid = int(parent.stdout.readline())
        _wait_rendering(worker_pid)
        parent.kill()
        parent.wait()
        assert _gone(worker_pid, 10.0), "the worker outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if parent.stdout is not None:
            parent.stdout.close()
        if worker_pid and psutil.pid_exists(worker_pid):
            psutil.Process(worker_pid).kill()


def test_a_worker_outlives_the_thread_that_started_it(smollm2_path: Path) -> None:
    clients: list[EngineClient] = []
    thread = threading.Thread(target=lambda: clients.append(_client(smollm2_path, None)))
    thread.start()
    thread.join()
    client = clients[0]
    try:
        time.sleep(1.0)  # the kernel's parent-death signal has come and gone
        assert client.alive
        _still_answers(client)
    finally:
        client.close()


def test_ctrl_c_stops_run_in_the_middle_of_a_render(smollm2_path: Path, tmp_path: Path) -> None:
    env = dict(
        os.environ,
        PYTHONPATH=str(Path(__file__).resolve().parents[3]),
        LLM_SCOUT_HOME=str(tmp_path),
    )
    command = [sys.executable, "-m", "desktop", "-v", "run", str(smollm2_path)]
    command += ["--template", LOOP, "--prompt", "Hello", "--ctx", "256"]
    cli = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        workers: list[psutil.Process] = []
        while not workers:
            assert time.monotonic() < deadline, "no worker started"
            workers = psutil.Process(cli.pid).children()
            time.sleep(0.1)
        _wait_rendering(workers[0].pid, 2.0)
        cli.send_signal(signal.SIGINT)
        _out, err = cli.communicate(timeout=30)
        assert cli.returncode == 130
        assert "interrupted" in err
        assert "Traceback" not in err
        assert "did not exit" not in err  # the worker answered the cancel and shut down
        assert _gone(workers[0].pid, 10.0)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
