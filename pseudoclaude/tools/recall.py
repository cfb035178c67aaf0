"""recall: search what a compaction summarized, in the session's own record.

After a compaction the model holds a summary, not the conversation. The
session file still holds every message, and the spill files every complete
tool output; ``recall`` searches them (through ``ToolContext.history``, which
the agent wires to the session) by text (a substring, or a regular expression)
or by file path (the results of tool calls whose arguments named the path), and
returns excerpts that say where each came from: which message, which tool call,
before which compaction. Only what lies before the latest compaction boundary is
searched (the rest is still in the context), and never ``recall``'s own results.

The answer fits ``ToolContext.budget.inline_bytes``: newest matches first, each
excerpt capped, and a closing line says how many matches were left out. The
description is a constant (the tool list is part of the cached prompt prefix).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Mapping, Sequence

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import PastMessage, ToolContext, ToolError, ToolOutput, ToolTraits

MAX_CONTEXT = 10
DEFAULT_CONTEXT = 2
MAX_HITS_PER_MESSAGE = 3
LINE_LIMIT_CHARS = 300
ARGUMENTS_LIMIT_CHARS = 200
EXCERPT_SHARE = 4
"""An excerpt takes at most this fraction of the budget, so one large result cannot hide the others."""
_OWN_CALL = "[call recall "
_SPLIT_PATH_TOKENS = re.compile(r"[\s'\"=:,;()<>|&]+")

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "description": "Case-insensitive substring, or a Python regex with regex=true."},
        "regex": {"type": "boolean"},
        "path": {"type": "string", "minLength": 1, "description": "Find results of tool calls whose arguments named this file."},
        "context": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT, "description": f"Lines around each match (default {DEFAULT_CONTEXT})."},
    },
    "required": [],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class _Match:
    message: PastMessage
    excerpt: str


class RecallTool:
    name = "recall"
    description = (
        "Search this session's messages and complete tool results from before the latest compaction. Give query, path "
        "or both. Returns excerpts, newest first, each naming its message, tool call and compaction; capped at the inline "
        "output budget (an excerpt at a quarter of it), with a count of matches left out. Nothing to search before the "
        "first compaction."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="read", clearable=True, key_argument="query")

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        query, path = checked.get("query"), checked.get("path")
        if query is None and path is None:
            raise ToolError("recall: give a query, a path, or both")
        if ctx.history is None:
            raise ToolError("recall: this session keeps no record to search (it is not saved)")
        pattern = _pattern(str(query), bool(checked.get("regex"))) if query is not None else None
        context = int(checked.get("context", DEFAULT_CONTEXT))
        compactions = ctx.history.compactions()
        if compactions == 0:
            return ToolOutput("recall: no compaction yet; the whole conversation is still in your context.", summary="no compaction yet")
        messages = [m for m in ctx.history.summarized() if m.tool != self.name]
        cap = max(ctx.budget.inline_bytes // EXCERPT_SHARE, 256)
        matches: list[_Match] = []
        for message in reversed(messages):
            if path is not None and not _names_path(message.arguments, str(path), ctx.workspace):
                continue
            excerpt = _excerpt(message, pattern, context, cap)
            if excerpt is not None:
                matches.append(_Match(message, excerpt))
        what = " and ".join(part for part in (f"text {query!r}" if query is not None else "", f"path {path!r}" if path is not None else "") if part)
        return _render(matches, what, len(messages), compactions, ctx.budget.inline_bytes)


def _pattern(query: str, regex: bool) -> re.Pattern[str]:
    try:
        return re.compile(query if regex else re.escape(query), re.IGNORECASE)
    except re.error as error:
        raise ToolError(f"recall: invalid regular expression: {error}") from None


def _names_path(arguments: Mapping[str, Any], path: str, workspace: Path) -> bool:
    """Whether a string argument (a path, or a word of a command line) names ``path``."""
    wanted = PurePosixPath(path.replace("\\", "/"))
    resolved = _resolve(path, workspace)
    for value in arguments.values():
        if not isinstance(value, str):
            continue
        for token in _SPLIT_PATH_TOKENS.split(value):
            if not token:
                continue
            candidate = PurePosixPath(token.replace("\\", "/"))
            if candidate.parts[-len(wanted.parts) :] == wanted.parts or _resolve(token, workspace) == resolved:
                return True
    return False


def _resolve(path: str, workspace: Path) -> Path:
    return Path(os.path.normpath(workspace / Path(path).expanduser()))


def _excerpt(message: PastMessage, pattern: re.Pattern[str] | None, context: int, cap: int) -> str | None:
    """The lines around the first few matching lines (the text's head when only a path was asked for)."""
    if pattern is None:
        return _clip(message.text, cap)
    lines = message.text.splitlines() or [""]
    hits = [number for number, line in enumerate(lines) if pattern.search(line) and not line.startswith(_OWN_CALL)]
    if not hits:
        return None
    shown: list[str] = []
    last = -1
    for number in hits[:MAX_HITS_PER_MESSAGE]:
        first = max(number - context, last + 1)
        if shown and first > last + 1:
            shown.append("  ...")
        for index in range(first, min(number + context + 1, len(lines))):
            marker = ">" if index in hits else " "
            shown.append(f"{marker}{index + 1:>5}| {_line(lines[index])}")
            last = index
    more = len(hits) - MAX_HITS_PER_MESSAGE
    if more > 0:
        shown.append(f"  ... {more} more matching line{'s' if more != 1 else ''} in this message")
    return _clip("\n".join(shown), cap)


def _line(text: str) -> str:
    return text if len(text) <= LINE_LIMIT_CHARS else text[:LINE_LIMIT_CHARS] + f"... [{len(text) - LINE_LIMIT_CHARS} more chars]"


def _clip(text: str, cap: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= cap:
        return text
    return data[:cap].decode("utf-8", "ignore").rstrip() + f"\n  ... [excerpt cut: {len(data) - cap} more bytes]"


def _header(message: PastMessage) -> str:
    where = f"message {message.index}, before compaction {message.compactions + 1}"
    if message.role == "tool":
        arguments = json.dumps(dict(message.arguments), ensure_ascii=False)
        if len(arguments) > ARGUMENTS_LIMIT_CHARS:
            arguments = arguments[:ARGUMENTS_LIMIT_CHARS] + "...}"
        error = ", an error" if message.is_error else ""
        return f"--- {where}: result of {message.tool or 'a tool'} {arguments} (call {message.call_id}{error})"
    return f"--- {where}: {message.role} message"


def _render(matches: Sequence[_Match], what: str, searched: int, compactions: int, budget: int) -> ToolOutput:
    heading = f"recall: {len(matches)} message{'s' if len(matches) != 1 else ''} matching {what} among {searched} recorded before compaction {compactions}"
    if not matches:
        return ToolOutput(heading + ".", summary="no match")
    parts: list[str] = []
    used = len(heading.encode("utf-8")) + 120
    for match in matches:
        block = f"{_header(match.message)}\n{match.excerpt}"
        size = len(block.encode("utf-8")) + 1
        if parts and used + size > budget:
            break
        if not parts and used + size > budget:
            block = _clip(block, max(budget - used, 128))
            size = len(block.encode("utf-8")) + 1
        parts.append(block)
        used += size
    left = len(matches) - len(parts)
    tail = f"\n{left} more matching message{'s' if left != 1 else ''} left out (older ones): narrow the query or the path." if left else ""
    summary = f"{len(matches)} match{'es' if len(matches) != 1 else ''}" + (f", {left} left out" if left else "")
    return ToolOutput(f"{heading} (newest first):\n" + "\n".join(parts) + tail, summary=summary, shaped=True)
