"""Issue 13, failure 5: the agent cannot raise its own permissions by writing where code or rules come from."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.tools.permissions import ApprovalAnswer, Decision, PermissionMode, PermissionPolicy, Rules

from .fakes import HOME, WORKSPACE, ScriptedApprover, tool


def policy(mode: PermissionMode, approver: ScriptedApprover | None = None, allow: list[str] = [], **kwargs: Any) -> PermissionPolicy:
    rules = Rules.from_settings({"permissions": {"allow": allow}})
    return PermissionPolicy(mode=mode, workspace=kwargs.pop("workspace", WORKSPACE), home=HOME, approver=approver, rules=rules, **kwargs)


def write(p: PermissionPolicy, path: str, name: str = "write_file") -> Decision:
    args = {"path": path, "content": "x"} if name == "write_file" else {"path": path, "old": "a", "new": "b"}
    return asyncio.run(p.check(tool(name), args))


PROTECTED = [
    ".git/hooks/pre-commit",
    ".git/config",
    ".git",
    ".GIT/config",
    "vendor/sub/.git/hooks/post-checkout",
    "src/../.git/info/attributes",
    "/home/u/proj/.git/HEAD",
    ".pseudoclaude/settings.json",
    ".pseudoclaude/settings.local.json",
    ".pseudoclaude/hooks/start.sh",
    "sub/.pseudoclaude/settings.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".mcp.json",
    ".env",
    "/home/u/.bashrc",
    "/home/u/.zshrc",
    "/home/u/.profile",
    "/home/u/.bash_profile",
    "/home/u/.zshenv",
    "/home/u/.gitconfig",
    "/home/u/.config/git/config",
    "/home/u/.ssh/authorized_keys",
    "/home/u/.pseudoclaude/settings.json",
    "~/.bashrc",
]


@pytest.mark.parametrize("path", PROTECTED)
@pytest.mark.parametrize("name", ["write_file", "edit_file"])
def test_accept_edits_asks_for_protected_paths(path: str, name: str) -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny")])
    decision = write(policy(PermissionMode.ACCEPT_EDITS, approver), path, name)
    assert not decision.allowed and len(approver.requests) == 1, path
    assert "protected" in approver.requests[0].summary and approver.requests[0].suggested_rule is None


@pytest.mark.parametrize("path", PROTECTED[:8])
def test_headless_accept_edits_refuses_protected_paths_and_says_why(path: str) -> None:
    decision = write(policy(PermissionMode.ACCEPT_EDITS), path)
    assert not decision.allowed and decision.source == "headless"
    assert "protected path" in decision.reason and "bypass" in decision.reason


@pytest.mark.parametrize("path", PROTECTED[:8])
def test_a_user_chosen_bypass_writes_them(path: str) -> None:
    assert write(policy(PermissionMode.BYPASS), path).allowed


@pytest.mark.parametrize("allow", ["write_file", "write_file(**)", "write_file(.git/**)", "Write"])
def test_no_allow_rule_covers_a_protected_path(allow: str) -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny")])
    assert not write(policy(PermissionMode.DEFAULT, approver, [allow]), ".git/hooks/pre-commit").allowed
    assert len(approver.requests) == 1


def test_always_on_a_protected_path_saves_no_rule() -> None:
    approver = ScriptedApprover([ApprovalAnswer("always"), ApprovalAnswer("deny")])
    p = policy(PermissionMode.ACCEPT_EDITS, approver)
    assert write(p, ".git/hooks/pre-commit").allowed
    assert p.session_rules == ()
    assert not write(p, ".git/hooks/post-commit").allowed and len(approver.requests) == 2


@pytest.mark.parametrize(
    "path",
    ["src/a.py", ".github/workflows/ci.yml", ".gitignore", ".gitattributes", "docs/git/config", ".claude/agents/x.md", "/home/u/proj/bashrc", "env.example"],
)
def test_ordinary_paths_still_run_in_accept_edits(path: str) -> None:
    assert write(policy(PermissionMode.ACCEPT_EDITS), path) == Decision(True, "", "mode"), path


def test_a_custom_config_dir_is_protected() -> None:
    p = policy(PermissionMode.ACCEPT_EDITS, config_dir=Path("/opt/pc-home"))
    assert not write(p, "/opt/pc-home/settings.json").allowed


def test_a_symlink_into_git_is_followed(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "innocent").symlink_to(tmp_path / ".git" / "hooks")
    assert not write(policy(PermissionMode.ACCEPT_EDITS, workspace=tmp_path), "innocent/pre-commit").allowed


def run(p: PermissionPolicy, command: str) -> Decision:
    return asyncio.run(p.check(tool("run_command"), {"command": command}))


BROAD = [
    "run_command(cp:*)",
    "run_command(tee:*)",
    "run_command(echo:*)",
    "run_command(git config:*)",
    "run_command(touch:*)",
    "run_command(sed:*)",
    "run_command(ln:*)",
    "run_command(mv:*)",
]


@pytest.mark.parametrize(
    "command",
    [
        "cp evil .git/hooks/pre-commit",
        "cp evil vendor/sub/.git/hooks/x",
        "cd .git && cp ../evil hooks/pre-commit",
        "git config core.fsmonitor ./evil",
        "git -C vendor/sub config alias.st '!sh evil'",
        "git config --global core.pager ./evil",
        "tee .pseudoclaude/settings.local.json",
        "cp x ~/.bashrc",
        "cp x $HOME/.zshrc",
        "touch .claude/settings.local.json",
        "sed -i s/a/b/ .git/config",
        "ln -sf evil .git/hooks/pre-push",
        "mv evil .mcp.json",
    ],
)
def test_broad_command_rules_do_not_cover_protected_targets(command: str) -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny")])
    decision = run(policy(PermissionMode.DEFAULT, approver, BROAD), command)
    assert not decision.allowed and len(approver.requests) == 1, command
    assert approver.requests[0].suggested_rule is None


def test_a_whole_tool_command_rule_does_not_cover_them_either() -> None:
    decision = run(policy(PermissionMode.DEFAULT, allow=["run_command"]), "echo x > .git/hooks/pre-commit")
    assert not decision.allowed and "protected path" in decision.reason


@pytest.mark.parametrize("command", ["cp a b", "git config --get user.name", "echo hi", "touch notes.txt"])
def test_broad_rules_still_cover_ordinary_targets(command: str) -> None:
    assert run(policy(PermissionMode.DEFAULT, allow=BROAD), command).allowed, command


def test_bypass_runs_commands_writing_protected_paths() -> None:
    assert run(policy(PermissionMode.BYPASS), "cp evil .git/hooks/pre-commit").allowed


def test_a_command_through_a_symlink_or_a_cwd_into_git_asks(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "innocent").symlink_to(tmp_path / ".git" / "hooks")
    p = policy(PermissionMode.DEFAULT, allow=BROAD, workspace=tmp_path)
    assert not run(p, "cp evil innocent/pre-commit").allowed
    assert not asyncio.run(p.check(tool("run_command"), {"command": "cp ../../evil pre-commit", "cwd": ".git/hooks"})).allowed
    assert run(p, "cp evil ordinary").allowed
