"""Scoring logits in the worker: checked against a plain float64 log-softmax over the whole
vocabulary, and the compact codec round-trips."""

from __future__ import annotations

import numpy as np
import pytest

from desktop.core.engine.logits import (
    concat_scores,
    decode_ints,
    encode_ints,
    pack_scores,
    score_rows,
    unpack_scores,
)


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    return np.asarray(x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True)))


@pytest.fixture
def logits() -> np.ndarray:
    rng = np.random.default_rng(5)
    rows = rng.normal(0.0, 3.0, size=(7, 5000)).astype(np.float32)
    rows[2, 17] = 60.0  # one row almost certain of one token
    rows[3] = 1.0  # a flat row: ties everywhere
    return rows


def test_scores_match_a_full_float64_softmax(logits: np.ndarray) -> None:
    reference = _log_softmax(logits)
    targets = np.array([3, 17, 17, 4999, 0, 12, -1], np.int32)
    gather = np.tile(np.array([[5, 17, 42]], np.int32), (7, 1))
    scores = score_rows(logits, targets, top_k=8, gather=gather)
    rows = np.arange(7)
    np.testing.assert_allclose(scores.target_lp[:6], reference[rows[:6], targets[:6]], atol=2e-5)
    assert np.isnan(scores.target_lp[6])
    np.testing.assert_array_equal(scores.argmax, reference.argmax(axis=1))
    for i in range(7):
        order = sorted(range(5000), key=lambda j: (-reference[i, j], j))[:8]
        assert list(scores.topk_ids[i]) == order
        np.testing.assert_allclose(scores.topk_lp[i], reference[i, order], atol=2e-5)
        outside = np.delete(np.exp(reference[i]), order).sum()
        assert scores.topk_rest_lp[i] == pytest.approx(np.log(outside), rel=1e-4, abs=1e-4) or (
            outside < 1e-30 and scores.topk_rest_lp[i] < -60
        )
        rest = np.delete(np.exp(reference[i]), [5, 17, 42]).sum()
        assert scores.gather_rest_lp[i] == pytest.approx(np.log(rest), abs=1e-4)
    np.testing.assert_allclose(scores.gather_lp, reference[:, [5, 17, 42]], atol=2e-5)


def test_the_rest_keeps_its_precision_when_the_top_holds_almost_everything() -> None:
    row = np.full((1, 1000), -30.0, np.float32)
    row[0, 0] = 0.0  # p(token 0) = 1 - 999 e^-30 ~ 1 - 9.3e-11
    scores = score_rows(row, np.array([0], np.int32), top_k=1)
    expected = np.log(999 * np.exp(-30.0))  # the rest, not 1 - p(top), which float64 rounds
    assert scores.topk_rest_lp[0] == pytest.approx(expected, abs=1e-5)


def test_scores_travel_as_compact_base64(logits: np.ndarray) -> None:
    scores = score_rows(logits, np.zeros(7, np.int32), top_k=4, gather=np.zeros((7, 2), np.int32))
    data = pack_scores(scores)
    assert len(data) < 7 * (1 + 1 + 8 + 1 + 2 + 1) * 4 * 4 / 3 + 8
    back = unpack_scores(data, 7, 4, 2)
    for name in ("target_lp", "argmax", "topk_ids", "topk_lp", "topk_rest_lp", "gather_lp"):
        np.testing.assert_array_equal(getattr(back, name), getattr(scores, name))
    with pytest.raises(ValueError, match="do not hold 8 positions"):
        unpack_scores(data, 8, 4, 2)
    with pytest.raises(ValueError, match="not base64"):
        unpack_scores("not base64!", 7, 4, 2)
    both = concat_scores([back, back], 4, 2)
    assert both.n == 14


def test_token_ids_round_trip() -> None:
    ids = [0, 1, 262143, 49151]
    assert decode_ints(encode_ints(ids)).tolist() == ids
    with pytest.raises(ValueError, match="multiple of 4"):
        decode_ints("AAA=")
