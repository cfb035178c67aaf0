"""kill_command: stop a background command and everything it started (its process group).

Only commands this session started in the background can be named, so the tool
changes nothing outside the session: it is declared ``read`` and never asks.
"""

from __future__ import annotations

from typing import Any, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string", "minLength": 1, "description": "bg1, bg2..."}},
    "required": ["id"],
    "additionalProperties": False,
}


class KillCommandTool:
    name = "kill_command"
    description = "Stop a background command and every process it started."
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="read", clearable=True, claude_names=("KillShell", "KillBash"), key_argument="id", claude_arguments=(("id", "shell_id"),))

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        if ctx.background is None:
            raise ToolError("no background commands in this session")
        try:
            was_running = any(job.running for job in ctx.background.jobs() if job.id == checked["id"])
            job = await ctx.background.kill(checked["id"])
        except KeyError as error:
            raise ToolError(str(error.args[0])) from None
        if not was_running and not job.killed:
            text = f"{job.id} had already exited (exit code {job.exit_code})."
        else:
            text = f"Stopped {job.id} and its processes ({job.total_bytes:,} bytes printed in all)."
        return ToolOutput(text, summary=text, display={"background_id": job.id})
