"""`llm-scout hw`: JSON keys, --save then --profile, what-if names, usage errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.cli import main
from desktop.core.hardware.bandwidth import cache_path


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 0
    out = capsys.readouterr().out
    data = json.loads(out)  # exactly one JSON document
    assert isinstance(data, dict)
    return data


def test_hw_json_has_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "hw", "--json")
    cpu = data["cpu"]
    assert isinstance(cpu, dict)
    assert cpu["logical_cores"] >= 1
    # The first `hw` measures the CPU bandwidth and caches it.
    assert cpu["memory_bandwidth_gbps"] > 0
    assert cache_path().exists()
    memory = data["memory"]
    assert isinstance(memory, dict)
    assert memory["total_bytes"] >= memory["available_bytes"] > 0
    disks = data["disks"]
    assert isinstance(disks, list)
    assert {"path", "kind", "total_bytes", "free_bytes"} <= set(disks[0])
    assert disks[0]["kind"] in ("nvme", "ssd", "hdd", "unknown")
    assert disks[0]["read_bytes_per_s"] is None
    assert isinstance(data["gpus"], list)
    assert data["source"] == "probe"


def test_save_then_profile_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "here.json"
    shown = run_json(capsys, "hw", "--json", "--save", str(target))
    saved = json.loads(target.read_text(encoding="utf-8"))
    assert saved == shown
    again = run_json(capsys, "hw", "--json", "--profile", str(target))
    assert again == shown


def test_what_if_profile_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "hw", "--json", "--profile", "jetson-orin-nano-8gb")
    assert data["source"] == "what-if"
    (gpu,) = data["gpus"]
    assert gpu["unified_memory"] is True
    assert gpu["bandwidth_gbps"] == 68.0
    assert data["sources"]


def test_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hw", "--profile", "rtx-4090-24gb"]) == 0
    out = capsys.readouterr().out
    assert "Desktop with RTX 4090 24GB (what-if)" in out
    assert "NVIDIA GeForce RTX 4090" in out
    assert "1008 GB/s" in out
    assert "https://www.nvidia.com/" in out
    assert main(["hw"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("This machine")
    assert "Memory" in out
    assert "Disk (models folder)" in out


def test_list_profiles(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "hw", "--list-profiles", "--json")
    rows = data["profiles"]
    assert isinstance(rows, list)
    names = {row["name"] for row in rows}
    assert {"raspberry-pi-5-8gb", "h100-80gb", "apple-m2-16gb"} <= names
    assert main(["hw", "--list-profiles"]) == 0
    assert "jetson-agx-orin-64gb" in capsys.readouterr().out


def test_measure_disk(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "hw", "--json", "--measure-disk")
    disks = data["disks"]
    assert isinstance(disks, list)
    assert disks[0]["read_bytes_per_s"] > 0


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["hw", "--profile", "rtx-3060-12gb", "--measure-disk"], 2, "--measure-disk"),
        (["hw", "--list-profiles", "--profile", "x"], 2, "--list-profiles"),
        (["hw", "--profile", "no-such-machine"], 1, "No hardware profile named"),
    ],
)
def test_errors(
    argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err
    assert len(captured.err.strip().splitlines()) == 1


def test_save_into_a_missing_folder_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "x.json"
    assert main(["hw", "--profile", "a10g-24gb", "--save", str(target)]) == 1
    err = capsys.readouterr().err
    assert "Cannot write the hardware profile" in err


def test_hw_measure_disk_is_what_fit_uses_for_the_load_time(
    capsys: pytest.CaptureFixture[str], smollm2_path: Path
) -> None:
    """The disk speed measured once (here by `hw --measure-disk`; the window's Measure button
    does the same) is what a plain probe reports and what `fit`'s load time divides by."""
    assert main(["hw", "--measure-disk", "--json"]) == 0
    speed = json.loads(capsys.readouterr().out)["disks"][0]["read_bytes_per_s"]
    assert speed
    assert main(["hw", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["disks"][0]["read_bytes_per_s"] == pytest.approx(
        speed
    )
    assert main(["fit", "smollm2", "--json"]) == 0
    fit = json.loads(capsys.readouterr().out)
    size = smollm2_path.stat().st_size
    assert fit["load_seconds"] == pytest.approx(size / speed, rel=1e-6)
