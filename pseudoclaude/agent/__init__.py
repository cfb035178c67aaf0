"""The agent: the ReAct runner, the events it yields, and how a session's agent is assembled.

``build_agent`` (in ``agent.build``) wires provider, tools, session,
compaction, permissions, instructions, memory and hooks; it is not imported
here so that importing the event types stays cheap.
"""

from pseudoclaude.agent.closure import repair
from pseudoclaude.agent.events import (
    AssistantMessage,
    ErrorEvent,
    Event,
    Progress,
    Stop,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    UsageReport,
    event_to_dict,
)
from pseudoclaude.agent.runner import RunConfig, Runner

__all__ = [
    "AssistantMessage",
    "ErrorEvent",
    "Event",
    "Progress",
    "RunConfig",
    "Runner",
    "Stop",
    "TextDelta",
    "ToolCallFinished",
    "ToolCallStarted",
    "UsageReport",
    "event_to_dict",
    "repair",
]
