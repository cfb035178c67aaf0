"""Hooks: the user's shell commands (or questions to a model) around session events, dispatched for the runner.

``SessionHooks`` is the small object the runner calls at each
event; with no hooks configured every call returns at once without starting a
process. Each event's matching commands run concurrently (see ``hooks.run``) with a
JSON payload: ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``,
``permission_mode`` and the event's data. What the runner does with the answers:

==================  ==========================================  ===============================================
event               exit 2 / ``decision: "block"``               exit 0 stdout (or ``additionalContext``)
==================  ==========================================  ===============================================
SessionStart        -                                            context for the next prompt
UserPromptSubmit    the prompt is dropped, the reason shown      context appended to the prompt
PreToolUse          the call is denied, the model sees why       (``permissionDecision`` allow / deny / ask)
PostToolUse         the reason is appended to the tool result    ``additionalContext`` appended to the result
PostToolUseFailure  the reason is appended to the error result   ``additionalContext`` appended to the error
PermissionRequest   the call is denied for the user (``decision  ``decision: {"behavior": "allow"}`` approves it
                    {"behavior": "deny"}``; ``interrupt`` ends   for the user (``updatedInput``: with that input);
                    the run)                                     no decision: the user is asked (headless: refused)
Stop, SubagentStop  the (sub-)agent continues with the reason    -
                    as its next instruction (at most
                    ``MAX_STOP_CONTINUATIONS`` times per prompt)
SubagentStart       -                                            ``additionalContext`` appended to its task
SessionEnd,         - (a warning)                                -
PreCompact,
PostCompact,
Notification
==================  ==========================================  ===============================================

Failures and timeouts become warning events; the agent goes on. ``continue:
false`` ends the run after the current step. The Stop hook runs only when the
model finished its turn normally, never after a context overflow (feedback
injected into a full context makes it worse), an error or the turn limit.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping, Sequence

from pseudoclaude.agent import events as ev
from pseudoclaude.agent.hooks.config import DEFAULT_TIMEOUT_S, HookCommand, HookConfig, HookGroup
from pseudoclaude.agent.hooks.payload import SAMPLE_DATA, permission_suggestions, sample_data, subject_of, tool_data, tool_response
from pseudoclaude.agent.hooks.prompt import PromptAsker, run_prompt_hook
from pseudoclaude.agent.hooks.run import HookReply, HookRun, interpret, run_hook
from pseudoclaude.agent.redacting import redacted_run
from pseudoclaude.redaction import Redactor
from pseudoclaude.tools import ToolTraits
from pseudoclaude.tools.permissions import CURRENT_CALL, Approver

__all__ = [
    "MAX_STOP_CONTINUATIONS",
    "PLAIN_CONTEXT_EVENTS",
    "SAMPLE_DATA",
    "HookCallback",
    "HookOutcome",
    "SessionHooks",
    "Submitted",
    "combine",
    "sample_data",
    "subject_of",
    "tool_data",
    "tool_response",
]

HookCallback = Callable[[Mapping[str, Any]], Awaitable[Mapping[str, Any]]]
"""A hook that is a function: the payload in, the JSON a command hook would print out."""

MAX_STOP_CONTINUATIONS = 3
MAX_CONTEXT_CHARS = 10_000
PLAIN_CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit")


@dataclass(frozen=True)
class HookOutcome:
    """The combined answer of one event's hooks, and the events to show for it."""

    events: tuple[ev.Event, ...] = ()
    blocked: bool = False
    reason: str = ""
    context: str = ""
    permission: str | None = None
    halt: str | None = None
    updated_input: Mapping[str, Any] | None = None
    interrupt: bool = False


@dataclass(frozen=True)
class Submitted:
    """A prompt after ``UserPromptSubmit``: ``text`` to send (with hook context) or None when dropped."""

    text: str | None
    events: tuple[ev.Event, ...] = ()
    reason: str = ""


