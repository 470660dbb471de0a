"""`llm-scout calibration`: the runs behind this machine's estimates, why some do not count,
and taking them back (the same review the Hardware page shows)."""

from __future__ import annotations

import json

import pytest

from desktop.cli import main
from desktop.core.fit import CalibrationEntry, CalibrationStore, machine_fingerprint
from desktop.core.workspace import Workspace

BUSY = "other programs used 1.2 of the 2 CPUs during the answer"


def this_machine() -> str:
    profile, _name = Workspace.load().profile(None)
    return machine_fingerprint(profile)


def run(machine: str, ratio: float, t: float, busy: str | None = None) -> CalibrationEntry:
    return CalibrationEntry(
        machine=machine,
        source="run",
        model="SmolLM2 135M Instruct Q4_1",
        device="cpu",
        n_gpu_layers=0,
        n_ctx=2048,
        generated_tokens=128,
        predicted_tokens_per_s=100.0,
        measured_tokens_per_s=100.0 * ratio,
        time=t,
        busy=busy,
    )


def test_the_review_lists_the_runs_and_why_one_is_left_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["calibration"]) == 0
    assert "No runs of this machine are stored yet" in capsys.readouterr().out
    me = this_machine()
    CalibrationStore().replace(
        [
            run(me, 0.8, 3600.0),
            run(me, 0.8, 7200.0),
            run(me, 0.1, 10800.0, busy=BUSY),
            run("another", 0.3, 10900.0),
        ]
    )
    assert main(["calibration"]) == 0
    out = capsys.readouterr().out
    assert "Generation speed on the CPU: x0.80 the model's estimate, from 2 runs" in out
    assert "3 runs stored, 2 counted, 1 left out." in out
    assert f"no: made while {BUSY}" in out
    assert main(["calibration", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["machine"] == me
    assert [r["counted"] for r in document["runs"]] == [False, True, True]
    assert document["runs"][0]["left_out_kind"] == "busy"
    assert document["calibration"]["cpu_speed_factor"] == pytest.approx(0.8)


def test_undo_and_reset_take_runs_back(capsys: pytest.CaptureFixture[str]) -> None:
    me = this_machine()
    CalibrationStore().replace(
        [run(me, 0.8, 3600.0), run(me, 0.1, 7200.0), run("another", 0.3, 7300.0)]
    )
    assert main(["calibration", "--undo", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "Forgot the run of SmolLM2 135M Instruct Q4_1" in err
    assert len(json.loads(out)["runs"]) == 1
    assert main(["calibration", "--reset"]) == 0
    out, err = capsys.readouterr()
    assert "Forgot 1 run; the file before is kept as" in err
    assert "No runs of this machine are stored yet" in out
    assert [e.machine for e in CalibrationStore().load()] == ["another"]
    assert main(["calibration", "--undo"]) == 0
    assert "there is no run to forget" in capsys.readouterr().err
