from __future__ import annotations

import asyncio
from typing import Any, Mapping

import pytest

from pseudoclaude.tools.base import Tool
from pseudoclaude.tools.permissions import (
    Decision,
    PermissionMode,
    PermissionPolicy,
    Rules,
)

from .fakes import HOME, WORKSPACE, DeclaredTool, ScriptedApprover, tool


def check(tool_: Tool, args: Mapping[str, Any], **kwargs: Any) -> Decision:
    policy = PermissionPolicy(mode=PermissionMode.PLAN, workspace=WORKSPACE, home=HOME, **kwargs)
    return asyncio.run(policy.check(tool_, args))


@pytest.mark.parametrize("name", ["read_file", "glob", "grep", "list_dir", "todo_write"])
def test_listed_read_only_tool_runs(name: str) -> None:
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


def test_tool_claiming_read_only_but_not_on_the_list_is_refused() -> None:
    decision = check(DeclaredTool("web_fetch", read_only=True), {"url": "http://127.0.0.1"})
    assert not decision.allowed
    assert "not on plan mode's read-only list" in decision.reason


def test_listed_name_whose_tool_says_it_writes_is_refused() -> None:
    decision = check(DeclaredTool("read_file", read_only=False), {"path": "a.py"})
    assert not decision.allowed
    assert "does not declare itself read-only" in decision.reason


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


def test_switching_the_mode_takes_effect_on_the_next_check() -> None:
    policy = PermissionPolicy(mode=PermissionMode.BYPASS, workspace=WORKSPACE, home=HOME)
    assert asyncio.run(policy.check(tool("write_file"), {"path": "a"})).allowed
    policy.mode = "plan"
    assert policy.mode is PermissionMode.PLAN
    assert not asyncio.run(policy.check(tool("write_file"), {"path": "a"})).allowed
