"""run_command: a shell command in the workspace, bounded in time, memory and what the model reads.

The mechanics (process group, timeout, cancellation, streaming capture) live
in ``shell``; this module turns a ``CommandResult`` into what the model reads.
An output that fits the session's inline budget (``ToolContext.budget``) is
shown whole, followed by a one-line note of how the command ended. A longer
one is shaped once, here, to that budget (``preview.shape``): a status line
first (how it ended, the true size in bytes and lines, the duration, where the
complete output is saved, or why it is not), a short head, the error-like lines
of the omitted middle with their line numbers, and a longer tail. Such a
result is marked ``shaped`` and names the spill file as ``full_output``, so
context governance does not cut it again and points at the complete output.

While it runs, a command is listed among the session's foreground commands
(``BackgroundJobs.foreground``); one the user sends to the background
(Ctrl-B) returns at once saying so, with the job id the model reads it by.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace
from functools import partial
from typing import Any, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.output import (
    SPILL_LIMIT_BYTES,
    StreamCapture,
    guess_type,
    looks_binary_stream,
)
from pseudoclaude.tools.preview import shape
from pseudoclaude.tools.shell import CommandResult, Detached, open_spill_file, run_shell

DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 600

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "minLength": 1},
        "timeout": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_TIMEOUT_S,
            "description": f"Seconds before everything it started is killed (default {DEFAULT_TIMEOUT_S}, max {MAX_TIMEOUT_S}).",
        },
        "background": {
            "type": "boolean",
            "description": "For servers, watchers, long builds: returns at once with an id for command_output and kill_command; no timeout.",
        },
    },
    "required": ["command"],
    "additionalProperties": False,
}


class RunCommandTool:
    name = "run_command"
    description = (
        "Run a bash command in the workspace; returns combined stdout and stderr and the exit code. Each call is a fresh "
        "shell: cd, export and variables do not carry over, so chain them (cd sub && make). stdin is empty: no "
        "interactive programs, servers or watch modes (use background for those; anything left holding the output is "
        "stopped about a second after bash exits). Use quiet, non-interactive flags for long runs. Output over the inline limit "
        "(6-11 KB, smaller for smaller context windows) arrives shortened: a status line (exit code, true size, the file "
        "with the complete output), the first lines, the error-like lines of the middle with their line numbers, the end."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="execute", clearable=True, claude_names=("Bash",), key_argument="command")

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        command: str = checked["command"]
        timeout_s: int = checked.get("timeout", DEFAULT_TIMEOUT_S)
        if not ctx.workspace.is_dir():
            raise ToolError(f"the workspace folder {ctx.workspace} no longer exists; cannot run commands in it")
        if checked.get("background"):
            return await _start_background(command, ctx)
        opener = partial(open_spill_file, ctx.spill_dir, "run_command") if ctx.spill_dir is not None else None
        capture = StreamCapture(inline_bytes=ctx.budget.inline_bytes, open_spill=opener, redactor=ctx.child_env.redactor)
        try:
            with ctx.background.foreground(ctx.call_id, command) if ctx.background is not None else nullcontext(None) as detach:
                result = await run_shell(
                    command, cwd=ctx.workspace, timeout_s=timeout_s, capture=capture, env=ctx.child_env.environ(), sandbox=ctx.sandbox, detach=detach
                )
        except FileNotFoundError:
            raise ToolError(f"the workspace folder {ctx.workspace} no longer exists; cannot run commands in it") from None
        except PermissionError as error:
            raise ToolError(f"cannot start bash in {ctx.workspace}: {error.strerror}") from None
        if result.detached is not None:
            return _moved_to_background(command, ctx, result, result.detached)
        if looks_binary_stream(capture.sample()):
            capture.save_now()
            capture.close()
        output = _render(command, timeout_s, result)
        return _with_sandbox_hint(output, ctx.sandbox.blocked(_text_of(result), result.exit_code)) if ctx.sandbox is not None else output


async def _start_background(command: str, ctx: ToolContext) -> ToolOutput:
    if ctx.background is None:
        raise ToolError("background commands are not available here; run it in the foreground")
    try:
        job = await ctx.background.start(command, ctx.workspace, ctx.child_env, sandbox=ctx.sandbox)
    except OSError as error:
        raise ToolError(f"cannot start bash in {ctx.workspace}: {error.strerror or error}") from None
    first = command.strip().splitlines()[0] if command.strip() else command
    return ToolOutput(
        f"Started in the background as {job.id} (process group {job.pid}). Read what it prints with "
        f'command_output(id="{job.id}"); stop it with kill_command(id="{job.id}"). It is stopped when the session ends.',
        summary=f"$ {first[:80]} (background {job.id})",
        display={"command": command, "background_id": job.id, "pid": job.pid},
    )


def _moved_to_background(command: str, ctx: ToolContext, result: CommandResult, detached: Detached) -> ToolOutput:
    """The result of a command the user sent to the background: it runs on as a job, its output so far kept for ``command_output``."""
    assert ctx.background is not None
    capture = result.capture
    whole = not capture.truncated
    kept = bytes(capture.head) + bytes(capture.tail) if whole else bytes(capture.tail)
    log = capture.spill_path if capture.spill_complete else None
    job = ctx.background.adopt(
        command,
        detached.proc,
        detached.confinement,
        ctx.child_env,
        printed=kept,
        dropped=capture.total_bytes - len(kept),
        log=log,
        running_for=result.duration_s,
    )
    first = command.strip().splitlines()[0] if command.strip() else command
    earlier = "" if whole else f"; the first {capture.total_bytes - len(kept):,} are only in {log}" if log else "; only the last part was kept"
    return ToolOutput(
        f"The user sent this command to the background after {result.duration_s:.1f} s; it goes on running as {job.id} "
        f"(process group {job.pid}). Read what it printed so far ({capture.total_bytes:,} bytes{earlier}) and what it prints next with "
        f'command_output(id="{job.id}"); stop it with kill_command(id="{job.id}"). It is stopped when the session ends.',
        summary=f"$ {first[:80]} (sent to the background as {job.id})",
        display={"command": command, "background_id": job.id, "pid": job.pid, "running": True},
    )


def _render(command: str, timeout_s: int, result: CommandResult) -> ToolOutput:
    capture = result.capture
    sample = capture.sample()
    binary = looks_binary_stream(sample)
    ending = _ending(timeout_s, result)
    shaped = binary or capture.truncated
    tail = ""
    if not capture.total_bytes:
        content = "(no output)\n[" + ending + "]"
    elif binary:
        content = f"[{ending} · binary output: {capture.total_bytes:,} bytes, looks like {guess_type(sample)}; not shown · {_saved(capture)}]"
    elif capture.truncated:
        preview = shape(capture)
        tail = _tail_lines(preview.tail, 12)
        content = f"[{ending} · {_size(capture)} · {result.duration_s:.1f} s · {_saved(capture)}]\n" + preview.text
        if not content.endswith("\n"):
            content += "\n"
    else:
        body = (bytes(capture.head) + bytes(capture.tail)).decode("utf-8", errors="replace")
        if not body.endswith("\n"):
            body += "\n"
        tail = _tail_lines(body, 12)
        content = body + "[" + ending + "]"
    status = "timed out" if result.timed_out else f"exit {result.exit_code}"
    first = command.strip().splitlines()[0] if command.strip() else command
    path = str(capture.spill_path) if capture.spill_path is not None else None
    return ToolOutput(
        content,
        is_error=result.timed_out,
        summary=f"$ {first[:80]} ({status}, {capture.total_bytes:,} bytes)",
        display={
            "command": command,
            "exit_code": result.exit_code,
            "timed_out": result.timed_out,
            "total_bytes": capture.total_bytes,
            "output_path": path,
            "duration_s": round(result.duration_s, 3),
            "binary": binary,
            "tail": tail,
            "output_lines": 0 if binary else capture.total_lines,
        },
        shaped=shaped,
        full_output=path if shaped else None,
    )


def _text_of(result: CommandResult) -> str:
    """What the command printed, as far as the capture kept it (head and tail: where the error lines are)."""
    capture = result.capture
    return (bytes(capture.head) + b"\n" + bytes(capture.tail)).decode("utf-8", errors="replace")


def _with_sandbox_hint(output: ToolOutput, line: str | None) -> ToolOutput:
    """The result with the sandbox's one line appended (and in ``display["sandbox_blocked"]``), when it gave one."""
    if line is None:
        return output
    return replace(output, content=f"{output.content}\n[{line}]", display={**output.display, "sandbox_blocked": line})


