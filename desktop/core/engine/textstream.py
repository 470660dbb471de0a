"""Token bytes to streamed text: whole UTF-8 characters only, stop strings cut cleanly.

A token is a piece of bytes; a Chinese character often spans two tokens. :class:`TextStream`
decodes incrementally (bytes of an unfinished character wait for the next token) and holds back
the tail of the text that could still become a stop string, so the concatenated output of
:meth:`TextStream.feed` and :meth:`TextStream.finish` is exactly the text before the first stop
string, and never contains a broken character.

Bytes that can never become valid UTF-8 are dropped, as llama-cpp-python drops them in its
non-streamed completions, so a streamed answer equals the non-streamed one.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence


class TextStream:
    """Feed token bytes in order; read back text that is safe to show."""

    def __init__(self, stop: Sequence[str] = ()) -> None:
        self._stop = tuple(s for s in stop if s)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        self._held = ""
        self.stopped = False
        self.stop_string: str | None = None

    def feed(self, data: bytes) -> str:
        """Text that became safe with ``data``; ``""`` while a character or a possible stop
        string is incomplete. After a stop string everything is ignored."""
        if self.stopped:
            return ""
        return self._advance(self._held + self._decoder.decode(data))

    def finish(self) -> str:
        """The held-back text at the end (an unfinished character is dropped)."""
        if self.stopped:
            return ""
        text = self._held + self._decoder.decode(b"", final=True)
        self._held = ""
        cut = self._find_stop(text)
        if cut is not None:
            return text[:cut]
        return text

    def _advance(self, text: str) -> str:
        cut = self._find_stop(text)
        if cut is not None:
            self._held = ""
            return text[:cut]
        keep = self._partial_stop_length(text)
        if keep:
            self._held = text[-keep:]
            return text[:-keep]
        self._held = ""
        return text

    def _find_stop(self, text: str) -> int | None:
        best: int | None = None
        for stop in self._stop:
            index = text.find(stop)
            if index >= 0 and (best is None or index < best):
                best = index
                self.stop_string = stop
        if best is not None:
            self.stopped = True
        return best

    def _partial_stop_length(self, text: str) -> int:
        """Length of the longest end of ``text`` that is a proper start of a stop string."""
        longest = 0
        for stop in self._stop:
            for length in range(min(len(stop) - 1, len(text)), longest, -1):
                if text.endswith(stop[:length]):
                    longest = length
                    break
        return longest
