"""remember: save a fact to cross-session memory when the user asks.

It writes through the memory store handed in as ``ctx.memory`` (see
``pseudoclaude.agent.memory``), never into the workspace. Its kind is
``write``: saving changes a file the next sessions read, so the permission
policy treats it like any other write (it asks in the default mode). It has no
Claude Code counterpart, and its result is never cleared.
"""

from __future__ import annotations

from typing import Any, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "fact": {"type": "string", "minLength": 1, "description": "One self-contained sentence."},
        "scope": {
            "type": "string",
            "enum": ["project", "user"],
            "description": "project (default): this workspace; user: all projects.",
        },
    },
    "required": ["fact"],
    "additionalProperties": False,
}


class RememberTool:
    name = "remember"
    description = (
        "Save a fact to long-term memory for future sessions, only when the user asks you to remember something or "
        'states a lasting preference ("always...", "from now on...").'
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="write", clearable=False)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        if ctx.memory is None:
            raise ToolError("remember: memory is not available in this session")
        try:
            saved = ctx.memory.save(checked["fact"], "user" if checked.get("scope") == "user" else "project")
        except (ValueError, OSError) as error:
            raise ToolError(f"remember: {error}") from None
        if not saved.added:
            return ToolOutput(f"Already in {saved.scope} memory ({saved.path}): {saved.line[2:]}", summary="already remembered")
        return ToolOutput(
            f"Saved to {saved.scope} memory ({saved.path}): {saved.line[2:]}\nFuture sessions will see it.",
            summary=f"remembered ({saved.scope})",
            display={"memory_path": str(saved.path), "scope": saved.scope},
        )
