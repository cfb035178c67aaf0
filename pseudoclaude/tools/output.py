"""Bounded capture of a byte stream, and binary sniffing.

``StreamCapture`` keeps at most ``head_limit + tail_limit`` bytes in memory
however much is fed to it: the first bytes verbatim, then a rolling tail, and
the true total. While the stream still fits it is kept whole; the moment it
would no longer fit, everything seen so far (still complete at that point) is
written to a spill file, and every later chunk is appended there, so the file
holds the full stream. The spill file itself stops growing at
``spill_limit`` bytes (disk is a resource too); the total keeps counting.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import BinaryIO, Callable

HEAD_LIMIT_BYTES = 20_000
TAIL_LIMIT_BYTES = 20_000
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
    """Head + rolling tail + true byte count of a stream, spilling the whole stream to a file when it overflows."""

    def __init__(
        self,
        *,
        head_limit: int = HEAD_LIMIT_BYTES,
        tail_limit: int = TAIL_LIMIT_BYTES,
        open_spill: SpillOpener | None = None,
        spill_limit: int = SPILL_LIMIT_BYTES,
    ) -> None:
        self._head = bytearray()
        self._tail = bytearray()
        self._head_limit = head_limit
        self._tail_limit = tail_limit
        self._open_spill = open_spill
        self._spill_limit = spill_limit
        self._spill: BinaryIO | None = None
        self._spilled_bytes = 0
        self.spill_path: Path | None = None
        self.spill_error: str | None = None
        self.total_bytes = 0

    @property
    def truncated(self) -> bool:
        """True when bytes were dropped from memory (the middle of the stream)."""
        return self.total_bytes > self._head_limit + self._tail_limit

    @property
    def spill_complete(self) -> bool:
        """True when the spill file holds the whole stream."""
        return self.spill_path is not None and self._spilled_bytes == self.total_bytes

    def feed(self, chunk: bytes) -> None:
        if not chunk:
            return
        if self._spill is None and self.spill_path is None and self._open_spill is not None:
            if self.total_bytes + len(chunk) > self._head_limit + self._tail_limit:
                self._start_spill()
        if self._spill is not None:
            self._write_spill(chunk)
        self.total_bytes += len(chunk)
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            excess = len(self._tail) - self._tail_limit
            if excess > 0 and self.truncated:
                del self._tail[:excess]

    def close(self) -> None:
        if self._spill is not None:
            self._spill.close()
            self._spill = None

    def sample(self) -> bytes:
        """The first bytes seen, for binary sniffing."""
        return bytes(self._head[:SNIFF_BYTES])

    def text(self) -> str:
        """What was kept, decoded (bad bytes replaced), with a marker where the middle was dropped."""
        if not self.truncated:
            return (bytes(self._head) + bytes(self._tail)).decode("utf-8", errors="replace")
        omitted = self.total_bytes - len(self._head) - len(self._tail)
        head = utf8_head(bytes(self._head)).decode("utf-8", errors="replace")
        tail = utf8_tail(bytes(self._tail)).decode("utf-8", errors="replace")
        return f"{head}\n\n… [{omitted:,} bytes omitted] …\n\n{tail}"

    def _start_spill(self) -> None:
        assert self._open_spill is not None
        try:
            self.spill_path, self._spill = self._open_spill()
        except OSError as error:
            self.spill_error = f"could not save the full output: {error.strerror or error}"
            return
        self._write_spill(bytes(self._head) + bytes(self._tail))

    def _write_spill(self, data: bytes) -> None:
        assert self._spill is not None
        room = self._spill_limit - self._spilled_bytes
        if room <= 0:
            return
        try:
            self._spill.write(data[:room])
        except OSError as error:
            self.spill_error = f"saving the full output failed: {error.strerror or error}"
            self._spill.close()
            self._spill = None
            return
        self._spilled_bytes += min(room, len(data))
