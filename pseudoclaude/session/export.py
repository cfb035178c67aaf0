"""A session as a document: Markdown for people, JSON for programs (``/export``, ``sessions export``).

Built from the session file (a ``Replay``), never from the screen, so an
export says what was recorded whatever the terminal showed: every message of
the transcript (the user's, the assistant's answers, each tool call with its
arguments and its result), and a marked line where the conversation was
compacted (the model went on from a summary after it). In Markdown a tool
result is shortened to its first lines (the JSON keeps it whole); a result
that was offloaded names the file holding the original. Thinking is left
out: it is the model's scratch work, and its opaque part is the provider's.

No terminal code here: the text is returned, the caller writes it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pseudoclaude.llm import Message, ToolCall, ToolResult
from pseudoclaude.session.format import format_ts
from pseudoclaude.session.reader import Replay

ExportFormat = Literal["md", "json"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("md", "json")
RESULT_LINES = 20
"""How many lines of a tool result the Markdown keeps (the rest is counted, never dropped silently)."""
LINE_CHARS = 300
COMPACTED = "Context compacted here: the model continued from a summary of the conversation above."

_BACKTICKS = re.compile(r"`{3,}")


def export_session(replay: Replay, export_format: ExportFormat = "md") -> str:
    """The whole session in ``export_format``, ending with a newline."""
    return export_json(replay) if export_format == "json" else export_markdown(replay)


def default_export_name(session_id: str, export_format: ExportFormat = "md") -> str:
    """The file name an export gets when none is given: the session id, so it can be found again."""
    return f"{session_id}.{export_format}"


def export_markdown(replay: Replay) -> str:
    meta = replay.meta
    lines = [f"# {_title(replay) or f'Session {meta.id}'}", ""]
    lines.append(f"- Session: `{meta.id}`")
    if meta.model:
        lines.append(f"- Model: {meta.provider + '/' if meta.provider else ''}{meta.model}")
    lines.append(f"- Created: {format_ts(meta.created)}")
    if meta.cwd:
        lines.append(f"- Workspace: `{meta.cwd}`")
    names = _call_names(replay.transcript)
    boundaries = set(replay.boundaries)
    for index, message in enumerate(replay.transcript):
        if index in boundaries:
            lines += ["", "---", "", f"*{COMPACTED}*"]
        lines += ["", *_markdown_message(message, replay, names)]
    if len(replay.transcript) in boundaries:
        lines += ["", "---", "", f"*{COMPACTED}*"]
    return "\n".join(lines).rstrip() + "\n"


def export_json(replay: Replay) -> str:
    """One JSON object: the session's facts and its ``entries`` in order (messages and compaction marks)."""
    meta = replay.meta
    entries: list[dict[str, Any]] = []
    boundaries = set(replay.boundaries)
    for index, message in enumerate(replay.transcript):
        if index in boundaries:
            entries.append({"type": "compaction"})
        entries.append({"type": "message", **_json_message(message, replay)})
    if len(replay.transcript) in boundaries:
        entries.append({"type": "compaction"})
    document = {
        "session_id": meta.id,
        "title": meta.title,
        "provider": meta.provider,
        "model": meta.model,
        "cwd": meta.cwd,
        "created": format_ts(meta.created),
        "usage": replay.usage_total.to_dict(),
        "entries": entries,
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_export(text: str, path: Path) -> Path:
    """Write ``text`` to ``path`` (its folder made if missing); the absolute path written."""
    target = path.expanduser().absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def _markdown_message(message: Message, replay: Replay, names: dict[str, str]) -> list[str]:
    if message.role == "user":
        return ["## User", "", message.text or "(no text)", *_image_lines(message)]
    if message.role == "assistant":
        out = ["## Assistant"]
        if message.text:
            out += ["", message.text]
        for call in message.tool_calls:
            out += ["", f"**Tool call:** `{call.name}`", *_fenced(_arguments(call), "json")]
        return out
    result = message.tool_result
    if result is None:
        return []
    return _markdown_result(result, replay, names.get(result.call_id, "tool"))


def _markdown_result(result: ToolResult, replay: Replay, name: str) -> list[str]:
    lines = result.content.splitlines()
    kept = [line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…" for line in lines[:RESULT_LINES]]
    size = len(result.content.encode("utf-8"))
    head = f"**{'Error from' if result.is_error else 'Result of'}** `{name}` ({size:,} bytes"
    head += f", first {RESULT_LINES} of {len(lines):,} lines)" if len(lines) > RESULT_LINES else ")"
    out = [head, *_fenced("\n".join(kept) or "(empty)", "")]
    if len(lines) > RESULT_LINES:
        out += ["", f"… {len(lines) - RESULT_LINES:,} more lines"]
    replacement = replay.replacements.get(result.call_id)
    saved = replacement.path if replacement is not None and replacement.path else result.full_output
    if saved:
        out += ["", f"Full output: `{saved}`"]
    out += [f"- image: {image.describe()}" for image in result.images]
    return out


def _image_lines(message: Message) -> list[str]:
    return ["", *(f"- attached image: {image.describe()}" for image in message.images)] if message.images else []


def _fenced(text: str, language: str) -> list[str]:
    """``text`` in a code fence longer than any backtick run inside it, so the fence cannot close early."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=2)
    fence = "`" * max(3, longest + 1)
    return ["", f"{fence}{language}", text, fence]


def _arguments(call: ToolCall) -> str:
    """The arguments pretty-printed when they are JSON, else as the model sent them."""
    try:
        return json.dumps(call.parsed_arguments(), indent=2, ensure_ascii=False)
    except ValueError:
        return call.arguments


def _json_message(message: Message, replay: Replay) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role}
    if message.text:
        out["text"] = message.text
    if message.images:
        out["images"] = [image.to_dict() for image in message.images]
    if message.tool_calls:
        out["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": _parsed_or_raw(c)} for c in message.tool_calls]
    result = message.tool_result
    if result is not None:
        shown: dict[str, Any] = {"call_id": result.call_id, "content": result.content, "is_error": result.is_error}
        replacement = replay.replacements.get(result.call_id)
        if replacement is not None and replacement.path:
            shown["offloaded_to"] = replacement.path
        if result.images:
            shown["images"] = [image.to_dict() for image in result.images]
        out["tool_result"] = shown
    return out


def _parsed_or_raw(call: ToolCall) -> Any:
    try:
        return call.parsed_arguments()
    except ValueError:
        return call.arguments


def _call_names(transcript: tuple[Message, ...]) -> dict[str, str]:
    return {call.id: call.name for message in transcript for call in message.tool_calls}


def _title(replay: Replay, limit: int = 80) -> str:
    """The session's title, else its first user message on one line (cut at ``limit``)."""
    first = next((m.text for m in replay.transcript if m.role == "user" and m.text.strip()), "")
    text = " ".join((replay.meta.title or first).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
