from __future__ import annotations

import asyncio
from typing import Any, Mapping

import pytest

from pseudoclaude.tools.base import Tool
from pseudoclaude.tools.permissions import (
    ApprovalAnswer,
    Decision,
    PermissionMode,
    PermissionPolicy,
    Rule,
    Rules,
    next_mode,
)

from .fakes import HOME, WORKSPACE, ScriptedApprover, declared, tool


def policy(mode: PermissionMode, **kwargs: Any) -> PermissionPolicy:
    return PermissionPolicy(mode=mode, workspace=WORKSPACE, home=HOME, **kwargs)


def check(p: PermissionPolicy, tool_: Tool, args: Mapping[str, Any]) -> Decision:
    return asyncio.run(p.check(tool_, args))


EDIT = {"path": "src/a.py", "old": "a", "new": "b"}


def test_default_mode_runs_read_only_tools_without_asking() -> None:
    approver = ScriptedApprover([])
    decision = check(policy(PermissionMode.DEFAULT, approver=approver), tool("grep"), {"pattern": "x"})
    assert decision.allowed and approver.requests == []


@pytest.mark.parametrize(("name", "args"), [("edit_file", EDIT), ("run_command", {"command": "make"})])
def test_default_mode_asks_for_edits_and_commands(name: str, args: dict[str, Any]) -> None:
    approver = ScriptedApprover([ApprovalAnswer("once")])
    decision = check(policy(PermissionMode.DEFAULT, approver=approver), tool(name), args)
    assert decision == Decision(True, "approved once by the user", "approval")
    assert [r.tool for r in approver.requests] == [name]


def test_a_tool_declaring_a_write_asks_in_default_mode() -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny")])
    decision = check(policy(PermissionMode.DEFAULT, approver=approver), declared("web_fetch", "write"), {})
    assert not decision.allowed and len(approver.requests) == 1


def test_accept_edits_runs_edits_but_asks_for_commands() -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny", "not now")])
    p = policy(PermissionMode.ACCEPT_EDITS, approver=approver)
    assert check(p, tool("write_file"), {"path": "a.py", "content": ""}) == Decision(True, "", "mode")
    decision = check(p, tool("run_command"), {"command": "make"})
    assert not decision.allowed and [r.tool for r in approver.requests] == ["run_command"]


def test_bypass_runs_everything_but_the_hard_deny_list() -> None:
    p = policy(PermissionMode.BYPASS)
    assert check(p, tool("run_command"), {"command": "make install"}).allowed
    refused = check(p, tool("run_command"), {"command": "make && sudo rm -rf /"})
    assert not refused.allowed and refused.source == "hard-deny"


def test_deny_rules_apply_in_bypass() -> None:
    p = policy(PermissionMode.BYPASS, rules=Rules(deny=(Rule.parse("run_command(git push:*)"),)))
    decision = check(p, tool("run_command"), {"command": "git add . && git push --force"})
    assert not decision.allowed and decision.source == "rule"
    assert "git push:*" in decision.reason


@pytest.mark.parametrize(("name", "flag"), [("run_command", "--permission-mode bypass"), ("edit_file", "--permission-mode accept-edits")])
def test_headless_denial_explains_the_flags(name: str, flag: str) -> None:
    args = {"command": "npm test"} if name == "run_command" else EDIT
    decision = check(policy(PermissionMode.DEFAULT), tool(name), args)
    assert not decision.allowed and decision.source == "headless"
    assert flag in decision.reason and "--allowed-tools" in decision.reason


def test_headless_denial_suggests_the_prefix_rule() -> None:
    decision = check(policy(PermissionMode.DEFAULT), tool("run_command"), {"command": "npm test"})
    assert "--allowed-tools 'run_command(npm test:*)'" in decision.reason


def test_allowed_tools_act_as_allow_rules() -> None:
    p = policy(PermissionMode.DEFAULT, allowed_tools=["run_command(npm test:*)", "Edit"])
    assert check(p, tool("run_command"), {"command": "npm test -- -x"}).source == "rule"
    assert check(p, tool("edit_file"), EDIT).allowed
    assert not check(p, tool("run_command"), {"command": "npm testing"}).allowed


def test_approval_request_describes_the_call_and_suggests_a_rule() -> None:
    approver = ScriptedApprover([ApprovalAnswer("once"), ApprovalAnswer("once")])
    p = policy(PermissionMode.DEFAULT, approver=approver)
    check(p, tool("run_command"), {"command": "  pytest -q  "})
    check(p, tool("edit_file"), EDIT)
    first, second = approver.requests
    assert (first.summary, first.suggested_rule) == ("  pytest -q  ", Rule("run_command", "pytest:*"))
    assert (second.summary, second.suggested_rule) == ("edit_file src/a.py", Rule("edit_file", "src/**"))


def test_once_does_not_remember() -> None:
    approver = ScriptedApprover([ApprovalAnswer("once"), ApprovalAnswer("deny")])
    p = policy(PermissionMode.DEFAULT, approver=approver)
    assert check(p, tool("run_command"), {"command": "make"}).allowed
    assert not check(p, tool("run_command"), {"command": "make"}).allowed
    assert p.session_rules == ()


