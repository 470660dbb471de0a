"""Stepping over GGUF string arrays (token lists, merges) fast, and exactly.

A GGUF string is a u64 byte count followed by that many bytes, so the only way to find where a
string array ends is to walk it item by item. In Python that walk was most of the time spent
reading a header: 97k strings in SmolLM2, 262k in Gemma 3, 150k-256k in most current models.

Nearly every token or merge is 1 to 255 bytes long, so its length field reads as one non-zero
byte and seven zero bytes. :func:`skip_strings` looks at a window of the buffer with numpy and
takes every offset whose u64 value lies in 1..255 as a *candidate* item start, all at once. The
walk then jumps along the candidates: the item starting at a candidate ``c`` ends at
``c + 8 + value(c)``, and while that end is the next candidate the chain goes on.

This is exact whatever the bytes hold, not a heuristic: a candidate is only ever used once the
walk has reached it from a position known to start an item (the first is the array's start),
with the same arithmetic as the plain loop. A candidate that is not an item start (zero bytes
inside a token) is never reached that way, and an item the candidates miss (an empty string, or
one longer than 255 bytes) is stepped over on its own. A list where that happens often is walked
by the plain loop instead, so no file is much slower than before.
"""

from __future__ import annotations

import struct
from typing import Any

_LE = struct.Struct("<Q")
_BE = struct.Struct(">Q")

#: Window bounds: large enough that numpy's per-call cost is small, small enough that numpy's
#: temporaries (several bytes per window byte) stay in the CPU cache. Windows of 64-256 KiB
#: measured alike; 1 MiB windows walked 1.2-2.5 times slower.
_MIN_WINDOW = 4096
_MAX_WINDOW = 96 * 1024
#: Window size estimate per item still to go (length field plus a typical token).
_WINDOW_BYTES_PER_ITEM = 16
#: A window walk that needs more than one jump per this many strings (and at least
#: ``_JUMPS_ALLOWED`` jumps) is not paying off: the candidates do not fit this list (many empty,
#: long or zero-holding strings), and the rest is walked by the plain loop.
_STRINGS_PER_JUMP = 32
_JUMPS_ALLOWED = 32


def skip_strings(buf: Any, pos: int, count: int, big_endian: bool = False) -> tuple[int, int]:
    """Step over up to ``count`` strings that start at ``pos`` in ``buf`` (bytes-like).

    Returns ``(position after the last string stepped over, strings stepped over)``. Only
    strings that lie whole inside ``buf`` are stepped over, so fewer than ``count`` means the
    next one is not whole in the buffer: the caller fetches more bytes or reports the damage.
    """
    unpack = (_BE if big_endian else _LE).unpack_from
    buflen = len(buf)
    done = 0
    while done < count:
        left = count - done
        size = min(buflen - pos, max(_MIN_WINDOW, min(_MAX_WINDOW, left * _WINDOW_BYTES_PER_ITEM)))
        if size < _MIN_WINDOW:
            break  # the end of the buffer: the plain loop below finishes
        pos, steps, paying = _walk_window(buf, pos, size, left, big_endian)
        done += steps
        if steps == 0 or not paying:
            break
    for _ in range(count - done):
        if pos + 8 > buflen:
            break
        end = pos + 8 + unpack(buf, pos)[0]
        if end > buflen:
            break
        pos = end
        done += 1
    return pos, done


def _walk_window(
    buf: Any, start: int, size: int, left: int, big_endian: bool
) -> tuple[int, int, bool]:
    """Walk up to ``left`` strings from ``buf[start]`` while their length fields lie in the
    window ``[start, start + size)``; returns (new position, strings, whether jumping paid).

    Every numpy view of ``buf`` is a temporary of one expression, so none outlives the call (a
    bytearray with a live view cannot grow, and a mapped file cannot close)."""
    import numpy as np

    offsets = size - 7  # window offsets whose u64 lies inside the window
    nonzero = np.frombuffer(buf, np.uint8, size, start) != 0
    if big_endian:  # value 1..255: zero bytes, then a non-zero last byte
        cand = np.flatnonzero(nonzero[7 : 7 + offsets] > nonzero[6 : 6 + offsets])
        dtype = ">u8"
    else:  # value 1..255: a non-zero first byte, then zero bytes
        cand = np.flatnonzero(nonzero[:offsets] > nonzero[1 : 1 + offsets])
        dtype = "<u8"
    values = np.ndarray((offsets,), dtype, buf, start, (1,))[cand]
    short = values < 256
    cand = cand[short]
    ends = cand + 8 + values[short].astype(np.int64)
    # Chains of candidates: after index b in `breaks`, item b's end is not candidate b + 1.
    breaks = np.flatnonzero(ends[:-1] != cand[1:])
    n_cand = len(cand)
    unpack = (_BE if big_endian else _LE).unpack_from
    limit = len(buf) - start  # no string may end past the buffer
    rel = 0
    done = 0
    jumps = 0
    while done < left:
        k = int(np.searchsorted(cand, rel))
        if k < n_cand and cand[k] == rel:
            b = int(np.searchsorted(breaks, k))
            last = int(breaks[b]) if b < len(breaks) else n_cand - 1
            run = min(last - k + 1, left - done)
            end = int(ends[k + run - 1])
            if end > limit:  # only the run's last string can end past the buffer
                run -= 1
                if run == 0:
                    break
                end = int(cand[k + run])
            rel = end
            done += run
        else:
            end = rel + 8 + unpack(buf, start + rel)[0]
            if end > limit:
                break
            rel = end
            done += 1
        jumps += 1
        if jumps >= _JUMPS_ALLOWED and jumps * _STRINGS_PER_JUMP > done:
            return start + rel, done, False
        if rel > size - 8:
            break  # the next length field is not inside the window
    return start + rel, done, True
