"""What running a model in a worker process costs, next to llama-cpp-python in-process.

Same model, threads, context, prompt, sampling and seed, 200 generated tokens (end of
generation ignored so both sides generate exactly 200):

- A: bare llama-cpp-python in this process: ``Llama.generate`` streaming token by token, each
  token turned into bytes (what any streaming front end must do at least);
- B: the same model in an engine worker, through ``EngineClient`` (JSON lines over pipes, text
  batched every 40 ms, memory sampled at 8 Hz).

A and B alternate, ``--pairs`` pairs per demo model; the table prints per-pair ratios and their
median (``--control`` adds a second in-process run A2 after each pair: the spread of A2/A is
the machine's noise floor). Generation tokens/s is ``(n - 1) / (t_last - t_first)`` on both
sides (for B, the arrival times at the client); TTFT is call (A) or request sent (B) to first
token. Targets:
B/A generation tokens/s >= 0.98 and TTFT overhead <= 15 ms (medians). Worker spawn and load
time are printed too. Runs are separated by a short pause (see ``SETTLE_S``).

Run: ``.venv/bin/python benchmarks/engine_overhead.py [--pairs 5] [--tokens 200] [--control]``
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import median, print_markdown_table
from desktop.core import demo
from desktop.core.engine import EngineClient
from desktop.core.engine import protocol as p
from desktop.core.engine.cpu_threads import physical_cores

N_CTX = 1024
PROMPT = (
    "Write a short story about a lighthouse keeper who finds a message in a bottle. "
    "Describe the sea, the weather and what the message says."
)
TARGET_RATIO = 0.98
# Pause between runs: llama.cpp's OpenMP threads keep spinning for a moment after a decode,
# and on a 2-core machine the idle side's spinning threads would slow the side that runs next.
SETTLE_S = 0.5
TTFT_HEADERS = ("A TTFT ms", "B TTFT ms", "TTFT +ms")
SUMMARY_TTFT_HEADERS = ("median TTFT +ms", "target", "same text")
TARGET_TTFT_MS = 15.0


@dataclass(frozen=True)
class Sample:
    tokens_per_s: float
    ttft_ms: float
    text: str


def run_in_process(llm: Any, tokens: list[int], n_tokens: int, seed: int) -> Sample:
    """A: llama-cpp-python's own streaming loop, in this process."""
    llm.reset()
    llm.set_seed(seed)
    pieces: list[bytes] = []
    times: list[float] = []
    started = time.perf_counter()
    generator = llm.generate(tokens, top_k=40, top_p=0.95, min_p=0.05, temp=0.8)
    for token in generator:
        times.append(time.perf_counter())
        pieces.append(llm.detokenize([token]))
        if len(times) == n_tokens:
            break
    generator.close()
    rate = (len(times) - 1) / (times[-1] - times[0])
    return Sample(rate, (times[0] - started) * 1000.0, b"".join(pieces).decode("utf-8", "ignore"))


def run_in_worker(client: EngineClient, tokens: list[int], n_tokens: int, seed: int) -> Sample:
    """B: the same generation through the worker and the client."""
    params = p.SamplingParams(
        temperature=0.8,
        top_k=40,
        top_p=0.95,
        min_p=0.05,
        seed=seed,
        max_tokens=n_tokens,
        ignore_eos=True,
    )
    request = client.generate(prompt_tokens=tokens, params=params, cache_prompt=False)
    event = request.wait(600)
    if not isinstance(event, p.Done):
        raise SystemExit(f"worker generation failed: {event}")
    metrics = request.meter.finish()
    assert metrics.tokens_per_s is not None
    assert metrics.ttft_ms is not None
    assert metrics.generated_tokens == n_tokens
    return Sample(metrics.tokens_per_s, metrics.ttft_ms, request.text)


