"""The permission policy: hard deny, modes (plan mode), rules and approval.

Callers build one :class:`PermissionPolicy` per session and ``await
policy.check(tool, args)`` before every tool call; a refused call becomes an
error tool result carrying ``Decision.reason``.
"""

from pseudoclaude.tools.permissions.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    CURRENT_CALL,
    REJUDGING,
    Decision,
    Preview,
)
from pseudoclaude.tools.permissions.hard_deny import hard_deny_reason
from pseudoclaude.tools.permissions.modes import (
    PermissionMode,
    mode_instructions,
    next_mode,
)
from pseudoclaude.tools.permissions.policy import PermissionPolicy, PermissionView
from pseudoclaude.tools.permissions.rules import Rule, Rules, RuleSyntaxError
from pseudoclaude.tools.permissions.settings import (
    SettingsError,
    append_local_rule,
    local_rule_sink,
)

__all__ = [
    "CURRENT_CALL",
    "REJUDGING",
    "ApprovalAnswer",
    "ApprovalRequest",
    "Approver",
    "Decision",
    "PermissionMode",
    "PermissionPolicy",
    "PermissionView",
    "Preview",
    "Rule",
    "RuleSyntaxError",
    "Rules",
    "SettingsError",
    "append_local_rule",
    "hard_deny_reason",
    "local_rule_sink",
    "mode_instructions",
    "next_mode",
]
