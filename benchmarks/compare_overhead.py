"""What a fair comparison costs, next to running each model alone as `llm-scout run` does.

Same two demo models, prompts, context, threads, sampling and seeds, exactly ``--tokens``
generated tokens per answer (end of generation ignored):

- A (alone): for each model, the engine's :class:`Session` (start a worker, load, generate each
  prompt, report, close) - what ``llm-scout run`` does, prompt after prompt;
- B (fair comparison): :class:`CompareRunner` in fair mode over the same models and prompts,
  storing every answer in a history database as it runs (as ``llm-scout compare`` does).

Each round runs A and B once, the order swapped every round, with a pause between runs. Per
model and round the ratio is B's median generation tokens/s over the prompts divided by A's;
the table prints each round and the median ratio over the rounds (target >= 0.97, i.e. at most
3% overhead). TTFT (median over the prompts) is shown for both sides. ``--control`` runs A once
more after each round: the spread of A2/A is this machine's noise floor.

Run: ``.venv/bin/python benchmarks/compare_overhead.py [--rounds 5] [--tokens 128] [--control]``
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import median, print_markdown_table
from desktop.core import demo
from desktop.core.compare import (
    CompareRunner,
    ComparisonPlan,
    Contestant,
    Prompt,
    unique_names,
)
from desktop.core.engine import LoadSettings, RunReport, Session
from desktop.core.engine import protocol as p
from desktop.core.engine.cpu_threads import physical_cores
from desktop.core.history import History
from desktop.core.workspace import Workspace

N_CTX = 1024
PROMPTS = (
    "Write a short story about a lighthouse keeper who finds a message in a bottle.",
    "Explain how a refrigerator keeps food cold, step by step.",
    "Describe a walk through a busy market in the morning.",
)
TARGET_RATIO = 0.97
# llama.cpp's OpenMP threads spin for a moment after a decode; on 2 cores the next run would
# pay for it (see engine_overhead.py).
SETTLE_S = 0.5


def sampling(tokens: int, seed: int) -> p.SamplingParams:
    return p.SamplingParams(max_tokens=tokens, seed=seed, ignore_eos=True)


def alone(contestant: Contestant, prompts: tuple[Prompt, ...]) -> list[RunReport]:
    """A: the model on its own, as `llm-scout run` runs it (one Session, prompt after prompt)."""
    path = contestant.model.require_file()
    reports = []
    with Session(path, contestant.load) as session:
        session.open()
        for prompt in prompts:
            request = session.generate(
                messages=(p.ChatMessage("user", prompt.text),), params=contestant.sampling
            )
            session.stream(request)
            reports.append(session.report(request))
    return reports


def fair(
    contestants: list[Contestant], prompts: tuple[Prompt, ...], history: History
) -> dict[int, list[RunReport]]:
    """B: the same through a fair comparison, stored in the history as it runs."""
    plan = ComparisonPlan(tuple(contestants), prompts, title="overhead")
    result = CompareRunner(plan, history=history).run()
    out: dict[int, list[RunReport]] = {}
    for answer in result.answers:
        assert answer.report is not None, answer.error
        out.setdefault(answer.contestant, []).append(answer.report)
    return out


def rate(reports: list[RunReport], tokens: int) -> float:
    rates = []
    for report in reports:
        assert report.metrics.generated_tokens == tokens, report.metrics.generated_tokens
        assert report.metrics.tokens_per_s is not None
        rates.append(report.metrics.tokens_per_s)
    return float(statistics.median(rates))


def ttft(reports: list[RunReport]) -> float:
    return float(statistics.median(r.metrics.ttft_ms or 0.0 for r in reports))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="A/B rounds (>= 3)")
    parser.add_argument("--tokens", type=int, default=128, help="generated tokens per answer")
    parser.add_argument(
        "--control", action="store_true", help="repeat A after each round (the noise floor)"
    )
    args = parser.parse_args(argv)
    load_avg = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    threads = physical_cores()
    sys.stdout.write(
        f"compare_overhead: {platform.machine()} {os.cpu_count()} logical CPUs, {threads} "
        f"physical; load average {load_avg[0]:.2f}; n_ctx {N_CTX}; {args.tokens} tokens; "
        f"{len(PROMPTS)} prompts; {args.rounds} rounds\n\n"
    )
    demo.demo_models(assemble=True)
    ws = Workspace.load()
    load = LoadSettings(n_ctx=N_CTX, n_threads=threads)
    prompts = tuple(Prompt(text, id=str(i + 1)) for i, text in enumerate(PROMPTS))
    rows: list[list[object]] = []
    ratios: dict[str, list[float]] = {}
    controls: dict[str, list[float]] = {}
    ttfts: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp, History(Path(tmp) / "history.db") as history:
        for r in range(args.rounds):
            params = sampling(args.tokens, seed=100 + r)
            contestants = unique_names(
                [
                    Contestant(ws.resolver.resolve(key), load, params)
                    for key in ("smollm2", "gemma3")
                ]
            )
            a: dict[int, list[RunReport]] = {}
            b: dict[int, list[RunReport]] = {}
            a2: dict[int, list[RunReport]] = {}
            order = "A,B" if r % 2 == 0 else "B,A"
            for side in order.split(","):
                if side == "A":
                    for i, contestant in enumerate(contestants):
                        a[i] = alone(contestant, prompts)
                        time.sleep(SETTLE_S)
                else:
                    b = fair(contestants, prompts, history)
                    time.sleep(SETTLE_S)
            if args.control:
                for i, contestant in enumerate(contestants):
                    a2[i] = alone(contestant, prompts)
                    time.sleep(SETTLE_S)
            for i, contestant in enumerate(contestants):
                name = contestant.display_name
                a_rate, b_rate = rate(a[i], args.tokens), rate(b[i], args.tokens)
                ratio = b_rate / a_rate
                ratios.setdefault(name, []).append(ratio)
                ttfts.setdefault(name, []).append((ttft(a[i]), ttft(b[i])))
                control: object = "-"
                if i in a2:
                    value = rate(a2[i], args.tokens) / a_rate
                    controls.setdefault(name, []).append(value)
                    control = value
                row = [name, r + 1, order, a_rate, b_rate, ratio, control]
                rows.append([*row, ttft(a[i]), ttft(b[i])])
            sys.stderr.write(f"round {r + 1} of {args.rounds} done\n")
    print_markdown_table(
        ["model", "round", "order", "A t/s", "B t/s", "B/A", "A2/A", "A TTFT ms", "B TTFT ms"],
        rows,
    )
    sys.stdout.write("\n")
    summary = []
    for name, values in ratios.items():
        value = median(values)
        summary.append(
            [
                name,
                value,
                "ok" if value >= TARGET_RATIO else f"MISSED (< {TARGET_RATIO})",
                min(values),
                max(values),
                median(controls[name]) if name in controls else "-",
                median([b - a for a, b in ttfts[name]]),
            ]
        )
    headers = ["model", "median B/A t/s", "target >= 0.97", "min B/A", "max B/A"]
    print_markdown_table([*headers, "median A2/A", "median TTFT +ms"], summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
