"""Measure one llama.cpp process: load a GGUF, generate a few tokens, report peak RSS.

Run as a fresh process per measurement (``python benchmarks/_measure_memory.py MODEL --ctx N``);
it prints one JSON object on stdout. Peak RSS is ``VmHWM`` from ``/proc/self/status``, which
counts the interpreter, the llama.cpp libraries, mapped weight pages that were touched, the KV
cache and the compute buffers; ``peak_after_load_bytes`` is the same high-water mark read right
after the load (the load's own peak). Used by ``benchmarks/fit_accuracy.py`` and the fit e2e test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

PROMPT = "The three most useful things to know about memory bandwidth are"
CACHE_TYPES = {"f16": 1, "q8_0": 8, "q4_0": 2}  # ggml_type ids


def status_kib() -> dict[str, int]:
    """The memory lines of /proc/self/status, in KiB."""
    values: dict[str, int] = {}
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            key, _, rest = line.partition(":")
            if key.startswith(("Vm", "Rss")):
                values[key] = int(rest.split()[0])
    return values


def physical_cores() -> int:
    try:
        import psutil

        return int(psutil.cpu_count(logical=False) or os.cpu_count() or 1)
    except ImportError:
        return os.cpu_count() or 1


def measure(
    model: Path,
    n_ctx: int,
    *,
    n_threads: int,
    cache_type: str,
    max_tokens: int,
    prompt: str,
    verbose: bool,
) -> dict[str, object]:
    baseline_start = status_kib()
    import llama_cpp

    baseline = status_kib()
    kwargs: dict[str, Any] = {}
    if cache_type != "f16":
        kwargs["type_k"] = CACHE_TYPES[cache_type]
        kwargs["type_v"] = CACHE_TYPES[cache_type]
        # llama.cpp needs flash attention for a quantized V cache.
        kwargs["flash_attn"] = True
    t0 = time.perf_counter()
    llm = llama_cpp.Llama(
        model_path=str(model),
        n_ctx=n_ctx,
        n_threads=n_threads,
        n_threads_batch=n_threads,
        verbose=verbose,
        **kwargs,
    )
    load_s = time.perf_counter() - t0
    after_load = status_kib()
    prompt_tokens = len(llm.tokenize(prompt.encode("utf-8")))
    t1 = time.perf_counter()
    stamps: list[float] = []
    for _chunk in llm.create_completion(
        prompt, max_tokens=max_tokens, temperature=0.0, seed=1, stream=True
    ):
        stamps.append(time.perf_counter())
    gen_s = time.perf_counter() - t1
    after_gen = status_kib()
    decode_s = stamps[-1] - stamps[0] if len(stamps) > 1 else 0.0
    return {
        "model": str(model),
        "n_ctx": n_ctx,
        "cache_type": cache_type,
        "n_threads": n_threads,
        "load_s": load_s,
        "gen_s": gen_s,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": len(stamps),
        "tokens_per_s": (len(stamps) - 1) / decode_s if decode_s > 0 else None,
        "rss_start_bytes": baseline_start["VmRSS"] * 1024,
        "rss_import_bytes": baseline["VmRSS"] * 1024,
        "rss_after_load_bytes": after_load["VmRSS"] * 1024,
        # The peak up to the end of the load (the mapped file populated, the GGUF metadata and
        # the tokenizer tables built; the header is unmapped and the metadata freed after it).
        "peak_after_load_bytes": after_load["VmHWM"] * 1024,
        "rss_after_gen_bytes": after_gen["VmRSS"] * 1024,
        "rss_anon_bytes": after_gen.get("RssAnon", 0) * 1024,
        "rss_file_bytes": after_gen.get("RssFile", 0) * 1024,
        "peak_rss_bytes": after_gen["VmHWM"] * 1024,
        "file_bytes": model.stat().st_size,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model", type=Path)
    parser.add_argument("--ctx", type=int, required=True)
    parser.add_argument("--threads", type=int, default=0, help="default: physical cores")
    parser.add_argument("--cache-type", choices=sorted(CACHE_TYPES), default="f16")
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--verbose", action="store_true", help="llama.cpp log to stderr")
    args = parser.parse_args(argv)
    result = measure(
        args.model,
        args.ctx,
        n_threads=args.threads or physical_cores(),
        cache_type=args.cache_type,
        max_tokens=args.tokens,
        prompt=args.prompt,
        verbose=args.verbose,
    )
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
