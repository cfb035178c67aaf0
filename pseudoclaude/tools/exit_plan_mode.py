"""exit_plan_mode: the model presents its plan and asks the user to leave plan mode (Claude Code's ExitPlanMode).

Plan mode ends in a plan, not in an answer the user has to copy from: the
model calls this tool with the plan (Markdown). The permission policy makes
the call the question (``permissions/plan_exit.py``): the user approves it,
switching to accept-edits or to default, or sends it back with comments,
which the model reads as the result. Only when approved does this run, and
then the mode has already changed; the result says so.

The tool is in every request's tool list (the list must stay byte-identical
for the prompt cache) but only plan mode's instructions offer it; outside
plan mode the policy refuses the call with a reason. It changes no file:
kind ``read``; its result is the approved plan's receipt, never cleared.
"""

from __future__ import annotations

from typing import Any, Mapping

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits

MAX_PLAN_CHARS = 40_000

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "plan": {
            "type": "string",
            "minLength": 1,
            "description": "Markdown: concise steps, the files to change, how to verify.",
        },
    },
    "required": ["plan"],
    "additionalProperties": False,
}


class ExitPlanModeTool:
    name = "exit_plan_mode"
    description = (
        "Plan mode only: present your finished plan of changes for approval (not for questions or research). If "
        "approved, plan mode ends and you carry it out; if sent back with comments, revise it."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="read", clearable=False, claude_names=("ExitPlanMode",), key_argument="plan", exits_plan=True)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        plan: str = checked["plan"].strip()
        if not plan:
            raise ToolError("plan must not be empty")
        if len(plan) > MAX_PLAN_CHARS:
            raise ToolError(f"the plan is {len(plan):,} characters; keep it under {MAX_PLAN_CHARS:,} (summarize the steps)")
        return ToolOutput(
            "The user approved your plan and plan mode is over (the permission mode in the system prompt says what now "
            "needs approval). Carry out the plan now, step by step.",
            summary="plan approved",
            display={"plan": plan},
        )
