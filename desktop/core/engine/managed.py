"""A server process the app starts, watches and stops: vLLM for AWQ variants.

:class:`ManagedServer` runs a command that serves the OpenAI-compatible API on 127.0.0.1 (``vllm
serve … --port N``, see :func:`desktop.core.fit.plan_vllm`), keeps its output (stdout and
stderr together) in a log file and a ring of its last lines, waits until ``GET /v1/models`` or
``GET /health`` answers 200 (calling back with progress while it waits), and stops it: SIGTERM
to its process group (vLLM's engine and worker processes included), SIGKILL after a grace
period, every process reaped. Servers still running when the interpreter exits are stopped by
an :mod:`atexit` hook, the way the engine's workers end with the app. Its :attr:`base_url`
(``http://127.0.0.1:PORT/v1``) is what an OpenAI-compatible client talks to.

:func:`vllm_available` says whether this machine can start vLLM at all (Linux, an NVIDIA GPU,
vLLM installed), and in a plain sentence what is missing when not. vLLM is the optional extra
``llm-scout[vllm]``; nothing here imports it. The environment variable ``LLM_SCOUT_VLLM`` names
an executable (or a command line) that replaces ``vllm``: it is called as vLLM's CLI is
(``serve REPO … --port N``), and when it is set the platform and GPU checks are left to it (a
vLLM installed elsewhere, a wrapper script, a stand-in in tests).

:meth:`ManagedServer.launch` starts and waits in one call (stopping the server when the wait
fails), and :func:`run_command_line` is the ``llm-scout run --endpoint … --model …`` line that
talks to a ready server: what the CLI (``llm-scout vllm serve``) and the window both use.
Plain threads, no Qt.
"""

from __future__ import annotations

import atexit
import importlib.util
import logging
import os
import platform
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

import psutil

from desktop.core import paths, threads
from desktop.core.errors import EngineError

if TYPE_CHECKING:
    from desktop.core.fit import VllmPlan

__all__ = [
    "ManagedServer",
    "ServerExited",
    "ServerProgress",
    "VllmAvailability",
    "free_port",
    "run_command_line",
    "vllm_available",
    "vllm_executable",
    "vllm_override",
    "vllm_server",
]

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
READY_PATHS = ("/v1/models", "/health")
READY_TIMEOUT_S = 900.0  # vLLM downloads, loads, profiles and captures CUDA graphs first
POLL_INTERVAL_S = 0.25
PROBE_TIMEOUT_S = 1.0
STOP_GRACE_S = 10.0
LOG_LINES = 200
TAIL_LINES = 20
INSTALL_HINT = "pip install 'llm-scout[vllm]'"
NVIDIA_DRIVER = Path("/proc/driver/nvidia/version")  # there when the NVIDIA driver is loaded
VLLM_ENV = "LLM_SCOUT_VLLM"  # an executable (or command line) that replaces `vllm`

ProgressCallback = Callable[["ServerProgress"], None]


@dataclass(frozen=True)
class ServerProgress:
    """Where a start stands: seconds since the process started, the limit, the last log line
    (vLLM says what it is doing: downloading, loading weights, capturing CUDA graphs)."""

    elapsed_s: float
    timeout_s: float
    last_line: str

    @property
    def fraction(self) -> float:
        """Share of the time limit spent (vLLM reports no percentage of its start-up)."""
        return min(self.elapsed_s / self.timeout_s, 1.0) if self.timeout_s > 0 else 0.0


class ServerExited(EngineError):
    """The server process ended before it answered; ``log_tail`` holds its last lines."""

    def __init__(self, message: str, *, returncode: int | None, log_tail: str) -> None:
        super().__init__(message, kind="engine.crashed")
        self.returncode = returncode
        self.log_tail = log_tail


@dataclass(frozen=True)
class VllmAvailability:
    """``ok``: vLLM can be started here; otherwise ``reason`` says what is needed."""

    ok: bool
    reason: str = ""
    command: tuple[str, ...] = ()  # how to call vLLM's CLI: ("vllm",) or python -m …


