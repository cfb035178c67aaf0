"""Command output for the transcript, and ``!command`` runs.

The ``ToolCallFinished`` event carries a one-line summary, not a command's
output, so ``OutputRecorder`` wraps the ``run_command`` tool (same name, spec
and behaviour) and keeps the last output it produced for the renderer.
Commands never run concurrently with other tools (they are not read-only), so
"the last output of run_command" is the one the next finished event is about.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, AsyncIterator, Mapping, MutableMapping

from pseudoclaude.agent import events as ev
from pseudoclaude.tools.base import Tool, ToolContext, ToolOutput


class OutputRecorder:
    """A tool that behaves exactly like ``inner`` and records each output's content under its name."""

    def __init__(self, inner: Tool, sink: MutableMapping[str, str]) -> None:
        self.inner = inner
        self.sink = sink
        self.name = inner.name
        self.description = inner.description
        self.input_schema = inner.input_schema
        self.read_only = inner.read_only

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        output = await self.inner.run(args, ctx)
        self.sink[self.name] = output.content
        return output


async def shell_events(
    command: str, workspace: Path, outputs: MutableMapping[str, str], captured: list[str]
) -> AsyncIterator[ev.Event]:
    """Run ``command`` as the user's own ``!command`` and report it as a tool call (cancellable: the group is killed).

    The output goes to ``outputs`` (for the renderer) and is appended to ``captured`` (for the next message).
    """
    from pseudoclaude.tools.base import ToolError
    from pseudoclaude.tools.run_command import RunCommandTool

    tool = OutputRecorder(RunCommandTool(), outputs)
    yield ev.ToolCallStarted("shell", "run_command", {"command": command})
    try:
        output = await tool.run({"command": command}, ToolContext(workspace=workspace))
    except ToolError as error:
        yield ev.ToolCallFinished("shell", "run_command", True, str(error))
        return
    captured.append(output.content)
    yield ev.ToolCallFinished("shell", "run_command", output.is_error, output.summary, output.display)
