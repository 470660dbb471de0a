"""GPU memory while a ground-truth cell runs, read by NVML from the parent process."""

from __future__ import annotations

import threading


class GpuPoller:
    """Device memory in use (all GPUs) and the child's own figure, polled every 20 ms."""

    def __init__(self) -> None:
        import pynvml

        self.nvml = pynvml
        pynvml.nvmlInit()
        self.handles = [
            pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())
        ]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.pid = 0
        self.before = (0, 0, 0)
        self.peak = 0
        self.process_peak = 0
        self.min_free = 0

    def _read(self) -> tuple[int, int, int]:
        used = free = process = 0
        for handle in self.handles:
            info = self.nvml.nvmlDeviceGetMemoryInfo(handle)
            used += int(info.used)
            free += int(info.free)
            try:
                for proc in self.nvml.nvmlDeviceGetComputeRunningProcesses(handle):
                    amount = getattr(proc, "usedGpuMemory", None)
                    if int(proc.pid) == self.pid and amount is not None and amount < 2**63:
                        process += int(amount)
            except self.nvml.NVMLError:
                pass
        return used, free, process

    def start(self, pid: int, before: tuple[int, int, int]) -> None:
        self.pid, self.before = pid, before
        self.peak, self.process_peak, self.min_free = before[0], 0, before[1]
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            used, free, process = self._read()
            self.peak = max(self.peak, used)
            self.process_peak = max(self.process_peak, process)
            self.min_free = min(self.min_free, free)
            self._stop.wait(0.02)

    def stop(self) -> dict[str, int]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        return {
            "device_used_before": self.before[0],
            "device_free_before": self.before[1],
            "device_free_min": self.min_free,
            "vram_peak": self.peak - self.before[0],
            "vram_process_peak": self.process_peak,
        }
