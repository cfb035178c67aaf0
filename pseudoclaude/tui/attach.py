"""``@path`` attachments: the content of a mentioned file goes into the user's message.

A mention used to add only the file's name, so the model spent a tool call
(and a turn) to read what the user had pointed at. Now the file's text is
attached, within the same budget a file read gets (``OutputBudget.read_bytes``,
shared by every file of the message): a file over its share keeps its head and
its tail with a marker saying how much was cut and how to read the rest. What
is attached is part of the message as sent, so the session records exactly it.

Only regular files inside the workspace are attached (a mention resolving
outside it, through ``..`` or a symlink, is ignored; a FIFO is never opened,
so it cannot block the prompt); binary files and files nothing is left for
are named with their size instead, for the model to read with its tools.
Images never get here: ``prompt_images`` attaches them as images first and
replaces their mentions by ``[image N: name]``.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from pseudoclaude.tools import OutputBudget

SNIFF_BYTES = 8192
MIN_SHARE_BYTES = 512


@dataclass(frozen=True)
class Attachment:
    """One mentioned file: its workspace-relative name, size, and the text attached ("" when only named)."""

    name: str
    size: int
    text: str = ""
    cut_bytes: int = 0
    why_not: str = ""

    def render(self) -> str:
        if not self.text and self.why_not:
            return f'<file path="{self.name}" bytes="{self.size}" attached="no">{self.why_not}; read it with read_file when needed</file>'
        note = f' cut="{self.cut_bytes} bytes from the middle; read_file shows them"' if self.cut_bytes else ""
        return f'<file path="{self.name}" bytes="{self.size}"{note}>\n{self.text.rstrip(chr(10))}\n</file>'


def attach_files(names: Sequence[str], workspace: Path, budget_bytes: int = OutputBudget().read_bytes) -> list[Attachment]:
    """Each of ``names`` (workspace-relative files) with its content, sharing ``budget_bytes`` in order."""
    left = budget_bytes
    out: list[Attachment] = []
    for index, name in enumerate(names):
        share = left // max(1, len(names) - index)
        attached = _attach(workspace / name, name, share)
        left -= len(attached.text.encode("utf-8"))
        out.append(attached)
    return out


def _attach(path: Path, name: str, share: int) -> Attachment:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        return Attachment(name, 0, why_not=f"cannot be opened ({error.strerror or error})")
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return Attachment(name, 0, why_not="not a regular file")
        size = info.st_size
        if share < MIN_SHARE_BYTES:
            return Attachment(name, size, why_not="no room left in this message")
        head = handle.read(SNIFF_BYTES)
        if b"\x00" in head or not _utf8(head):
            return Attachment(name, size, why_not="binary")
        if size <= share:
            data = head + handle.read(share - len(head) + 1)
            if len(data) <= share:
                return Attachment(name, size, data.decode("utf-8", errors="replace"))
        head_bytes, tail_bytes = share * 2 // 3, share // 3
        handle.seek(0)
        first = handle.read(head_bytes)
        handle.seek(max(head_bytes, size - tail_bytes))
        last = handle.read(tail_bytes)
    cut = max(0, size - len(first) - len(last))
    text = first.decode("utf-8", errors="ignore") + f"\n[... {cut:,} bytes cut ...]\n" + last.decode("utf-8", errors="ignore")
    return Attachment(name, size, text, cut_bytes=cut)


def _utf8(sample: bytes) -> bool:
    for back in range(4):
        try:
            sample[: len(sample) - back].decode("utf-8")
            return True
        except UnicodeDecodeError:
            continue
    return False


def attachments_text(attachments: Sequence[Attachment]) -> str:
    """The block appended to the message ("" without attachments)."""
    if not attachments:
        return ""
    return "Files the user attached (current content):\n" + "\n".join(item.render() for item in attachments)
