"""Quality measurement: its speed next to `llm-scout bench`, and whether its numbers are right.

On one demo model (``--model smollm2`` or ``gemma3``, or a GGUF path), in one run:

1. Speed. ``--rounds`` rounds, each running (in alternating order) `llm-scout bench`'s prompt
   processing (``run_bench``, pp512, the same threads) and the model pass of a loss
   measurement against its own reference pack on the shipped English text (512-token chunks).
   Evaluation tokens/s are the tokens that went through the model over the wall time of the
   chunks as the app sees them (IPC, scoring the logits and decoding the arrays included);
   bench's are llama.cpp's prompt-eval time. Headline: the median of the per-round ratios
   eval / bench, target >= 0.9. Each round also measures the ceiling of that ratio on this
   machine: one ``llama_decode`` of the pack's first chunk with logits for its last position only
   (what bench's pp computes) against the same decode with logits for the scored half (what an
   evaluation must compute), in llama-cpp-python in this process with the worker's settings.
   eval / ceiling is then the share of llama.cpp's own speed that the app keeps.
2. The model against its own pack: KL divergence exactly 0 (target |x| < 1e-6).
3. The model requantized to Q8_0, Q4_K_M, Q3_K_S and Q2_K (from the demo file itself, so the
   reference is that file): KL divergence and ΔPPL must rise in that order and the same-top-token
   rate fall. The Q2_K rung is made ``--pure``: on the demo models llama.cpp's Q2_K *mix* holds no
   Q2_K tensor (the rows that could hold one get Q3_K, the rest fall back) and is the Q3_K_S file
   again. That mix is scored too, beside the ladder, and every file's tensors are counted by type.
4. Perplexity against a plain full-vocabulary softmax in NumPy (float64) on the same chunks,
   through llama-cpp-python with every logit kept: target within 0.1%. The top-k KL divergence
   beside the full-vocabulary one, for each quant (the pack keeps the reference's top 32).
5. The pack's size per 1,000 scored tokens (target <= 2 MB).

Run: ``.venv/bin/python benchmarks/quality_eval.py [--model smollm2] [--rounds 4] [--threads N]``
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import median, median_interval, print_markdown_table
from desktop.core import demo
from desktop.core.engine import BenchSettings, LoadSettings, default_threads, run_bench
from desktop.core.quality import (
    LossResult,
    LossSettings,
    ReferencePack,
    load_text,
    make_pack,
    quantize_model,
    read_pack,
    score_against_pack,
    write_pack,
)

# (label, type, pure): the four types, coarsest last.
LADDER = (
    ("Q8_0", "Q8_0", False),
    ("Q4_K_M", "Q4_K_M", False),
    ("Q3_K_S", "Q3_K_S", False),
    ("Q2_K pure", "Q2_K", True),
)
BESIDE = (("Q2_K mix", "Q2_K", False),)
TARGET_RATIO = 0.9
SETTLE_S = 1.0


def _model(spec: str) -> Path:
    if spec == "smollm2":
        return demo.smollm2_path()
    if spec == "gemma3":
        return demo.gemma3_path(assemble=True)
    return Path(spec)


def _score(model: Path, pack_path: Path, settings: LossSettings, label: str) -> LossResult:
    return score_against_pack(
        model,
        read_pack(pack_path),
        settings,
        model_label=label,
        reference_path=str(pack_path),
        reference_kind="pack",
    )


def _bench_pp(model: Path, threads: int, ctx: int) -> float:
    load = LoadSettings(n_ctx=ctx + 16, n_threads=threads)
    result = run_bench(model, load, BenchSettings(pp=ctx, tg=2, repetitions=2), label=model.name)
    return result.stat("pp_tokens_per_s")[0]


def _llama(model: Path, pack: ReferencePack, threads: int, *, logits_all: bool = False) -> Any:
    """``model`` in llama-cpp-python in this process, for the pack's chunks (the worker's
    settings: one decode per chunk, ``threads`` for it)."""
    from llama_cpp import Llama

    ctx = pack.header.ctx
    return Llama(
        model_path=str(model),
        n_ctx=ctx,
        n_batch=ctx,
        n_threads=threads,
        n_threads_batch=threads,
        logits_all=logits_all,
        verbose=False,
    )


def decode_ceiling(model: Path, pack: ReferencePack, threads: int, reps: int = 3) -> float:
    """The median over ``reps`` alternating pairs of (tokens/s of one decode of the pack's first
    chunk with the scored half's logits) / (the same decode with the last position's logit)."""
    import llama_cpp as lc

    h = pack.header
    llm = _llama(model, pack, threads)
    batch = lc.llama_batch_init(h.ctx, 0, 1)
    tokens = pack.tokens[0]

    def seconds(first_logit: int) -> float:
        lc.llama_memory_clear(lc.llama_get_memory(llm.ctx), True)
        for i, token in enumerate(tokens.tolist()):
            batch.token[i], batch.pos[i], batch.n_seq_id[i] = token, i, 1
            batch.seq_id[i][0] = 0
            batch.logits[i] = i >= first_logit
        batch.n_tokens = len(tokens)
        t = time.perf_counter()
        if lc.llama_decode(llm.ctx, batch) != 0:
            raise RuntimeError("llama_decode failed")
        lc.llama_synchronize(llm.ctx)
        return time.perf_counter() - t

    try:
        seconds(len(tokens) - 1)  # warm-up
        ratios = []
        for i in range(reps):
            if i % 2 == 0:
                one_row = seconds(len(tokens) - 1)
                scored = seconds(h.first_output)
            else:
                scored = seconds(h.first_output)
                one_row = seconds(len(tokens) - 1)
            ratios.append(one_row / scored)  # speeds: scored / one row
        return median(ratios)
    finally:
        lc.llama_batch_free(batch)
        llm.close()


def speed(model: Path, pack_path: Path, settings: LossSettings, rounds: int) -> list[float]:
    threads = default_threads(settings.n_threads)
    pack = read_pack(pack_path)
    rows, ratios, ceilings = [], [], []
    for i in range(rounds):
        order = ("bench", "eval", "ceiling") if i % 2 == 0 else ("ceiling", "eval", "bench")
        values: dict[str, float] = {}
        for side in order:
            time.sleep(SETTLE_S)
            if side == "bench":
                values["bench"] = _bench_pp(model, threads, settings.ctx)
            elif side == "eval":
                values["eval"] = _score(model, pack_path, settings, model.name).tokens_per_s
            else:
                values["ceiling"] = decode_ceiling(model, pack, threads)
        ratio = values["eval"] / values["bench"]
        ratios.append(ratio)
        ceilings.append(values["ceiling"])
        rows.append(
            (
                i + 1,
                " then ".join(order),
                values["bench"],
                values["eval"],
                ratio,
                values["ceiling"],
                ratio / values["ceiling"],
            )
        )
        print(
            f"round {i + 1}: bench pp {values['bench']:.1f} t/s, eval {values['eval']:.1f} t/s, "
            f"ratio {ratio:.3f}, decode ceiling {values['ceiling']:.3f}",
            file=sys.stderr,
        )
    print_markdown_table(
        (
            "round",
            "order",
            "bench pp t/s",
            "eval t/s",
            "eval / bench",
            "ceiling: decode with the scored logits / with one",
            "eval / bench / ceiling",
        ),
        rows,
    )
    low, high = median_interval(ratios)
    print()
    print_markdown_table(
        ("median ratio", "95% interval of the median", "median ceiling", "target", "met"),
        [
            (
                median(ratios),
                f"{low:.3f} – {high:.3f}",
                median(ceilings),
                f">= {TARGET_RATIO}",
                "yes" if median(ratios) >= TARGET_RATIO else "no",
            )
        ],
    )
    return ratios


def full_softmax(model: Path, pack: ReferencePack, threads: int) -> tuple[np.ndarray, np.ndarray]:
    """Per scored position: NLL of the true token, and the full log-probabilities' rows, from
    llama-cpp-python with every logit kept (float64 log-softmax over the whole vocabulary)."""
    h = pack.header
    llm = _llama(model, pack, threads, logits_all=True)
    nll, rows = [], []
    positions = np.arange(h.first_output, h.first_output + h.n_outputs)
    for chunk in pack.tokens:
        llm.reset()
        llm.eval(chunk.tolist())
        x = np.asarray(llm.scores[positions], dtype=np.float64)
        x -= x.max(axis=1, keepdims=True)
        lp = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
        nll.append(-lp[np.arange(len(positions)), chunk[positions + 1]])
        rows.append(lp.astype(np.float32))
    llm.close()
    return np.concatenate(nll), np.concatenate(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--ctx", type=int, default=512)
    parser.add_argument("--text", default="en")
    parser.add_argument("--work-dir", type=Path, default=None)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-numpy", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    model = _model(args.model)
    threads = default_threads(args.threads)
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="quality-eval-"))
    work.mkdir(parents=True, exist_ok=True)
    settings = LossSettings(ctx=args.ctx, n_threads=threads)
    machine = platform.processor() or platform.machine()
    load = "/".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"# quality_eval: {model.name}, {threads} threads, {machine}, {time.strftime('%F %R')}, "
        f"load average {load} (1/5/15 min) at the start\n"
    )

    text = load_text(args.text)
    pack_path = work / f"{model.stem}-{args.text}-{args.ctx}.refpack"
    if not pack_path.exists():
        started = time.monotonic()
        pack = make_pack(model, text, settings, label=model.name)
        write_pack(pack, pack_path)
        print(f"reference pass: {time.monotonic() - started:.1f} s", file=sys.stderr)
    pack = read_pack(pack_path)
    size = pack_path.stat().st_size
    print_markdown_table(
        ("pack", "chunks", "scored tokens", "bytes", "bytes per 1,000 tokens", "target"),
        [
            (
                pack_path.name,
                pack.header.chunks,
                pack.scored_tokens,
                size,
                round(size * 1000 / pack.scored_tokens),
                "<= 2,000,000",
            )
        ],
    )
    print()

    if not args.skip_speed:
        speed(model, pack_path, settings, args.rounds)
        print()

    self_result = _score(model, pack_path, settings, model.name)
    rows = [
        (
            "itself (" + model.name + ")",
            self_result.kld,
            self_result.kld_max,
            self_result.same_top_token,
            self_result.delta_ppl,
            self_result.ppl,
        )
    ]
    results: dict[str, LossResult] = {}
    quants: dict[str, Path] = {}
    mixes: list[tuple[object, ...]] = []
    for label, qtype, pure in LADDER + BESIDE:
        out = work / f"{model.stem}-{qtype}{'-pure' if pure else ''}.gguf"
        out.unlink(missing_ok=True)
        made = quantize_model(model, qtype, out, n_threads=threads, pure=pure)
        mixes.append((label, ", ".join(f"{n} {name}" for name, n in made.tensor_types)))
        quants[label] = out
        results[label] = r = _score(out, pack_path, settings, out.name)
        rows.append((label, r.kld, r.kld_max, r.same_top_token, r.delta_ppl, r.ppl))
    print_markdown_table(("file", "tensors by type"), mixes)
    print()
    print_markdown_table(("model", "KLD", "KLD max", "same top token", "ΔPPL", "PPL"), rows)
    print()
    ci_rows = []
    for qtype, r in results.items():
        kld_ci = f"{r.kld_ci[0]:.5f} – {r.kld_ci[1]:.5f}" if r.kld_ci else "-"
        dppl_ci = f"{r.delta_ppl_ci[0]:+.3f} – {r.delta_ppl_ci[1]:+.3f}" if r.delta_ppl_ci else "-"
        same_ci = (
            f"{r.same_top_token_ci[0]:.3f} – {r.same_top_token_ci[1]:.3f}"
            if r.same_top_token_ci
            else "-"
        )
        ci_rows.append(
            (
                qtype,
                f"{r.kld:.5f}",
                kld_ci,
                f"{r.delta_ppl:+.3f}",
                dppl_ci,
                f"{r.same_top_token:.3f}",
                same_ci,
            )
        )
    print_markdown_table(
        ("quant", "KLD", "95% CI", "ΔPPL", "95% CI", "same top", "95% CI"), ci_rows
    )
    rungs = [label for label, _, _ in LADDER]
    klds = [results[q].kld for q in rungs]
    dppls = [results[q].delta_ppl for q in rungs]
    same = [results[q].same_top_token for q in rungs]
    strictly = [b > a for a, b in itertools.pairwise(klds)]
    print()
    print_markdown_table(
        ("check", "result"),
        [
            ("KLD of the model against itself within ±1e-6", abs(self_result.kld) < 1e-6),
            ("KLD rises " + " < ".join(rungs), all(strictly)),
            ("ΔPPL rises in that order", dppls == sorted(dppls) and len(set(dppls)) == 4),
            (
                "same top token falls in that order",
                same == sorted(same, reverse=True) and len(set(same)) == 4,
            ),
            (
                "Q2_K mix measures as Q3_K_S (informational)",
                results["Q2_K mix"].kld == results["Q3_K_S"].kld,
            ),
        ],
    )
    print()

    if not args.skip_numpy:
        ref_nll, ref_rows = full_softmax(model, pack, threads)
        numpy_ref_ppl = math.exp(float(ref_nll.mean()))
        checks: list[tuple[object, ...]] = [
            (
                "reference (" + model.name + ")",
                self_result.reference_ppl,
                numpy_ref_ppl,
                self_result.reference_ppl / numpy_ref_ppl - 1,
                "-",
                "-",
                "-",
            )
        ]
        for qtype in rungs:
            nll, q_rows = full_softmax(quants[qtype], pack, threads)
            numpy_ppl = math.exp(float(nll.mean()))
            p = np.exp(ref_rows.astype(np.float64))
            full_kld = float((p * (ref_rows.astype(np.float64) - q_rows)).sum(axis=1).mean())
            r = results[qtype]
            checks.append(
                (
                    qtype,
                    r.ppl,
                    numpy_ppl,
                    r.ppl / numpy_ppl - 1,
                    f"{r.kld:.5f}",
                    f"{full_kld:.5f}",
                    r.kld / full_kld if full_kld else float("nan"),
                )
            )
        print_markdown_table(
            (
                "model",
                "PPL (app)",
                "PPL (numpy, full softmax)",
                "relative difference",
                f"KLD top-{pack.header.top_k}",
                "KLD full vocabulary",
                "top-k / full",
            ),
            checks,
        )
    load = "/".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nload average {load} (1/5/15 min) at the end")


if __name__ == "__main__":
    main()
