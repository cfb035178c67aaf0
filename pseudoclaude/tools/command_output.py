"""command_output: what a background command printed since the last read, and whether it is still running.

The new output is fitted to the session's inline budget (``ToolContext.budget``):
a longer one keeps its start and its end and says how much of the middle was
left out and where the complete log is. Reading changes nothing but the read
position, so the tool is read-only (it runs in plan mode and concurrently).
"""

from __future__ import annotations

import time
from typing import Any, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string", "minLength": 1, "description": "bg1, bg2..."}},
    "required": ["id"],
    "additionalProperties": False,
}


class CommandOutputTool:
    name = "command_output"
    description = "New output of a background command since the last read, and whether it still runs."
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="read", clearable=True, claude_names=("BashOutput",), key_argument="id", claude_arguments=(("id", "bash_id"),))

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        if ctx.background is None:
            raise ToolError("no background commands in this session")
        try:
            new = ctx.background.read(checked["id"])
        except KeyError as error:
            raise ToolError(str(error.args[0])) from None
        job = new.job
        if job.running:
            state = f"{job.id} is running ({time.time() - job.started:.0f} s)"
        else:
            state = f"{job.id} {'was killed' if job.killed else 'exited'} (exit code {job.exit_code})"
        body = fit(new.text, ctx.budget.inline_bytes, job.log)
        lost = f" · {new.dropped:,} older unread bytes were dropped from memory (the log has them)" if new.dropped else ""
        log = f" · complete log: {job.log}" if job.log else ""
        content = f"[{state} · {job.total_bytes:,} bytes printed in all{lost}{log}]\n" + (body or "(no new output)")
        return ToolOutput(
            content,
            summary=f"{state}, {len(new.text.encode()):,} new bytes",
            display={"background_id": job.id, "running": job.running, "exit_code": job.exit_code},
            shaped=len(new.text.encode()) > ctx.budget.inline_bytes,
            full_output=job.log,
        )


def fit(text: str, limit: int, log: str | None) -> str:
    """``text`` whole when it fits ``limit`` bytes, else its first quarter and last three quarters around a note."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    head, tail = data[: limit // 4], data[-(limit - limit // 4) :]
    where = f"; see {log}" if log else ""
    omitted = len(data) - len(head) - len(tail)
    return head.decode("utf-8", errors="ignore") + f"\n[... {omitted:,} bytes of new output omitted{where} ...]\n" + tail.decode("utf-8", errors="ignore")
