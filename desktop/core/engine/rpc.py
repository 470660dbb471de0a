"""llama.cpp's RPC backend through ctypes: use other machines' memory, or serve this one's.

``ggml_backend_rpc_add_server(endpoint)`` connects to an ``rpc-server`` and returns a backend
registry whose devices (the server's GPUs, or its CPU) llama.cpp then uses like local GPUs once
``ggml_backend_register`` has added them: :func:`add_servers`, which the worker calls before it
loads a model with RPC servers (llama-cpp-python 0.3.36 has no keyword for them).
``ggml_backend_rpc_start_server`` serves this machine's devices to such a client, so no separate
``rpc-server`` binary is needed: :func:`serve`, ``llm-scout rpc-server`` or
``python -m desktop.core.engine.rpc``.

Both live in ggml's RPC backend, which llama-cpp-python builds only with
``CMAKE_ARGS='-DGGML_RPC=ON'``. The functions are found the way llama.cpp's own ``--rpc`` finds
them (the registry named ``RPC`` and its proc addresses), else as symbols of the shared libraries
llama_cpp loaded; a build without them raises :class:`~desktop.core.errors.EngineError` saying
how to build one. ggml aborts the process when it cannot reach a server, so every endpoint is
checked with a TCP connection first.

The RPC protocol has no authentication or encryption: serve only on a trusted network.
"""

from __future__ import annotations

import argparse
import ctypes
import re
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.engine.cpu_threads import default_threads
from desktop.core.errors import EngineError

ADD_SERVER = "ggml_backend_rpc_add_server"
START_SERVER = "ggml_backend_rpc_start_server"
DEFAULT_PORT = 50052  # llama.cpp's rpc-server default
BUILD_HINT = (
    "This llama.cpp build has no RPC backend; build it with "
    "CMAKE_ARGS='-DGGML_NATIVE=OFF -DGGML_RPC=ON' pip install --no-cache-dir "
    "--force-reinstall llama-cpp-python==0.3.36 (README: Models split across machines)."
)
CONNECT_TIMEOUT_S = 5.0

# enum ggml_backend_dev_type (ggml-backend.h)
DEV_CPU, DEV_GPU, DEV_IGPU, DEV_ACCEL = 0, 1, 2, 3
_TYPE_NAMES = {DEV_CPU: "cpu", DEV_GPU: "gpu", DEV_IGPU: "igpu", DEV_ACCEL: "accel"}

_ADD_SERVER_T = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_char_p)
_START_SERVER_T = ctypes.CFUNCTYPE(
    None,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_size_t,
    ctypes.c_size_t,
    ctypes.POINTER(ctypes.c_void_p),
)


@dataclass(frozen=True)
class RpcDevice:
    """A device llama.cpp can use: on an RPC server (``endpoint``) or on this machine."""

    endpoint: str | None
    name: str
    description: str
    kind: str  # cpu, gpu, igpu, accel
    free_bytes: int
    total_bytes: int


def split_endpoint(endpoint: str) -> tuple[str, int]:
    """``(host, port)`` of ``HOST:PORT`` (``[v6]:PORT`` for IPv6); EngineError otherwise."""
    host, sep, port = endpoint.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise EngineError(
            f"An RPC server is HOST:PORT (like 192.168.1.20:{DEFAULT_PORT}), not {endpoint!r}."
        )
    return host.strip("[]"), int(port)


