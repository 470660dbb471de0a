"""Loss against a reference on the real demo models: a model against itself loses nothing, a
coarser quant loses more, perplexity agrees with a plain full-vocabulary softmax, and bad inputs
get one sentence."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from desktop.core.errors import Cancelled, QualityError
from desktop.core.quality import (
    LossResult,
    LossSettings,
    cached_pack_path,
    load_text,
    make_pack,
    measure_loss,
    read_pack,
    score_against_pack,
    write_pack,
)
from tests.core.quality.conftest import CTX

SETTINGS = LossSettings(ctx=CTX, n_threads=2)


def _measure(model: Path, reference: Path, text: Path, **kw: object) -> LossResult:
    return measure_loss(
        model,
        reference,
        load_text(text),
        SETTINGS,
        model_label=model.name,
        reference_label=reference.name,
        **kw,  # type: ignore[arg-type]
    )


def test_a_model_against_itself_loses_nothing(smollm2_path: Path, short_text: Path) -> None:
    phases: list[str] = []
    result = _measure(
        smollm2_path, smollm2_path, short_text, on_progress=lambda p: phases.append(p.phase)
    )
    assert result.chunks >= 8
    assert result.complete
    assert result.kld == 0.0  # bit-identical log-probabilities, not merely close
    assert result.kld_max == 0.0
    assert result.same_top_token == 1.0
    assert result.delta_ppl == 0.0
    assert result.ppl == result.reference_ppl
    assert 5 < result.ppl < 500
    assert result.kld_ci == (0.0, 0.0)
    assert result.ppl_ci is not None
    assert result.ppl_ci[0] < result.ppl < result.ppl_ci[1]
    assert result.tokens == result.chunks * CTX // 2
    assert phases[0] == "vocabulary"
    assert "reference" in phases
    assert phases[-1] == "model"
    # The reference pass was cached: a second measurement starts with the model.
    assert cached_pack_path(smollm2_path, load_text(short_text), SETTINGS).is_file()
    again: list[str] = []
    _measure(smollm2_path, smollm2_path, short_text, on_progress=lambda p: again.append(p.phase))
    assert set(again) == {"model"}
    # JSON round trip, ready to be stored.
    data = result.to_dict()
    for key in ("kld", "kld_ci", "same_top_token", "ppl", "reference_ppl", "delta_ppl", "tokens"):
        assert key in data
    assert LossResult.from_dict(data) == result


def test_a_pack_scored_against_its_own_model_gives_zero(
    smollm2_path: Path, smollm2_pack: Path
) -> None:
    pack = read_pack(smollm2_pack)
    assert smollm2_pack.stat().st_size * 1000 / pack.scored_tokens < 2_000_000
    result = score_against_pack(
        smollm2_path,
        pack,
        SETTINGS,
        model_label="SmolLM2",
        reference_path=str(smollm2_pack),
        reference_kind="pack",
    )
    assert result.kld == 0.0
    assert result.same_top_token == 1.0
    assert result.delta_ppl == 0.0
    assert result.reference_ppl == pytest.approx(pack.perplexity(), rel=1e-9)


def _against_pack(model: Path, pack: Path, **kw: object) -> LossResult:
    return measure_loss(
        model,
        pack,
        None,
        SETTINGS,
        model_label=model.name,
        reference_label="pack",
        **kw,  # type: ignore[arg-type]
    )


def test_a_coarser_quant_loses_more(smollm2_quants: dict[str, Path], smollm2_pack: Path) -> None:
    q8 = _against_pack(smollm2_quants["Q8_0"], smollm2_pack)
    q2 = _against_pack(smollm2_quants["Q2_K"], smollm2_pack)
    assert 0.0 < q8.kld < q2.kld
    assert q8.kld_ci is not None
    assert q2.kld_ci is not None
    assert q8.kld_ci[1] < q2.kld_ci[0]  # apart beyond their intervals
    assert q8.same_top_token > q2.same_top_token
    assert abs(q8.delta_ppl) < q2.delta_ppl
    assert q8.reference_ppl == q2.reference_ppl


def test_pure_q2_k_loses_more_than_llama_cpps_q2_k_mix(
    smollm2_quants: dict[str, Path], smollm2_pack: Path
) -> None:
    """The mix keeps ffn_down in Q3_K and the tied embeddings in Q8_0 on SmolLM2; the pure file
    has them in Q2_K and Q4_0: the measurement tells the two apart."""
    mix = _against_pack(smollm2_quants["Q2_K"], smollm2_pack)
    pure = _against_pack(smollm2_quants["Q2_K-pure"], smollm2_pack)
    assert mix.kld < pure.kld
    assert mix.same_top_token > pure.same_top_token


def test_perplexity_and_kld_agree_with_a_plain_full_softmax(
    smollm2_path: Path, smollm2_quants: dict[str, Path], smollm2_pack: Path
) -> None:
    """The same chunks through llama-cpp-python with every logit kept, log-softmax in float64
    over the whole vocabulary: perplexity within 0.1%, and the top-32 KL divergence a lower
    bound of the full one, close to it."""
    from llama_cpp import Llama

    result = _against_pack(smollm2_quants["Q2_K"], smollm2_pack)
    pack = read_pack(smollm2_pack)

    def log_probs(path: Path) -> list[np.ndarray]:
        llm = Llama(
            model_path=str(path),
            n_ctx=CTX,
            n_batch=CTX,
            n_threads=2,
            logits_all=True,
            verbose=False,
        )
        out = []
        for chunk in pack.tokens:
            llm.reset()  # type: ignore[no-untyped-call]
            llm.eval(chunk.tolist())
            x = np.asarray(llm.scores[: len(chunk)], dtype=np.float64)
            x -= x.max(axis=1, keepdims=True)
            out.append(x - np.log(np.exp(x).sum(axis=1, keepdims=True)))
        llm.close()
        return out

    ref, quant = log_probs(smollm2_path), log_probs(smollm2_quants["Q2_K"])
    first, n = pack.header.first_output, pack.header.n_outputs
    nll, ref_nll, kld = [], [], []
    for chunk, r, q in zip(pack.tokens, ref, quant, strict=True):
        positions = np.arange(first, first + n)
        targets = chunk[positions + 1]
        nll.append(-q[positions, targets])
        ref_nll.append(-r[positions, targets])
        kld.append((np.exp(r[positions]) * (r[positions] - q[positions])).sum(axis=1))
    ppl = math.exp(np.mean(np.concatenate(nll)))
    ref_ppl = math.exp(np.mean(np.concatenate(ref_nll)))
    full_kld = float(np.mean(np.concatenate(kld)))
    assert result.ppl == pytest.approx(ppl, rel=1e-3)
    assert result.reference_ppl == pytest.approx(ref_ppl, rel=1e-3)
    assert result.kld <= full_kld * 1.001
    assert result.kld >= 0.7 * full_kld


def test_a_reference_with_another_vocabulary_is_refused(
    smollm2_path: Path, gemma3_path: Path, short_text: Path
) -> None:
    with pytest.raises(QualityError) as caught:
        _measure(smollm2_path, gemma3_path, short_text)
    message = str(caught.value)
    assert caught.value.kind == "quality.vocab_mismatch"
    assert "49152 tokens" in message
    assert "262144 tokens" in message
    assert message.count(". ") == 0
    assert message.endswith(".")


def test_a_pack_from_another_tokenizer_is_refused(
    smollm2_path: Path, gemma3_path: Path, short_text: Path, tmp_path: Path
) -> None:
    chunks = {"done": 0}

    def count(progress: object) -> None:
        chunks["done"] += 1

    pack = make_pack(
        gemma3_path,
        load_text(short_text),
        LossSettings(ctx=32, n_threads=2),
        label="Gemma 3",
        on_progress=count,
        should_stop=lambda: chunks["done"] >= 1,
    )
    assert pack.header.chunks == 1
    assert not pack.complete
    path = tmp_path / "gemma.refpack"
    write_pack(pack, path)
    with pytest.raises(QualityError) as caught:
        measure_loss(
            smollm2_path, path, None, SETTINGS, model_label="SmolLM2", reference_label="unused"
        )
    assert caught.value.kind == "quality.pack_tokenizer"
    assert "another tokenizer" in str(caught.value)


def test_a_text_shorter_than_one_chunk_is_refused(smollm2_path: Path, tmp_path: Path) -> None:
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("Too short to measure anything.", encoding="utf-8")
    with pytest.raises(QualityError) as caught:
        _measure(smollm2_path, smollm2_path, tiny)
    assert caught.value.kind == "quality.text"
    assert "tiny.txt is" in str(caught.value)
    assert f"one chunk of {CTX} tokens" in str(caught.value)


def test_a_stop_keeps_the_chunks_done(smollm2_path: Path, smollm2_pack: Path) -> None:
    done = {"chunks": 0}

    def count(progress: object) -> None:
        done["chunks"] += 1

    result = _against_pack(
        smollm2_path, smollm2_pack, on_progress=count, should_stop=lambda: done["chunks"] >= 3
    )
    assert result.chunks == 3
    assert not result.complete
    assert result.stopped == "cancelled"
    assert result.chunks_planned > 3
    assert result.kld == 0.0
    with pytest.raises(Cancelled):
        _against_pack(smollm2_path, smollm2_pack, should_stop=lambda: True)


def test_a_time_budget_keeps_at_least_one_chunk(smollm2_path: Path, smollm2_pack: Path) -> None:
    result = measure_loss(
        smollm2_path,
        smollm2_pack,
        None,
        LossSettings(ctx=CTX, n_threads=2, max_seconds=0.001),
        model_label="SmolLM2",
        reference_label="pack",
    )
    assert result.chunks == 1
    assert result.stopped == "budget"
    assert result.kld_ci is None  # one chunk says nothing about the spread
