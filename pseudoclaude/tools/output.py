"""Bounded capture of a byte stream shaped for a preview, and binary sniffing.

``StreamCapture`` is sized by the inline budget of one output and keeps, however
much is fed to it: a short head (whole lines, ``HEAD_SHARE`` of the budget and at
most ``HEAD_MAX_LINES`` lines), a rolling tail of at least the budget, the
error-like lines of what streamed between them (``errorlines.ErrorScanner``,
numbered), and the true byte and line counts. While the stream still fits the
budget it is kept whole; the moment it no longer does, everything seen so far
(still complete at that point) is written to a spill file and every later
chunk is appended there, so the file holds the complete output. The file stops
growing at ``spill_limit`` bytes (disk is a resource too); a spill that fails
(disk full, folder not writable) is removed, so nothing names a partial file
as if it were whole, and ``spill_error`` says why. ``preview.shape`` turns a
finished capture into what the model reads.

With a ``redactor`` (the session's secrets), the stream is redacted as it
comes in, before any of the above: the head, tail, error lines, counts and
the spill file all hold ``***`` where a secret was, also one split between two
chunks (its start is held back until the next chunk or ``close``).
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path
from typing import BinaryIO, Callable

from pseudoclaude.redaction import Redactor
from pseudoclaude.tools.errorlines import ErrorScanner

HEAD_SHARE = 0.15
HEAD_MAX_LINES = 12
SPILL_LIMIT_BYTES = 32 * 1024 * 1024
SNIFF_BYTES = 8192

SpillOpener = Callable[[], tuple[Path, BinaryIO]]

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive (or jar/docx/xlsx/wheel)"),
    (b"\x1f\x8b", "gzip data"),
    (b"BZh", "bzip2 data"),
    (b"\xfd7zXZ\x00", "xz data"),
    (b"\x28\xb5\x2f\xfd", "zstd data"),
    (b"7z\xbc\xaf\x27\x1c", "7-zip archive"),
    (b"\x7fELF", "ELF executable"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"MZ", "Windows executable"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x00asm", "WebAssembly module"),
    (b"RIFF", "RIFF media (wav/avi/webp)"),
    (b"OggS", "Ogg media"),
    (b"ID3", "MP3 audio"),
)


def looks_binary(sample: bytes) -> bool:
    """True when ``sample`` (the first bytes of something) has a NUL byte or is not UTF-8."""
    if b"\x00" in sample[:SNIFF_BYTES]:
        return True
    head = utf8_head(sample[:SNIFF_BYTES]) if len(sample) > SNIFF_BYTES else sample
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def looks_binary_stream(sample: bytes) -> bool:
    """Like ``looks_binary`` but tolerant of a few stray bad bytes in otherwise textual output."""
    if b"\x00" in sample[:SNIFF_BYTES]:
        return True
    text = utf8_head(sample[:SNIFF_BYTES]).decode("utf-8", errors="replace")
    return text.count("\ufffd") > max(4, len(text) // 10)


def guess_type(sample: bytes, name: str = "") -> str:
    """A human guess at what binary ``sample`` is, from magic numbers, then the file name."""
    for magic, kind in _MAGIC:
        if sample.startswith(magic):
            return kind
    if sample[4:8] == b"ftyp":
        return "MP4/QuickTime media"
    if name:
        mime, _ = mimetypes.guess_type(name)
        if mime:
            return mime
    return "binary data"


def utf8_head(data: bytes) -> bytes:
    """``data`` without a UTF-8 sequence cut off at its end."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data
        if byte >= 0xC0:
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if back >= need else data[:-back]
    return data


def utf8_tail(data: bytes) -> bytes:
    """``data`` without UTF-8 continuation bytes at its start (left by a cut)."""
    start = 0
    while start < min(3, len(data)) and 0x80 <= data[start] < 0xC0:
        start += 1
    return data[start:]