def _ending(timeout_s: int, result: CommandResult) -> str:
    """How the command ended, for the status line."""
    if result.timed_out:
        ending = f"timed out after {timeout_s} s; the command and its child processes were killed"
    elif result.exit_code is not None and result.exit_code < 0:
        ending = f"killed by signal {-result.exit_code}"
    else:
        ending = f"exit code {result.exit_code}"
    if result.stopped_background:
        ending += "; background processes still holding the output were stopped"
    return ending


def _size(capture: StreamCapture) -> str:
    lines = capture.total_lines
    return f"{capture.total_bytes:,} bytes, {lines:,} line{'s' if lines != 1 else ''}"


def _saved(capture: StreamCapture) -> str:
    """Where the complete output is, said honestly (partly saved, not saved and why)."""
    if capture.spill_path is None:
        return capture.spill_error or "the complete output was not saved (this session keeps no files)"
    if capture.spill_complete:
        return f"complete output: {capture.spill_path}"
    return (
        f"only the first {capture.spilled_bytes:,} of {capture.total_bytes:,} bytes "
        f"({SPILL_LIMIT_BYTES // (1024 * 1024)} MiB disk cap) saved to {capture.spill_path}"
    )


def _tail_lines(text: str, count: int) -> str:
    """The last ``count`` lines of the output, for renderers (at most 4 KB)."""
    return "\n".join(text.rstrip("\n").splitlines()[-count:])[-4096:]
