"""task: hand a self-contained job to a sub-agent with a fresh context; only its final answer comes back.

Exploration that would fill the parent's window (reading twenty files to find
one function) happens in a sub-agent's own conversation instead; the parent
reads a short report. The tool knows nothing of runners: it calls the
``Subagents`` Protocol, which ``pseudoclaude.agent.subagents`` implements (the
same provider, the same permission policy, its own tools and prompt). The
call itself changes nothing (kind ``read``): every call a sub-agent makes is
judged by the permission policy as if the parent made it, so plan mode and the
deny rules hold inside. Calls of one round therefore run concurrently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence

from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits


@dataclass(frozen=True)
class SubagentType:
    """A kind of sub-agent the model may ask for: its name, when to use it, and its tools (empty: all but ``task``)."""

    name: str
    description: str
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class SubagentResult:
    """How a sub-run ended: its final answer, the turns it took, why it stopped, and where it is recorded."""

    text: str
    turns: int
    stop_reason: str
    record: str | None = None
    message: str = ""


class Subagents(Protocol):
    """What ``task`` needs: the agent types, and a sub-run (``call_id`` links its record to the parent's call)."""

    def types(self) -> Sequence[SubagentType]: ...

    async def run(self, *, call_id: str, subagent_type: str, description: str, prompt: str) -> SubagentResult: ...


def _schema(types: Sequence[SubagentType]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "description": {"type": "string", "minLength": 1, "description": "3-5 words."},
            "prompt": {"type": "string", "minLength": 1, "description": "The whole task and what to report."},
            "subagent_type": {"type": "string", "enum": [t.name for t in types]},
        },
        "required": ["description", "prompt", "subagent_type"],
        "additionalProperties": False,
    }


class TaskTool:
    name = "task"
    traits = ToolTraits(kind="read", clearable=False, claude_names=("Task", "Agent"), key_argument="description")

    def __init__(self, subagents: Subagents) -> None:
        self.subagents = subagents
        self.refresh()

    def refresh(self) -> None:
        """Describe the agent types anew (agents added after start-up, by the Agent SDK)."""
        types = tuple(self.subagents.types())
        listing = "\n".join(f"- {t.name}: {t.description}" for t in types)
        self.description = (
            "Run a self-contained task (e.g. a wide codebase search) in a sub-agent with a fresh context that cannot see "
            "this conversation: give a complete prompt. Only its final report comes back. Calls in one message run "
            "concurrently. Agents:\n" + listing
        )
        self.input_schema: Mapping[str, Any] = _schema(types)

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        checked = check_args(self.name, args, self.input_schema)
        result = await self.subagents.run(
            call_id=ctx.call_id, subagent_type=checked["subagent_type"], description=checked["description"], prompt=checked["prompt"]
        )
        if result.stop_reason not in ("end_turn", "max_turns") and not result.text:
            raise ToolError(f"the {checked['subagent_type']} agent failed: {result.message or result.stop_reason}")
        return _output(checked, result, ctx)


def _output(args: Mapping[str, Any], result: SubagentResult, ctx: ToolContext) -> ToolOutput:
    """The answer, cut to the inline result limit when larger (the sub-run's record keeps it whole)."""
    text = result.text or "(the agent gave no final answer)"
    if result.stop_reason != "end_turn":
        text += f"\n[the agent stopped early: {result.message or result.stop_reason}]"
    limit = ctx.budget.result_limit_bytes
    encoded = text.encode("utf-8")
    shaped = len(encoded) > limit
    if shaped:
        where = f"; the whole answer is in {result.record}" if result.record else ""
        text = encoded[:limit].decode("utf-8", errors="ignore") + f"\n[answer cut at {limit:,} of {len(encoded):,} bytes{where}]"
    return ToolOutput(
        text,
        summary=f"{args['subagent_type']}: {args['description']} ({result.turns} turns)",
        display={"subagent_type": args["subagent_type"], "turns": result.turns, "record": result.record},
        shaped=shaped,
        full_output=result.record if shaped else None,
    )
