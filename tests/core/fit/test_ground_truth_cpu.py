"""The fit against the CPU ground truth measured here (tests/fixtures/ground_truth/cpu-2core-dev,
written by benchmarks/ground_truth.py): random-weight models of eight shapes and the two demo
files, each load a fresh llama.cpp process.

- Memory: the memory constants were fitted on other models (benchmarks/RESULTS.md), so every
  cell is held out: peak RSS within -5%..+10%.
- Speed: the CPU decode constants (speed.py) are fitted on the shapes marked ``fit`` (two dense
  llama shapes in five quants, MHA phi3, sliding-window gemma2, a Mixtral-style MoE; 27 cells);
  those rows stay within the error the fit left (-8.2%..+12.1%: a regression test of the fit),
  every other shape (q/k norms, biases, a Qwen3-style MoE, the two demo files) within 25% (held
  out). Only cells measured while llama.cpp's threads had the CPUs count (``fit_targets.quiet``).
- The graph: llama.cpp's one-token graph has the node count the speed model uses.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop.core.fit.speed import block_nodes, outside_nodes
from tests.fixtures.fit_targets import QUIET_SHARE, GroundTruthRun, peak_rss, quiet, tg_rate

RUN = GroundTruthRun.load()
# The fit rows' error when the constants were fitted (-8.2%..+12.1%), with 2 points of slack.
FIT_BOUNDS = (-0.102, 0.141)


def test_the_run_covers_the_shapes_and_records_its_machine() -> None:
    shapes = {RUN.targets[c["model"]]["shape"] for c in RUN.cells}
    assert {"dense-gqa-deep", "mha-phi3", "swa-gemma2", "moe-mixtral", "moe-qwen3"} <= shapes
    assert {RUN.targets[m]["quant"] for m in RUN.targets} >= {"F16", "Q8_0", "Q4_K_M"}
    assert RUN.machine["build"]["llama_cpp_python"] == "0.3.36"
    assert RUN.profile.cpu.memory_bandwidth_gbps
    roles = {RUN.role(c["model"]) for c in RUN.speed_cells()}
    assert roles == {"fit", "held-out"}
    for cell in RUN.cells:
        assert (RUN.path / "logs" / f"{cell['id']}.log").is_file()


@pytest.mark.parametrize("cell", RUN.memory_cells(), ids=lambda c: c["id"])
def test_peak_rss_is_predicted(cell: dict[str, Any]) -> None:
    result = RUN.predict(cell)
    error = result.ram_bytes / peak_rss(cell) - 1
    assert -0.05 <= error <= 0.10, f"{result.ram_bytes:,} predicted, {peak_rss(cell):,} measured"


@pytest.mark.parametrize("cell", RUN.speed_cells(), ids=lambda c: c["id"])
def test_generation_speed_is_predicted(cell: dict[str, Any]) -> None:
    result = RUN.predict(cell)
    assert result.tokens_per_s is not None
    error = result.tokens_per_s / tg_rate(cell) - 1
    low, high = FIT_BOUNDS if RUN.role(cell["model"]) == "fit" else (-0.25, 0.25)
    measured = tg_rate(cell)
    assert low <= error <= high, f"{result.tokens_per_s:.1f} predicted, {measured:.1f} measured"


def test_only_cells_of_a_quiet_machine_are_checked() -> None:
    checked = RUN.speed_cells()
    assert checked
    assert all(quiet(c) for c in checked)
    assert all(r["tg_cpu_share"] >= QUIET_SHARE for c in checked for r in c["runs"])
    # Cells measured while other work ran: four without a CPU share, at a 1-minute load of 5-7
    # (under-load/), and cells whose threads got 30-60% of the CPUs.
    lines = (RUN.path / "under-load" / "cells.jsonl").read_text(encoding="utf-8").splitlines()
    loaded = [json.loads(line) for line in lines if '"record": "cell"' in line]
    assert loaded
    assert not any(quiet(c) for c in loaded)
    busy = {
        "runs": [{"tg_tok_s": 5.7, "tg_cpu_share": 0.51}, {"tg_tok_s": 23, "tg_cpu_share": 0.9}]
    }
    assert not quiet(busy)  # one busy round makes the cell busy
    calm = {"runs": [{"tg_tok_s": 99.0, "tg_cpu_share": 0.89}], "loadavg_before": [4.5]}
    assert quiet(calm)  # the share is measured; the load average counts other programs' waits


@pytest.mark.parametrize("key", sorted(RUN.census()))
def test_the_graph_has_the_nodes_the_model_counts(key: str) -> None:
    found = RUN.census()[key]
    arch = RUN.target(found["model"]).arch
    assert found["tg_ops_total"] == arch.n_layers * block_nodes(arch) + outside_nodes(arch)
    assert found["tg_splits"] == 1  # CPU only: one split, nothing copied
