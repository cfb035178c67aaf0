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
a resumed session rebuilds the same block. Its parts, in order:

1. **The user's messages**, every one, oldest first (``usertext.py``):
   verbatim while they fit; a message too long keeps its instruction-bearing
   sentences (``rules.py``) and a pointer ``recall`` follows to the whole
   text; then the oldest are summarized. They come first and take what they
   need of ``max_tokens`` less the least the bookkeeping needs (at most
   ``BOOKKEEPING_MAX_SHARE`` of it), and may also take the re-attached files'
   budget: file text never costs a user message. ``manage_context`` sizes
   ``max_tokens`` from the window (``block_tokens``: the budget's pinned cap
   plus ``USER_WINDOW_FRACTION`` of the window, at most ``USER_MAX_TOKENS``).
2. **The files touched** (read, edited, searched, listed), grouped by
   directory, compressed rather than capped (``touched.py``), with what is
   left; edited files and those the last failure names first.
3. **The last failure** (its command, how it ended, its last
   ``FAILURE_TAIL_LINES`` lines) and **the todo list**.
4. What comes from outside the record (``reattach.py``): the plan (the one
   presented with ``exit_plan_mode``, else the last answer written in plan
   mode), instruction files changed since the session started, and the
   current text of the files edited, or read in the last ``RECENT_ROUNDS``
   rounds, within what the user's messages left of the files' budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
from pseudoclaude.compact.touched import Entry, normalized, render_files
from pseudoclaude.compact.usertext import carry
from pseudoclaude.llm import Message, ToolCall, ToolResult

PinnedRole = Literal["read", "edit", "search", "list", "execute", "todo", "plan"]
TextCounter = Callable[[str], int]

PINNED_HEADER = '<pinned-context note="kept from the session itself, not written by the summary">'
PINNED_FOOTER = "</pinned-context>"
PINNED_INTRO = "Kept from the session itself, not from the summary: the user's messages verbatim, files touched, todos, last failure."
FAILURE_TAIL_LINES = 12
LINE_CHARS = 300
BOOKKEEPING_MAX_SHARE = 0.4
RECENT_ROUNDS = 4
USER_WINDOW_FRACTION = 0.10
USER_MAX_TOKENS = 20_000

_READ_RANGE = re.compile(r"lines (\d+)-(\d+) of (\d+)")
_ENDING = re.compile(r"^\[(exit code (-?\d+)|timed out after [^;\]·]*|killed by signal \d+)")


