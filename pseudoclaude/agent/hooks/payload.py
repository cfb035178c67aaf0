"""The bodies of the hook payloads in Claude Code's shape, and sample ones for ``pseudoclaude hooks test``.

A tool event names the tool and its arguments as Claude Code would (``Bash``,
``file_path``), so a hook script written for Claude Code reads what it expects;
``PostToolUse``'s ``tool_response`` adds the keys those scripts read (a
command's ``stdout``, an edit's ``structuredPatch``: ``ToolOutput.details``).
"""

from __future__ import annotations

from typing import Any, Mapping

from pseudoclaude.tools import ToolTraits, builtin_registry

TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")


def tool_data(name: str, arguments: Mapping[str, Any], traits: ToolTraits | None) -> dict[str, Any]:
    """A tool event's body in Claude Code's shape, so its hook scripts work unchanged.

    ``tool_name`` is Claude Code's name for the tool (``Bash``, ``Write``...; ours
    for a tool it lacks) and ``tool_input`` carries each argument under Claude
    Code's name (``file_path``) and, where that differs, under ours (``path``)
    too; ``pseudoclaude_tool_name`` keeps our name.
    """
    if traits is None:
        return {"tool_name": name, "tool_input": dict(arguments), "pseudoclaude_tool_name": name}
    return {
        "tool_name": traits.claude_name(name),
        "tool_input": {**dict(arguments), **traits.to_claude(arguments)},
        "pseudoclaude_tool_name": name,
    }


def tool_response(
    arguments: Mapping[str, Any], response: Mapping[str, Any], traits: ToolTraits | None, details: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``PostToolUse``'s ``tool_response``: ours (``content``, ``is_error``, ``summary``) plus Claude Code's keys.

    A command's ``stdout``/``stderr``; a file tool's ``filePath``; and whatever the
    tool reported in ``details`` (the edit tools: Claude Code's whole ``Edit``/``Write``
    response, ``structuredPatch``, ``oldString``, ``originalFile``...).
    """
    body = dict(response)
    if traits is not None:
        if traits.kind == "execute":
            body.update(stdout=response.get("content", ""), stderr="", interrupted=False)
        elif traits.path_arguments and isinstance(path := arguments.get(traits.path_arguments[0]), str):
            body["filePath"] = path
    body.update(details or {})
    return body


def permission_suggestions(rule: str | None, claude_name: str) -> list[dict[str, Any]]:
    """Claude Code's ``permission_suggestions``: the rule "always" would save (ours, e.g. ``run_command(git:*)``)."""
    if not rule:
        return []
    content = rule[rule.index("(") + 1 : -1] if "(" in rule and rule.endswith(")") else None
    entry: dict[str, Any] = {"toolName": claude_name, **({"ruleContent": content} if content else {})}
    return [{"type": "addRules", "rules": [entry], "behavior": "allow", "destination": "localSettings", "pseudoclaude_rule": rule}]


SAMPLE_DATA: Mapping[str, Mapping[str, Any]] = {
    "SessionStart": {"source": "startup"},
    "SessionEnd": {"reason": "other"},
    "UserPromptSubmit": {"prompt": "Sample prompt from pseudoclaude hooks test"},
    "PreToolUse": {"tool_input": {"command": "echo hello"}},
    "PostToolUse": {"tool_input": {"command": "echo hello"}, "tool_response": {"content": "hello\n", "is_error": False}},
    "PostToolUseFailure": {"tool_input": {"command": "false"}, "error": "exit code 1", "is_interrupt": False},
    "PermissionRequest": {"tool_input": {"command": "echo hello"}, "permission_suggestions": []},
    "PreCompact": {"trigger": "manual", "custom_instructions": "", "before_tokens": 150000},
    "PostCompact": {"trigger": "manual", "compact_summary": "1. Primary Request and Intent: ...", "before_tokens": 150000, "after_tokens": 12000},
    "Stop": {"stop_hook_active": False, "last_assistant_message": "Done."},
    "Notification": {"message": "PseudoClaude needs your permission to use Bash", "notification_type": "permission_prompt"},
    "SubagentStart": {"agent_id": "call_sample", "agent_type": "general-purpose"},
    "SubagentStop": {
        "stop_hook_active": False,
        "agent_id": "call_sample",
        "agent_type": "general-purpose",
        "agent_transcript_path": "",
        "last_assistant_message": "Done.",
    },
}


def sample_data(event: str, tool: str = "run_command", tool_input: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A plausible payload body for ``event``; tool events name ``tool`` (ours or Claude Code's) as a real call would.

    ``tool_input`` replaces the sample arguments (Claude Code's names are read back
    to ours first, as an SDK's input would be).
    """
    data = dict(SAMPLE_DATA[event])
    if event not in TOOL_EVENTS:
        return data
    found = builtin_registry().find(tool)
    traits = found.traits if found is not None else None
    name = found.name if found is not None else tool
    arguments = dict(data.pop("tool_input") if tool_input is None else tool_input)
    data.pop("tool_input", None)
    if traits is not None:
        arguments = traits.from_claude(arguments)
    body = {**tool_data(name, arguments, traits), **data}
    if event == "PostToolUse":
        body["tool_response"] = tool_response(arguments, data["tool_response"], traits)
    return body


SUBJECT_KEYS: Mapping[str, str] = {
    **{event: "tool_name" for event in TOOL_EVENTS},
    "SessionStart": "source",
    "PreCompact": "trigger",
    "PostCompact": "trigger",
    "SubagentStart": "agent_type",
    "SubagentStop": "agent_type",
    "Notification": "notification_type",
}


def subject_of(event: str, data: Mapping[str, Any]) -> str | None:
    """What a matcher is compared with for ``event``."""
    key = SUBJECT_KEYS.get(event)
    value = data.get(key) if key else None
    if key == "tool_name" and isinstance(ours := data.get("pseudoclaude_tool_name"), str):
        value = ours
    return value if isinstance(value, str) else None