@dataclass
class SessionHooks:
    """The configured hooks of one session; ``source`` is ``startup`` or ``resume``.

    ``notices`` are shown (as warnings) when the session starts: configuration
    problems of the hooks and of the instruction files.
    """

    config: HookConfig = field(default_factory=HookConfig)
    workspace: Path = field(default_factory=Path.cwd)
    session_id: str = ""
    transcript_path: Path | None = None
    source: str = "startup"
    notices: tuple[str, ...] = ()
    permission_mode: Callable[[], str] = lambda: "default"
    approver: Approver | None = None
    env: Mapping[str, str] | None = None
    redactor: Redactor = field(default_factory=Redactor)
    callbacks: dict[str, HookCallback] = field(default_factory=dict)
    asker: PromptAsker | None = None
    """The model ``prompt`` hooks ask (``hooks.prompt.ProviderAsker``); None: they warn and go on."""
    stop_event: str = "Stop"
    """``SubagentStop`` in a sub-agent's hooks, with ``stop_data`` (its id, type, transcript) added to the payload
    (its ``agent_id`` and ``agent_type`` to every payload: its tool calls' hooks can tell whose call it is)."""
    stop_data: Mapping[str, Any] = field(default_factory=dict)
    started: bool = field(default=False, init=False)
    halted: str | None = field(default=None, init=False)
    _pending_context: list[str] = field(default_factory=list, init=False)

    async def fire(self, event: str, data: Mapping[str, Any], subject: str | None = None) -> HookOutcome:
        """Run ``event``'s hooks (those whose matcher fits ``subject``) and combine their replies."""
        commands = self.config.commands(event, subject)
        if not commands:
            return HookOutcome()
        payload = self.payload(event, data)
        runs = [redacted_run(run, self.redactor) for run in await asyncio.gather(*(self._run(c, payload) for c in commands))]
        return combine(event, [interpret(run) for run in runs])

    async def run_each(self, event: str, data: Mapping[str, Any], subject: str | None = None) -> list[tuple[HookRun, HookReply]]:
        """Every matching hook's raw run and reply (``pseudoclaude hooks test``)."""
        payload = self.payload(event, data)
        commands = self.config.commands(event, subject)
        runs = [redacted_run(run, self.redactor) for run in await asyncio.gather(*(self._run(c, payload) for c in commands))]
        return [(run, interpret(run)) for run in runs]

    def add_callbacks(self, event: str, matcher: str | None, callbacks: Mapping[str, HookCallback], timeout_s: float | None = None) -> None:
        """Hooks that are functions rather than commands (the Agent SDK's ``hooks=``), under ``matcher`` like any hook.

        Each callback gets the payload a command would read and answers what a
        command would print as JSON; its key stands for it where a command line would.
        """
        commands = tuple(HookCommand(name, timeout_s or DEFAULT_TIMEOUT_S) for name in callbacks)
        groups = {**self.config.groups, event: (*self.config.groups.get(event, ()), HookGroup(matcher, commands))}
        self.config = dataclasses.replace(self.config, groups=groups)
        self.callbacks.update(callbacks)

    async def _run(self, command: HookCommand, payload: Mapping[str, Any]) -> HookRun:
        if command.type == "prompt":
            return await run_prompt_hook(command, payload, self.asker, self.redactor)
        callback = self.callbacks.get(command.command)
        if callback is None:
            return await run_hook(command, payload, cwd=self.workspace, env=self._env())
        started = time.monotonic()
        try:
            answer = await asyncio.wait_for(callback(payload), command.timeout_s)
        except asyncio.TimeoutError:
            return HookRun(command.command, None, timed_out=True, duration_s=time.monotonic() - started)
        except Exception as error:  # a failing callback is a warning, as a failing command is
            return HookRun(command.command, None, error=f"failed: {error}", duration_s=time.monotonic() - started)
        return HookRun(command.command, 0, stdout=json.dumps(dict(answer)), duration_s=time.monotonic() - started)

    def payload(self, event: str, data: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript_path) if self.transcript_path else "",
            "cwd": str(self.workspace),
            "hook_event_name": event,
            "permission_mode": self.permission_mode(),
            **{key: self.stop_data[key] for key in ("agent_id", "agent_type") if key in self.stop_data},
            **data,
        }

    async def start(self) -> tuple[ev.Event, ...]:
        """``SessionStart``, once; its context waits for the next prompt."""
        if self.started:
            return ()
        self.started = True
        notices = tuple(ev.Progress("warning", notice) for notice in self.notices)
        outcome = await self.fire("SessionStart", {"source": self.source}, self.source)
        if outcome.context:
            self._pending_context.append(_context_block("SessionStart", outcome.context))
        return notices + outcome.events

    async def submit(self, prompt: str) -> Submitted:
        """``SessionStart`` (first time), then ``UserPromptSubmit``; the prompt to send, or why it was dropped."""
        shown = await self.start()
        outcome = await self.fire("UserPromptSubmit", {"prompt": prompt})
        events = shown + outcome.events
        if outcome.blocked or outcome.halt:
            reason = (outcome.reason if outcome.blocked else outcome.halt) or "no reason given"
            text = f"prompt blocked by a UserPromptSubmit hook: {reason}"
            return Submitted(None, (*events, ev.Progress("hook", text, {"event": "UserPromptSubmit", "reason": reason})), text)
        if outcome.context:
            self._pending_context.append(_context_block("UserPromptSubmit", outcome.context))
        blocks, self._pending_context = self._pending_context, []
        return Submitted("\n\n".join([prompt, *blocks]), events)

    async def stop(self, last_text: str, *, active: bool) -> HookOutcome:
        """``Stop`` (a sub-agent's: ``SubagentStop``): ``blocked`` means continue, with ``reason`` as the next instruction."""
        data = {"stop_hook_active": active, **self.stop_data, "last_assistant_message": last_text}
        subject = self.stop_data.get("agent_type") if self.stop_event == "SubagentStop" else None
        return await self.fire(self.stop_event, data, subject)

    async def subagent_start(self, agent_id: str, agent_type: str) -> HookOutcome:
        """``SubagentStart``: its ``additionalContext`` goes to the sub-agent with its task."""
        return await self.fire("SubagentStart", {"agent_id": agent_id, "agent_type": agent_type}, agent_type)

    async def permission_request(self, name: str, arguments: Mapping[str, Any], traits: ToolTraits | None, rule: str | None) -> HookOutcome:
        """``PermissionRequest``, where the user would be asked: ``permission`` allow or deny decides for them."""
        data = tool_data(name, arguments, traits)
        data["permission_suggestions"] = permission_suggestions(rule, data["tool_name"])
        outcome = await self.fire("PermissionRequest", data, name)
        if outcome.interrupt:
            self.halted = outcome.reason or "a PermissionRequest hook denied a call and interrupted the run"
        return outcome

    async def notify(self, message: str, notification_type: str) -> tuple[ev.Event, ...]:
        """``Notification`` (``permission_prompt``: the user is asked to approve a call)."""
        data = {"message": message, "title": "PseudoClaude", "notification_type": notification_type}
        return (await self.fire("Notification", data, notification_type)).events

    async def pre_tool(self, name: str, arguments: Mapping[str, Any], traits: ToolTraits | None = None) -> HookOutcome:
        data = {**tool_data(name, arguments, traits), **({"tool_use_id": call} if (call := CURRENT_CALL.get()) else {})}
        outcome = await self.fire("PreToolUse", data, name)
        if outcome.halt:
            self.halted = outcome.halt
        return outcome

    async def post_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        response: Mapping[str, Any],
        traits: ToolTraits | None = None,
        *,
        details: Mapping[str, Any] | None = None,
        call_id: str = "",
        duration_ms: int | None = None,
    ) -> HookOutcome:
        """``PostToolUse`` after a call that succeeded; ``details``: the tool's Claude Code-shaped facts (``ToolOutput.details``)."""
        data = {**tool_data(name, arguments, traits), "tool_response": tool_response(arguments, response, traits, details), "tool_use_id": call_id}
        outcome = await self.fire("PostToolUse", {**data, **_duration(duration_ms)}, name)
        if outcome.halt:
            self.halted = outcome.halt
        return outcome

    async def post_tool_failure(
        self, name: str, arguments: Mapping[str, Any], error: str, traits: ToolTraits | None = None, *, call_id: str = "", duration_ms: int | None = None
    ) -> HookOutcome:
        """``PostToolUseFailure`` after a call that failed (its error result, or the tool's refusal)."""
        data = {**tool_data(name, arguments, traits), "tool_use_id": call_id, "error": error, "is_interrupt": False, **_duration(duration_ms)}
        outcome = await self.fire("PostToolUseFailure", data, name)
        if outcome.halt:
            self.halted = outcome.halt
        return outcome

    async def pre_compact(self, trigger: str, tokens: int, instructions: str | None) -> tuple[ev.Event, ...]:
        data = {"trigger": trigger, "custom_instructions": instructions or "", "before_tokens": tokens}
        return (await self.fire("PreCompact", data, trigger)).events

    async def post_compact(self, trigger: str, before: int, after: int, summary: str = "") -> tuple[ev.Event, ...]:
        """``PostCompact``; ``compact_summary`` as Claude Code sends it (empty where the summary is opaque: OpenAI's item)."""
        data = {"trigger": trigger, "compact_summary": summary, "before_tokens": before, "after_tokens": after}
        return (await self.fire("PostCompact", data, trigger)).events

    async def end(self, reason: str = "other") -> tuple[ev.Event, ...]:
        """``SessionEnd`` (only for a session that started)."""
        if not self.started:
            return ()
        self.started = False
        return (await self.fire("SessionEnd", {"reason": reason})).events

    def take_halt(self) -> str | None:
        halted, self.halted = self.halted, None
        return halted

    def _env(self) -> dict[str, str]:
        base = dict(os.environ if self.env is None else self.env)
        base.update(PSEUDOCLAUDE_PROJECT_DIR=str(self.workspace), CLAUDE_PROJECT_DIR=str(self.workspace))
        if self.session_id:
            base["PSEUDOCLAUDE_SESSION_ID"] = self.session_id
        return base