class Ggml:
    """The ggml functions this module calls, bound from llama_cpp's shared libraries."""

    def __init__(self, libraries: Sequence[ctypes.CDLL], llama: Any = None) -> None:
        self.libraries = list(libraries)
        self._llama = llama
        self._bind()

    @classmethod
    def from_llama_cpp(cls) -> Ggml:
        """The libraries the installed llama_cpp package loaded (import it if needed)."""
        try:
            import llama_cpp.llama_cpp as low_level
        except ImportError as exc:  # pragma: no cover - llama-cpp-python is a dependency
            raise EngineError(f"llama-cpp-python cannot be imported: {exc}.") from exc
        paths = ggml_library_paths(Path(low_level._base_path))
        return cls([ctypes.CDLL(str(path)) for path in paths], low_level)

    def _find(self, name: str) -> Any | None:
        for library in self.libraries:
            try:
                return getattr(library, name)
            except AttributeError:
                continue
        return None

    def _need(self, name: str, restype: Any, argtypes: list[Any]) -> Any:
        function = self._find(name)
        if function is None:
            raise EngineError(f"llama_cpp's ggml libraries lack {name}. {BUILD_HINT}")
        function.restype = restype
        function.argtypes = argtypes
        return function

    def _bind(self) -> None:
        vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
        self.reg_by_name = self._need("ggml_backend_reg_by_name", vp, [cp])
        self.register = self._need("ggml_backend_register", None, [vp])
        self.reg_get_proc_address = self._need("ggml_backend_reg_get_proc_address", vp, [vp, cp])
        self.reg_dev_count = self._need("ggml_backend_reg_dev_count", sz, [vp])
        self.reg_dev_get = self._need("ggml_backend_reg_dev_get", vp, [vp, sz])
        self.dev_count = self._need("ggml_backend_dev_count", sz, [])
        self.dev_get = self._need("ggml_backend_dev_get", vp, [sz])
        self.dev_name = self._need("ggml_backend_dev_name", cp, [vp])
        self.dev_description = self._need("ggml_backend_dev_description", cp, [vp])
        self.dev_type = self._need("ggml_backend_dev_type", ctypes.c_int, [vp])
        self.dev_memory = self._need(
            "ggml_backend_dev_memory", None, [vp, ctypes.POINTER(sz), ctypes.POINTER(sz)]
        )

    def supports_rpc(self) -> bool:
        """llama.cpp's own answer (``llama_supports_rpc``), else whether the RPC registry exists."""
        llama_lib = getattr(self._llama, "_lib", None)
        check = getattr(llama_lib, "llama_supports_rpc", None)
        if check is not None:
            check.restype = ctypes.c_bool
            check.argtypes = []
            return bool(check())
        return bool(self.reg_by_name(b"RPC"))

    def rpc_function(self, name: str) -> int:
        """The address of RPC backend function ``name``; EngineError in a build without it."""
        reg = self.reg_by_name(b"RPC")
        if reg:
            address = self.reg_get_proc_address(reg, name.encode())
            if address:
                return int(address)
        function = self._find(name)  # a build that exports it without registering "RPC"
        if function is not None:
            return int(ctypes.cast(function, ctypes.c_void_p).value or 0)
        raise EngineError(BUILD_HINT)

    def device(self, dev: int, endpoint: str | None) -> RpcDevice:
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        self.dev_memory(dev, ctypes.byref(free), ctypes.byref(total))
        return RpcDevice(
            endpoint=endpoint,
            name=(self.dev_name(dev) or b"").decode("utf-8", "replace"),
            description=(self.dev_description(dev) or b"").decode("utf-8", "replace"),
            kind=_TYPE_NAMES.get(int(self.dev_type(dev)), "other"),
            free_bytes=int(free.value),
            total_bytes=int(total.value),
        )

    def local_devices(self) -> list[int]:
        """What a server offers, as llama.cpp's rpc-server picks: the non-CPU devices, else
        the CPU."""
        devices = [self.dev_get(i) for i in range(int(self.dev_count()))]
        accelerated = [d for d in devices if int(self.dev_type(d)) in (DEV_GPU, DEV_IGPU)]
        if accelerated:
            return accelerated
        return [d for d in devices if int(self.dev_type(d)) == DEV_CPU][:1]


def ggml_library_paths(base: Path) -> list[Path]:
    """The ggml libraries in llama_cpp's folder, each as libllama loads it.

    A wheel holds its libraries as copies, not links: ``libggml.so``, ``libggml.so.0`` and
    ``libggml.so.0.25.3`` are three files, and opening another name than the one libllama
    needs (its SONAME, ``libggml.so.0``) loads a second ggml with its own, empty device
    registry. So per library the SONAME-like name is taken (``.so.N``, ``.N.dylib``), else the
    plain one (``.so``, ``.dylib``, ``.dll``); dlopen of a file already loaded returns it.
    """
    ranks = (
        re.compile(r"^(.+)\.so\.\d+$"),
        re.compile(r"^(.+)\.\d+\.dylib$"),
        re.compile(r"^(.+)\.(?:so|dylib|dll)$"),
    )
    chosen: dict[str, tuple[int, Path]] = {}
    for path in sorted(base.iterdir()):
        if not path.name.removeprefix("lib").startswith("ggml"):
            continue
        for rank, pattern in enumerate(ranks):
            match = pattern.match(path.name)
            if match:
                stem = match.group(1)
                if stem not in chosen or rank < chosen[stem][0]:
                    chosen[stem] = (rank, path)
                break
    return [path for _, path in sorted(chosen.values(), key=lambda item: item[1].name)]


