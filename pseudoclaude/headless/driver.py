"""``--input-format stream-json``: prompts and Claude Code's control protocol as JSON lines on stdin.

This is how the official Claude Agent SDK drives the ``claude`` executable,
and so how it drives ours: it sends ``control_request`` lines (``initialize``,
``interrupt``, ``set_permission_mode``, ``set_model``...) and ``user``
messages, and reads the stream-json output (``headless.stream.ClaudeStream``)
plus a ``control_response`` for each request. Every prompt gets its own run
and its own ``result``, one after the other, in one session; an
``interrupt`` cancels the running prompt (the runner closes every tool call,
so the session stays valid) and its result says so. A request we do not
implement gets an error response naming it, never silence. SDK hook
callbacks run where configured hook commands would (a ``hook_callback``
request each, answered with what a command would print); one we cannot honour
(an event we do not fire, ``on_failure``) is refused at ``initialize`` rather
than ignored, because a guard that silently never runs is worse than a session
that does not start. End of input ends the process once the prompts already sent are
answered.

With ``--permission-prompt-tool stdio`` a call the permission policy would ask
about becomes a ``can_use_tool`` request to the SDK (``StdioApprover``), naming
the call (``tool_use_id``); an ``allow`` with a changed ``updatedInput`` runs
that input instead. The SDK's ``agents`` (in ``initialize``) join the ``task``
tool's agent types, and its in-process MCP servers are reached through
``mcp_message`` requests (``mcp_client.sdk_transport``, installed here).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import threading
import uuid
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, TextIO

from pseudoclaude.agent import HOOK_EVENTS, ContextBreakdown, Expansion, HookCallback, Progress, Stop
from pseudoclaude.llm import Image
from pseudoclaude.tools import ToolTraits, builtin_registry
from pseudoclaude.tools.permissions import CURRENT_CALL, REJUDGING, ApprovalAnswer, ApprovalRequest, PermissionMode
from pseudoclaude.headless.stream import ClaudeStream, DrivenAgent, mcp_statuses
from pseudoclaude.headless.wire import Write
from pseudoclaude.headless.run import feed_until_structured

Expand = Callable[[str], "Expansion | None"]


INITIALIZE_UNSUPPORTED: Mapping[str, str] = {
    "skills": "PseudoClaude has no skills; custom commands and agents are read from .claude/commands and .claude/agents",
    "forwardSubagentText": "a sub-agent's words stay in its own record; only its final report reaches the session",
    "excludeDynamicSections": "the system prompt is ours and keeps its environment section",
    "systemPromptSnapshot": "the system prompt is built by this process",
}
"""``initialize`` fields that change nothing here: each is one warning line, never silently dropped."""


def prompt_text(message: Any) -> str | None:
    """The text of a ``user`` line's ``message.content`` (a string or text blocks); None if it holds none."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [block.get("text", "") for block in content if isinstance(block, dict) and block.get("type") == "text"]
        return "\n\n".join(text for text in texts if isinstance(text, str)) or None
    return None


@dataclass(frozen=True)
class Prompt:
    """One ``user`` line: its text and images, or why its images cannot be sent (its result says so)."""

    text: str
    images: tuple[Image, ...] = ()
    error: str = ""
    replay: Mapping[str, object] | None = None
    """The ``user`` line as read, echoed back with ``--replay-user-messages`` when its run starts."""


def user_prompt(message: Any) -> Prompt | None:
    """A ``user`` line's prompt: text blocks joined, image blocks decoded and fitted; None when it holds neither."""
    from pseudoclaude.headless.image_block import ImageBlockError, image_from_block

    text = prompt_text(message)
    content = message.get("content") if isinstance(message, dict) else None
    blocks = [block for block in content if isinstance(block, dict) and block.get("type") == "image"] if isinstance(content, list) else []
    try:
        images = tuple(image_from_block(block, number) for number, block in enumerate(blocks, 1))
    except ImageBlockError as error:
        return Prompt(text or "", error=f"the message's {error}: nothing was sent")
    if text is None and not images:
        return None
    return Prompt(text or "", images)


