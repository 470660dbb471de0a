"""Mixture-of-experts offload: the expert tensors of the first layers kept in host memory
(llama.cpp's ``--n-cpu-moe N``) so that everything else fits on the GPUs.

llama.cpp (the sources vendored in llama-cpp-python 0.3.36: ``common/arg.cpp``) implements
``--n-cpu-moe N`` as tensor buffer-type overrides,
``blk\\.i\\.ffn_(up|down|gate|gate_up)_(ch|)exps``
to the CPU buffer type for every ``i < N``. The C API takes such overrides
(``llama_model_params.tensor_buft_overrides``) but llama-cpp-python 0.3.36's ``Llama`` never
sets them, so the engine cannot load a model this way: the estimate predicts it (``fit
--n-cpu-moe N``) and says what it would gain. A generated token then reads the active experts
of those layers on the CPU (their nodes run there) and everything else on the GPU; a prompt
batch copies an expert tensor at a time to the GPU (:mod:`~desktop.core.fit.place`).
"""

from __future__ import annotations

from collections.abc import Callable

from desktop.core.fit.place import Placement, Setup, fit_flags, place

EXPERTS_ELSEWHERE = (
    "llama-cpp-python 0.3.36, which runs models in this app, cannot load a model that way; "
    "llama.cpp's llama-server and llama-cli can."
)


def fewest_cpu_moe(make: Callable[[int], Setup], n_ctx: int) -> tuple[int, Placement] | None:
    """The fewest layers whose experts must stay in host memory for every layer and the output
    layer to fit on the GPUs, with that placement (``make(n)``: the setup with ``n_cpu_moe=n``).
    None when no count fits (RAM, or VRAM even with every expert on the host)."""
    first = make(0)
    arch = first.target.arch
    if not arch.is_moe or not first.devices or not first.layout.expert_layer_bytes:
        return None
    n_layers = arch.n_layers
    if not fit_flags(make(n_layers), n_ctx, n_layers, True)[1]:
        return None
    lo, hi = 1, n_layers  # smallest n with the VRAM fitting: more experts on the host, less VRAM
    while lo < hi:
        mid = (lo + hi) // 2
        if fit_flags(make(mid), n_ctx, n_layers, True)[1]:
            hi = mid
        else:
            lo = mid + 1
    setup = make(lo)
    if not all(fit_flags(setup, n_ctx, n_layers, True)):
        return None  # the least host memory that works is still too much
    return lo, place(setup, n_ctx, n_layers, True)
