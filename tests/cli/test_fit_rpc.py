"""`llm-scout fit TARGET --rpc-profile FILE@HOST:PORT`: the split across machines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop import cli
from desktop.core.hardware import CpuInfo, HardwareProfile, MemoryInfo

GIB = 1024**3


def _box(tmp_path: Path, name: str, ram: int) -> str:
    profile = HardwareProfile(
        cpu=CpuInfo(
            brand="box", arch="x86_64", physical_cores=4, logical_cores=8,
            memory_bandwidth_gbps=20.0,
        ),
        memory=MemoryInfo(total_bytes=ram, available_bytes=ram),
    )  # fmt: skip
    path = tmp_path / f"{name}.json"
    profile.save(path)
    return str(path)


def test_fit_prints_what_each_box_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big, small = _box(tmp_path, "big", 8 * GIB), _box(tmp_path, "small", 4 * GIB)
    args = ["fit", "smollm2", "--ctx", "2048", "--no-local-layers"]
    args += ["--rpc-profile", f"{big}@10.0.0.2:50052", "--rpc-profile", f"{small}@10.0.0.3:50052"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "split over this machine and 2 RPC server(s), context 2048 tokens" in out
    assert "Verdict: fits" in out
    assert "  10.0.0.2:50052: 20 layers, " in out
    assert "  10.0.0.3:50052: 10 layers, " in out
    assert "llama.cpp: --rpc 10.0.0.2:50052,10.0.0.3:50052 -ngl 30 --tensor-split 20,10\n" in out
    assert "network: 4 transfers per token" in out

    assert cli.main([*args, "--json", "--link-gbps", "0.1", "--link-latency-ms", "5"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [m["n_layers"] for m in document["machines"]] == [0, 20, 10]
    assert document["tensor_split"] == [20, 10]
    assert document["network"]["seconds_per_token"] > 0.02  # four 5 ms transfers
    assert document["tokens_per_s"] < document["tokens_per_s_without_network"]


def test_fit_refuses_a_bad_box(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    box = _box(tmp_path, "box", 8 * GIB)
    assert cli.main(["fit", "smollm2", "--rpc-profile", f"{box}@nohost"]) == 1
    assert "HOST:PORT" in capsys.readouterr().err
    assert cli.main(["fit", "smollm2", "--rpc-profile", "10.0.0.2:50052"]) == 1
    assert "PROFILE.json@HOST:PORT" in capsys.readouterr().err
    args = ["fit", "smollm2", "--rpc-profile", f"{box}@h:1", "--link-gbps", "0"]
    assert cli.main(args) == 2
    assert "--link-gbps must be positive" in capsys.readouterr().err
