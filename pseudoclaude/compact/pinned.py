"""The pinned block: what every summary is followed by, built from the session, never by the model.

A summary is the model's own words; the user's requests, the files the work
touched and the last failure must survive it mechanically. ``WorkingSet``
keeps that record. Earlier summaries have already replaced old messages in
the conversation, so the record cannot be rebuilt from the conversation at
compaction time: it is updated from every conversation ``manage_context``
sees (only the messages appended since the conversation it returned last, so
the cost is incremental) and, on resume, rebuilt from the session's whole
transcript (``WorkingSet.replayed``).

Which tools read, edit, run commands or keep the todo list is data
(``PinnedTool``, derived by the agent from each tool's declared traits):
``compact`` never imports ``tools``.

``render`` is deterministic: the same record and cap give the same bytes, so
a resumed session rebuilds the same block. It stays within ``max_tokens``:
the first and the latest user messages always (each cut in its middle when
it alone would take more than half the cap), then the files, the last
failure and the todo list, then the other user messages, newest first, while
they fit (a repeat of a message already kept, such as "continue", is left
out). What comes from outside the record follows, each part within its own
cap (``reattach.py``): the plan (the one presented with ``exit_plan_mode``, else
the last answer written in plan mode), instruction files
changed since the session started, and the current text of the newest files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Literal, Mapping, Sequence

from pseudoclaude.compact.reattach import (
    PLAN_CLOSE,
    PLAN_OPEN,
    FileBudget,
    PinnedSource,
    files_section,
    instructions_section,
    plan_section,
    shown_in,
)
from pseudoclaude.compact.summarize import is_summary_message
from pseudoclaude.llm import Message, ToolCall, ToolResult

PinnedRole = Literal["read", "edit", "execute", "todo", "plan"]
TextCounter = Callable[[str], int]

PINNED_HEADER = '<pinned-context note="kept from the session itself, not written by the summary">'
PINNED_FOOTER = "</pinned-context>"
PINNED_INTRO = "Kept from the session itself, not from the summary: the user's messages verbatim, files touched, todos, last failure."
FAILURE_TAIL_LINES = 12
LINE_CHARS = 300
CHARS_PER_TOKEN = 3.5

_READ_RANGE = re.compile(r"lines (\d+)-(\d+) of (\d+)")
_ENDING = re.compile(r"^\[(exit code (-?\d+)|timed out after [^;\]·]*|killed by signal \d+)")


@dataclass(frozen=True)
class PinnedTool:
    """What a tool's calls tell the working set: its ``role`` and the ``argument`` that carries it."""

    role: PinnedRole
    argument: str


@dataclass
class _File:
    ranges: list[tuple[int, int]] = field(default_factory=list)
    edited: bool = False
    total: int | None = None


@dataclass(frozen=True)
class Failure:
    """The last command that failed: its command line, how it ended and its last lines."""

    command: str
    ending: str
    tail: str


