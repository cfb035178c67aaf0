"""The user's secrets taken back out of text: each occurrence becomes ``***``.

Withholding secret variables from the commands the model runs
(``tools.child_env``) is the defence; this is the backstop for what still gets
through: the provider key read from a file (``cat .env``), a value a command
was given on purpose, what a hook or an MCP server prints. Text passes through
a ``Redactor`` on its way into the conversation (every tool result), the
session file (every line), a spill file or background log, and the hooks'
answers, so the key is ``***`` in every output format too.

Only values of at least ``MIN_SECRET_LENGTH`` (8) characters count as secrets.
A variable whose name looks secret may hold ``1``, ``true`` or a port number:
masking such a value everywhere would garble ordinary output while hiding
nothing that could not be guessed; 8 is the shortest password most policies
allow, and real keys and tokens are 20 to 100+ characters.

A stream is cut into chunks anywhere, so a key can arrive split in two;
``StreamRedactor`` holds back the end of a chunk as long as it could still be
the start of a secret, and lets it go with the next chunk or at ``flush``.

It cannot recognise a secret that was transformed (base64, reversed, split by
the command itself): that is why the variables are withheld in the first place.
The secrets never appear in a ``repr`` or an error message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterable, Mapping

__all__ = ["MASK", "MIN_SECRET_LENGTH", "Redactor", "StreamRedactor"]

MASK = "***"
MIN_SECRET_LENGTH = 8


@dataclass(frozen=True)
class Redactor:
    """Replaces each of ``secrets`` by ``***`` in text, bytes (raw or inside JSON) and nested values."""

    secrets: tuple[str, ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, values: Iterable[str | None]) -> Redactor:
        """A redactor for the ``values`` long enough to be secrets (surrounding whitespace dropped), longest first."""
        kept = {value.strip() for value in values if value and len(value.strip()) >= MIN_SECRET_LENGTH}
        return cls(tuple(sorted(kept, key=lambda secret: (-len(secret), secret))))

    def __repr__(self) -> str:
        return f"Redactor({len(self.secrets)} secret{'s' if len(self.secrets) != 1 else ''})"

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def text(self, text: str) -> str:
        """``text`` with every secret replaced by ``***``."""
        if self._text_pattern is None or not text:
            return text
        return self._text_pattern.sub(MASK, text)

    def data(self, data: bytes) -> bytes:
        """``data`` (UTF-8 text, or a JSON document) with every secret, as written or JSON-escaped, replaced by ``***``."""
        if self._byte_pattern is None or not data:
            return data
        return self._byte_pattern.sub(MASK.encode(), data)

    def json_line(self, line: bytes) -> bytes:
        """One JSON document (a session line) with every secret in its strings replaced by ``***``; still valid JSON.

        The bytes are replaced in place (the common case: nothing else changes);
        should that have cut an escape sequence (a secret starting with ``n``
        right after a newline, written ``\\n``), the document is decoded,
        redacted string by string and encoded again.
        """
        if self._byte_pattern is None or not line:
            return line
        redacted, count = self._byte_pattern.subn(MASK.encode(), line)
        if count == 0:
            return line
        try:
            json.loads(redacted)
            return redacted
        except ValueError:
            pass
        try:
            document = json.loads(line)
        except ValueError:
            return redacted
        ending = b"\n" if line.endswith(b"\n") else b""
        return json.dumps(self.value(document), separators=(",", ":")).encode("ascii") + ending

    def value(self, value: Any) -> Any:
        """``value`` with every string in it redacted (mappings, lists and tuples are walked; keys too)."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.value(key): self.value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, tuple):
            return tuple(self.value(item) for item in value)
        return value

    def stream(self) -> StreamRedactor:
        """A redactor for one byte stream fed in chunks (a key split between two chunks is still caught)."""
        return StreamRedactor(self)

    @cached_property
    def byte_forms(self) -> tuple[bytes, ...]:
        """Each secret as bytes: as written, and as a JSON string writes it (with and without ``\\u`` escapes)."""
        forms: dict[bytes, None] = {}
        for secret in self.secrets:
            for form in (secret, json.dumps(secret, ensure_ascii=False)[1:-1], json.dumps(secret)[1:-1]):
                forms.setdefault(_encoded(form), None)
        return tuple(sorted(forms, key=lambda form: -len(form)))

    @cached_property
    def _text_pattern(self) -> re.Pattern[str] | None:
        return re.compile("|".join(map(re.escape, self.secrets))) if self.secrets else None

    @cached_property
    def _byte_pattern(self) -> re.Pattern[bytes] | None:
        return re.compile(b"|".join(map(re.escape, self.byte_forms))) if self.secrets else None


def _encoded(text: str) -> bytes:
    """``text`` as a program prints it: an environment value with undecodable bytes gets those bytes back."""
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="surrogatepass")


class StreamRedactor:
    """One stream's redaction: ``feed`` returns what may go on now, ``flush`` what was held back at the end."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._pending = b""

    def feed(self, chunk: bytes) -> bytes:
        if not self._redactor:
            return chunk
        data = self._redactor.data(self._pending + chunk)
        keep = self._partial(data)
        self._pending = data[len(data) - keep :] if keep else b""
        return data[: len(data) - keep]

    def flush(self) -> bytes:
        """The held-back end of the stream (it turned out to be no secret)."""
        rest, self._pending = self._pending, b""
        return rest

    def _partial(self, data: bytes) -> int:
        """The length of the longest end of ``data`` that is the beginning of a secret (0: none)."""
        longest = 0
        for form in self._redactor.byte_forms:
            for start in range(max(0, len(data) - len(form) + 1), len(data) - longest):
                if form.startswith(data[start:]):
                    longest = len(data) - start
                    break
        return longest