def vllm_override() -> tuple[str, ...] | None:
    """The command ``LLM_SCOUT_VLLM`` names instead of ``vllm`` (None when it is unset or
    empty): an existing file as it is (its path may hold spaces), else the value split as a
    shell would (``python /opt/fake_vllm.py``)."""
    value = os.environ.get(VLLM_ENV, "").strip()
    if not value:
        return None
    if Path(value).is_file():
        return (value,)
    try:
        return tuple(shlex.split(value)) or None
    except ValueError:  # an unbalanced quote: the value as one word, refused when not found
        return (value,)


def vllm_executable() -> tuple[str, ...] | None:
    """How to call vLLM's CLI: ``LLM_SCOUT_VLLM`` when set, else the ``vllm`` script on PATH,
    else this interpreter running its CLI module when the package is importable; None when vLLM
    is not installed."""
    override = vllm_override()
    if override is not None:
        return override
    script = shutil.which("vllm")
    if script:
        return (script,)
    try:
        found = importlib.util.find_spec("vllm") is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return (sys.executable, "-m", "vllm.entrypoints.cli.main")
    return None


def vllm_available(*, has_nvidia_gpu: bool | None = None) -> VllmAvailability:
    """Whether this machine can start a vLLM server: Linux, an NVIDIA GPU and vLLM installed.

    ``has_nvidia_gpu``: what the caller knows from the hardware profile (a capable GPU, see
    :func:`desktop.core.fit.capable_gpus`); None checks for the NVIDIA driver here. With
    ``LLM_SCOUT_VLLM`` set, only that its executable exists is checked.
    """
    override = vllm_override()
    if override is not None:
        program = override[0]
        found = shutil.which(program) if os.sep not in program else program
        if not found or not os.access(found, os.X_OK) or Path(found).is_dir():
            return VllmAvailability(
                False,
                f"{VLLM_ENV} names {program}, which is not an executable; point it at vLLM's "
                "CLI (or unset it).",
            )
        return VllmAvailability(True, "", override)
    system = platform.system()
    if system != "Linux":
        return VllmAvailability(
            False,
            f"vLLM runs on Linux with an NVIDIA GPU (compute capability 7.5 or newer); this is "
            f"{system or 'an unknown system'}. Run it on such a machine and add it as a "
            "remote endpoint.",
        )
    if has_nvidia_gpu is None:
        has_nvidia_gpu = NVIDIA_DRIVER.exists()
    if not has_nvidia_gpu:
        return VllmAvailability(
            False,
            "vLLM needs an NVIDIA GPU with compute capability 7.5 or newer and its driver; "
            "none was found here.",
        )
    command = vllm_executable()
    if command is None:
        return VllmAvailability(
            False,
            f"vLLM is not installed: {INSTALL_HINT} (or pip install vllm) in this environment.",
        )
    return VllmAvailability(True, "", command)