def test_always_saves_the_commands_prefix_for_the_session_and_hands_it_to_the_sink() -> None:
    saved: list[Rule] = []
    approver = ScriptedApprover([ApprovalAnswer("always")])
    p = policy(PermissionMode.DEFAULT, approver=approver, rule_sink=saved.append)
    assert check(p, tool("run_command"), {"command": "make test"}).allowed
    assert check(p, tool("run_command"), {"command": "make test -j4"}).source == "rule"
    assert saved == [Rule("run_command", "make test:*")] and p.session_rules == tuple(saved)
    assert len(approver.requests) == 1


def test_always_for_a_command_does_not_cover_a_longer_one() -> None:
    approver = ScriptedApprover([ApprovalAnswer("always"), ApprovalAnswer("deny")])
    p = policy(PermissionMode.DEFAULT, approver=approver)
    check(p, tool("run_command"), {"command": "make test"})
    assert not check(p, tool("run_command"), {"command": "make test && curl x | sh"}).allowed


def test_always_for_a_compound_command_allows_exactly_that_line() -> None:
    approver = ScriptedApprover([ApprovalAnswer("always"), ApprovalAnswer("deny")])
    p = policy(PermissionMode.DEFAULT, approver=approver)
    check(p, tool("run_command"), {"command": "make && make test"})
    assert check(p, tool("run_command"), {"command": "make && make test"}).source == "rule"
    assert not check(p, tool("run_command"), {"command": "make\nmake test"}).allowed


def test_always_for_an_edit_allows_edits_in_that_folder_only() -> None:
    approver = ScriptedApprover([ApprovalAnswer("always"), ApprovalAnswer("deny")])
    p = policy(PermissionMode.DEFAULT, approver=approver)
    check(p, tool("edit_file"), EDIT)
    assert check(p, tool("edit_file"), {"path": "src/deep/b.py"}).source == "rule"
    assert not check(p, tool("edit_file"), {"path": "other.py"}).allowed
    assert p.session_rules == (Rule("edit_file", "src/**"),)


def test_always_for_an_edit_at_the_root_allows_that_file_only() -> None:
    approver = ScriptedApprover([ApprovalAnswer("always"), ApprovalAnswer("deny")])
    p = policy(PermissionMode.DEFAULT, approver=approver)
    check(p, tool("edit_file"), {"path": "README.md"})
    assert check(p, tool("edit_file"), {"path": "README.md"}).source == "rule"
    assert not check(p, tool("edit_file"), {"path": "docs/README.md"}).allowed
    assert p.session_rules == (Rule("edit_file", "/README.md"),)


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("npm test -- -x", "npm test:*"),
        ("cargo build --release", "cargo build:*"),
        ("pytest tests/test_a.py", "pytest:*"),
        ("python script.py", "python script.py"),
        ("bash -c 'make'", "bash -c 'make'"),
        ("make && make test", "make && make test"),
        ("make > out.txt", "make > out.txt"),
    ],
)
def test_always_on_a_command_offers_its_prefix_unless_the_program_runs_anything(command: str, rule: str) -> None:
    approver = ScriptedApprover([ApprovalAnswer("once")])
    check(policy(PermissionMode.DEFAULT, approver=approver), tool("run_command"), {"command": command})
    assert approver.requests[0].suggested_rule == Rule("run_command", rule)


def test_always_never_covers_a_protected_path() -> None:
    approver = ScriptedApprover([ApprovalAnswer("always"), ApprovalAnswer("deny")])
    p = policy(PermissionMode.DEFAULT, approver=approver)
    check(p, tool("edit_file"), {"path": ".git/config"})
    assert p.session_rules == () and approver.requests[0].suggested_rule is None
    assert not check(p, tool("edit_file"), {"path": ".git/config"}).allowed


def test_deny_carries_the_users_reason_back() -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny", "use the Makefile target instead")])
    decision = check(policy(PermissionMode.DEFAULT, approver=approver), tool("run_command"), {"command": "gcc x.c"})
    assert decision == Decision(False, "The user denied this call: use the Makefile target instead", "approval")


def test_hard_denied_command_never_reaches_the_approver() -> None:
    approver = ScriptedApprover([])
    decision = check(policy(PermissionMode.DEFAULT, approver=approver), tool("run_command"), {"command": "eval 'rm -rf ~'"})
    assert decision.source == "hard-deny" and approver.requests == []


def test_missing_command_argument_is_refused() -> None:
    decision = check(policy(PermissionMode.BYPASS), tool("run_command"), {"cmd": "ls"})
    assert not decision.allowed and "`command`" in decision.reason


def test_cwd_argument_changes_what_dot_means() -> None:
    p = policy(PermissionMode.BYPASS)
    assert check(p, tool("run_command"), {"command": "rm -rf .", "cwd": "build"}).allowed
    assert not check(p, tool("run_command"), {"command": "rm -rf .", "cwd": "."}).allowed


def test_modes_cycle_without_bypass_unless_enabled() -> None:
    assert next_mode(PermissionMode.DEFAULT) is PermissionMode.ACCEPT_EDITS
    assert next_mode(PermissionMode.PLAN) is PermissionMode.DEFAULT
    assert next_mode(PermissionMode.PLAN, include_bypass=True) is PermissionMode.BYPASS


def test_whole_tool_allow_rule_does_not_lift_the_hard_deny_list() -> None:
    p = policy(PermissionMode.DEFAULT, allowed_tools=["run_command"])
    assert check(p, tool("run_command"), {"command": "ls"}).source == "rule"
    assert check(p, tool("run_command"), {"command": "ls; mkfs.ext4 /dev/sda1"}).source == "hard-deny"
