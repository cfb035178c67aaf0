"""Read-only command lines run without asking in default mode; their look-alikes still ask."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pseudoclaude.tools.permissions import ApprovalAnswer, Decision, PermissionMode, PermissionPolicy

from .fakes import HOME, WORKSPACE, ScriptedApprover, tool


def decide(command: str, approver: ScriptedApprover | None = None, mode: PermissionMode = PermissionMode.DEFAULT) -> Decision:
    policy = PermissionPolicy(mode=mode, workspace=WORKSPACE, home=HOME, approver=approver)
    return asyncio.run(policy.check(tool("run_command"), {"command": command}))


READ_ONLY = [
    "ls",
    "ls -la src",
    "cat README.md",
    "head -n 5 a.py",
    "tail -n 3 a.py",
    "wc -l a b",
    "grep -rn foo src",
    "rg -n 'def main' pseudoclaude",
    "find . -name '*.py' -type f",
    "git status",
    "git status --porcelain",
    "git diff HEAD~1 -- src",
    "git log --oneline -5",
    "git show HEAD:README.md",
    "git branch",
    "git branch -a -v",
    "git branch --list 'feat*'",
    "git -C sub status",
    "git --no-pager log -1",
    "pwd",
    "echo hi",
    "printf '%s\\n' a b",
    "cat a | grep x | wc -l",
    "ls && git status",
    "cd src && ls",
    "grep x a 2>/dev/null",
    "ls 2>&1 | head",
    "wc -l < notes.txt",
    "cat <<EOF\nplain text\nEOF",
    "sort a | uniq -c",
    "stat a.py; file a.py",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only_lines_run_headless_in_default_mode(command: str) -> None:
    decision = decide(command)
    assert decision == Decision(True, "", "read-only"), command


def test_read_only_lines_do_not_ask_in_the_repl() -> None:
    approver = ScriptedApprover([])
    assert decide("git log --oneline | head -3", approver).allowed and approver.requests == []


LOOK_ALIKES = [
    "ls > f",
    "echo hi >> notes.txt",
    "cat notes 2> err.txt",
    "cat x | sh",
    "cat a | tee b",
    "find src -delete",
    "find . -exec cat {} +",
    "find . -fprint out",
    "git log --output=x",
    "git diff --output x",
    "git log --out=x",
    "git grep -O vim foo",
    "echo $(rm x)",
    "echo `rm x`",
    "ls $(pwd)",
    "ls <(rm x)",
    "echo ${X:-$(touch C)}",
    "cat <<EOF\n$(touch C)\nEOF",
    "./ls",
    "bin/cat a",
    "PATH=. ls",
    "GIT_EXTERNAL_DIFF=./x git diff",
    "git branch newb",
    "git branch -D old",
    "git branch -m a b",
    "git -c core.pager=./x log",
    "git push",
    "git checkout main",
    "rg --pre ./x foo",
    "fd -x rm",
    "sort -o out in",
    "sort --compress-program=./x a",
    "tree -o out",
    "date -s now",
    "hostname evil",
    "uniq in out",
    "ls; rm x",
    "ls && make",
    "xargs cat",
    "ls() { rm -rf x; }; ls",
    "sed -n 1p a",
    "awk '{print}' a",
    "env",
]


@pytest.mark.parametrize("command", LOOK_ALIKES)
def test_look_alikes_still_ask(command: str) -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny")])
    decision = decide(command, approver)
    assert not decision.allowed, command
    assert decision.source in ("approval", "hard-deny"), command


def test_headless_default_denies_the_look_alikes() -> None:
    decision = decide("ls > f")
    assert not decision.allowed and decision.source == "headless"


def test_plan_mode_is_unchanged() -> None:
    assert decide("ls", mode=PermissionMode.PLAN).source == "plan"


@pytest.mark.parametrize(
    "command",
    [
        "cat ~/.ssh/id_rsa",
        "ls /",
        "cd .. && ls",
        "git -C /etc status",
        "grep -f /etc/passwd x",
        "grep --file=/etc/passwd x",
        "cat $HOME/x",
        "head ../other/secret",
        "find / -name id_rsa",
    ],
)
def test_reading_outside_the_workspace_asks_as_read_file_would_refuse(command: str) -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny")])
    assert not decide(command, approver).allowed and len(approver.requests) == 1, command


@pytest.mark.parametrize("command", ["echo /etc/passwd", "cat ../proj/a.py", "cat src/../a.py", "basename /x/y"])
def test_words_that_stay_inside_or_are_not_paths_run(command: str) -> None:
    assert decide(command).allowed, command


def test_a_symlink_out_of_the_workspace_asks(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "secret").write_text("s")
    (workspace / "link").symlink_to(tmp_path / "secret")
    (workspace / "plain").write_text("p")
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=workspace, home=HOME)
    assert asyncio.run(policy.check(tool("run_command"), {"command": "cat plain"})).allowed
    assert not asyncio.run(policy.check(tool("run_command"), {"command": "cat link"})).allowed


def git_workspace(tmp_path: Path, config: str) -> Path:
    workspace = tmp_path / "repo"
    (workspace / ".git").mkdir(parents=True)
    (workspace / ".git" / "config").write_text(config)
    (workspace / "sub").mkdir()
    return workspace


PLAIN_CONFIG = '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = https://example.com/x.git\n'


@pytest.mark.parametrize(
    "config",
    [
        "[core]\n\tfsmonitor = ./evil\n",
        '[diff "x"]\n\ttextconv = ./evil\n',
        "[include]\n\tpath = ../evil.cfg\n",
        '[filter "x"]\n\tclean = ./evil\n',
        "[alias]\n\tst = !./evil\n",
    ],
)
def test_git_reads_ask_when_the_repository_config_can_run_code(tmp_path: Path, config: str) -> None:
    workspace = git_workspace(tmp_path, config)
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=workspace, home=HOME)
    for command in ("git status", "cd sub && git diff", "git -C sub log -1"):
        assert not asyncio.run(policy.check(tool("run_command"), {"command": command})).allowed, command


def test_git_reads_run_in_a_plain_repository_and_a_worktree(tmp_path: Path) -> None:
    workspace = git_workspace(tmp_path, PLAIN_CONFIG)
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=workspace, home=HOME)
    assert asyncio.run(policy.check(tool("run_command"), {"command": "git status"})).allowed
    worktree = tmp_path / "wt"
    gitdir = workspace / ".git" / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n")
    (worktree).mkdir()
    (worktree / ".git").write_text(f"gitdir: {gitdir}\n")
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=worktree, home=HOME)
    assert asyncio.run(policy.check(tool("run_command"), {"command": "git log -1"})).allowed
    (workspace / ".git" / "config").write_text("[core]\n\tfsmonitor = ./evil\n")
    assert not asyncio.run(policy.check(tool("run_command"), {"command": "git log -1"})).allowed


@pytest.mark.parametrize(
    "command",
    [
        "grep -f/etc/passwd x",
        "cat ~root/.ssh/id_rsa",
        "cat .*/secret",
        "cat < /etc/passwd",
        "wc -l < ../secret",
        "date -f /etc/shadow",
        "jq -n env",
        "cat {a,../../etc/passwd}",
        "ls ../*/x",
    ],
)
def test_sneaky_paths_out_of_the_workspace_ask(command: str) -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny")])
    assert not decide(command, approver).allowed and len(approver.requests) == 1, command
