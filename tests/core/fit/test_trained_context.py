"""A context past the model's trained length is accepted (llama.cpp loads it) but said."""

from __future__ import annotations

from dataclasses import replace

from desktop.core.catalog import load_catalog
from desktop.core.fit import FitTarget, estimate, past_trained_context
from desktop.core.hardware import probe


def test_the_estimate_says_when_the_context_is_past_the_trained_length() -> None:
    model, variant = load_catalog().variant("smollm2-135m-instruct:Q4_1")
    target = FitTarget.from_variant(model, variant)
    trained = target.arch.n_ctx_train
    assert trained == 8192
    profile = probe()
    inside = estimate(target, profile, n_ctx=trained)
    assert not inside.past_trained_ctx
    assert not any("trained on" in r for r in inside.reasons)
    past = estimate(target, profile, n_ctx=4 * trained)
    assert past.past_trained_ctx
    assert past.to_dict()["n_ctx_train"] == trained
    assert past.summary_dict()["past_trained_ctx"] is True
    assert any("past the 8,192 tokens" in r for r in past.reasons)


def test_unknown_trained_length_never_warns() -> None:
    model, _variant = load_catalog().variant("smollm2-135m-instruct:Q4_1")
    arch = replace(model.arch, n_ctx_train=0)
    assert past_trained_context(arch, 1 << 20) is None
    sentence = past_trained_context(model.arch, 8193)
    assert sentence is not None
    assert sentence.endswith(".")
