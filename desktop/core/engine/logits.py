"""Logits to scores, and the compact form they travel in between the worker and the app.

The worker turns each output position's logits (a row of ``n_vocab`` floats straight from
llama.cpp's buffer) into what a quality measurement needs, with NumPy, before the next decode
overwrites the buffer (:func:`score_rows`):

- the log-probability of the next token (perplexity),
- the top token (same-top-token rate),
- on request the ``top_k`` most likely tokens with their log-probabilities and the log of the
  probability mass of all the others (a reference pack),
- on request the log-probabilities of given token ids with the log of the mass outside them
  (a model scored against a pack's top tokens, or the answer letters of a question).

Log-probabilities are ``logit - logsumexp(row)``; the masses of "the rest" are summed directly
over the tokens outside the set (the set's entries are zeroed in a scratch copy), never as
``1 - sum``, so a small remainder keeps its precision. A model scored against its own pack gets
bit-identical numbers, hence a KL divergence of exactly zero.

Arrays travel as base64 of little-endian int32/float32 (:func:`encode_ints`,
:func:`unpack_scores`): 4 bytes a number instead of a dozen characters of JSON.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float32]

# Candidates for the top k: tokens within this factor of the most likely one (then lower).
_TOP_THRESHOLDS = (1e-6, 1e-12, 1e-24)


def encode_ints(values: Any) -> str:
    """base64 of ``values`` as little-endian int32."""
    return base64.b64encode(np.ascontiguousarray(values, dtype="<i4").tobytes()).decode("ascii")


def decode_ints(text: str) -> IntArray:
    """The int32 array :func:`encode_ints` wrote (ValueError for text that is not one)."""
    raw = _b64(text)
    if len(raw) % 4:
        raise ValueError("an int32 array's length must be a multiple of 4 bytes")
    return np.frombuffer(raw, dtype="<i4").astype(np.int32)


def _b64(text: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as exc:
        raise ValueError("not base64") from exc


@dataclass(frozen=True, eq=False)
class Scores:
    """Scores of ``n`` output positions. ``target_lp[i]`` is NaN where position ``i`` has no next
    token. ``topk_*`` have shape ``(n, top_k)`` (most likely first), ``gather_lp`` ``(n, width)``;
    ``*_rest_lp`` is the log of the probability of every token outside the set (``-inf`` when
    nothing is left)."""

    target_lp: FloatArray
    argmax: IntArray
    topk_ids: IntArray
    topk_lp: FloatArray
    topk_rest_lp: FloatArray
    gather_lp: FloatArray
    gather_rest_lp: FloatArray

    @property
    def n(self) -> int:
        return int(self.target_lp.shape[0])


def pack_scores(scores: Scores) -> str:
    """The ``Evaluated.data`` text of ``scores``."""
    parts = [
        scores.target_lp.astype("<f4").tobytes(),
        scores.argmax.astype("<i4").tobytes(),
        scores.topk_ids.astype("<i4").tobytes(),
        scores.topk_lp.astype("<f4").tobytes(),
        scores.topk_rest_lp.astype("<f4").tobytes(),
        scores.gather_lp.astype("<f4").tobytes(),
        scores.gather_rest_lp.astype("<f4").tobytes(),
    ]
    return base64.b64encode(b"".join(parts)).decode("ascii")


def unpack_scores(data: str, n: int, top_k: int, gather_width: int) -> Scores:
    """The arrays of an ``Evaluated`` event (ValueError when the sizes do not add up)."""
    raw = _b64(data)
    k, w = top_k, gather_width
    sizes = (n, n, n * k, n * k, n if k else 0, n * w, n if w else 0)
    if len(raw) != 4 * sum(sizes):
        raise ValueError(f"{len(raw)} bytes of scores do not hold {n} positions")
    dtypes = ("<f4", "<i4", "<i4", "<f4", "<f4", "<f4", "<f4")
    arrays = []
    offset = 0
    for size, dtype in zip(sizes, dtypes, strict=True):
        arrays.append(np.frombuffer(raw, dtype=dtype, count=size, offset=offset))
        offset += 4 * size
    target, argmax, top_ids, top_lp, top_rest, gather, gather_rest = arrays
    return Scores(
        target_lp=target.astype(np.float32),
        argmax=argmax.astype(np.int32),
        topk_ids=top_ids.astype(np.int32).reshape(n, k),
        topk_lp=top_lp.astype(np.float32).reshape(n, k),
        topk_rest_lp=top_rest.astype(np.float32),
        gather_lp=gather.astype(np.float32).reshape(n, w),
        gather_rest_lp=gather_rest.astype(np.float32),
    )


def empty_scores(top_k: int, gather_width: int) -> Scores:
    return Scores(
        target_lp=np.zeros(0, np.float32),
        argmax=np.zeros(0, np.int32),
        topk_ids=np.zeros((0, top_k), np.int32),
        topk_lp=np.zeros((0, top_k), np.float32),
        topk_rest_lp=np.zeros(0, np.float32),
        gather_lp=np.zeros((0, gather_width), np.float32),
        gather_rest_lp=np.zeros(0, np.float32),
    )


def concat_scores(parts: list[Scores], top_k: int, gather_width: int) -> Scores:
    if not parts:
        return empty_scores(top_k, gather_width)
    if len(parts) == 1:
        return parts[0]
    return Scores(
        *(np.concatenate([getattr(s, f) for s in parts]) for f in Scores.__dataclass_fields__)
    )


# --------------------------------------------------------------------------- the worker's side


def score_rows(
    logits: FloatArray,
    targets: IntArray,
    *,
    top_k: int = 0,
    gather: IntArray | None = None,
    scratch: FloatArray | None = None,
) -> Scores:
    """Score ``logits`` (shape ``(rows, n_vocab)``, float32, read only). ``targets[i]`` is the
    next token of row ``i`` or -1 for none; ``gather`` has shape ``(rows, width)``. ``scratch``
    (at least the size of ``logits``) saves an allocation per call."""
    rows, n_vocab = logits.shape
    index = np.arange(rows)
    if scratch is None or scratch.size < logits.size:
        scratch = np.empty(logits.size, dtype=np.float32)
    e = scratch[: logits.size].reshape(rows, n_vocab)
    argmax = logits.argmax(axis=1).astype(np.int32)
    peak = logits[index, argmax]
    np.subtract(logits, peak[:, None], out=e)
    np.exp(e, out=e)  # probabilities times a row constant, the largest exactly 1
    total = e.sum(axis=1, dtype=np.float64)
    log_total = np.log(total)
    lse = peak.astype(np.float64) + log_total

    has_target = targets >= 0
    safe_targets = np.where(has_target, targets, 0)
    target_lp = (logits[index, safe_targets] - lse).astype(np.float32)
    target_lp[~has_target] = np.nan

    k = top_k
    topk_ids = np.zeros((rows, k), np.int32)
    topk_lp = np.zeros((rows, k), np.float32)
    topk_rest = np.zeros(rows if k else 0, np.float32)
    if k:
        for i in range(rows):
            topk_ids[i] = _top_ids(e[i], k)
        topk_lp = (logits[index[:, None], topk_ids] - lse[:, None]).astype(np.float32)
        topk_rest = _rest_lp(e, topk_ids, log_total)

    width = 0 if gather is None else int(gather.shape[1])
    gather_lp = np.zeros((rows, width), np.float32)
    gather_rest = np.zeros(rows if width else 0, np.float32)
    if gather is not None and width:
        gather_lp = (logits[index[:, None], gather] - lse[:, None]).astype(np.float32)
        gather_rest = _rest_lp(e, gather, log_total)
    return Scores(target_lp, argmax, topk_ids, topk_lp, topk_rest, gather_lp, gather_rest)


def _top_ids(row: FloatArray, k: int) -> IntArray:
    """The ``k`` largest entries of ``row`` (scaled probabilities, max 1), largest first; ties
    in index order. Candidates are the few entries above a threshold, so a 262k-token row costs
    one comparison pass instead of a full selection."""
    candidates: npt.NDArray[np.intp] | None = None
    for threshold in _TOP_THRESHOLDS:
        found = np.flatnonzero(row > threshold)
        if found.size >= k:
            candidates = found
            break
    if candidates is None:
        candidates = np.arange(row.size)
    values = row[candidates]
    if candidates.size > k:  # the k-th largest value; of its ties the lowest ids
        kth = np.partition(values, values.size - k)[values.size - k]
        above = candidates[values > kth]
        tied = candidates[values == kth]  # in id order: candidates are sorted
        candidates = np.concatenate([above, tied[: k - above.size]])
        values = row[candidates]
    order = np.lexsort((candidates, -values))
    return candidates[order].astype(np.int32)


def _rest_lp(e: FloatArray, ids: IntArray, log_total: npt.NDArray[np.float64]) -> FloatArray:
    """log of the probability outside ``ids`` per row: the other entries of ``e`` summed
    directly (the set's entries zeroed, then put back)."""
    index = np.arange(e.shape[0])[:, None]
    saved = e[index, ids].copy()
    e[index, ids] = 0.0
    rest = e.sum(axis=1, dtype=np.float64)
    e[index, ids] = saved
    with np.errstate(divide="ignore"):
        result: FloatArray = (np.log(rest) - log_total).astype(np.float32)
    return result