@dataclass(frozen=True)
class PinnedTool:
    """What a tool's calls tell the working set: its ``role`` and the ``argument`` that carries it.

    A ``search`` tool (grep, glob) also names its ``pattern`` argument; a
    ``search`` or ``list`` tool's path may be left out (``default``: the workspace).
    """

    role: PinnedRole
    argument: str
    pattern: str | None = None
    default: str | None = None


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
        self.files: dict[str, Entry] = {}
        self._round = 0
        self._touched_round: dict[str, int] = {}
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
                self._round += bool(message.tool_calls)
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
            arguments = call.parsed_arguments()
        except ValueError:
            return
        value = arguments.get(tool.argument, tool.default)
        if tool.role == "execute" and isinstance(value, str):
            self._command(value, result)
        elif result.is_error:
            return
        elif tool.role == "todo" and isinstance(value, list):
            self.todos = tuple(_todo_line(item) for item in value if isinstance(item, dict))
        elif isinstance(value, str) and value and tool.role in ("read", "edit", "search", "list"):
            path = normalized(value)
            record = self.files.pop(path, None) or Entry()
            self.files[path] = record  # most recently touched last
            if tool.role in ("read", "edit"):
                self._touched_round[path] = self._round
            if tool.role == "edit":
                record.edited = True
            elif tool.role == "list":
                record.listed = True
            elif tool.role == "search":
                pattern = arguments.get(tool.pattern or "")
                record.searched(pattern if isinstance(pattern, str) else "")
            else:
                record.read = True
                if found := _READ_RANGE.findall(result.content[-200:]):
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
        verbatim; the block names them instead of repeating them.
        ``window`` (with a ``source``) adds what comes from the disk
        (``reattach.py``): the plan, changed instruction files and the current
        text of the files edited or read in the last rounds, in a budget
        scaled to ``window`` that the user's messages may take first, leaving
        out those ``kept`` shows whole.
        """
        in_tail = len(tail)
        messages = self.user_messages[: max(0, len(self.user_messages) - in_tail)]
        priority = self._failure_paths()
        failure, todos = self._failure_section(), self._todo_section()
        if not (messages or self.files or self.todos or self.failure or self.plan or self.source is not None and window > 0):
            return ""
        fixed = count(failure) + count(todos) + 8
        least = count(render_files(self.files, priority, 0, count)) if self.files else 0
        bookkeeping = min(fixed + least, int(max_tokens * BOOKKEEPING_MAX_SHARE))
        files_budget = FileBudget.for_window(window) if self.source is not None and window > 0 else None
        borrowable = files_budget.total if files_budget is not None else 0
        own = max(0, max_tokens - bookkeeping)
        users = carry(messages, own + borrowable, count, in_tail=in_tail)
        used = count(users.text) if users.text else 0
        files = render_files(self.files, priority, max(least, max_tokens - used - fixed), count)
        extras = self._extras(max(max_tokens // 4, max_tokens - used), count, window, kept, files_budget, max(0, used - own))
        block = _assemble([users.text, files, failure, todos, *extras])
        return "" if block == _assemble([]) else block

    def _failure_paths(self) -> frozenset[str]:
        """Touched paths the last failure names (its command line or output): they are listed first."""
        failure = self.failure
        if failure is None:
            return frozenset()
        text = f"{failure.command}\n{failure.tail}"
        return frozenset(path for path in self.files if path != "." and path in text)

    def _extras(self, max_tokens: int, count: TextCounter, window: int, kept: Sequence[Message], budget: FileBudget | None, taken: int) -> list[str]:
        """The plan (within ``max_tokens``), then what the ``source`` reads from the disk now: changed instructions, recent files
        (their budget less what the user's messages ``taken`` of it)."""
        plan = plan_section(self.plan, max_tokens, count)
        source = self.source
        if source is None or budget is None:
            return [plan]
        arguments = {name: tool.argument for name, tool in self.tools.items() if tool.role in ("read", "edit")}
        readers = frozenset(name for name, tool in self.tools.items() if tool.role == "read")
        visible = shown_in(kept, arguments, readers)
        edited = frozenset(path for path, record in self.files.items() if record.edited)
        read_lately = self._recent_reads()
        recent = [path for path in reversed(self.files) if path in edited or path in read_lately]
        left = FileBudget(max(0, budget.total - taken), budget.per_file)
        return [
            plan,
            instructions_section(source, max(max_tokens, budget.per_file), count),
            files_section(source, recent, left, count, visible, edited),
        ]

    def _recent_reads(self) -> frozenset[str]:
        """Files read in the last ``RECENT_ROUNDS`` rounds: only those (and edited ones) come back as text."""
        return frozenset(path for path, round_ in self._touched_round.items() if self._round - round_ < RECENT_ROUNDS)

    def _failure_section(self) -> str:
        failure = self.failure
        if failure is None:
            return ""
        return f"Last failing command: $ {failure.command[:LINE_CHARS]}\n[{failure.ending}]\n{failure.tail}".rstrip()

    def _todo_section(self) -> str:
        return "Todo list:\n" + "\n".join(self.todos) if self.todos else ""


def block_tokens(window: int, pinned_max_tokens: int) -> int:
    """The cap ``manage_context`` renders the block with: the bookkeeping's cap plus the user messages' share of ``window``."""
    return pinned_max_tokens + min(USER_MAX_TOKENS, int(window * USER_WINDOW_FRACTION))


def is_user_request(message: Message) -> bool:
    """A message the user (or a hook speaking for them) wrote: not a compaction's meta message."""
    text = message.text
    return message.role == "user" and bool(text) and not is_summary_message(message) and not text.startswith(PINNED_HEADER)


def _assemble(sections: Sequence[str]) -> str:
    body = "\n".join([PINNED_HEADER, *(section for section in sections if section)])
    body = body.replace(PINNED_FOOTER, "</pinned-context >")  # a file's text cannot end the block early
    return f"{body}\n{PINNED_FOOTER}"


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
    """The pinned block a compacted ``conversation`` carries (in its third message; after a provider's compaction,
    in the first user message after the compacting turn), or ""."""
    if conversation and conversation[0].compaction is not None:
        text = next((m.text for m in conversation[1:8] if m.role == "user"), "")
    elif len(conversation) < 3 or not is_summary_message(conversation[0]):
        return ""
    else:
        text = conversation[2].text
    end = text.find(PINNED_FOOTER)
    return text[: end + len(PINNED_FOOTER)] if text.startswith(PINNED_HEADER) and end >= 0 else ""
