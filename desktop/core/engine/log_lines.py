"""The lines of llama.cpp's log that explain a failure, for a person to read.

A worker's stderr is llama.cpp's log: at load it prints hundreds of debug lines (one per graph
input tensor, the whole metadata dictionary on one line), so its last forty lines seldom say why
a load or an answer failed. :func:`log_excerpt` drops those debug lines, shortens very long ones,
keeps every line that reports a problem (errors, failed allocations, asserts, warnings) and the
last lines around the end, in the log's order, marking what was left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Debug lines that never explain a failure: per-tensor and per-key dumps.
NOISE = re.compile(
    r"^(llama_graph_n_input_tensors:|llama_model_loader: - (kv|tensor|type)\b|"
    r"load_tensors: +layer +\d|llama_kv_cache: +layer +\d|print_info: )"
)
#: Lines that report a problem.
PROBLEM = re.compile(
    r"error|fail|\babort|assert|exception|traceback|out of memory|cannot|could not|unable|"
    r"invalid|not enough|killed|segmentation|warning|warn:",
    re.IGNORECASE,
)
LONG_LINE = 300


def log_excerpt(lines: Iterable[str], *, max_lines: int = 40, max_chars: int = 4000) -> str:
    """At most ``max_lines`` lines (and ``max_chars`` characters) of ``lines`` that explain a
    failure: the problems (the latest first to stay when there are many) and the last lines,
    without debug dumps; "[… N lines left out]" where lines were skipped."""
    kept = [
        line if len(line) <= LONG_LINE else line[: LONG_LINE - 1] + "…"
        for line in lines
        if line.strip() and not NOISE.match(line)
    ]
    tail = max_lines - max_lines // 2
    chosen = set(range(max(0, len(kept) - tail), len(kept)))
    problems = [i for i, line in enumerate(kept) if i not in chosen and PROBLEM.search(line)]
    chosen.update(problems[-(max_lines - len(chosen)) :] if max_lines > len(chosen) else ())
    for index in range(len(kept) - 1, -1, -1):
        if len(chosen) >= max_lines:
            break
        chosen.add(index)
    out: list[str] = []
    last = -1
    for index in sorted(chosen):
        if index > last + 1:
            out.append(f"[… {index - last - 1} lines left out]")
        out.append(kept[index])
        last = index
    text = "\n".join(out)
    return text[-max_chars:]