class ControlChannel:
    """Our own control requests to the SDK (``can_use_tool``) and the responses that answer them."""

    def __init__(self, write: Write) -> None:
        self.write = write
        self._pending: dict[str, asyncio.Future[Mapping[str, object]]] = {}
        self._counter = 0
        self.closed = False
        self.interrupt: Callable[[], None] = lambda: None
        """Stop the running prompt, as an ``interrupt`` request does (the driver sets it; a ``deny`` with ``interrupt`` calls it)."""

    async def request(self, body: Mapping[str, object]) -> Mapping[str, object]:
        """Send ``body`` as a control request; its success response, or ``RuntimeError`` with the SDK's error."""
        if self.closed:
            raise RuntimeError("the SDK's input has ended: it can no longer answer")
        self._counter += 1
        request_id = f"pc_req_{self._counter}_{os.urandom(3).hex()}"
        future: asyncio.Future[Mapping[str, object]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self.write({"type": "control_request", "request_id": request_id, "request": dict(body)})
        try:
            return await future
        finally:
            self._pending.pop(request_id, None)

    def answer(self, line: Mapping[str, object]) -> None:
        response = line.get("response")
        if not isinstance(response, dict):
            return
        future = self._pending.get(str(response.get("request_id")))
        if future is None or future.done():
            return
        if response.get("subtype") == "error":
            future.set_exception(RuntimeError(str(response.get("error", "error"))))
        else:
            inner = response.get("response")
            future.set_result(inner if isinstance(inner, dict) else {})

    def fail_all(self, reason: str) -> None:
        self.closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(RuntimeError(reason))


class StdioApprover:
    """Asks the SDK's ``can_use_tool`` callback, in Claude Code's tool and argument names, instead of a person."""

    def __init__(self, channel: ControlChannel, traits: Callable[[str], ToolTraits | None] | None = None) -> None:
        self.channel = channel
        self.traits = traits or _builtin_traits

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        if REJUDGING.get():  # the SDK gave this input itself: the policy's other layers judge it, the SDK is not asked twice
            return ApprovalAnswer("once")
        traits = self.traits(request.tool)
        name = traits.claude_name(request.tool) if traits is not None else request.tool
        arguments = traits.to_claude(request.args) if traits is not None else dict(request.args)
        body: dict[str, object] = {
            "subtype": "can_use_tool",
            "tool_name": name,
            "input": arguments,
            "permission_suggestions": [],
            "description": request.summary,
            "tool_use_id": CURRENT_CALL.get() or None,
            "display_name": name,
            **({"decision_reason": request.reason} if request.reason else {}),
        }
        try:
            reply = await self.channel.request(body)
        except RuntimeError as error:
            return ApprovalAnswer("deny", f"the SDK's permission callback failed: {error}")
        if reply.get("behavior") == "allow":
            updated = reply.get("updatedInput")
            if isinstance(updated, dict) and updated != arguments:
                return ApprovalAnswer("once", updated_input=traits.from_claude(updated) if traits is not None else dict(updated))
            return ApprovalAnswer("once")
        if reply.get("interrupt"):  # PermissionResultDeny(interrupt=True): the refusal is recorded, then the prompt stops
            asyncio.get_running_loop().call_soon(self.channel.interrupt)
        return ApprovalAnswer("deny", str(reply.get("message") or "denied by the SDK's permission callback"))


def replayed_user_message(line: Mapping[str, object], session_id: str) -> dict[str, object]:
    """Claude Code's echo of a stdin ``user`` line (``--replay-user-messages``): the SDK's ``uuid`` kept, ``isReplay``.

    Zed's ACP adapter waits for the echo of its own prompt's ``uuid`` before it
    reads a ``result`` as that prompt's, so it is sent when the prompt's run
    starts (after its ``init``), not when the line is read.
    """
    given = line.get("uuid")
    return {
        "type": "user",
        "message": line.get("message"),
        "session_id": session_id,
        "parent_tool_use_id": None,
        "uuid": given if isinstance(given, str) and given else str(uuid.uuid4()),
        "timestamp": datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"),
        "isReplay": True,
    }


def context_usage(model: str, view: ContextBreakdown) -> dict[str, object]:
    """``/context`` in the shape of the SDK's ``ContextUsageResponse`` (counted by our compaction's estimator)."""
    categories = [
        {"name": "System prompt", "tokens": view.system_tokens, "color": "gray"},
        {"name": "System tools", "tokens": view.tools_tokens, "color": "gray"},
        {"name": "Messages", "tokens": view.message_tokens, "color": "purple"},
    ]
    window = view.context_window or 1
    return {
        "categories": categories,
        "totalTokens": view.estimated_tokens,
        "maxTokens": view.auto_threshold,
        "rawMaxTokens": view.context_window,
        "percentage": round(100 * view.estimated_tokens / window, 1),
        "model": model,
        "isAutoCompactEnabled": True,
        "autoCompactThreshold": view.auto_threshold,
        "memoryFiles": [{"path": str(f.path), "type": f.scope, "tokens": f.size // 4} for f in view.instruction_files],
        "mcpTools": [],
        "agents": [],
        "gridRows": [],
        "offloadedResults": view.offloaded_results,
        "estimator": view.estimator,
    }


def _builtin_traits(name: str) -> ToolTraits | None:
    tool = builtin_registry().get(name)
    return tool.traits if tool is not None else None


class StreamDriver:
    """Reads stdin lines, answers control requests, runs the prompts one after another."""

    def __init__(self, agent: DrivenAgent, claude: ClaudeStream, channel: ControlChannel, err: TextIO, expand: Expand | None = None) -> None:
        self.agent = agent
        self.expand = expand
        """A custom command's expansion (``/review src``), or None when the line is no custom command."""
        self.claude = claude
        self.channel = channel
        self.err = err
        self.prompts: deque[Prompt] = deque()
        self.turn: asyncio.Task[None] | None = None
        self.last_ok = True
        self._wake: asyncio.Queue[str | None] = asyncio.Queue()

    replay_user_messages = False
    """``--replay-user-messages``: each ``user`` line is echoed back when its run starts."""
    allow_bypass = False
    """``--allow-dangerously-skip-permissions``: ``set_permission_mode`` may switch to bypass (Claude Code's rule)."""

    async def serve(self) -> bool:
        """Serve until end of input and the last prompt answered; whether the last result was a success."""
        from pseudoclaude.mcp_client import install_sdk_bridge as install

        install(self.channel.request)
        self.channel.interrupt = self._cancel_turn
        _read_lines_in_thread(self._wake, asyncio.get_running_loop())
        ended = False
        while not (ended and not self.prompts and self.turn is None):
            line = await self._wake.get()
            if line is None:
                ended = True
                self.channel.fail_all("the input ended")
            elif line:
                await self._handle(line)
            self._next_turn()
        self.channel.fail_all("the input ended")
        return self.last_ok

    async def _handle(self, line: str) -> None:
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            self._warn(f"ignored a stdin line that is not JSON ({error})")
            return
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "user":
            prompt = await asyncio.to_thread(user_prompt, data.get("message"))
            if prompt is None:
                self._warn("ignored a user message without text or image content")
            else:
                self.prompts.append(dataclasses.replace(prompt, replay=data) if self.replay_user_messages else prompt)
        elif kind == "control_request":
            await self._control(data)
        elif kind == "control_response":
            self.channel.answer(data)
        elif kind not in ("control_cancel_request", "keep_alive", "update_environment_variables"):
            self._warn(f"ignored a stdin line of type {kind!r}")

    async def _control(self, data: Mapping[str, object]) -> None:
        request_id = str(data.get("request_id", ""))
        request = data.get("request") if isinstance(data.get("request"), dict) else {}
        assert isinstance(request, dict)
        subtype = str(request.get("subtype", ""))
        try:
            response = await self._answer(subtype, request)
        except Exception as error:  # every request gets an answer; an unexpected failure is an error response, not a hang
            message = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error) or type(error).__name__
            self.channel.write({"type": "control_response", "response": {"subtype": "error", "request_id": request_id, "error": message}})
            return
        self.channel.write({"type": "control_response", "response": {"subtype": "success", "request_id": request_id, "response": response}})

    async def _answer(self, subtype: str, request: Mapping[str, object]) -> dict[str, object]:
        if subtype == "initialize":
            self._register_hooks(request.get("hooks"))
            if request.get("agents"):
                self._add_agents(request["agents"])
            for key, why in INITIALIZE_UNSUPPORTED.items():
                if request.get(key):
                    self._warn(f"warning: initialize's {key} is not supported: {why}")
            return {
                "commands": [{"name": c.name, "description": c.description, "argumentHint": c.hint} for c in self.claude.commands()],
                "agents": [{"name": t.name, "description": t.description} for t in self.agent.extensions.agent_types()],
                "output_style": "default",
                "available_output_styles": ["default"],
                "models": [{"value": self.agent.current.model, "displayName": self.agent.current.model, "description": "the session's model"}],
                "account": {},
                "hooks_applied": True,
            }
        if subtype == "interrupt":
            await self._interrupt()
            return {}
        if subtype == "set_permission_mode":
            mode = PermissionMode.parse(str(request.get("mode", "")))
            # Bypass can be switched on only if the process allowed it or runs in it already (started so: nothing else gets there).
            if mode is PermissionMode.BYPASS and not (self.allow_bypass or self.agent.current.mode is PermissionMode.BYPASS):
                raise ValueError(
                    "Cannot set permission mode to bypassPermissions because the session was not launched with "
                    "--dangerously-skip-permissions or --allow-dangerously-skip-permissions"
                )
            self.agent.set_mode(mode)
            return {"mode": self.agent.current.mode.claude_name}
        if subtype == "set_model":
            model = request.get("model")
            if isinstance(model, str) and model and model != "default":
                self.agent.set_model(model)
            return {"model": self.agent.current.model}
        if subtype == "mcp_status":
            return {"mcpServers": mcp_statuses(self.agent)}
        if subtype == "get_context_usage":
            return context_usage(self.agent.current.model, self.agent.context_breakdown())
        raise ValueError(f"unsupported control request subtype: {subtype or '(none)'}")

    def _add_agents(self, raw: Any) -> None:
        """The SDK's ``agents=``: offered to the ``task`` tool from the next request; what we cannot honour is one warning line each."""
        from pseudoclaude.agent import sdk_agents

        definitions, problems = sdk_agents(raw)
        for problem in problems:
            self._warn(f"warning: {problem}")
        self.agent.extensions.add_agents(definitions)

    def _register_hooks(self, hooks: Any) -> None:
        """The SDK's hook callbacks, by event and matcher: each call becomes a ``hook_callback`` request.

        An event we do not fire is refused rather than ignored, and so is
        ``on_failure`` (a failing hook here is a warning, never a block): a guard
        the caller relies on must not silently do nothing.
        """
        if not hooks:
            return
        if not isinstance(hooks, dict):
            raise ValueError("initialize: hooks must be an object of event -> matchers")
        unknown = sorted(event for event in hooks if event not in HOOK_EVENTS)
        if unknown:
            raise ValueError(f"SDK hooks for {', '.join(unknown)} are not supported (supported: {', '.join(HOOK_EVENTS)})")
        for event, matchers in hooks.items():
            for entry in matchers or ():
                if entry.get("onFailure") not in (None, "continue"):
                    raise ValueError("SDK hooks with on_failure='block' are not supported: a failing hook is a warning here")
                ids = [str(i) for i in entry.get("hookCallbackIds") or ()]
                matcher = entry.get("matcher")
                timeout = entry.get("timeout")
                callbacks = {f"sdk-hook:{i}": self._callback(i) for i in ids}
                self.agent.extensions.add_hook_callbacks(
                    event, None if matcher in (None, "", "*") else str(matcher), callbacks, float(timeout) if timeout else None
                )

    def _callback(self, callback_id: str) -> HookCallback:
        async def call(payload: Mapping[str, object]) -> Mapping[str, object]:
            return await self.channel.request(
                {"subtype": "hook_callback", "callback_id": callback_id, "input": dict(payload), "tool_use_id": CURRENT_CALL.get() or None}
            )

        return call

    def _cancel_turn(self) -> None:
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()

    async def _interrupt(self) -> None:
        turn = self.turn
        if turn is None or turn.done():
            return
        turn.cancel()
        await asyncio.gather(turn, return_exceptions=True)

    def _next_turn(self) -> None:
        if self.turn is not None and self.turn.done():
            self.turn = None
        if self.turn is None and self.prompts:
            self.turn = asyncio.ensure_future(self._run(self.prompts.popleft()))
            self.turn.add_done_callback(lambda _: self._wake.put_nowait(""))

    async def _run(self, prompt: Prompt) -> None:
        """One prompt's run; an interrupt (this task cancelled) still prints its result."""
        self._state("running")
        try:
            await self._run_prompt(prompt)
        finally:
            # An interrupted run's result ends the caller's wait for it (Zed's adapter returns "cancelled" there), so an
            # "idle" after it would be read as the end of the next prompt, before that prompt's own output.
            task = asyncio.current_task()
            if task is None or not task.cancelling():
                self._state("idle")

    def _state(self, state: str) -> None:
        """Claude Code's ``session_state_changed`` when the caller opts in (Zed's adapter ends a prompt's turn at ``idle``)."""
        if os.environ.get("CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS", "").lower() in ("1", "true", "yes", "on"):
            self.claude.emit(
                {"type": "system", "subtype": "session_state_changed", "state": state, "uuid": str(uuid.uuid4()), "session_id": self.agent.facts.session_id}
            )

    async def _run_prompt(self, prompt: Prompt) -> None:
        self.claude.begin()
        try:
            failures = await self.agent.mcp.start()  # init then says which servers are connected, as Claude Code's does
        except asyncio.CancelledError:
            self.claude.emit(self.claude.init_event())
            self.last_ok = False
            self.claude.finish(interrupted=True)
            return
        self.claude.emit(self.claude.init_event())
        for line in failures:
            self._warn(f"warning: {line}")
            self.claude.feed(Progress("warning", line))
        if prompt.replay is not None:
            self.claude.emit(replayed_user_message(prompt.replay, self.agent.facts.session_id))
        if prompt.error:
            self._warn(prompt.error)
            self.claude.feed(Stop("error", "", 0, prompt.error))
            self.last_ok = not self.claude.finish()["is_error"]
            return
        stripped = prompt.text.strip()
        if not prompt.images and (stripped == "/compact" or stripped.startswith("/compact ")):
            events = self.agent.compact(stripped[len("/compact") :].strip() or None)
        elif (expansion := self.expand(stripped) if self.expand is not None and stripped.startswith("/") else None) is not None:
            events = self.agent.run(expansion.prompt, images=prompt.images, model=expansion.model, allowed_tools=expansion.allowed_tools)
        else:
            events = self.agent.run(prompt.text, images=prompt.images)
        try:
            await feed_until_structured(events, self.claude, lambda text: self.agent.run(text))
        except asyncio.CancelledError:
            self.last_ok = False
            self.claude.finish(interrupted=True)
            return
        except Exception as error:  # a bug must not leave the SDK waiting for a result that never comes
            self._warn(f"the run failed: {type(error).__name__}: {error}")
            self.claude.run.errors.append(f"{type(error).__name__}: {error}")
            self.last_ok = False
            self.claude.finish()
            return
        self.last_ok = not self.claude.finish()["is_error"]

    def _warn(self, message: str) -> None:
        self.err.write(f"pseudoclaude: {message}\n")
        self.err.flush()


def _read_lines_in_thread(queue: asyncio.Queue[str | None], loop: asyncio.AbstractEventLoop) -> None:
    """Feed stdin's lines into ``queue`` from a daemon thread (None at end of input); works for pipes and files alike."""

    def pump() -> None:
        try:
            for raw in sys.stdin.buffer:
                loop.call_soon_threadsafe(queue.put_nowait, raw.decode("utf-8", "replace").strip())
        except (OSError, ValueError):
            pass
        finally:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, None)
            except RuntimeError:
                pass

    threading.Thread(target=pump, name="stdin-stream-json", daemon=True).start()