class WorkingSet:
    """The session's user messages, touched files, todo list and last failure (see the module docstring)."""

    def __init__(self, tools: Mapping[str, PinnedTool] = {}, source: PinnedSource | None = None) -> None:
        self.tools = dict(tools)
        self.source = source
        self._reset()

    def _reset(self) -> None:
        self.user_messages: list[str] = []
        self.files: dict[str, _File] = {}
        self.todos: tuple[str, ...] = ()
        self.failure: Failure | None = None
        self.plan = ""
        self._plan_presented = False
        self._planning = False
        self._calls: dict[str, ToolCall] = {}
        self._mark: tuple[int, Message] | None = None

    @classmethod
    def replayed(
        cls, transcript: Sequence[Message], conversation: Sequence[Message], tools: Mapping[str, PinnedTool], source: PinnedSource | None = None
    ) -> WorkingSet:
        """The record of a resumed session: its whole transcript, with ``conversation`` (the replayed one) as seen.

        A plan presented with ``exit_plan_mode`` is in the transcript. Otherwise
        the transcript does not say which answers were written in plan mode:
        the plan comes back from the newest pinned block (the replayed
        conversation opens with it); one written since is not known.
        """
        working = cls(tools, source)
        working.ingest(transcript)
        if not working._plan_presented:
            working.plan = _pinned_plan([*transcript, *conversation])
        working.mark(conversation)
        return working

    def mark(self, conversation: Sequence[Message]) -> None:
        """``conversation`` (what ``manage_context`` returned) is seen; the next ``observe`` reads only what follows it."""
        self._mark = (len(conversation), conversation[-1]) if conversation else (0, Message.user(""))

    def observe(self, conversation: Sequence[Message]) -> None:
        """Read the messages appended since the last ``mark`` (all of them, meta messages aside, the first time)."""
        mark = self._mark
        if mark is not None and (mark[0] == 0 or (len(conversation) >= mark[0] and conversation[mark[0] - 1] == mark[1])):
            self.ingest(conversation[mark[0] :])
        else:
            if mark is not None and mark[0] > 0:
                self._reset()  # the conversation was replaced (/clear): start over
            self.ingest(conversation)
        self._planning = self.source is not None and self.source.planning()  # the mode the next answers are written in

    def ingest(self, messages: Sequence[Message]) -> None:
        for message in messages:
            if is_user_request(message):
                self.user_messages.append(message.text)
            elif message.role == "assistant":
                self._calls.update((call.id, call) for call in message.tool_calls)
                presented = self._presented_plan(message)
                if presented:
                    self.plan, self._plan_presented = presented, True
                elif self._planning and not self._plan_presented and not message.tool_calls and message.text.strip():
                    self.plan = message.text
            elif message.tool_result is not None:
                call = self._calls.pop(message.tool_result.call_id, None)
                if call is not None:
                    self._result(call, message.tool_result)

    def _presented_plan(self, message: Message) -> str:
        """The plan an ``exit_plan_mode`` call in ``message`` presents ("" when none): preferred over any plain answer."""
        for call in reversed(message.tool_calls):
            tool = self.tools.get(call.name)
            if tool is not None and tool.role == "plan":
                try:
                    value = call.parsed_arguments().get(tool.argument)
                except ValueError:
                    continue
                if isinstance(value, str) and value.strip():
                    return value
        return ""

    def _result(self, call: ToolCall, result: ToolResult) -> None:
        tool = self.tools.get(call.name)
        if tool is None:
            return
        try:
            value = call.parsed_arguments().get(tool.argument)
        except ValueError:
            return
        if tool.role == "execute" and isinstance(value, str):
            self._command(value, result)
        elif result.is_error:
            return
        elif tool.role == "todo" and isinstance(value, list):
            self.todos = tuple(_todo_line(item) for item in value if isinstance(item, dict))
        elif isinstance(value, str) and value:
            record = self.files.pop(value, None) or _File()
            self.files[value] = record  # most recently touched last
            if tool.role == "edit":
                record.edited = True
            elif (found := _READ_RANGE.findall(result.content[-200:])):
                first, last, total = (int(n) for n in found[-1])
                record.ranges.append((first, last))
                record.total = total

    def _command(self, command: str, result: ToolResult) -> None:
        lines = result.content.rstrip("\n").splitlines() or [""]
        ending = next((m for line in (lines[-1], lines[0]) if (m := _ENDING.match(line))), None)
        failed = result.is_error or (ending is not None and ending.group(2) != "0")
        if not failed:
            if self.failure is not None and self.failure.command == command:
                self.failure = None
            return
        status = ending.group(1) if ending is not None else "tool error"
        body = [line for line in lines if not _ENDING.match(line)][-FAILURE_TAIL_LINES:]
        self.failure = Failure(command, status, "\n".join(line[:LINE_CHARS] for line in body))

    def render(self, max_tokens: int, count: TextCounter, tail: Sequence[str] = (), *, window: int = 0, kept: Sequence[Message] = ()) -> str:
        """The block (see the module docstring); "" when there is nothing to pin.

        ``tail``: the newest user messages, which the kept tail carries
        verbatim; the block names them instead of repeating them (the latest
        is then in the tail, and only the first is always in the block).
        ``window`` (with a ``source``) adds what comes from the disk
        (``reattach.py``): the plan within ``max_tokens`` of its own, changed
        instruction files and the current text of the newest files, in a
        budget scaled to ``window``, leaving out those ``kept`` shows whole.
        """
        in_tail = len(tail)
        messages = self.user_messages[: max(0, len(self.user_messages) - in_tail)]
        extras = self._extras(max_tokens, count, window, kept)
        if not (messages or self.files or self.todos or self.failure or any(extras)):
            return ""
        last = len(messages) - 1
        per_message = max(1, max_tokens // 2)
        chosen: dict[int, str] = {i: _cut(messages[i], per_message, count) for i in {0, -1 if in_tail else last} if 0 <= i < len(messages)}
        sections = [self._files_section(), self._failure_section(), self._todo_section()]
        used = count(_assemble(chosen, len(messages), in_tail, sections))
        for index in range(last if in_tail else last - 1, 0, -1):
            if used >= max_tokens:
                break
            if messages[index] in chosen.values() or messages[index] in tail:
                continue
            text = _cut(messages[index], per_message, count)
            cost = count(text) + 8
            if used + cost > max_tokens:
                continue
            chosen[index] = text
            used += cost
        while count(_assemble(chosen, len(messages), in_tail, sections)) > max_tokens and any(sections):
            sections = [_halve(section) for section in sections]
        return _assemble(chosen, len(messages), in_tail, [*sections, *extras])

    def _extras(self, max_tokens: int, count: TextCounter, window: int, kept: Sequence[Message]) -> list[str]:
        """The plan, then what the ``source`` reads from the disk now: changed instructions, the newest files."""
        plan = plan_section(self.plan, max_tokens, count)
        source = self.source
        if source is None or window <= 0:
            return [plan]
        budget = FileBudget.for_window(window)
        arguments = {name: tool.argument for name, tool in self.tools.items() if tool.role in ("read", "edit")}
        readers = frozenset(name for name, tool in self.tools.items() if tool.role == "read")
        visible = shown_in(kept, arguments, readers)
        edited = frozenset(path for path, record in self.files.items() if record.edited)
        return [
            plan,
            instructions_section(source, max(max_tokens, budget.per_file), count),
            files_section(source, list(reversed(self.files)), budget, count, visible, edited),
        ]

    def _files_section(self) -> str:
        if not self.files:
            return ""
        lines = ["Files touched (most recent last):"]
        for path, record in self.files.items():
            what = []
            if record.ranges:
                total = f" of {record.total}" if record.total is not None else ""
                what.append("read lines " + ", ".join(f"{a}-{b}" for a, b in _merge(record.ranges)) + total)
            if record.edited:
                what.append("edited")
            lines.append(f"- {path}" + (f" ({'; '.join(what)})" if what else ""))
        return "\n".join(lines)

    def _failure_section(self) -> str:
        failure = self.failure
        if failure is None:
            return ""
        return f"Last failing command: $ {failure.command[:LINE_CHARS]}\n[{failure.ending}]\n{failure.tail}".rstrip()

    def _todo_section(self) -> str:
        return "Todo list:\n" + "\n".join(self.todos) if self.todos else ""


def is_user_request(message: Message) -> bool:
    """A message the user (or a hook speaking for them) wrote: not a compaction's meta message."""
    text = message.text
    return message.role == "user" and bool(text) and not is_summary_message(message) and not text.startswith(PINNED_HEADER)


def _assemble(kept: Mapping[int, str], total: int, in_tail: int, sections: Sequence[str]) -> str:
    parts = [PINNED_HEADER]
    if kept:
        parts.append(f"User messages, verbatim ({len(kept)} of {total}, oldest first):")
        previous = -1
        for index in sorted(kept):
            if index > previous + 1:
                parts.append(f"[{index - previous - 1} omitted]")
            parts.append(f"[{index + 1}] {kept[index]}")
            previous = index
        if previous < total - 1:
            parts.append(f"[{total - 1 - previous} omitted]")
    parts.extend(section for section in sections if section)
    body = "\n".join(parts).replace(PINNED_FOOTER, "</pinned-context >")  # a file's text cannot end the block early
    return f"{body}\n{PINNED_FOOTER}"


def _cut(text: str, max_tokens: int, count: TextCounter) -> str:
    """``text``, or its head and tail around a marker when it alone would take more than ``max_tokens``."""
    if count(text) <= max_tokens:
        return text
    keep = int(max_tokens * CHARS_PER_TOKEN / 2)
    return f"{text[:keep]}\n[... {len(text) - 2 * keep} characters cut ...]\n{text[-keep:]}"


def _halve(section: str) -> str:
    """A section with its older half of lines dropped (the heading kept): the block must fit its cap."""
    lines = section.splitlines()
    if len(lines) <= 2:
        return ""
    return "\n".join([lines[0], *lines[1 + (len(lines) - 1) // 2 :]])


def _merge(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def _todo_line(item: Mapping[str, object]) -> str:
    mark = {"completed": "[x]", "in_progress": "[~]"}.get(str(item.get("status", "")), "[ ]")
    return f"{mark} {item.get('content', '')}"


def _pinned_plan(messages: Sequence[Message]) -> str:
    """The plan the newest pinned block in ``messages`` carried, or ""."""
    for message in reversed(messages):
        text = message.text
        if message.role == "user" and text.startswith(PINNED_HEADER):
            start = text.find(PLAN_OPEN)
            end = text.find(PLAN_CLOSE, start)
            return text[start + len(PLAN_OPEN) : end] if 0 <= start < end else ""
    return ""


def pinned_text(conversation: Sequence[Message]) -> str:
    """The pinned block a compacted ``conversation`` carries (in its third message), or ""."""
    if len(conversation) < 3 or not is_summary_message(conversation[0]):
        return ""
    text = conversation[2].text
    end = text.find(PINNED_FOOTER)
    return text[: end + len(PINNED_FOOTER)] if text.startswith(PINNED_HEADER) and end >= 0 else ""
