"""The lines of llama.cpp's log a failure shows: the problems and the end, no debug dumps."""

from __future__ import annotations

from desktop.core.engine import log_excerpt


def test_debug_dumps_are_left_out_and_the_problem_stays() -> None:
    lines = [
        "llama_model_loader: loaded meta data with 30 key-value pairs",
        "llama_model_loader: - kv   0: general.architecture str = llama",
        "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 9663676416",
        *(
            f"llama_graph_n_input_tensors: input tensor 'inp_pos' is used by node 'Kcur-{i}'"
            for i in range(380)
        ),
        "sched_reserve:        CPU compute buffer size =    98.25 MiB",
        "Model metadata: {" + "'key': 'value', " * 100 + "}",
        "set_abort_callback: call",
    ]
    text = log_excerpt(lines, max_lines=3)
    shown = text.splitlines()
    assert "llama_graph_n_input_tensors" not in text
    assert "- kv   0" not in text
    # The failed allocation, far from the end, is kept; the end too, in the log's order.
    assert any("failed to allocate buffer" in line for line in shown)
    assert shown[-1] == "set_abort_callback: call"
    assert shown.index(next(s for s in shown if "failed to allocate" in s)) < len(shown) - 1
    # A line of hundreds of characters is shortened; what was skipped is said.
    assert all(len(line) <= 300 for line in shown)
    assert any(line.startswith("[… ") and "lines left out]" in line for line in shown)
    assert len([s for s in shown if not s.startswith("[… ")]) == 3


def test_a_short_log_is_shown_whole() -> None:
    lines = ["llama_model_load: error loading model: tensor data is not within the file bounds"]
    assert log_excerpt(lines) == lines[0]
    assert log_excerpt([]) == ""