class StreamCapture:
    """Head + rolling tail + error-like middle lines + true counts of a stream; spills the whole stream when it overflows."""

    def __init__(
        self,
        *,
        inline_bytes: int,
        open_spill: SpillOpener | None = None,
        spill_limit: int = SPILL_LIMIT_BYTES,
        redactor: Redactor | None = None,
    ) -> None:
        self.inline_bytes = inline_bytes
        self.head_limit = max(64, int(inline_bytes * HEAD_SHARE))
        self.tail_limit = inline_bytes
        self.head = bytearray()
        self.head_cut = False
        self.tail = bytearray()
        self.scanner: ErrorScanner | None = None
        self.total_bytes = 0
        self.evicted_bytes = 0
        self.mid_line = False
        self._newlines = 0
        self._ends_in_newline = True
        self._sample = bytearray()
        self._open_spill = open_spill
        self._spill_limit = spill_limit
        self._spill: BinaryIO | None = None
        self._spill_started = False
        self.spilled_bytes = 0
        self.spill_path: Path | None = None
        self.spill_error: str | None = None
        self._redacting = redactor.stream() if redactor else None

    @property
    def truncated(self) -> bool:
        """True when the stream is larger than the inline budget (a preview must cut it)."""
        return self.total_bytes > self.inline_bytes

    @property
    def total_lines(self) -> int:
        """Lines in the whole stream (an unterminated last line counts)."""
        return self._newlines + (0 if self._ends_in_newline else 1)

    @property
    def spill_complete(self) -> bool:
        """True when the spill file holds the whole stream."""
        return self.spill_path is not None and self.spilled_bytes == self.total_bytes

    def feed(self, chunk: bytes) -> None:
        self._take(self._redacting.feed(chunk) if self._redacting is not None else chunk)

    def _take(self, chunk: bytes) -> None:
        if not chunk:
            return
        if len(self._sample) < SNIFF_BYTES:
            self._sample += chunk[: SNIFF_BYTES - len(self._sample)]
        if not self._spill_started and self._open_spill is not None and self.total_bytes + len(chunk) > self.inline_bytes:
            self._start_spill()
        if self._spill is not None:
            self._write_spill(chunk)
        self.total_bytes += len(chunk)
        self._newlines += chunk.count(b"\n")
        self._ends_in_newline = chunk.endswith(b"\n")
        if self.scanner is None:
            chunk = self._fill_head(chunk)
        if chunk:
            self.tail += chunk
            if len(self.tail) > 2 * self.tail_limit:
                self._evict(len(self.tail) - self.tail_limit)

    def save_now(self) -> None:
        """Spill what was captured even though it fits (a binary output is never shown, so it is saved instead)."""
        if not self._spill_started and self._open_spill is not None and self.total_bytes and not self.evicted_bytes:
            self._start_spill()

    def close(self) -> None:
        """The end of the stream: what redaction held back is let through, the spill file is closed."""
        if self._redacting is not None:
            self._take(self._redacting.flush())
        if self._spill is not None:
            try:
                self._spill.close()
            except OSError as error:
                self._spill = None
                self._fail_spill(error)
            self._spill = None

    def sample(self) -> bytes:
        """The first bytes seen, for binary sniffing."""
        return bytes(self._sample)

    def _fill_head(self, chunk: bytes) -> bytes:
        room = self.head_limit - len(self.head)
        take = chunk[:room]
        done = len(chunk) >= room
        need = HEAD_MAX_LINES - self.head.count(b"\n")
        at = -1
        while need > 0 and (at := take.find(b"\n", at + 1)) >= 0:
            need -= 1
        if need <= 0:
            take, done = take[: at + 1], True
        self.head += take
        rest = chunk[len(take) :]
        if not done:
            return rest
        carry = b""
        if not self.head.endswith(b"\n"):
            newline = self.head.rfind(b"\n")
            if newline < 0:
                self.head_cut = True
            else:
                carry = bytes(self.head[newline + 1 :])
                del self.head[newline + 1 :]
        self.mid_line = self.head_cut
        self.scanner = ErrorScanner(start_line=self.head.count(b"\n"))
        return carry + rest

    def _evict(self, count: int) -> None:
        assert self.scanner is not None
        block = bytes(self.tail[:count])
        del self.tail[:count]
        self.scanner.feed(block)
        self.evicted_bytes += count
        self.mid_line = not block.endswith(b"\n")

    def _start_spill(self) -> None:
        assert self._open_spill is not None
        self._spill_started = True
        try:
            self.spill_path, self._spill = self._open_spill()
        except OSError as error:
            self.spill_error = f"the complete output could not be saved: {error.strerror or error}"
            return
        self._write_spill(bytes(self.head) + bytes(self.tail))

    def _write_spill(self, data: bytes) -> None:
        assert self._spill is not None
        room = self._spill_limit - self.spilled_bytes
        if room <= 0:
            return
        try:
            self._spill.write(data[:room])
        except OSError as error:
            spill, self._spill = self._spill, None
            try:
                spill.close()
            except OSError:
                pass
            self._fail_spill(error)
            return
        self.spilled_bytes += min(room, len(data))

    def _fail_spill(self, error: OSError) -> None:
        if self.spill_path is not None:
            try:
                os.unlink(self.spill_path)
            except OSError:
                pass
        self.spill_path = None
        self.spilled_bytes = 0
        self.spill_error = f"the complete output could not be saved: {error.strerror or error}"
