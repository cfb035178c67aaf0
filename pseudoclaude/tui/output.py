"""``!command``: the user's own shell command, shown like a tool call.

It runs through the ``run_command`` tool (own process group, stdin from
/dev/null, capped output, killed on interrupt); its output is handed back so
the REPL can add it to the next message.
"""

from __future__ import annotations

from pathlib import Path
from typing import AsyncGenerator

from pseudoclaude.agent import events as ev
from pseudoclaude.tools.base import ToolContext


async def shell_events(command: str, workspace: Path, captured: list[str]) -> AsyncGenerator[ev.Event, None]:
    """Run ``command`` and report it as a tool call (cancellable: the group is killed); its output goes to ``captured``."""
    from pseudoclaude.tools.base import ToolError
    from pseudoclaude.tools.run_command import RunCommandTool

    yield ev.ToolCallStarted("shell", "run_command", {"command": command})
    try:
        output = await RunCommandTool().run({"command": command}, ToolContext(workspace=workspace))
    except ToolError as error:
        yield ev.ToolCallFinished("shell", "run_command", True, str(error))
        return
    captured.append(output.content)
    yield ev.ToolCallFinished("shell", "run_command", output.is_error, output.summary, output.display)
