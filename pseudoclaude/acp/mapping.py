"""The runner's events as ACP ``session/update`` notifications: what an editor shows of a run.

One ``EventMapper`` watches one session's events. Text and reasoning stream
as ``agent_message_chunk`` / ``agent_thought_chunk``; each tool call is a
``tool_call`` (title, kind, the file it touches as a location, an edit's diff)
then a ``tool_call_update`` with its result; a ``todo_write`` call is the
session's ``plan`` instead, as Zed shows Claude Code's TodoWrite. Progress
(a retry, a compaction) and errors are thought and message chunks, so the
editor shows what the REPL's transcript would.

It also keeps the calls that started and have not finished, because a
permission question names the call it is about by id, and the runner asks
before this mapper has necessarily seen the call (the events are queued):
``AcpApprover`` waits here for the call it asks about (``started_call``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

from acp import helpers
from acp.schema import (
    AgentPlanUpdate,
    FileEditToolCallContent,
    PlanEntry,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
)

from pseudoclaude.agent import ErrorEvent, Event, Progress, SessionWriteFailed, Stop, TextDelta, ThinkingDelta, ToolCallFinished, ToolCallStarted
from pseudoclaude.tools import ToolTraits

Update = Any
"""One ``session/update`` payload (the SDK's union of update models)."""

PLAN_TOOLS = ("todo_write",)
_SEARCH_TOOLS = ("grep", "glob")
_KINDS = {"read": "read", "edit": "edit", "write": "edit", "execute": "execute", "network": "fetch"}
_TITLE_LIMIT = 120
_STATUSES: dict[Any, Literal["pending", "in_progress", "completed"]] = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}


@dataclass(frozen=True)
class CallView:
    """How one tool call is shown: everything ``tool_call`` and a permission question carry."""

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    title: str
    kind: str
    locations: tuple[str, ...]
    diff: tuple[FileEditToolCallContent, ...]

    def start(self) -> ToolCallStart:
        return helpers.start_tool_call(
            self.call_id,
            self.title,
            kind=self.kind,  # type: ignore[arg-type]
            status="pending",
            content=list(self.diff) or None,
            locations=[ToolCallLocation(path=path) for path in self.locations] or None,
            raw_input=dict(self.arguments),
        )