def free_port(host: str = HOST) -> int:
    """A TCP port nobody listens on right now (the server binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def run_command_line(base_url: str, model: str) -> str:
    """The ``llm-scout run`` line that talks to ``model`` served at ``base_url``."""
    return f"llm-scout run --endpoint {shlex.quote(base_url)} --model {shlex.quote(model)}"


def vllm_server(
    plan: VllmPlan,
    *,
    port: int | None = None,
    log_path: Path | None = None,
    command: Sequence[str] | None = None,
) -> ManagedServer:
    """A (not yet started) :class:`ManagedServer` for ``plan``'s ``vllm serve`` command on
    127.0.0.1 and ``port`` (a free one when None), logging to ``vllm-PORT.log`` in the app's log
    folder. ``command``: how to call vLLM's CLI (default :func:`vllm_executable`'s answer);
    EngineError when vLLM is not installed or the plan has no command."""
    if not plan.fits:
        raise EngineError(plan.reason or "There is no vLLM command to run.", kind="engine")
    cli = tuple(command) if command is not None else vllm_executable()
    if cli is None:
        raise EngineError(
            f"vLLM is not installed: {INSTALL_HINT} on Linux with an NVIDIA GPU.",
            kind="engine.spawn_failed",
        )
    port = free_port() if port is None else port
    argv = [*cli, *plan.argv(port=port, host=HOST)[1:]]  # [1:]: the plan's own "vllm"
    log_path = log_path or paths.log_dir(ensure=True) / f"vllm-{port}.log"
    return ManagedServer(argv, port=port, log_path=log_path, env=plan.env, name="vLLM")


class ManagedServer:
    """One server process serving the OpenAI-compatible API on ``127.0.0.1:port``.

    ``argv`` is the whole command, its port included (``vllm serve REPO … --port N``). Not
    thread-safe beyond this: :meth:`wait_ready` on one thread, :meth:`stop` from any.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        port: int,
        log_path: Path,
        env: Mapping[str, str] | None = None,
        name: str = "vLLM",
        ready_paths: Sequence[str] = READY_PATHS,
    ) -> None:
        if not argv:
            raise EngineError("No server command to start.", kind="engine.spawn_failed")
        self.argv = tuple(argv)
        self.port = port
        self.log_path = log_path
        self.env = dict(env or {})
        self.name = name
        self.ready_paths = tuple(ready_paths)
        self.ready = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: deque[str] = deque(maxlen=LOG_LINES)
        self._lines_lock = threading.Lock()
        self._reader: threading.Thread | None = None
        self._started_at = 0.0

    # -- facts --------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible API root: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def returncode(self) -> int | None:
        return self._proc.poll() if self._proc is not None else None

    def log_lines(self) -> list[str]:
        """The last lines of its output (up to 200), oldest first."""
        with self._lines_lock:
            return list(self._lines)

    def log_tail(self, n: int = TAIL_LINES) -> str:
        return "\n".join(self.log_lines()[-n:])

    # -- life ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the process (its output going to the log); EngineError when it cannot."""
        if self.running:
            raise EngineError(f"The {self.name} server is already running.", kind="engine.busy")
        self.ready = False
        with self._lines_lock:
            self._lines.clear()
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log_file = self.log_path.open("ab")
        except OSError as exc:
            raise EngineError(
                f"Cannot write the {self.name} server log {self.log_path}: {exc.strerror or exc}.",
                kind="engine.spawn_failed",
            ) from exc
        env = {**os.environ, **self.env, "PYTHONUNBUFFERED": "1"}
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                # Its own process group: stop() signals vLLM's engine and workers with it.
                start_new_session=os.name == "posix",
            )
        except OSError as exc:
            log_file.close()
            raise EngineError(
                f"The {self.name} server could not be started ({self.argv[0]}): "
                f"{exc.strerror or exc}.",
                kind="engine.spawn_failed",
            ) from exc
        self._proc = proc
        self._started_at = time.monotonic()
        _LIVE.add(self)
        log.info("started %s server pid %s: %s", self.name, proc.pid, " ".join(self.argv))
        assert proc.stdout is not None
        self._reader = threads.start(
            threading.Thread(
                target=self._read_output,
                args=(proc.stdout, log_file),
                name=f"managed-{self.name}-log",
                daemon=True,
            )
        )

    def wait_ready(
        self,
        timeout: float = READY_TIMEOUT_S,
        *,
        on_progress: ProgressCallback | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> str:
        """Block until the server answers, then return :attr:`base_url`.

        ``on_progress`` is called after every probe (about 4 times a second). Raises
        :class:`ServerExited` (with the log's tail) when the process ends first,
        EngineError ``engine.timeout`` after ``timeout`` seconds and ``engine.cancelled``
        when ``cancelled()`` turns true; in both of those cases the server is stopped.
        """
        proc = self._proc
        if proc is None:
            raise EngineError(f"The {self.name} server was not started.", kind="engine.not_loaded")
        deadline = time.monotonic() + timeout
        while True:
            if self._answers():
                self.ready = True
                log.info("%s server ready at %s", self.name, self.base_url)
                return self.base_url
            code = proc.poll()
            if code is not None:
                raise self._exited(code)
            now = time.monotonic()
            if on_progress is not None:
                last = self.log_lines()[-1:] or [""]
                on_progress(ServerProgress(now - self._started_at, timeout, last[0]))
            if cancelled is not None and cancelled():
                self.stop()
                raise EngineError(
                    f"Starting the {self.name} server was cancelled.", kind="engine.cancelled"
                )
            if now >= deadline:
                tail = self.log_tail()
                self.stop()
                raise EngineError(
                    f"The {self.name} server did not answer within {timeout:g} s, so it was "
                    f"stopped. Its log is {self.log_path}; its last lines:\n{tail}",
                    kind="engine.timeout",
                )
            time.sleep(min(POLL_INTERVAL_S, max(deadline - now, 0.01)))

    def launch(
        self,
        timeout: float = READY_TIMEOUT_S,
        *,
        on_progress: ProgressCallback | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> str:
        """:meth:`start`, then :meth:`wait_ready`; when either fails (or the wait is
        interrupted) the server is stopped, every process of it reaped, and the error raised.
        Returns :attr:`base_url`."""
        self.start()
        try:
            return self.wait_ready(timeout, on_progress=on_progress, cancelled=cancelled)
        except BaseException:
            self.stop()
            raise

    def stop(self, grace: float = STOP_GRACE_S) -> int | None:
        """Stop the server: SIGTERM to its process group, SIGKILL after ``grace`` seconds, and
        any process it left behind killed too. Returns its exit code (None: never started)."""
        proc = self._proc
        if proc is None:
            return None
        _LIVE.discard(self)
        children = _children(proc.pid)
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                log.warning("%s server %s did not stop; killing it", self.name, proc.pid)
                _signal_group(proc, getattr(signal, "SIGKILL", signal.SIGTERM))
                proc.wait()
        for child in children:  # left behind by a leader that went first
            try:
                child.kill()
                child.wait(timeout=2.0)
            except psutil.Error:  # gone already
                pass
        if self._reader is not None:
            self._reader.join(timeout=5.0)
        self.ready = False
        return proc.returncode

    def __enter__(self) -> ManagedServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- inside -------------------------------------------------------------------------------

    def _answers(self) -> bool:
        for path in self.ready_paths:
            url = f"http://{HOST}:{self.port}{path}"
            try:
                with urllib.request.urlopen(url, timeout=PROBE_TIMEOUT_S) as response:
                    if response.status == 200:
                        return True
            except (urllib.error.URLError, OSError, ValueError):
                continue
        return False

    def _exited(self, code: int) -> ServerExited:
        if self._reader is not None:
            self._reader.join(timeout=5.0)  # the last lines, up to end of output
        _LIVE.discard(self)
        tail = self.log_tail()
        how = f"with code {code}" if code >= 0 else f"on signal {-code}"
        return ServerExited(
            f"The {self.name} server exited {how} before it was ready. Its log is "
            f"{self.log_path}; its last lines:\n{tail}",
            returncode=code,
            log_tail=tail,
        )

    def _read_output(self, stream: IO[bytes], log_file: IO[bytes]) -> None:
        with stream, log_file:
            for raw in iter(stream.readline, b""):
                try:
                    log_file.write(raw)
                    log_file.flush()
                except OSError:
                    pass  # a full disk must not stop the server: the ring still has the lines
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                with self._lines_lock:
                    self._lines.append(line)


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        if os.name == "posix":
            os.killpg(proc.pid, sig)  # the group is the leader's pid while it is unreaped
        elif sig == signal.SIGTERM:
            proc.terminate()
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _children(pid: int) -> list[psutil.Process]:
    try:
        return list(psutil.Process(pid).children(recursive=True))
    except psutil.Error:
        return []


# Servers started and not yet stopped (held strongly: a forgotten server still gets stopped).
_LIVE: set[ManagedServer] = set()


@atexit.register
def _stop_all() -> None:
    """Stop every managed server still running when the interpreter exits."""
    for server in list(_LIVE):
        try:
            server.stop(grace=5.0)
        except Exception:
            log.exception("stopping a managed server at exit failed")