def supports_rpc(ggml: Ggml | None = None) -> bool:
    """Whether the installed llama.cpp build has the RPC backend."""
    return (ggml or Ggml.from_llama_cpp()).supports_rpc()


def check_reachable(endpoint: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Connect to ``endpoint`` and close: EngineError when nothing listens there."""
    host, port = split_endpoint(endpoint)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise EngineError(
            f"The RPC server at {endpoint} cannot be reached ({reason}); start it there with "
            f"`llm-scout rpc-server --host 0.0.0.0 --port {port}`."
        ) from exc


def add_servers(
    endpoints: Sequence[str], *, ggml: Ggml | None = None, timeout: float = CONNECT_TIMEOUT_S
) -> tuple[RpcDevice, ...]:
    """Register the RPC servers at ``endpoints`` with ggml, before a model is loaded; their
    devices, in the order llama.cpp will use them. Registering one twice is harmless (ggml keeps
    one registry per endpoint). EngineError: no RPC backend in this build, or a server that
    cannot be reached or offers no device."""
    if not endpoints:
        return ()
    ggml = ggml or Ggml.from_llama_cpp()
    add = _ADD_SERVER_T(ggml.rpc_function(ADD_SERVER))
    devices: list[RpcDevice] = []
    for endpoint in endpoints:
        host, port = split_endpoint(endpoint)
        check_reachable(endpoint, timeout)
        reg = add(f"{host}:{port}".encode())
        if not reg:
            raise EngineError(f"The RPC server at {endpoint} offers no device.")
        ggml.register(reg)
        for index in range(int(ggml.reg_dev_count(reg))):
            devices.append(ggml.device(ggml.reg_dev_get(reg, index), endpoint))
    return tuple(devices)


def serve(
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    *,
    threads: int | None = None,
    cache_dir: str | None = None,
    ggml: Ggml | None = None,
) -> None:
    """Serve this machine's devices (its GPUs, else its CPU) to llama.cpp clients until the
    process ends; returns only when the server could not start (then EngineError)."""
    ggml = ggml or Ggml.from_llama_cpp()
    start = _START_SERVER_T(ggml.rpc_function(START_SERVER))
    try:
        with socket.create_server((host, port)):
            pass  # the port is free: ggml reports a busy one only on stderr
    except OSError as exc:
        raise EngineError(
            f"Cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port."
        ) from exc
    devices = ggml.local_devices()
    if not devices:
        raise EngineError("This machine has no ggml device to serve.")
    array = (ctypes.c_void_p * len(devices))(*devices)
    n_threads = default_threads(threads)
    start(
        f"{host}:{port}".encode(),
        cache_dir.encode() if cache_dir else None,
        n_threads,
        len(devices),
        array,
    )
    raise EngineError(f"The RPC server on {host}:{port} stopped (see the messages above).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``llm-scout rpc-server`` and ``python -m desktop.core.engine.rpc``."""
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; 0.0.0.0 for the network: the RPC "
        "protocol has no authentication, so only on a trusted network)",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="TCP port (50052)")
    parser.add_argument(
        "--threads", type=int, default=None, help="CPU threads (default: the physical cores)"
    )
    parser.add_argument(
        "--cache-dir",
        default=None,
        help="keep tensors sent by clients here, so the next load skips the network",
    )


def run_server(args: argparse.Namespace) -> int:
    """Serve with parsed :func:`add_arguments` options. Ctrl+C (or SIGTERM) stops it."""
    import signal

    if args.threads is not None and args.threads < 1:
        raise EngineError(f"--threads must be at least 1, not {args.threads}.")
    # ggml's accept loop never returns to Python: let Ctrl+C end the process as a C program's.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    serve(args.host, args.port, threads=args.threads, cache_dir=args.cache_dir)
    return 1  # pragma: no cover - serve() raises when it returns


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m desktop.core.engine.rpc",
        description="Serve this machine's devices to llama.cpp over RPC (ggml rpc-server).",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_server(args)
    except EngineError as exc:
        sys.stderr.write(f"rpc-server: {exc}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
