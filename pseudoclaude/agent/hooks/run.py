"""Running one hook command and reading what it answered (Claude Code's protocol).

The command runs as ``bash -c`` in the workspace, in its own process group, with
the JSON payload on stdin; it never blocks the event loop. At its timeout, or when
the run is cancelled (even while the process is still starting: ``tools.start_group``),
the whole group is stopped (``tools.stop_group``).
When bash has exited but something it started still holds the output pipes, the
group is stopped after a short grace rather than waiting for the timeout. At most
``MAX_OUTPUT_BYTES`` of each stream are kept.

Answers (``interpret``):

- exit 0: go on. A stdout that is a JSON object is read as Claude Code's output
  (``continue``/``stopReason``, ``decision: "block"``/``reason``, ``systemMessage``,
  ``hookSpecificOutput.permissionDecision``/``permissionDecisionReason``/``additionalContext``,
  and ``PermissionRequest``'s ``hookSpecificOutput.decision``: ``{"behavior": "allow",
  "updatedInput": {...}}`` or ``{"behavior": "deny", "message": ..., "interrupt": true}``);
  a stdout that starts with ``{`` but is not valid JSON is ignored with a warning;
  any other stdout is plain ``text`` (context, for the events that take it).
- exit 2: block, with stderr as the reason.
- any other exit, a timeout or a command that cannot start: a warning; go on.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

from pseudoclaude.agent.hooks.config import HookCommand
from pseudoclaude.tools import start_group, stop_group

BLOCK_EXIT_CODE = 2
MAX_OUTPUT_BYTES = 64 * 1024
PIPE_GRACE_S = 1.0
READ_CHUNK = 64 * 1024

Permission = Literal["allow", "deny", "ask"]


@dataclass(frozen=True)
class HookRun:
    """What the process did; ``exit_code`` is None when it timed out or could not start."""

    command: str
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str | None = None
    duration_s: float = 0.0


@dataclass(frozen=True)
class HookReply:
    """What one hook asked for."""

    command: str
    blocked: bool = False
    reason: str = ""
    context: str = ""
    text: str = ""
    permission: Permission | None = None
    halt: str | None = None
    system_message: str = ""
    warning: str | None = None
    updated_input: Mapping[str, Any] | None = None
    interrupt: bool = False


async def run_hook(hook: HookCommand, payload: Mapping[str, Any], *, cwd: Path, env: Mapping[str, str] | None = None) -> HookRun:
    """Run ``hook`` with ``payload`` as JSON on stdin; never raises for the command's own failures."""
    started = time.monotonic()
    data = (json.dumps(payload, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        proc = await start_group(
            "bash",
            "-c",
            hook.command,
            cwd=str(cwd),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(env) if env is not None else None,
        )
    except OSError as error:
        return HookRun(hook.command, None, error=f"could not start: {error}", duration_s=time.monotonic() - started)
    out, err = bytearray(), bytearray()
    timed_out = False
    try:
        async with asyncio.timeout(hook.timeout_s):
            await _communicate(proc, data, out, err)
    except TimeoutError:
        timed_out = True
        await stop_group(proc)
    except BaseException:
        await stop_group(proc)
        raise
    return HookRun(
        command=hook.command,
        exit_code=None if timed_out else proc.returncode,
        stdout=out.decode("utf-8", errors="replace"),
        stderr=err.decode("utf-8", errors="replace"),
        timed_out=timed_out,
        duration_s=time.monotonic() - started,
    )


async def _communicate(proc: asyncio.subprocess.Process, data: bytes, out: bytearray, err: bytearray) -> None:
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    tasks = [
        asyncio.ensure_future(_feed(proc.stdin, data)),
        asyncio.ensure_future(_read(proc.stdout, out)),
        asyncio.ensure_future(_read(proc.stderr, err)),
    ]
    exited = asyncio.ensure_future(_exit(proc))
    try:
        await exited
        try:
            async with asyncio.timeout(PIPE_GRACE_S):
                await asyncio.gather(*tasks[1:])
        except TimeoutError:
            await stop_group(proc)
    finally:
        for task in (*tasks, exited):
            task.cancel()
        await asyncio.gather(*tasks, exited, return_exceptions=True)


async def _feed(stream: asyncio.StreamWriter, data: bytes) -> None:
    try:
        stream.write(data)
        await stream.drain()
        stream.close()
        await stream.wait_closed()
    except (BrokenPipeError, ConnectionResetError):
        pass


async def _read(stream: asyncio.StreamReader, into: bytearray) -> None:
    while chunk := await stream.read(READ_CHUNK):
        room = MAX_OUTPUT_BYTES - len(into)
        if room > 0:
            into.extend(chunk[:room])


async def _exit(proc: asyncio.subprocess.Process) -> None:
    """Bash's exit, without waiting for the pipes (``proc.wait()`` would)."""
    while proc.returncode is None:
        await asyncio.sleep(0.01)


def interpret(run: HookRun) -> HookReply:
    """The reply of one finished hook (see the module docstring)."""
    name = _short(run.command)
    if run.error is not None:
        return HookReply(run.command, warning=f"hook `{name}` {run.error}")
    if run.timed_out:
        return HookReply(run.command, warning=f"hook `{name}` timed out after {run.duration_s:.1f}s and was stopped")
    if run.exit_code == BLOCK_EXIT_CODE:
        reason = run.stderr.strip() or f"blocked by the hook `{name}` (it gave no reason on stderr)"
        return HookReply(run.command, blocked=True, reason=reason)
    if run.exit_code != 0:
        detail = _first_line(run.stderr) or _first_line(run.stdout)
        return HookReply(run.command, warning=f"hook `{name}` failed with exit code {run.exit_code}" + (f": {detail}" if detail else ""))
    text = run.stdout.strip()
    if not text.startswith("{"):
        return HookReply(run.command, text=text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return HookReply(run.command, warning=f"hook `{name}` printed invalid JSON on stdout ({error.msg}); its output was ignored")
    if not isinstance(data, dict):
        return HookReply(run.command, text=text)
    return _from_json(run.command, name, data)


def _from_json(command: str, name: str, data: Mapping[str, Any]) -> HookReply:
    problems: list[str] = []
    specific = data.get("hookSpecificOutput")
    if specific is not None and not isinstance(specific, Mapping):
        problems.append("hookSpecificOutput must be an object")
        specific = None
    specific = specific or {}
    decision = data.get("decision")
    permission = specific.get("permissionDecision")
    if decision == "approve":
        permission = permission or "allow"
    elif decision not in (None, "block"):
        problems.append(f"decision {decision!r} is not 'block'")
    if permission not in (None, "allow", "deny", "ask"):
        problems.append(f"permissionDecision {permission!r} is not allow, deny or ask")
        permission = None
    reason = _text(specific.get("permissionDecisionReason")) or _text(data.get("reason"))
    verdict = specific.get("decision")
    updated = specific.get("updatedInput")
    interrupt = False
    if verdict is not None:
        behavior = verdict.get("behavior") if isinstance(verdict, Mapping) else None
        if not isinstance(verdict, Mapping) or behavior not in ("allow", "deny"):
            problems.append("hookSpecificOutput.decision must be {'behavior': 'allow' | 'deny', ...}")
        else:
            permission = behavior
            reason = _text(verdict.get("message")) or reason
            interrupt = behavior == "deny" and verdict.get("interrupt") is True
            updated = verdict.get("updatedInput", updated)
    if updated is not None and not isinstance(updated, Mapping):
        problems.append("updatedInput must be an object")
        updated = None
    halt = None
    if data.get("continue") is False:
        halt = _text(data.get("stopReason")) or f"stopped by the hook `{name}`"
    warning = f"hook `{name}` printed unexpected JSON: {'; '.join(problems)}" if problems else None
    return HookReply(
        command=command,
        blocked=decision == "block" or permission == "deny",
        reason=reason,
        context=_text(specific.get("additionalContext")),
        permission=permission,
        halt=halt,
        system_message=_text(data.get("systemMessage")),
        warning=warning,
        updated_input=updated,
        interrupt=interrupt,
    )


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:200] if lines else ""


def _short(command: str) -> str:
    line = " ".join(command.split())
    return line if len(line) <= 60 else line[:57] + "..."
