"""What a comparison starts from when the person sets nothing else: the window and the CLI alike.

Every contestant begins with these settings and may override any of them (``model@temp=0.2``):
a fixed seed, so that running a comparison again compares like with like; the settings' context,
or more when the longest prompt and its answer need it (:func:`context_for`, rounded up to
``CTX_STEP``); the settings' threads (None: the engine's default); a quantized KV cache turns
flash attention on (the engine's "auto" rule).
"""

from __future__ import annotations

from desktop.core.compare.suites import PromptSuite
from desktop.core.engine import LoadSettings
from desktop.core.engine import protocol as p
from desktop.core.kv_cache import CacheType, auto_flash_attn

CTX_STEP = 512
DEFAULT_TEMPERATURE = 0.8
DEFAULT_SEED = 1
DEFAULT_MAX_TOKENS = 256


def context_for(suite: PromptSuite, max_tokens: int, default_ctx: int) -> int:
    """The context a comparison of ``suite`` runs at: ``default_ctx`` (the settings'), or what
    the longest prompt with ``max_tokens`` of answer needs, rounded up to ``CTX_STEP``."""
    needed = suite.context_needed(max_tokens)
    if needed <= default_ctx:
        return default_ctx
    return -(-needed // CTX_STEP) * CTX_STEP


def default_load(
    n_ctx: int,
    *,
    n_threads: int | None = None,
    n_gpu_layers: int = 0,
    cache_type: CacheType = "f16",
) -> LoadSettings:
    """The load settings every contestant starts from (``n_threads`` 0 or None: the engine's
    default)."""
    return LoadSettings(
        n_ctx=n_ctx,
        n_gpu_layers=n_gpu_layers,
        n_threads=n_threads or None,
        cache_type=cache_type,
        flash_attn=auto_flash_attn(cache_type),
    )


def default_sampling(
    max_tokens: int = DEFAULT_MAX_TOKENS,
    *,
    temperature: float = DEFAULT_TEMPERATURE,
    seed: int = DEFAULT_SEED,
) -> p.SamplingParams:
    """The sampling every contestant starts from."""
    return p.SamplingParams(temperature=temperature, seed=seed, max_tokens=max_tokens)
