"""``!command``: the user's own shell command, shown like a tool call.

It runs through the ``run_command`` tool (own process group, stdin from
/dev/null, capped output, killed on interrupt); its output is handed back so
the REPL can add it to the next message.
"""

from __future__ import annotations

from pathlib import Path
from typing import AsyncGenerator

from pseudoclaude.agent import Event, ToolCallFinished, ToolCallStarted
from pseudoclaude.tools import ToolContext


async def shell_events(command: str, workspace: Path, captured: list[str]) -> AsyncGenerator[Event, None]:
    """Run ``command`` and report it as a tool call (cancellable: the group is killed); its output goes to ``captured``."""
    from pseudoclaude.tools import RunCommandTool, ToolError

    yield ToolCallStarted("shell", "run_command", {"command": command})
    try:
        output = await RunCommandTool().run({"command": command}, ToolContext(workspace=workspace))
    except ToolError as error:
        yield ToolCallFinished("shell", "run_command", True, str(error))
        return
    captured.append(output.content)
    yield ToolCallFinished("shell", "run_command", output.is_error, output.summary, output.display)
