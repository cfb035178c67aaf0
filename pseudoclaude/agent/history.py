"""The session's recorded history as ``recall`` searches it (``tools.HistorySearch``).

Tools may not import the session package; this adapter may. It reads the
session's JSONL afresh on each search (the file is append-only and every
message is appended as it happens, so the record is current), keeps what lies
before the latest compaction boundary, pairs each tool result with the call it
answers (an assistant message's calls are searched as ``[call name arguments]``
lines of its text), and reads a result's complete output from its spill file when the
recorded content is shorter (a shaped command output names its ``full_output``;
a Layer 1 replacement names the file holding the original).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from pseudoclaude.llm import Message, ToolCall
from pseudoclaude.session import Replacement, SessionError, load_replay
from pseudoclaude.tools import PastMessage

SPILL_READ_LIMIT_BYTES = 4_000_000
"""A spill file larger than this is searched in its first 4 MB only (a search must stay quick)."""


class SessionHistory:
    """``HistorySearch`` over one session's JSONL and spill files."""

    def __init__(self, jsonl_path: Path, spill_dir: Path) -> None:
        self.jsonl_path = jsonl_path
        self.spill_dir = spill_dir
        self._cached: tuple[tuple[int, int], int, tuple[PastMessage, ...]] | None = None

    def _read(self) -> tuple[int, tuple[PastMessage, ...]]:
        """(compactions, summarized messages) of the file as it is now (read again only when it changed)."""
        try:
            status = self.jsonl_path.stat()
            key = (status.st_size, status.st_mtime_ns)
            if self._cached is None or self._cached[0] != key:
                replay = load_replay(self.jsonl_path)
                cut = replay.boundaries[-1] if replay.boundaries else 0
                messages = past_messages(replay.transcript[:cut], replay.boundaries, replay.replacements, self.spill_dir)
                self._cached = (key, len(replay.boundaries), messages)
            return self._cached[1], self._cached[2]
        except (SessionError, OSError):
            return 0, ()

    def compactions(self) -> int:
        return self._read()[0]

    def summarized(self) -> Sequence[PastMessage]:
        return self._read()[1]


def past_messages(
    transcript: Sequence[Message], boundaries: Sequence[int], replacements: Mapping[str, Replacement], spill_dir: Path
) -> tuple[PastMessage, ...]:
    """Each message as ``recall`` sees it: numbered, its compaction era, a tool result with its call and complete text.

    Complete texts are read only from the session's own spill folder: a path recorded in a session
    file is data, and must not make ``recall`` read a file the sandbox would refuse.
    """
    calls: dict[str, ToolCall] = {}
    out: list[PastMessage] = []
    for index, message in enumerate(transcript):
        era = sum(1 for boundary in boundaries if boundary <= index)
        for call in message.tool_calls:
            calls[call.id] = call
        result = message.tool_result
        if result is None:
            calls_text = [f"[call {call.name} {call.arguments}]" for call in message.tool_calls]
            out.append(PastMessage(index + 1, message.role, "\n".join([message.text, *calls_text]).strip("\n"), era))
            continue
        answered = calls.get(result.call_id)
        replaced = replacements.get(result.call_id)
        spill = result.full_output or (replaced.path if replaced is not None else None)
        out.append(
            PastMessage(
                index + 1,
                message.role,
                _complete(result.content, spill, spill_dir),
                era,
                tool=answered.name if answered is not None else "",
                arguments=_arguments(answered),
                call_id=result.call_id,
                is_error=result.is_error,
            )
        )
    return tuple(out)


def _arguments(call: ToolCall | None) -> dict[str, Any]:
    if call is None:
        return {}
    try:
        return call.parsed_arguments()
    except ValueError:
        return {"arguments": call.arguments}


def _complete(content: str, spill: str | None, spill_dir: Path) -> str:
    """The spill file's text when it holds more than the recorded content (only a file inside ``spill_dir``)."""
    if not spill:
        return content
    try:
        if not Path(spill).resolve().is_relative_to(spill_dir.resolve()):
            return content
        with open(spill, "rb") as handle:
            data = handle.read(SPILL_READ_LIMIT_BYTES)
    except OSError:
        return content
    text = data.decode("utf-8", "replace")
    return text if len(text) > len(content) else content