class EventMapper:
    """The notifications for each event of one session's runs; the open calls, for permission questions."""

    def __init__(self, workspace: Path, traits: Mapping[str, ToolTraits]) -> None:
        self.workspace = workspace
        self.traits = traits
        self.open: dict[str, CallView] = {}
        self._seen = asyncio.Condition()

    def updates(self, event: Event) -> list[Update]:
        if isinstance(event, TextDelta) and event.text:
            return [helpers.update_agent_message_text(event.text)]
        if isinstance(event, ThinkingDelta) and event.text:
            return [helpers.update_agent_thought_text(event.text)]
        if isinstance(event, ToolCallStarted):
            return self._started(event)
        if isinstance(event, ToolCallFinished):
            return self._finished(event)
        if isinstance(event, Progress) and event.message:
            return [helpers.update_agent_thought_text(f"\n{event.message}\n")]
        if isinstance(event, ErrorEvent):
            return [helpers.update_agent_message_text(f"\n\nError: {event.message or event.error}\n")]
        if isinstance(event, SessionWriteFailed):
            return [helpers.update_agent_message_text(f"\n\nWarning: {event.message}\n")]
        if isinstance(event, Stop) and event.reason not in ("end_turn", "interrupted") and event.message:
            return [helpers.update_agent_message_text(f"\n\nStopped: {event.message}\n")]
        return []

    def view(self, call_id: str, name: str, arguments: Mapping[str, Any]) -> CallView:
        """A call as an editor shows it: our tool name and key argument, its ACP kind, the files, an edit's diff."""
        traits = self.traits.get(name)
        key = traits.key_argument if traits is not None else None
        value = arguments.get(key) if key else None
        title = f"{name} {value}" if isinstance(value, str) and value else name
        paths = tuple(self._path(arguments[arg]) for arg in (traits.path_arguments if traits else ()) if isinstance(arguments.get(arg), str))
        return CallView(call_id, name, arguments, title[:_TITLE_LIMIT], _kind(name, traits), paths, self._diff(name, arguments, paths))

    async def started_call(self, name: str, arguments: Mapping[str, Any], timeout_s: float = 2.0) -> CallView | None:
        """The open call a permission question about ``name(arguments)`` is for, waiting briefly for its event."""

        def match() -> CallView | None:
            same_name = [view for view in self.open.values() if view.name == name]
            exact = [view for view in same_name if dict(view.arguments) == dict(arguments)]
            found = exact or same_name
            return found[0] if found else None

        async with self._seen:
            try:
                return await asyncio.wait_for(self._seen.wait_for(match), timeout_s)
            except asyncio.TimeoutError:
                return None

    def _started(self, event: ToolCallStarted) -> list[Update]:
        view = self.view(event.call_id, event.name, event.arguments)
        self.open[event.call_id] = view
        self._notify()
        if event.name in PLAN_TOOLS:
            return []
        return [view.start()]

    def _finished(self, event: ToolCallFinished) -> list[Update]:
        view = self.open.pop(event.call_id, None)
        if event.name in PLAN_TOOLS:
            plan = plan_update(view.arguments if view is not None else {}) if not event.is_error else None
            return [plan] if plan is not None else []
        text = event.content or event.summary
        content: list[Any] = [*(view.diff if view is not None and not event.is_error else ())]
        if text and not (content and not event.is_error):
            content.append(helpers.tool_content(helpers.text_block(text)))
        update: ToolCallProgress = helpers.update_tool_call(
            event.call_id,
            status="failed" if event.is_error else "completed",
            content=content or None,
            raw_output={"summary": event.summary, **dict(event.display)},
        )
        return [update]

    def _notify(self) -> None:
        async def wake() -> None:
            async with self._seen:
                self._seen.notify_all()

        asyncio.ensure_future(wake())

    def _path(self, value: str) -> str:
        path = Path(value).expanduser()
        return str(path if path.is_absolute() else self.workspace / path)

    def _diff(self, name: str, arguments: Mapping[str, Any], paths: Sequence[str]) -> tuple[FileEditToolCallContent, ...]:
        """An edit's change as ACP's diff content: a whole file's old and new text, or the replaced snippet."""
        if not paths:
            return ()
        path = paths[0]
        if isinstance(arguments.get("content"), str):
            return (helpers.tool_diff_content(path, arguments["content"], _current_text(path)),)
        if isinstance(arguments.get("old_string"), str) and isinstance(arguments.get("new_string"), str):
            return (helpers.tool_diff_content(path, arguments["new_string"], arguments["old_string"]),)
        return ()


def plan_update(arguments: Mapping[str, Any]) -> AgentPlanUpdate | None:
    """The todo list of a ``todo_write`` call as the session's plan (every entry, each time: ACP replaces the plan)."""
    items = arguments.get("items")
    if not isinstance(items, list):
        return None
    entries = [
        PlanEntry(content=str(item.get("content", "")), priority="medium", status=_STATUSES.get(item.get("status"), "pending"))
        for item in items
        if isinstance(item, dict)
    ]
    return helpers.update_plan(entries)


def _kind(name: str, traits: ToolTraits | None) -> str:
    if traits is None:
        return "other"
    if traits.exits_plan:
        return "switch_mode"
    if name in PLAN_TOOLS:
        return "think"
    if name in _SEARCH_TOOLS:
        return "search"
    return _KINDS.get(traits.kind, "other")


def _current_text(path: str) -> str | None:
    """A file's text before a write replaces it (None: a new file, or not text)."""
    try:
        with open(path, encoding="utf-8") as file:
            return file.read(2_000_000)
    except (OSError, UnicodeDecodeError):
        return None
