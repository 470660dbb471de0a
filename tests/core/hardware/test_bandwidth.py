"""CPU memory bandwidth: the copy benchmark gives a sane number, and the cache round-trips."""

from __future__ import annotations

import json

from desktop.core.hardware import CpuInfo, cpu_bandwidth_gbps, probe
from desktop.core.hardware.bandwidth import (
    buffer_bytes,
    cache_key,
    cache_path,
    cached_bandwidth,
    measure_copy_bandwidth,
    store_bandwidth,
)
from desktop.core.hardware.cpu import probe_cpu

CPU = CpuInfo("Test CPU 9000", "x86_64", 4, 8, l3_bytes=16 << 20)


def test_measurement_is_a_sane_positive_number() -> None:
    gbps = measure_copy_bandwidth(threads=2, size=64 << 20, runs=3)
    # Any machine this runs on copies RAM faster than 0.5 GB/s and slower than 2 TB/s.
    assert 0.5 < gbps < 2000


def test_buffer_is_much_larger_than_l3_within_bounds() -> None:
    assert buffer_bytes(32 << 20) == 128 << 20
    assert buffer_bytes(None) == 64 << 20
    assert buffer_bytes(512 << 20) == 256 << 20


def test_cache_round_trip() -> None:
    assert cached_bandwidth(CPU) is None
    assert not cache_path().exists()  # reading never creates the cache folder
    store_bandwidth(CPU, 42.123)
    assert cached_bandwidth(CPU) == 42.12
    other = CpuInfo("Test CPU 9000", "x86_64", 8, 16)
    assert cached_bandwidth(other) is None  # keyed by brand and core counts
    data = json.loads(cache_path().read_text(encoding="utf-8"))
    assert data[cache_key(CPU)]["gbps"] == 42.12
    assert "measured_at" in data[cache_key(CPU)]


def test_cached_value_is_used_without_measuring() -> None:
    store_bandwidth(CPU, 12.5)
    assert cpu_bandwidth_gbps(True, cpu=CPU) == 12.5


def test_not_measured_unless_asked() -> None:
    assert cpu_bandwidth_gbps(False, cpu=CPU) is None
    assert not cache_path().exists()


def test_measure_once_then_cached() -> None:
    cpu = probe_cpu()
    first = cpu_bandwidth_gbps(True, cpu=cpu)
    assert first is not None
    assert first > 0.5
    assert cached_bandwidth(cpu) == first
    # The probe reports the cached value without being asked to measure.
    assert probe().cpu.memory_bandwidth_gbps == first


def test_broken_cache_file_is_ignored() -> None:
    path = cache_path(ensure=True)
    path.write_text("{not json", encoding="utf-8")
    assert cached_bandwidth(CPU) is None
    store_bandwidth(CPU, 3.0)
    assert cached_bandwidth(CPU) == 3.0
