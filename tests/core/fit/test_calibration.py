"""Calibration from the user's own runs: the store, the figures it gives, and applying them.

The store is a JSON file in the user data folder (the isolated LLM_SCOUT_HOME of each test);
it must survive a corrupt file, stay bounded and be written atomically. The figures are medians
with outliers dropped and apply only with two or more runs behind them.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from desktop.core import paths
from desktop.core.catalog import load_catalog
from desktop.core.errors import HardwareError
from desktop.core.fit import (
    CalibrationEntry,
    CalibrationStore,
    CatalogEstimator,
    FitResult,
    MachineCalibration,
    apply_calibration,
    calibration_for,
    compute_calibration,
    estimate,
    machine_fingerprint,
    record_bench,
    with_calibration,
)
from desktop.core.fit.calibration import device_of
from desktop.core.hardware import HardwareProfile, load_profile
from desktop.core.library import ModelResolver

MIB = 1024 * 1024


@pytest.fixture
def machine() -> HardwareProfile:
    """A CPU laptop standing in for "this machine" (a probed profile)."""
    return replace(load_profile("laptop-16gb-cpu"), source="probe", name="")


@pytest.fixture(scope="module")
def cpu_result() -> FitResult:
    catalog = load_catalog()
    resolver = ModelResolver(catalog, models_dir=Path("/nonexistent-models"))
    target = resolver.resolve("qwen2.5-0.5b-instruct").fit_target()
    result = estimate(target, load_profile("laptop-16gb-cpu"), n_ctx=4096, n_gpu_layers=0)
    assert result.verdict == "cpu"
    assert result.tokens_per_s
    return result


def entry(
    machine: str,
    ratio: float = 0.5,
    *,
    ram_diff: int = 10 * MIB,
    device: str = "cpu",
    generated: int = 64,
    t: float = 0.0,
) -> CalibrationEntry:
    return CalibrationEntry(
        machine=machine,
        source="bench",
        model="m",
        device=device,  # type: ignore[arg-type]
        n_gpu_layers=0 if device == "cpu" else 99,
        n_ctx=512,
        generated_tokens=generated,
        predicted_tokens_per_s=40.0,
        measured_tokens_per_s=40.0 * ratio,
        predicted_ram_bytes=500 * MIB,
        rss_peak_bytes=500 * MIB + ram_diff,
        time=t,
    )


def test_the_store_lives_in_the_user_data_folder(scout_home: Path) -> None:
    assert CalibrationStore().path == paths.calibration_path()
    assert paths.calibration_path().is_relative_to(scout_home)


def test_store_round_trip(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path / "cal.json")
    assert store.load() == []  # no file yet
    first, second = entry("a", 0.5, t=1.0), entry("b", 0.8, device="gpu", t=2.0)
    store.add(first)
    store.add(second)
    assert store.load() == [first, second]
    assert CalibrationStore(tmp_path / "cal.json").load() == [first, second]
    assert json.loads((tmp_path / "cal.json").read_text())["format"] == 1


def test_the_write_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cal.json"
    store = CalibrationStore(path)
    store.add(entry("a", t=1.0))
    before = path.read_bytes()

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space left"):
        store.add(entry("a", t=2.0))
    assert path.read_bytes() == before  # the old file whole, never half written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cal.json"]  # no temp file left


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"entries": 3}', "\udcff"])
def test_a_corrupt_file_is_moved_aside_and_the_store_starts_empty(
    tmp_path: Path, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cal.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    store = CalibrationStore(path)
    with caplog.at_level(logging.WARNING):
        assert store.load() == []
    assert not path.exists()
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("cal.json.corrupt-")]
    assert len(aside) == 1
    assert aside[0].read_bytes() == text.encode("utf-8", "surrogateescape")
    assert "moved it to" in caplog.text
    store.add(entry("a"))  # and it works again
    assert len(store.load()) == 1


def test_entries_that_make_no_sense_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "cal.json"
    good = entry("a").to_dict()
    bad = [{"machine": "a"}, "text", {**good, "device": "tpu"}, {**good, "n_ctx": "big"}]
    path.write_text(json.dumps({"format": 1, "entries": [*bad, good]}))
    assert CalibrationStore(path).load() == [entry("a")]


def test_the_store_keeps_the_newest_entries(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path / "cal.json", max_entries=5)
    for i in range(8):
        store.add(entry("a", t=float(i)))
    assert [e.time for e in store.load()] == [3.0, 4.0, 5.0, 6.0, 7.0]
    assert CalibrationStore(tmp_path / "other.json").max_entries == 200


def test_factors_are_medians_without_outliers() -> None:
    entries = [
        entry("me", 0.50, ram_diff=10 * MIB),
        entry("me", 0.52, ram_diff=12 * MIB),
        entry("me", 0.48, ram_diff=11 * MIB),
        entry("me", 0.51, ram_diff=900 * MIB),  # RAM outlier (page cache evicted...)
        entry("me", 5.00, ram_diff=11 * MIB),  # speed outlier
        entry("me", 0.10, generated=4),  # too short to say anything about the speed
        entry("me", 0.90, device="gpu"),
        entry("me", 1.10, device="gpu"),
        entry("me", 0.90, device="partial"),  # no figure of its own
        entry("someone else", 3.0, ram_diff=-200 * MIB),
        entry("someone else", 3.0, ram_diff=-200 * MIB),
    ]
    cal = compute_calibration(entries, "me")
    assert cal.cpu_speed_factor == pytest.approx(0.505, rel=1e-3)  # median of the four kept
    assert cal.cpu_speed_runs == 4
    assert cal.gpu_speed_factor == pytest.approx((0.9 * 1.1) ** 0.5)  # geometric middle of two
    assert cal.gpu_speed_runs == 2
    assert cal.ram_offset_bytes == 11 * MIB  # the 900 MiB run dropped
    assert cal.ram_runs == 5  # the short run's memory still counts
    assert cal.cpu_runs == 6
    assert cal.runs == 8


def test_one_run_is_not_enough(
    tmp_path: Path, machine: HardwareProfile, cpu_result: FitResult
) -> None:
    store = CalibrationStore(tmp_path / "cal.json")
    store.add(entry(machine_fingerprint(machine), 0.5))
    cal = store.calibration(machine_fingerprint(machine))
    assert cal.cpu_speed_factor is None
    assert cal.ram_offset_bytes is None
    assert not cal.applies
    assert calibration_for(machine, store) is None
    assert apply_calibration(cpu_result, None) == (cpu_result, None)
    store.add(entry(machine_fingerprint(machine), 0.5))
    found = calibration_for(machine, store)
    assert found is not None
    assert found[1] == "this machine"
    assert found[0].runs == 2


def test_applying_scales_the_speed_and_moves_the_ram(cpu_result: FitResult) -> None:
    cal = MachineCalibration("me", 3, 0.5, 3, 2.0, 2, 20 * MIB, 3, 3)
    result, applied = apply_calibration(cpu_result, (cal, "this machine"))
    assert cpu_result.tokens_per_s is not None
    assert result.tokens_per_s == pytest.approx(cpu_result.tokens_per_s * 0.5)
    assert result.roofline_tokens_per_s == cpu_result.roofline_tokens_per_s
    assert result.ram_bytes == cpu_result.ram_bytes + 20 * MIB
    assert result.ram.overhead == cpu_result.ram.overhead + 20 * MIB
    assert result.ram_full_context_bytes == cpu_result.ram_full_context_bytes + 20 * MIB
    assert applied is not None
    assert (applied.runs, applied.speed_factor, applied.ram_offset_bytes) == (3, 0.5, 20 * MIB)
    assert "calibrated on this machine from 3 runs" in applied.text()


def test_a_negative_offset_never_takes_the_overhead_below_zero(cpu_result: FitResult) -> None:
    cal = MachineCalibration("me", 2, None, 0, None, 0, -(4 * 1024**3 - 1), 2, 2)
    result, applied = apply_calibration(cpu_result, (cal, "this machine"))
    assert result.ram.overhead == 0
    assert applied is not None
    assert applied.ram_offset_bytes == -cpu_result.ram.overhead


def test_a_calibrated_need_past_the_free_ram_does_not_fit(cpu_result: FitResult) -> None:
    short = cpu_result.ram_available_bytes - cpu_result.ram_full_context_bytes
    cal = MachineCalibration("me", 2, None, 0, None, 0, short + 1, 2, 2)
    result, _ = apply_calibration(cpu_result, (cal, "this machine"))
    assert result.verdict == "no"
    assert "Calibrated on this machine's runs" in result.reasons[-1]


def test_the_gpu_factor_goes_to_gpu_estimates_only(cpu_result: FitResult) -> None:
    cal = MachineCalibration("me", 2, None, 0, 0.7, 2, None, 0, 0)
    assert apply_calibration(cpu_result, (cal, "this machine")) == (cpu_result, None)
    gpu = replace(cpu_result, verdict="gpu", n_gpu_layers=cpu_result.n_layers)
    result, applied = apply_calibration(gpu, (cal, "this machine"))
    assert gpu.tokens_per_s is not None
    assert applied is not None
    assert result.tokens_per_s == pytest.approx(gpu.tokens_per_s * 0.7)
    partial = replace(cpu_result, verdict="partial", n_gpu_layers=2)
    assert apply_calibration(partial, (cal, "this machine")) == (partial, None)
    assert device_of(0, 30) == "cpu"
    assert device_of(-1, 30) == "gpu"
    assert device_of(10, 30) == "partial"
    assert device_of(30, 30, gpu_offload=False) == "cpu"


def test_what_if_profiles_are_not_calibrated_unless_they_carry_one(
    tmp_path: Path, machine: HardwareProfile
) -> None:
    store = CalibrationStore(tmp_path / "cal.json")
    what_if = load_profile("laptop-16gb-cpu")
    for _ in range(3):
        store.add(entry(machine_fingerprint(what_if), 0.5))  # same fingerprint as `machine`
    assert calibration_for(machine, store) is not None
    assert calibration_for(what_if, store) is None
    carried = with_calibration(machine, store)
    assert carried.calibration is not None
    assert carried.calibration["runs"] == 3
    saved = tmp_path / "edge.json"
    carried.save(saved)
    loaded = HardwareProfile.load(saved)
    found = calibration_for(loaded, CalibrationStore(tmp_path / "empty.json"))
    assert found is not None
    assert found[1] == "profile"
    assert found[0].cpu_speed_factor == pytest.approx(0.5)


def test_profiles_without_a_calibration_still_load(tmp_path: Path) -> None:
    profile = load_profile("laptop-16gb-cpu")
    assert profile.calibration is None
    assert "calibration" not in profile.to_dict()  # old readers see the old format
    with_key = {**profile.to_dict(), "calibration": {"machine": "x", "runs": 2}}
    assert HardwareProfile.from_dict(with_key).calibration == {"machine": "x", "runs": 2}
    assert HardwareProfile.from_dict(with_key) == profile  # not part of the machine's identity
    with pytest.raises(HardwareError, match="calibration must be an object"):
        HardwareProfile.from_dict({**profile.to_dict(), "calibration": [1]})
    bad = {**profile.to_dict(), "source": "probe"}
    bad["calibration"] = {"runs": 2, "cpu_speed_factor": "fast", "ram_offset_bytes": 5}
    assert MachineCalibration.from_dict(bad["calibration"]) is None
    assert calibration_for(HardwareProfile.from_dict(bad)) is None  # ignored, not fatal


def test_a_failing_record_never_raises(
    tmp_path: Path, machine: HardwareProfile, caplog: pytest.LogCaptureFixture
) -> None:
    run = SimpleNamespace(tg_tokens_per_s=20.0)
    loaded = SimpleNamespace(n_gpu_layers=0, n_layer=30, gpu_offload=False, n_ctx=512, n_threads=2)
    prediction = SimpleNamespace(tokens_per_s=40.0, ram_bytes=1, vram_bytes=0)
    result = SimpleNamespace(
        runs=(run,),
        loaded=loaded,
        label="m",
        settings=SimpleNamespace(tg=32),
        prediction=prediction,
        rss_peak_bytes=2,
        private_peak_bytes=1,
        file_peak_bytes=1,
        vram_peak_bytes=None,
    )
    good = CalibrationStore(tmp_path / "good.json")
    assert record_bench(result, machine, good) is True
    assert good.load()[0].measured_tokens_per_s == 20.0
    assert good.load()[0].device == "cpu"
    (tmp_path / "file").write_text("")  # a file where the folder should be: cannot be written
    with caplog.at_level(logging.WARNING):
        assert (
            record_bench(result, machine, CalibrationStore(tmp_path / "file" / "c.json")) is False
        )
        assert record_bench(object(), machine, good) is False
    assert "Could not record the run" in caplog.text


def test_the_catalog_estimator_applies_the_calibration(
    machine: HardwareProfile, cpu_result: FitResult
) -> None:
    store = CalibrationStore()
    for ratio in (0.4, 0.6):
        store.add(entry(machine_fingerprint(machine), ratio))
    catalog = load_catalog()
    resolver = ModelResolver(catalog, models_dir=Path("/nonexistent-models"))
    pairs = [(m, v) for m, v in catalog.variants() if v.id == "qwen2.5-0.5b-instruct:Q4_K_M"]
    triples = resolver.fit_targets(pairs)
    raw = CatalogEstimator(triples, machine, calibrated=False).estimate(4096)[0]
    calibrated_estimator = CatalogEstimator(triples, machine)
    row = calibrated_estimator.estimate(4096)[0]
    assert calibrated_estimator.calibration is not None
    assert raw.result is not None
    assert row.result is not None
    assert raw.result.tokens_per_s
    assert raw.calibration is None
    assert row.calibration is not None
    assert row.result.verdict == "cpu"
    assert row.result.tokens_per_s == pytest.approx(raw.result.tokens_per_s * (0.4 * 0.6) ** 0.5)