def bench_model(
    name: str, path: Path, pairs: int, n_tokens: int, with_control: bool
) -> dict[str, Any]:
    import llama_cpp

    threads = physical_cores()
    started = time.perf_counter()
    client = EngineClient()
    client.start()
    spawn_ms = (time.perf_counter() - started) * 1000.0
    loaded = client.load_model(path, n_ctx=N_CTX, n_threads=threads, timeout=600)
    worker_ready_ms = (time.perf_counter() - started) * 1000.0
    t0 = time.perf_counter()
    llm = llama_cpp.Llama(
        str(path), n_ctx=N_CTX, n_threads=threads, n_threads_batch=threads, verbose=False
    )
    in_process_load_ms = (time.perf_counter() - t0) * 1000.0
    tokens = llm.tokenize(PROMPT.encode(), add_bos=True, special=True)
    rows: list[list[object]] = []
    ratios: list[float] = []
    controls: list[float] = []
    overheads: list[float] = []
    same_text = True
    try:
        # One unmeasured warm-up each (first decodes fault pages in and start thread pools).
        run_in_process(llm, tokens, 8, seed=0)
        run_in_worker(client, tokens, 8, seed=0)
        for i in range(pairs):
            seed = 100 + i
            if i % 2 == 0:
                a = run_in_process(llm, tokens, n_tokens, seed)
                time.sleep(SETTLE_S)
                b = run_in_worker(client, tokens, n_tokens, seed)
            else:
                b = run_in_worker(client, tokens, n_tokens, seed)
                time.sleep(SETTLE_S)
                a = run_in_process(llm, tokens, n_tokens, seed)
            time.sleep(SETTLE_S)
            control = run_in_process(llm, tokens, n_tokens, seed) if with_control else None
            if control is not None:
                time.sleep(SETTLE_S)
                controls.append(control.tokens_per_s / a.tokens_per_s)
            same_text = same_text and a.text == b.text
            ratio = b.tokens_per_s / a.tokens_per_s
            overhead = b.ttft_ms - a.ttft_ms
            ratios.append(ratio)
            overheads.append(overhead)
            order = "A,B" if i % 2 == 0 else "B,A"
            row = [name, i + 1, order, a.tokens_per_s, b.tokens_per_s, ratio]
            row += [controls[-1] if control is not None else "-"]
            rows.append([*row, a.ttft_ms, b.ttft_ms, overhead])
    finally:
        llm.close()
        client.close()
    return {
        "name": name,
        "rows": rows,
        "ratio": median(ratios),
        "control": median(controls) if controls else None,
        "overhead": median(overheads),
        "spawn_ms": spawn_ms,
        "load_ms": loaded.load_ms,
        "worker_ready_ms": worker_ready_ms,
        "in_process_load_ms": in_process_load_ms,
        "same_text": same_text,
        "threads": threads,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="A/B pairs per model (>= 5)")
    parser.add_argument("--tokens", type=int, default=200, help="generated tokens per run")
    parser.add_argument(
        "--control",
        action="store_true",
        help="also repeat A after each pair: A2/A shows the noise floor of this machine",
    )
    args = parser.parse_args(argv)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    sys.stdout.write(
        f"engine_overhead: {platform.machine()} {os.cpu_count()} logical CPUs, "
        f"{physical_cores()} physical; load average {load[0]:.2f}; n_ctx {N_CTX}; "
        f"{args.tokens} tokens; {args.pairs} pairs per model\n\n"
    )
    results = [
        bench_model(model.key, model.path, args.pairs, args.tokens, args.control)
        for model in demo.demo_models(assemble=True)
    ]
    print_markdown_table(
        [*("model", "pair", "order", "A t/s", "B t/s", "B/A", "A2/A"), *TTFT_HEADERS],
        [row for result in results for row in result["rows"]],
    )
    sys.stdout.write("\n")
    print_markdown_table(
        [*("model", "median B/A t/s", "target", "median A2/A"), *SUMMARY_TTFT_HEADERS],
        [
            [
                r["name"],
                r["ratio"],
                "ok" if r["ratio"] >= TARGET_RATIO else f"MISSED (< {TARGET_RATIO})",
                "-" if r["control"] is None else r["control"],
                r["overhead"],
                "ok" if r["overhead"] <= TARGET_TTFT_MS else f"MISSED (> {TARGET_TTFT_MS:.0f})",
                "yes" if r["same_text"] else "NO",
            ]
            for r in results
        ],
    )
    sys.stdout.write("\n")
    headers = ["model", "threads", "spawn ms", "load ms (worker)", "spawn + load ms"]
    print_markdown_table(
        [*headers, "load ms (in-process)"],
        [
            [r[key] for key in ("name", "threads", "spawn_ms", "load_ms", "worker_ready_ms")]
            + [r["in_process_load_ms"]]
            for r in results
        ],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
