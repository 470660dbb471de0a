"""`llm-scout history`: results made on "a Raspberry Pi 5" travel to "a laptop" in one file.

The Pi is this machine's CPU running the real SmolLM2 demo model in a data folder of its own,
with the hardware probe reading a fake Pi 5 /proc tree (the lowest level at which another
machine can be had here); the laptop is a second data folder probed for real. The bundle made
on the Pi is imported on the laptop: its answers and comparison show in ``history list`` under
the Pi's name, ``history across`` puts the Pi beside the laptop for the same model and
settings, and ``fit --profile`` for the Pi is calibrated by the Pi's own runs. Damaged,
foreign and newer files are refused with one sentence and change nothing.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from desktop.cli import main
from desktop.core import workspace as workspace_module
from desktop.core.hardware import probe
from desktop.core.history import History
from tests.core.hardware.test_sysfs import PI5_CPUINFO
from tests.fixtures.fake_sysfs import FakeRoot

RUN = [
    "run",
    "smollm2",
    "--prompt",
    "Tell a long story about a lighthouse keeper and the sea.",
    "--max-tokens",
    "24",
    "--ctx",
    "512",
    "--temp",
    "0",
    "--seed",
    "1",
    "--json",
]
GIB_KB = 1024 * 1024


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    yield
    children = psutil.Process().children(recursive=True)
    assert not children, f"processes left behind: {children}"


def call(argv: list[str], capsys: pytest.CaptureFixture[str], code: int = 0) -> tuple[str, str]:
    result = main(argv)
    out, err = capsys.readouterr()
    assert result == code, err
    return out, err


def as_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    return json.loads(call(argv, capsys)[0])


def pi_root(folder: Path) -> Path:
    """A Raspberry Pi 5 with 8 GB as its /proc shows it."""
    fake = FakeRoot(folder)
    fake.write("/proc/cpuinfo", PI5_CPUINFO)
    fake.meminfo(8 * GIB_KB, 7 * GIB_KB)
    fake.write("/proc/device-tree/model", "Raspberry Pi 5 Model B Rev 1.0\x00")
    return folder


def db_counts() -> tuple[int, int, int]:
    with History.open() as history:
        rows = history._read(
            "SELECT (SELECT COUNT(*) FROM runs) AS r, (SELECT COUNT(*) FROM comparisons) AS c, "
            "(SELECT COUNT(*) FROM machine_calibration) AS k"
        )
    return int(rows[0]["r"]), int(rows[0]["c"]), int(rows[0]["k"])


@pytest.mark.e2e
def test_results_made_on_a_pi_show_on_the_laptop(
    demo_paths: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # -- on the Pi ----------------------------------------------------------------------------
    monkeypatch.setenv("LLM_SCOUT_HOME", str(tmp_path / "pi-home"))
    fake_probe = functools.partial(probe, root=pi_root(tmp_path / "pi-root"), system="Linux")
    monkeypatch.setattr(workspace_module, "probe", fake_probe)
    pi_runs = [as_json(RUN, capsys) for _ in range(2)]
    assert all(r["generated_tokens"] >= 16 for r in pi_runs)  # enough to calibrate the speed
    out, err = call(
        [
            "compare",
            "--models",
            "smollm2",
            "smollm2@temp=0.7",
            "--prompt",
            "Name a river.",
            "--max-tokens",
            "6",
            "--ctx",
            "1024",  # other settings than the runs': across machines keeps them apart
            "--quiet",
        ],
        capsys,
    )
    assert err == ""  # --quiet: no progress lines
    pi_list = as_json(["history", "list", "--json"], capsys)
    assert {r["machine"] for r in pi_list} == {"this machine"}
    assert sorted(r["kind"] for r in pi_list) == ["comparison", "run", "run"]
    bundle = tmp_path / "from-pi.jsonl"
    out, _ = call(["history", "export", "--name", "kitchen-pi", "--out", str(bundle)], capsys)
    assert out.startswith(f"Wrote {bundle} (")
    assert "from kitchen-pi: 2 answers, 1 comparison (2 answers)" in out
    assert "2 calibration runs" in out
    header = json.loads(bundle.read_text(encoding="utf-8").splitlines()[0])
    assert header["machine"]["name"] == "kitchen-pi"
    assert header["llama_cpp"]["llama_cpp_version"]  # the build the answers ran on
    pi_machine = json.loads(bundle.read_text(encoding="utf-8").splitlines()[1])
    assert pi_machine["profile"]["cpu"]["brand"] == "ARM Cortex-A76"
    assert pi_machine["profile"]["calibration"]["runs"] == 2  # as `hw --save` writes it

    # -- on the laptop --------------------------------------------------------------------------
    monkeypatch.setattr(workspace_module, "probe", probe)
    monkeypatch.setenv("LLM_SCOUT_HOME", str(tmp_path / "laptop-home"))
    laptop_run = as_json(RUN, capsys)
    out, _ = call(["history", "import", str(bundle)], capsys)
    assert out == ("Imported from kitchen-pi: 2 answers, 1 comparison, 2 calibration runs.\n")
    before = db_counts()
    out, _ = call(["history", "import", str(bundle)], capsys)
    assert out == f"Nothing new in {bundle.name}: everything in it is already here.\n"
    assert db_counts() == before

    # History: every record names its machine; the filter keeps the Pi's.
    listing = as_json(["history", "list", "--json"], capsys)
    assert sorted(r["machine"] for r in listing) == [
        "kitchen-pi",
        "kitchen-pi",
        "kitchen-pi",
        "this machine",
    ]
    from_pi = as_json(["history", "list", "--machine", "kitchen-pi", "--json"], capsys)
    assert sorted(r["kind"] for r in from_pi) == ["comparison", "run", "run"]
    rates = sorted(r["generation_tokens_per_s"] for r in from_pi if r["kind"] == "run")
    assert rates == sorted(r["generation_tokens_per_s"] for r in pi_runs)
    out, _ = call(["history", "list", "--machine", "kitchen-pi"], capsys)
    assert "kitchen-pi" in out
    assert "this machine" not in out
    out, err = call(["history", "list", "--machine", "jetson"], capsys, code=1)
    assert err.startswith("llm-scout: No machine 'jetson' in the history")
    machines = as_json(["history", "machines", "--json"], capsys)
    assert [(m["machine"], m["runs"], m["comparisons"]) for m in machines] == [
        ("this machine", 1, 0),
        ("kitchen-pi", 4, 1),
    ]
    assert machines[1]["profile"]["cpu"]["brand"] == "ARM Cortex-A76"
    assert machines[1]["calibration"]["runs"] == 2

    # Across machines: the same model and settings, the laptop's figures beside the Pi's.
    across = as_json(["history", "across", "smollm2", "--json"], capsys)
    assert across["model"] == "SmolLM2 135M Instruct Q4_1"
    assert across["settings"]["n_ctx"] == 512
    here, pi = across["machines"]
    assert (here["machine"], pi["machine"]) == ("this machine", "kitchen-pi")
    assert here["generation_tokens_per_s"] == laptop_run["generation_tokens_per_s"]
    assert pi["generation_tokens_per_s"] == statistics.median(
        r["generation_tokens_per_s"] for r in pi_runs
    )
    assert pi["runs"] == 2
    assert pi["profile"]["memory"]["total_bytes"] == 8 << 30
    out, _ = call(["history", "across", "smollm2"], capsys)
    assert "this machine" in out
    assert "kitchen-pi" in out
    assert "kitchen-pi: ARM Cortex-A76 x4 · 8.0 GiB RAM" in out

    # The calibrated what-if: the Pi's estimates use its measured speed.
    raw = as_json(["fit", "smollm2", "--profile", "kitchen-pi", "--uncalibrated", "--json"], capsys)
    fit = as_json(["fit", "smollm2", "--profile", "kitchen-pi", "--json"], capsys)
    assert fit["calibration"]["source"] == "profile"
    assert fit["calibration"]["runs"] == 2
    factor = fit["calibration"]["speed_factor"]
    if factor is not None:
        assert fit["tokens_per_s"] == pytest.approx(raw["tokens_per_s"] * factor)
    else:  # a machine so busy its speeds were outliers: the RAM the runs measured still counts
        assert fit["calibration"]["ram_offset_bytes"] is not None
        assert fit["ram_bytes"] == raw["ram_bytes"] + fit["calibration"]["ram_offset_bytes"]
    out, _ = call(["fit", "smollm2", "--profile", "kitchen-pi"], capsys)
    assert "on kitchen-pi" in out
    assert "calibrated on the profile's machine from 2 runs" in out

    # -- files that are not a good bundle: one sentence, nothing imported ------------------------
    data = bundle.read_bytes()
    before = db_counts()
    cases = {
        "cut.jsonl": (data[: len(data) // 2], "is incomplete (it was cut short)"),
        "changed.jsonl": (
            data.replace(b'"kitchen-pi"', b'"kitchen-px"', 1),
            "checksum does not match",
        ),
        "profile.json": (b'{"cpu": {}, "memory": {}}\n', "is not an LLM Scout results file"),
        "newer.jsonl": (
            data.replace(b'"version":1', b'"version":7', 1),
            "was written by a newer LLM Scout (results format 7",
        ),
    }
    for name, (content, words) in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        _, err = call(["history", "import", str(path)], capsys, code=1)
        assert err.startswith(f"llm-scout: {name} ")
        assert words in err
        assert err.count("\n") == 1
        assert db_counts() == before


def test_export_and_import_explain_what_they_cannot_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, err = call(["history", "export", "--since", "last tuesday"], capsys, code=2)
    assert "--since takes a date like 2025-06-01" in err
    _, err = call(["history", "export", "--name", "this machine"], capsys, code=2)
    assert "names the computer that reads the results" in err
    _, err = call(["history", "import", str(tmp_path)], capsys, code=2)
    assert "is a folder" in err
    _, err = call(["history", "import", str(tmp_path / "nowhere.jsonl")], capsys, code=1)
    assert err.startswith("llm-scout: Cannot read ")
    _, err = call(["history", "across", "qwen"], capsys, code=1)
    assert "No answers of a model 'qwen' are stored" in err
    out, err = call(["history", "list"], capsys)
    assert out == ""
    assert err == "Nothing stored matches.\n"


@pytest.mark.e2e  # the export starts an engine worker once to name the llama.cpp build
def test_an_empty_history_exports_this_machine_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "empty.jsonl"
    document = as_json(["history", "export", "--name", "bare", "--out", str(out), "--json"], capsys)
    assert document["machine"] == "bare"
    assert document["counts"]["runs"] == 0
    assert document["counts"]["machines"] == 1
    assert document["size_bytes"] == out.stat().st_size
    since = as_json(
        ["history", "export", "--out", str(out), "--since", "2024-01-02", "--json",
         "--kind", "comparisons", "--name", "bare"],
        capsys,
    )  # fmt: skip
    assert since["kinds"] == ["comparisons"]
    assert since["since"] == pytest.approx(dt.datetime(2024, 1, 2).timestamp())


@pytest.mark.e2e
def test_an_imported_comparison_shows_its_quality_check_as_it_ran(
    demo_paths: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("LLM_SCOUT_HOME", str(tmp_path / "pi-home"))
    argv = ["compare", "--models", "smollm2", "smollm2@temp=0.7", "--prompt", "Name a river."]
    argv += ["--max-tokens", "4", "--ctx", "512", "--quiet", "--json"]
    ran = as_json([*argv, "--quality", "items", "--quality-limit", "1"], capsys)
    results = ran["quality"]["results"]
    assert [r["status"] for r in results] == ["done", "done"]
    bundle = tmp_path / "from-pi.jsonl"
    # The comparisons alone: their quality results go with them.
    call(["history", "export", "--name", "kitchen-pi", "--kind", "comparisons", "--out",
          str(bundle)], capsys)  # fmt: skip

    monkeypatch.setenv("LLM_SCOUT_HOME", str(tmp_path / "laptop-home"))
    call(["history", "import", str(bundle)], capsys)
    listing = as_json(["history", "list", "--json"], capsys)
    (listed,) = [r for r in listing if r["kind"] == "comparison"]
    shown = as_json(["compare", "--show", str(listed["id"]), "--json"], capsys)
    assert [(r["status"], r["value"], r["count"]) for r in shown["quality"]["results"]] == [
        (r["status"], r["value"], r["count"]) for r in results
    ]
    out, _ = call(["compare", "--show", str(listed["id"])], capsys)
    assert "not measured" not in out
