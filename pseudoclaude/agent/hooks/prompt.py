"""``prompt`` hooks: a question to a model instead of a shell command (Claude Code's prompt-based hooks).

::

    {"type": "prompt", "prompt": "Did the assistant run the tests? $ARGUMENTS", "model": "...", "timeout": 30}

The hook's prompt, with ``$ARGUMENTS`` replaced by the event's payload as JSON
(appended when the prompt does not mention it), goes to the session's provider
in one small request with no tools (``ProviderAsker``: through the ``Provider``
Protocol, the session's model unless the hook names one). The model must answer
JSON ``{"ok": true}`` or ``{"ok": false, "reason": "..."}``; the answer becomes
what a command would have printed, so every event reads it as it reads a
command's: ``ok: false`` blocks where the event can block (``Stop`` and
``SubagentStop`` go on with the reason, ``PreToolUse`` refuses the call,
``UserPromptSubmit`` drops the prompt, ``PermissionRequest`` denies), ``ok:
true`` lets things go on as if the hook were not there (a ``PermissionRequest``
still asks the user: a model's "fine" never approves a call on its own). An
answer without that JSON, a provider error or the timeout is a warning.

The request's usage is added to the session's (``on_usage``), as a sub-agent's is.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

from pseudoclaude.agent.hooks.config import HookCommand
from pseudoclaude.agent.hooks.run import HookRun
from pseudoclaude.llm import Completed, Message, Provider, ProviderError, Request, TextChunk, Usage
from pseudoclaude.redaction import Redactor

PROMPT_MAX_TOKENS = 1024
PROMPT_SYSTEM = (
    "You are evaluating a hook in PseudoClaude, a coding agent. You are given the hook's instructions and the "
    'event\'s data as JSON. Decide, and answer with one JSON object and nothing else: {"ok": true} when the check '
    'passes, or {"ok": false, "reason": "<why, written for the agent>"} when it does not.'
)


class PromptAsker(Protocol):
    """The seam to a model for prompt hooks: one question, the answer's text."""

    async def ask(self, system: str, prompt: str, model: str | None) -> str: ...


@dataclass(frozen=True)
class ProviderAsker:
    """A ``PromptAsker`` over the session's provider; ``model`` gives the session's current model."""

    provider: Provider
    model: Callable[[], str]
    on_usage: Callable[[Usage], None] | None = None

    async def ask(self, system: str, prompt: str, model: str | None) -> str:
        request = Request(model=model or self.model(), system=system, messages=[Message.user(prompt)], max_tokens=PROMPT_MAX_TOKENS)
        parts: list[str] = []
        async for event in self.provider.stream(request):
            if isinstance(event, TextChunk):
                parts.append(event.text)
            elif isinstance(event, Completed):
                if self.on_usage is not None:
                    self.on_usage(event.usage)
                return event.message.text or "".join(parts)
        return "".join(parts)


def prompt_text(template: str, payload: Mapping[str, Any]) -> str:
    arguments = json.dumps(payload, ensure_ascii=False)
    return template.replace("$ARGUMENTS", arguments) if "$ARGUMENTS" in template else f"{template}\n\n{arguments}"


async def run_prompt_hook(hook: HookCommand, payload: Mapping[str, Any], asker: PromptAsker | None, redactor: Redactor | None = None) -> HookRun:
    """Ask the model; a ``HookRun`` whose stdout is what a command hook would have printed for that answer.

    The question goes through the session's ``redactor``: a payload can hold what
    the model never saw (an edit's ``originalFile``), and no secret goes to it.
    """
    started = time.monotonic()
    if asker is None:
        return HookRun(hook.command, None, error="is a prompt hook, and this session has no model to ask")
    question = prompt_text(hook.command, payload)
    question = redactor.text(question) if redactor else question
    try:
        answer = await asyncio.wait_for(asker.ask(PROMPT_SYSTEM, question, hook.model), hook.timeout_s)
    except asyncio.TimeoutError:
        return HookRun(hook.command, None, timed_out=True, duration_s=time.monotonic() - started)
    except ProviderError as error:
        return HookRun(hook.command, None, error=f"could not ask the model: {error.message}", duration_s=time.monotonic() - started)
    verdict = _verdict(answer)
    elapsed = time.monotonic() - started
    if verdict is None:
        return HookRun(hook.command, None, error=f'got no {{"ok": ...}} JSON from the model: {answer.strip()[:120]!r}', duration_s=elapsed)
    ok, reason = verdict
    return HookRun(hook.command, 0, stdout=json.dumps(_as_output(str(payload.get("hook_event_name", "")), ok, reason)), duration_s=elapsed)


def _verdict(answer: str) -> tuple[bool, str] | None:
    match = re.search(r"\{.*\}", answer, re.DOTALL)
    if match is None:
        return None
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
        return None
    reason = data.get("reason")
    return data["ok"], reason if isinstance(reason, str) else ""


def _as_output(event: str, ok: bool, reason: str) -> dict[str, Any]:
    if ok:
        return {}
    reason = reason or "a prompt hook found a problem (it gave no reason)"
    if event == "PermissionRequest":
        return {"hookSpecificOutput": {"hookEventName": event, "decision": {"behavior": "deny", "message": reason}}}
    return {"decision": "block", "reason": reason}
