"""Hooks: the user's commands (or questions to a model) around session events; one module a step.

``config`` reads the settings' ``hooks`` block, ``payload`` builds the JSON a
hook reads, ``run`` starts a command and interprets its answer, ``prompt``
asks a model instead, ``session`` (``SessionHooks``) dispatches an event for
the runner, and ``gate`` puts the PreToolUse / PermissionRequest hooks in
front of the permission policy. The names load on first use (as
``pseudoclaude.agent``'s do), so importing one submodule does not import the
rest, and a submodule never imports this face back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pseudoclaude.lazy import lazy_getattr

if TYPE_CHECKING:
    from pseudoclaude.agent.hooks.config import HOOK_EVENTS, NEVER_FIRED, HookCommand, HookConfig
    from pseudoclaude.agent.hooks.gate import HookAwareApprover, wrap_gate, wrap_tools
    from pseudoclaude.agent.hooks.prompt import ProviderAsker
    from pseudoclaude.agent.hooks.run import HookReply, HookRun
    from pseudoclaude.agent.hooks.session import (
        MAX_STOP_CONTINUATIONS,
        PLAIN_CONTEXT_EVENTS,
        HookCallback,
        HookOutcome,
        SessionHooks,
        sample_data,
        subject_of,
    )

_LAZY = {
    "HOOK_EVENTS": "config",
    "NEVER_FIRED": "config",
    "HookCommand": "config",
    "HookConfig": "config",
    "HookAwareApprover": "gate",
    "wrap_gate": "gate",
    "wrap_tools": "gate",
    "ProviderAsker": "prompt",
    "HookReply": "run",
    "HookRun": "run",
    "MAX_STOP_CONTINUATIONS": "session",
    "PLAIN_CONTEXT_EVENTS": "session",
    "HookCallback": "session",
    "HookOutcome": "session",
    "SessionHooks": "session",
    "sample_data": "session",
    "subject_of": "session",
}

if not TYPE_CHECKING:
    __getattr__ = lazy_getattr(__name__, _LAZY)

__all__ = [
    "HOOK_EVENTS",
    "NEVER_FIRED",
    "HookCommand",
    "HookConfig",
    "HookAwareApprover",
    "wrap_gate",
    "wrap_tools",
    "ProviderAsker",
    "HookReply",
    "HookRun",
    "MAX_STOP_CONTINUATIONS",
    "PLAIN_CONTEXT_EVENTS",
    "HookCallback",
    "HookOutcome",
    "SessionHooks",
    "sample_data",
    "subject_of",
]
