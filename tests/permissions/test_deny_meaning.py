"""Issue 13, failure 4: deny rules match what a command means, not how it is spelled."""

from __future__ import annotations

import asyncio

import pytest

from pseudoclaude.tools.permissions import Decision, PermissionMode, PermissionPolicy, Rules

from .fakes import HOME, WORKSPACE, tool


def decide(command: str, *, deny: list[str], allow: list[str] = [], mode: PermissionMode = PermissionMode.BYPASS) -> Decision:
    rules = Rules.from_settings({"permissions": {"allow": allow, "deny": deny}})
    policy = PermissionPolicy(mode=mode, workspace=WORKSPACE, home=HOME, rules=rules)
    return asyncio.run(policy.check(tool("run_command"), {"command": command}))


def denied(command: str, rule: str) -> bool:
    decision = decide(command, deny=[f"run_command({rule})"])
    return not decision.allowed and decision.source == "rule"


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf v1",
        "rm -fr v1",
        "rm --recursive --force v1",
        "rm -r -f v1",
        "rm -Rf v1",
        "rm -rf ./v1",
        "rm -rf v1/",
        "rm -rf -- v1",
        "rm -f -r v1",
        "rm --force --recursive ./v1/",
        "rm -rfv v1",
        "rm -r v1",
        "rm -rf v1 other",
        "rm -rf other v1",
        "rm -rf /home/u/proj/v1",
        "cd sub && rm -rf ../v1",
        "rm -rf sub/../v1",
        "X=v1; rm -rf $X",
        "rm -rf {v1,v2}",
        "sudo rm -Rf v1",
        "bash -c 'rm -fr v1'",
        "echo v1 | xargs rm -rf",
        "/bin/rm -rf v1",
    ],
)
def test_a_deny_on_rm_rf_catches_every_spelling(command: str) -> None:
    assert denied(command, "rm -rf v1"), command


@pytest.mark.parametrize("command", ["rm -rf v2", "rm -rf v1x", "rm v1", "ls v1", "rm -rf sub/v1"])
def test_a_deny_on_rm_rf_leaves_other_commands(command: str) -> None:
    assert decide(command, deny=["run_command(rm -rf v1)"]).allowed, command


@pytest.mark.parametrize(
    "command",
    [
        "git push",
        "git -C . push",
        "git push --force origin",
        "git --no-pager push origin main",
        "git -c push.default=current push",
        "git -C sub push -f",
        "git --git-dir=.git push",
        "git -c alias.p=push p",
        "cd sub && git push",
    ],
)
def test_the_readme_git_push_example_holds_for_reordered_flags(command: str) -> None:
    assert denied(command, "git push:*"), command


@pytest.mark.parametrize(
    "command", ["git push -f origin", "git push origin +main", "git push --force origin main", "git -C . push -uf origin", "git push origin main --force"]
)
def test_a_deny_on_force_push_catches_short_long_and_plus_refspec(command: str) -> None:
    assert denied(command, "git push --force:*"), command


@pytest.mark.parametrize("command", ["git push origin main", "git pushx", "git status", "git push --force-with-lease origin"])
def test_a_deny_on_force_push_leaves_plain_pushes(command: str) -> None:
    assert not denied(command, "git push --force:*"), command


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("chmod -R 777 v1", "chmod --recursive 777 ./v1"),
        ("chown -R root v1", "chown -vR root v1/"),
        ("git reset --hard:*", "git -C . reset -q --hard HEAD~1"),
        ("git clean -fd:*", "git clean -d -f -x"),
        ("git branch -D:*", "git branch --delete --force old"),
        ("cp -r src dst", "cp -R ./src dst/"),
        ("mv v1 v2", "mv -v ./v1 v2/"),
    ],
)
def test_other_known_commands_normalize_too(rule: str, command: str) -> None:
    assert denied(command, rule), (rule, command)


def test_order_matters_where_it_changes_meaning() -> None:
    assert not denied("mv v2 v1", "mv v1 v2")


@pytest.mark.parametrize(
    ("allow", "command"), [("rm -rf build", "rm -fr build"), ("git push origin main", "git push --force origin main"), ("rm -rf build:*", "rm -rf ./build")]
)
def test_allow_rules_stay_literal(allow: str, command: str) -> None:
    decision = decide(command, deny=[], allow=[f"run_command({allow})"], mode=PermissionMode.DEFAULT)
    assert not decision.allowed and decision.source == "headless"


@pytest.mark.parametrize(
    "command",
    [
        "command curl x",
        "\\curl x",
        '"cu"rl x',
        "c=curl; $c x",
        "exec curl x",
        "time curl x",
        "watch curl x",
        "watch -n 5 'curl x'",
        "flock /tmp/l curl x",
        "chroot / curl x",
        "strace -f -o log curl x",
        "timeout -s 9 5 curl x",
        "sudo -u root curl x",
        "xargs -I{} curl {}",
    ],
)
def test_wrappers_do_not_hide_a_denied_command(command: str) -> None:
    assert denied(command, "curl:*"), command