def combine(event: str, replies: Sequence[HookReply]) -> HookOutcome:
    """One outcome from several hooks: any block blocks, deny beats ask beats allow, contexts join in order."""
    events: list[ev.Event] = []
    for reply in replies:
        if reply.warning:
            events.append(ev.Progress("warning", f"{event} {reply.warning}", {"event": event, "command": reply.command}))
        if reply.system_message:
            events.append(ev.Progress("hook", reply.system_message, {"event": event, "command": reply.command}))
    blocking = [reply for reply in replies if reply.blocked]
    allowing = [reply for reply in replies if reply.permission == "allow" and reply.updated_input is not None]
    permissions = {reply.permission for reply in replies}
    permission = next((p for p in ("deny", "ask", "allow") if p in permissions), None)
    plain = event in PLAIN_CONTEXT_EVENTS
    context = "\n\n".join(part for reply in replies for part in (reply.text if plain else "", reply.context) if part)
    if len(context) > MAX_CONTEXT_CHARS:
        context = context[:MAX_CONTEXT_CHARS] + "\n[... hook output truncated ...]"
    return HookOutcome(
        events=tuple(events),
        blocked=bool(blocking),
        reason="\n".join(reply.reason for reply in blocking if reply.reason),
        context=context,
        permission=permission,
        halt=next((reply.halt for reply in replies if reply.halt), None),
        updated_input=allowing[-1].updated_input if allowing else None,
        interrupt=any(reply.interrupt for reply in blocking),
    )


def _duration(duration_ms: int | None) -> dict[str, Any]:
    return {} if duration_ms is None else {"duration_ms": duration_ms}


def _context_block(event: str, text: str) -> str:
    return f'<hook_context event="{event}">\n{text}\n</hook_context>'
