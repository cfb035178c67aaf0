"""Cases that kill hand-made mutants of protected.py, hidden.py, policy.py and rules.py.

Each test pins one check whose removal or weakening the rest of the suite did not notice
(issue 13 review); the comment on a case names the check.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.sandbox import SandboxConfig
from pseudoclaude.tools.permissions import ApprovalAnswer, Decision, PermissionMode, PermissionPolicy, Rules

from .fakes import HOME, WORKSPACE, ScriptedApprover, declared, tool


def policy(mode: PermissionMode = PermissionMode.DEFAULT, allow: tuple[str, ...] = (), approver: ScriptedApprover | None = None) -> PermissionPolicy:
    rules = Rules.from_settings({"permissions": {"allow": list(allow)}})
    return PermissionPolicy(mode=mode, workspace=WORKSPACE, home=HOME, rules=rules, approver=approver)


def check(p: PermissionPolicy, name: str, args: dict[str, Any]) -> Decision:
    return asyncio.run(p.check(tool(name), args))


def run(p: PermissionPolicy, command: str) -> Decision:
    return check(p, "run_command", {"command": command})


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("cp --target-directory=.git/hooks x", "Bash(cp:*)"),  # --opt=value operands
        ("dd if=x of=.git/config", "Bash(dd:*)"),  # dd of=
        ("git init --template=t", "Bash(git init:*)"),  # --template fills .git/hooks
        ("git -c a=b config core.fsmonitor x", "Bash(git:*)"),  # -c takes a value before the subcommand
        ("truncate -s0 .git/config", "Bash(truncate:*)"),
        ("patch .git/config p.diff", "Bash(patch:*)"),
        ("echo x >| .git/config", "Bash(echo:*)"),  # >| and <> write
        ("echo x 1<> .git/config", "Bash(echo:*)"),
    ],
)
def test_protected_writes_seen_in_every_form(command: str, rule: str) -> None:
    decision = run(policy(allow=(rule,)), command)
    assert not decision.allowed and "protected path" in decision.reason, command


def test_git_config_global_names_the_users_gitconfig() -> None:
    decision = run(policy(allow=("Bash(git:*)",)), "git config --global core.pager less")
    assert "/home/u/.gitconfig" in decision.reason


@pytest.mark.parametrize("path", [".env.example", "/home/u/proj/.pseudoclaude-notes.md", "src/.mcp.json.md"])
def test_look_alikes_of_protected_names_are_ordinary_files(path: str) -> None:
    """`.env` and the settings files count by their exact path and name."""
    assert check(policy(PermissionMode.ACCEPT_EDITS), "write_file", {"path": path, "content": "x"}) == Decision(True, "", "mode")


def test_start_up_names_compare_case_insensitively() -> None:
    approver = ScriptedApprover([ApprovalAnswer("deny")])
    check(policy(PermissionMode.ACCEPT_EDITS, approver=approver), "write_file", {"path": "/home/u/.ZSHRC", "content": "x"})
    assert approver.requests and "protected" in approver.requests[0].summary


def test_always_on_a_protected_write_saves_nothing() -> None:
    approver = ScriptedApprover([ApprovalAnswer("always"), ApprovalAnswer("deny")])
    p = policy(approver=approver)
    first = check(p, "write_file", {"path": ".git/config", "content": "x"})
    assert first.allowed and first.saved_rule is None and p.session_rules == ()
    assert not check(p, "write_file", {"path": ".git/config", "content": "y"}).allowed and len(approver.requests) == 2


def test_plan_mode_passes_network_tools_to_the_approver() -> None:
    approver = ScriptedApprover([ApprovalAnswer("once")])
    decision = check(policy(PermissionMode.PLAN, approver=approver), "web_fetch", {"url": "https://docs.python.org/3/"})
    assert decision.allowed and len(approver.requests) == 1


@pytest.mark.parametrize(("url", "allowed"), [("https://python.org/x", True), ("https://docs.python.org/x", False), ("https://evilpython.org/x", False)])
def test_a_domain_rule_matches_that_host_only(url: str, allowed: bool) -> None:
    assert check(policy(allow=("web_fetch(domain:python.org)",)), "web_fetch", {"url": url}).allowed is allowed


@pytest.mark.parametrize(("url", "allowed"), [("https://a.python.org/x", True), ("https://python.org/x", True), ("https://evilpython.org/x", False)])
def test_a_wildcard_domain_rule_matches_subdomains_not_suffixes(url: str, allowed: bool) -> None:
    assert check(policy(allow=("web_fetch(domain:*.python.org)",)), "web_fetch", {"url": url}).allowed is allowed


@pytest.mark.parametrize(("name", "allowed"), [("mcp__srv__tool", True), ("mcp__srv2__tool", False), ("mcp__srvx", False)])
def test_a_server_rule_covers_that_server_only(name: str, allowed: bool) -> None:
    p = policy(allow=("mcp__srv",))
    assert asyncio.run(p.check(declared(name, "write"), {})).allowed is allowed


@pytest.mark.parametrize(
    ("command", "rule", "why"),
    [
        ("echo `date`", "Bash(echo:*)", "backtick"),
        ("cat <(date)", "Bash(cat:*)", "process substitution"),
        ("[[ PATH -eq 1 ]] && echo hi", "Bash(echo:*)", "arithmetic"),  # [[ -eq ]] evaluates names
        ("export 'X=$(touch y)'", "Bash(export:*)", "assignment"),  # export's arguments are assignments
        ("x='`touch y`'; echo hi", "Bash(echo:*)", "assignment"),  # backticks stored for later
    ],
)
def test_hidden_code_named_in_the_refusal(command: str, rule: str, why: str) -> None:
    decision = run(policy(allow=(rule,)), command)
    assert not decision.allowed and why in decision.reason, command


@pytest.mark.parametrize("command", ['echo "\\$(date)"', "echo $'a\\'b $(c)'"])
def test_escaped_and_quoted_dollar_parens_are_text(command: str) -> None:
    """A backslash, an ANSI-C string (where \\' does not close it) and a backslash-quoted heredoc delimiter keep `$(` literal."""
    assert run(policy(), command) == Decision(True, "", "read-only"), command


@pytest.mark.parametrize("command", ["r[m] -rf x", "t='/bin/r?'; $t x"])
def test_names_that_are_patterns_ask_without_a_sandbox_and_run_confined_with_one(command: str) -> None:
    """A glob for a command name is computed when the line runs: no prefix rule vouches for it. Bypass used to
    refuse it; the sandbox now confines whatever it turns out to be, so it runs there without a question."""
    assert run(policy(allow=("Bash(r:*)", "Bash(t:*)")), command).source == "headless", command
    sandboxed = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=WORKSPACE, home=HOME, sandbox=SandboxConfig())
    assert run(sandboxed, command) == Decision(True, "", "sandbox"), command


def test_bypass_runs_a_name_the_line_spells_out() -> None:
    assert run(policy(PermissionMode.BYPASS), "t=touch; $t x").allowed


def test_start_up_names_outside_the_home_are_ordinary_files() -> None:
    p = PermissionPolicy(mode=PermissionMode.ACCEPT_EDITS, workspace=Path("/srv/dotfiles"), home=HOME)
    assert asyncio.run(p.check(tool("write_file"), {"path": "bash/.bashrc", "content": "x"})) == Decision(True, "", "mode")


def test_always_on_a_protected_write_counts_as_once() -> None:
    approver = ScriptedApprover([ApprovalAnswer("always")])
    assert check(policy(approver=approver), "write_file", {"path": ".git/config", "content": "x"}) == Decision(True, "approved once by the user", "approval")


def test_a_path_rule_matches_when_the_workspace_is_opened_through_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "src").mkdir(parents=True)
    link = tmp_path / "ws"
    link.symlink_to(real)
    rules = Rules.from_settings({"permissions": {"allow": ["edit_file(src/**)"]}})
    p = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=link, home=HOME, rules=rules)
    assert asyncio.run(p.check(tool("edit_file"), {"path": "src/a.py", "old_string": "a", "new_string": "b"})).source == "rule"
