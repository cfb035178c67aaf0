"""The agent: the ReAct runner, the events it yields, the typed ``Agent`` facade, and how a session's agent is assembled.

This face is the package's contract: other packages import from here, never
from a submodule. The event types (and ``repair``) load eagerly, they are
cheap; everything else (runner, facade, ``build_agent``, hooks, memory) loads
on first use through ``__getattr__``, so that the REPL can read events and
paint its first prompt without importing the runner, compaction and hooks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pseudoclaude.lazy import lazy_getattr
from pseudoclaude.agent.closure import repair
from pseudoclaude.agent.events import (
    AssistantMessage,
    ErrorEvent,
    Event,
    Progress,
    SessionWriteFailed,
    Stop,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolInputDelta,
    ToolInputStart,
    UsageReport,
    event_to_dict,
)

if TYPE_CHECKING:
    from pseudoclaude.agent.subagents import AgentDefinition, sdk_agents
    from pseudoclaude.agent.build import PromptChoice, build_agent
    from pseudoclaude.agent.checkpoints import FileChange, RestoredFile, UserTurn, restore_files, rewind_session, session_changes, user_turns
    from pseudoclaude.agent.facade import Agent
    from pseudoclaude.agent.views import AgentFacts, AgentStatus, ContextBreakdown, Current
    from pseudoclaude.agent.controls import BackgroundControl, Extensions, McpControl, Memory
    from pseudoclaude.agent.hooks.config import HOOK_EVENTS, NEVER_FIRED, HookConfig
    from pseudoclaude.agent.hooks.run import HookReply
    from pseudoclaude.agent.hooks.session import PLAIN_CONTEXT_EVENTS, HookCallback, SessionHooks, sample_data, subject_of
    from pseudoclaude.agent.instructions import INIT_PROMPT
    from pseudoclaude.agent.memory import FactRejected, MemoryScope
    from pseudoclaude.agent.context import CompactionEngine, ContextEngine, NoCompaction, PrepareRequest
    from pseudoclaude.agent.custom_commands import CommandSet, CustomCommand, Expansion, load_custom_commands, workspace_trusted
    from pseudoclaude.agent.recording import AgentSession, SessionRecorder, SessionStore
    from pseudoclaude.agent.runconfig import RunConfig
    from pseudoclaude.agent.runner import Runner

_LAZY = {
    "AgentDefinition": "subagents",
    "sdk_agents": "subagents",
    "CommandSet": "custom_commands",
    "CustomCommand": "custom_commands",
    "Expansion": "custom_commands",
    "load_custom_commands": "custom_commands",
    "workspace_trusted": "custom_commands",
    "FileChange": "checkpoints",
    "RestoredFile": "checkpoints",
    "UserTurn": "checkpoints",
    "restore_files": "checkpoints",
    "rewind_session": "checkpoints",
    "session_changes": "checkpoints",
    "user_turns": "checkpoints",
    "Agent": "facade",
    "AgentSession": "recording",
    "CompactionEngine": "context",
    "ContextEngine": "context",
    "NoCompaction": "context",
    "PrepareRequest": "context",
    "SessionRecorder": "recording",
    "SessionStore": "recording",
    "AgentStatus": "views",
    "AgentFacts": "views",
    "Current": "views",
    "BackgroundControl": "controls",
    "Extensions": "controls",
    "McpControl": "controls",
    "Memory": "controls",
    "ContextBreakdown": "views",
    "FactRejected": "memory",
    "HOOK_EVENTS": "hooks.config",
    "NEVER_FIRED": "hooks.config",
    "HookCallback": "hooks.session",
    "HookConfig": "hooks.config",
    "HookReply": "hooks.run",
    "INIT_PROMPT": "instructions",
    "MemoryScope": "memory",
    "PLAIN_CONTEXT_EVENTS": "hooks.session",
    "RunConfig": "runconfig",
    "Runner": "runner",
    "SessionHooks": "hooks.session",
    "build_agent": "build",
    "PromptChoice": "build",
    "sample_data": "hooks.session",
    "subject_of": "hooks.session",
}

if not TYPE_CHECKING:  # mypy sees the names above; a misspelt one stays an error
    __getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "AgentDefinition",
    "sdk_agents",
    "NEVER_FIRED",
    "CommandSet",
    "CustomCommand",
    "Expansion",
    "load_custom_commands",
    "workspace_trusted",
    "FileChange",
    "RestoredFile",
    "UserTurn",
    "restore_files",
    "rewind_session",
    "session_changes",
    "user_turns",
    "Agent",
    "AgentStatus",
    "AgentFacts",
    "Current",
    "BackgroundControl",
    "Extensions",
    "McpControl",
    "Memory",
    "AssistantMessage",
    "ContextBreakdown",
    "ErrorEvent",
    "Event",
    "SessionWriteFailed",
    "AgentSession",
    "CompactionEngine",
    "ContextEngine",
    "FactRejected",
    "HOOK_EVENTS",
    "HookCallback",
    "HookConfig",
    "HookReply",
    "INIT_PROMPT",
    "MemoryScope",
    "NoCompaction",
    "PrepareRequest",
    "PLAIN_CONTEXT_EVENTS",
    "Progress",
    "PromptChoice",
    "RunConfig",
    "Runner",
    "SessionHooks",
    "SessionRecorder",
    "SessionStore",
    "Stop",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallFinished",
    "ToolCallStarted",
    "ToolInputDelta",
    "ToolInputStart",
    "UsageReport",
    "build_agent",
    "event_to_dict",
    "repair",
    "sample_data",
    "subject_of",
]
