from __future__ import annotations

import asyncio
from typing import Any, Mapping

import pytest

from pseudoclaude.tools.base import Tool, ToolKind, ToolTraits
from tests.tools.builtins import plan_mode_tools
from pseudoclaude.tools.permissions import (
    Decision,
    PermissionMode,
    PermissionPolicy,
    Rules,
)

from .fakes import HOME, WORKSPACE, DeclaredTool, ScriptedApprover, declared, tool


def check(tool_: Tool, args: Mapping[str, Any], **kwargs: Any) -> Decision:
    policy = PermissionPolicy(mode=PermissionMode.PLAN, workspace=WORKSPACE, home=HOME, **kwargs)
    return asyncio.run(policy.check(tool_, args))


@pytest.mark.parametrize("name", ["read_file", "glob", "grep", "list_dir", "todo_write"])
def test_read_only_builtin_runs(name: str) -> None:
    assert check(tool(name), {"path": "src"}) == Decision(True, "", "plan")


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("write_file", {"path": "a.py", "content": "x"}),
        ("edit_file", {"path": "a.py", "old": "x", "new": "y"}),
        ("run_command", {"command": "ls"}),
        ("run_command", {"command": "git status"}),
    ],
)
def test_every_writer_and_command_is_refused(name: str, args: dict[str, Any]) -> None:
    decision = check(tool(name), args)
    assert not decision.allowed and decision.source == "plan"
    assert "present your plan" in decision.reason


@pytest.mark.parametrize("kind", ["edit", "execute", "write"])
def test_a_tool_not_declaring_read_is_refused(kind: ToolKind) -> None:
    traits = ToolTraits(kind=kind, clearable=False, key_argument="url", path_arguments=("url",))
    decision = check(DeclaredTool("web_fetch", traits), {"url": "http://127.0.0.1"})
    assert not decision.allowed
    assert "`web_fetch` can change files or run commands" in decision.reason


def test_a_builtin_name_does_not_make_a_writer_read_only() -> None:
    decision = check(declared("read_file", "write"), {"path": "a.py"})
    assert not decision.allowed and decision.source == "plan"


def test_the_refusal_names_the_read_only_tools_of_the_session() -> None:
    decision = check(tool("write_file"), {"path": "a.py"})
    assert "investigate with glob, grep, list_dir, read_file, recall, todo_write," in decision.reason


def test_allow_rules_do_not_open_plan_mode() -> None:
    decision = check(tool("write_file"), {"path": "a.py"}, rules=Rules(allow=(), deny=()), allowed_tools=["write_file"])
    assert not decision.allowed and decision.source == "plan"


def test_plan_mode_never_asks_the_approver() -> None:
    approver = ScriptedApprover([])
    decision = check(tool("run_command"), {"command": "make"}, approver=approver)
    assert not decision.allowed and approver.requests == []


def test_hard_deny_comes_before_the_plan_refusal() -> None:
    assert check(tool("run_command"), {"command": "rm -rf ~"}).source == "hard-deny"


def test_mode_instructions_tell_the_model_to_plan_without_changing_anything() -> None:
    policy = PermissionPolicy(mode=PermissionMode.PLAN, workspace=WORKSPACE, home=HOME)
    text = policy.mode_instructions()
    assert "plan" in text and "Do not change anything" in text
    assert plan_mode_tools() in text


def test_switching_the_mode_takes_effect_on_the_next_check() -> None:
    policy = PermissionPolicy(mode=PermissionMode.BYPASS, workspace=WORKSPACE, home=HOME)
    assert asyncio.run(policy.check(tool("write_file"), {"path": "a"})).allowed
    policy.mode = "plan"
    assert policy.mode is PermissionMode.PLAN
    assert not asyncio.run(policy.check(tool("write_file"), {"path": "a"})).allowed
