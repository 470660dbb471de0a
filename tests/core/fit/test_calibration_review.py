"""What the calibration learned from, and taking it back: runs made under contention never
count, one bad hour is one vote, and undo/reset touch only this machine's runs (a copy kept)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.fit import (
    CalibrationEntry,
    CalibrationStore,
    compute_calibration,
    reset_calibration,
    review_calibration,
    undo_last_run,
)

HOUR = 3600.0
BUSY = "other programs used 1.1 of the 2 CPUs during the answer"


def run(
    ratio: float,
    t: float,
    *,
    machine: str = "me",
    busy: str | None = None,
    generated: int = 128,
    rss: bool = True,
) -> CalibrationEntry:
    return CalibrationEntry(
        machine=machine,
        source="run",
        model="SmolLM2",
        device="cpu",
        n_gpu_layers=0,
        n_ctx=2048,
        generated_tokens=generated,
        predicted_tokens_per_s=100.0,
        measured_tokens_per_s=100.0 * ratio,
        predicted_ram_bytes=200 << 20,
        rss_peak_bytes=(200 << 20) + (8 << 20) if rss else None,
        time=t,
        busy=busy,
        others_cpus=1.1 if busy else 0.0,
    )


def test_runs_made_under_contention_never_count() -> None:
    entries = [run(0.9, 1 * HOUR), run(0.95, 1 * HOUR + 60)]
    entries += [run(0.12, 2 * HOUR + i, busy=BUSY) for i in range(3)]
    cal = compute_calibration(entries, "me")
    assert cal.cpu_speed_factor == pytest.approx(0.925, rel=0.01)
    assert cal.cpu_speed_runs == 2
    # Without the mark the same three runs would pull the factor far down: the mark is what
    # keeps it (two hours, one of them bad: the median of the two is halfway).
    unmarked = [*entries[:2], *(run(0.12, 2 * HOUR + i) for i in range(3))]
    factor = compute_calibration(unmarked, "me").cpu_speed_factor
    assert factor is not None
    assert factor < 0.6


def test_one_bad_hour_of_many_runs_is_one_vote() -> None:
    good = [run(0.9, h * HOUR) for h in range(1, 4)]
    # Ten slow runs in one hour that the contention check missed (not marked): they would be
    # the majority of runs, but they are one hour among four.
    bad = [run(0.3, 10 * HOUR + i * 60) for i in range(10)]
    cal = compute_calibration([*good, *bad], "me")
    assert cal.cpu_speed_factor is not None
    assert 0.7 <= cal.cpu_speed_factor / 0.9 <= 1.43


def test_the_review_says_why_each_run_does_not_count(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path / "calibration.json")
    store.replace(
        [
            run(0.9, 1 * HOUR),
            run(0.92, 1 * HOUR + 10),
            run(0.2, 1 * HOUR + 20, busy=BUSY, rss=False),
            run(0.9, 1 * HOUR + 30, generated=4, rss=False),  # says nothing of speed or RAM
            run(0.5, 1 * HOUR + 40, machine="other"),
        ]
    )
    review = review_calibration("me", store)
    assert [r.entry.time for r in review.runs] == [1 * HOUR + 30, 1 * HOUR + 20, HOUR + 10, HOUR]
    kinds = [r.left_out_kind for r in review.runs]
    assert kinds == ["short", "busy", None, None]
    assert [r.counted for r in review.runs] == [False, False, True, True]
    assert review.runs[1].left_out == f"made while {BUSY}"
    assert review.left_out == 2
    assert review.calibration.cpu_speed_runs == 2
    document = json.loads(json.dumps(review.to_dict()))
    assert document["runs"][1]["left_out_kind"] == "busy"


def test_a_busy_run_still_counts_for_memory(tmp_path: Path) -> None:
    """A busy CPU does not change what the model occupies: its RAM counts, its speed not."""
    store = CalibrationStore(tmp_path / "calibration.json")
    store.replace([run(0.1, 1.0, busy=BUSY), run(0.1, 2.0, busy=BUSY)])
    review = review_calibration("me", store)
    assert review.calibration.cpu_speed_factor is None
    assert review.calibration.ram_offset_bytes == 8 << 20
    assert all(r.memory_only and r.left_out_kind == "busy" for r in review.runs)
    assert review.left_out == 0


def test_undo_forgets_this_machines_newest_run_only(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path / "calibration.json")
    store.replace([run(0.9, 1.0), run(0.2, 3.0), run(0.5, 5.0, machine="other")])
    removed = undo_last_run("me", store)
    assert removed is not None
    assert removed.time == 3.0
    assert [(e.machine, e.time) for e in store.load()] == [("me", 1.0), ("other", 5.0)]
    assert undo_last_run("nobody", store) is None


def test_reset_forgets_this_machine_and_keeps_a_copy(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path / "calibration.json")
    store.replace([run(0.9, 1.0), run(0.2, 3.0), run(0.5, 5.0, machine="other")])
    count, copy = reset_calibration("me", store)
    assert count == 2
    assert copy is not None
    assert len(CalibrationStore(copy).load()) == 3
    assert [e.machine for e in store.load()] == ["other"]
    assert reset_calibration("me", store) == (0, None)


def test_old_files_without_the_mark_still_load(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    old = run(0.9, 1.0).to_dict()
    del old["busy"], old["others_cpus"]
    path.write_text(json.dumps({"format": 1, "entries": [old]}))
    (loaded,) = CalibrationStore(path).load()
    assert loaded.busy is None
    assert loaded.speed_ratio == pytest.approx(0.9)
