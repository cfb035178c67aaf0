"""A repository written by an attacker, and a model it talks into hostile calls: what still asks.

Each case here was a hole found by reading the merged permission code as an attacker
(issue 13 review); the commands are real git behaviour, checked against git itself
where git is installed.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from pseudoclaude.tools.permissions import Decision, PermissionMode, PermissionPolicy

from .fakes import tool

HOME = Path("/home/u")


def decide(workspace: Path, command: str) -> Decision:
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=workspace, home=HOME)
    return asyncio.run(policy.check(tool("run_command"), {"command": command}))


def cloned(tmp_path: Path) -> Path:
    """A workspace as ``git clone`` leaves it: a plain ``.git/config``."""
    workspace = tmp_path / "repo"
    (workspace / ".git").mkdir(parents=True)
    (workspace / ".git" / "config").write_text('[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = https://example.com/x.git\n')
    (workspace / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return workspace


def embed_bare_repository(folder: Path, config: str) -> None:
    """Committed files that git takes for a repository of its own: HEAD, objects/, refs/ and a config."""
    (folder / "objects").mkdir(parents=True)
    (folder / "refs" / "heads").mkdir(parents=True)
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / "config").write_text(config)


EVIL_BARE = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch pwned; false"\n'


@pytest.mark.parametrize("command", ["git -C vendor/lib status", "cd vendor/lib && git status", "cd vendor/lib/refs && git log -1"])
def test_git_reads_ask_inside_an_embedded_bare_repository(tmp_path: Path, command: str) -> None:
    workspace = cloned(tmp_path)
    embed_bare_repository(workspace / "vendor" / "lib", EVIL_BARE)
    assert decide(workspace, "git status").allowed
    assert not decide(workspace, command).allowed, command


def test_an_embedded_bare_repository_without_risky_config_still_reads(tmp_path: Path) -> None:
    workspace = cloned(tmp_path)
    embed_bare_repository(workspace / "vendor" / "lib", "[core]\n\tbare = true\n")
    assert decide(workspace, "git -C vendor/lib log -1").allowed


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_really_runs_an_embedded_repository_fsmonitor(tmp_path: Path) -> None:
    """The premise of the test above: git discovers the committed folder as a repository and runs its config."""
    workspace = tmp_path / "repo"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    embed_bare_repository(workspace / "vendor", EVIL_BARE)
    subprocess.run(["git", "-C", "vendor", "status"], cwd=workspace, capture_output=True, check=False)
    assert (workspace / "vendor" / "pwned").exists()


@pytest.mark.parametrize(
    "config",
    [
        "[log]\n\tshowSignature = true\n[gpg]\n\tprogram = ./evil\n",
        '[gpg "ssh"]\n\tprogram = ./evil\n',
        "[core]\n\tsshCommand = ./evil\n",
        "[credential]\n\thelper = !./evil\n",
        "[core]\n\taskPass = ./evil\n",
    ],
)
def test_git_reads_ask_when_the_config_names_any_program(tmp_path: Path, config: str) -> None:
    workspace = cloned(tmp_path)
    (workspace / ".git" / "config").write_text(config)
    assert not decide(workspace, "git log --show-signature -1").allowed
    assert not decide(workspace, "git log -1").allowed


@pytest.mark.parametrize("command", ["git grep -Ovim foo", "git grep '-Otouch pwned;true' foo", "git grep -iOsh foo", "git grep -nO foo"])
def test_git_grep_opening_files_in_a_program_asks(tmp_path: Path, command: str) -> None:
    """``git grep -O<pager>`` runs ``<pager>`` through the shell: an attached value is still that option."""
    assert not decide(cloned(tmp_path), command).allowed, command


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_grep_attached_pager_really_runs(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "x").write_text("foo\n")
    subprocess.run(["git", "add", "x"], cwd=workspace, check=True)
    subprocess.run(["git", "grep", "-Otouch pwned;true", "foo"], cwd=workspace, capture_output=True, check=False)
    assert (workspace / "pwned").exists()


@pytest.mark.parametrize(
    "command",
    [
        "cd - && cat .ssh/id_rsa",
        "cd - && ls",
        "popd && cat x",
        "pushd +1 && cat x",
        'cd "$OLDPWD" && cat .ssh/id_rsa',
        "cd ${OLDPWD} && ls",
        'cat "$OLDPWD/.ssh/id_rsa"',
        "cat $XDG_CONFIG_HOME/gh/hosts.yml",
        "ls $TMPDIR",
        "cat ${SECRET_DIR:-.}/x",
    ],
)
def test_reads_from_a_folder_the_policy_cannot_know_ask(tmp_path: Path, command: str) -> None:
    """``cd -`` and ``$OLDPWD`` are the user's previous folder (often the home), inherited from the terminal;
    an environment variable the line does not set may point anywhere."""
    assert not decide(cloned(tmp_path), command).allowed, command


@pytest.mark.parametrize("command", ["cd src && cat a.py", "cat $HOME/../u/proj/x", "echo $PATH", "grep -rn x $PWD"])
def test_known_folders_and_variables_still_read(command: str) -> None:
    assert decide(Path("/home/u/proj"), command).allowed, command


@pytest.mark.parametrize("command", ["cd etc && cat passwd", "cd .ssh && cat id_rsa"])
def test_a_relative_cd_asks_when_cdpath_is_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """With ``CDPATH`` in the environment bash looks the folder up there first."""
    workspace = cloned(tmp_path)
    monkeypatch.setenv("CDPATH", "/:/home/u")
    assert not decide(workspace, command).allowed
    assert decide(workspace, "cd ./src && ls").allowed


@pytest.mark.parametrize(
    "command",
    ["sed -Ei '1i x' .git/config", "perl -pi -e 's/a/b/' ~/.bashrc", "sed --in-place=.bak 's/a/b/' .git/config", "sed --in 's/a/b/' ~/.zshrc"],
)
def test_in_place_edits_of_protected_files_ask_under_a_broad_rule(command: str) -> None:
    """A user's ``sed:*`` rule does not cover an in-place edit of ``.git/config`` (an fsmonitor there runs code)."""
    from pseudoclaude.tools.permissions import Rules

    rules = Rules.from_settings({"permissions": {"allow": ["Bash(sed:*)", "Bash(perl:*)"]}})
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=Path("/home/u/proj"), home=HOME, rules=rules)
    decision = asyncio.run(policy.check(tool("run_command"), {"command": command}))
    assert not decision.allowed and "protected" in decision.reason, command
    assert asyncio.run(policy.check(tool("run_command"), {"command": "sed -E 's/a/b/' notes.txt"})).allowed


@pytest.mark.parametrize(
    "command",
    [
        "taskset 1 rm x",
        "taskset -c 0 rm x",
        "chrt -f 10 rm x",
        "coproc rm x",
        "ls; coproc NAME { rm x; }",
        "coproc { rm x; }",
        "pkexec rm x",
        "runuser -u root -- rm x",
        "fd -x rm",
        "fd . --exec-batch rm {} ;",
        "rg --pre rm x",
        "rg --pre=rm x",
    ],
)
def test_deny_rules_see_through_more_wrappers(command: str) -> None:
    from pseudoclaude.tools.permissions import Rules

    rules = Rules.from_settings({"permissions": {"deny": ["Bash(rm:*)"]}})
    policy = PermissionPolicy(mode=PermissionMode.BYPASS, workspace=Path("/home/u/proj"), home=HOME, rules=rules)
    decision = asyncio.run(policy.check(tool("run_command"), {"command": command}))
    assert not decision.allowed and decision.source == "rule", command


def test_git_reads_ask_when_a_hook_runs_on_an_index_refresh(tmp_path: Path) -> None:
    """``git status`` refreshes the index and runs ``post-index-change`` (an archive brings its own ``.git/hooks``)."""
    workspace = cloned(tmp_path)
    (workspace / ".git" / "hooks").mkdir()
    (workspace / ".git" / "hooks" / "post-index-change.sample").write_text("#!/bin/sh\n")
    assert decide(workspace, "git status").allowed
    (workspace / ".git" / "hooks" / "post-index-change").write_text("#!/bin/sh\ntouch pwned\n")
    assert not decide(workspace, "git status").allowed


def test_git_reads_ask_when_a_submodule_config_can_run_code(tmp_path: Path) -> None:
    workspace = cloned(tmp_path)
    module = workspace / ".git" / "modules" / "lib" / "nested"
    module.mkdir(parents=True)
    (module / "config").write_text("[core]\n\tbare = false\n")
    assert decide(workspace, "git status").allowed
    (module / "config").write_text("[core]\n\tfsmonitor = ./evil\n")
    assert not decide(workspace, "git status").allowed


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_status_really_runs_post_index_change(tmp_path: Path) -> None:
    import os
    import time

    workspace = tmp_path / "repo"
    workspace.mkdir()
    git = ["git", "-c", "user.name=a", "-c", "user.email=a@b"]
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "a").write_text("a\n")
    subprocess.run(["git", "add", "a"], cwd=workspace, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=workspace, check=True)
    hook = workspace / ".git" / "hooks" / "post-index-change"
    hook.write_text(f"#!/bin/sh\ntouch {tmp_path / 'pwned'}\n")
    hook.chmod(0o755)
    later = time.time() + 5
    os.utime(workspace / "a", (later, later))
    subprocess.run(["git", "status"], cwd=workspace, capture_output=True, check=True)
    assert (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "path",
    [
        ".g\u200cit/hooks/pre-commit",
        ".GIT\ufeff/config",
        ".pseudo\u200bclaude/settings.local.json",
        "/home/u/.local/bin/ls",
        "/home/u/bin/git",
        "/home/u/.config/autostart/x.desktop",
        "/home/u/.config/systemd/user/x.service",
        "/home/u/.bash_aliases",
    ],
)
def test_protected_names_survive_invisible_characters_and_cover_later_run_folders(path: str) -> None:
    from pseudoclaude.tools.permissions import ApprovalAnswer

    from .fakes import ScriptedApprover

    approver = ScriptedApprover([ApprovalAnswer("once")])
    policy = PermissionPolicy(mode=PermissionMode.ACCEPT_EDITS, workspace=Path("/home/u"), home=HOME, approver=approver)
    decision = asyncio.run(policy.check(tool("write_file"), {"path": path, "content": "x"}))
    assert decision.allowed and len(approver.requests) == 1 and "protected" in approver.requests[0].summary, path


# Tests that kill hand-made mutants of readonly.py (each names the check it pins).


@pytest.mark.parametrize(
    "command",
    [
        "ls() { ls -la; }; ls",  # a line defining functions never counts as read-only
        "cat ../proj2/x",  # a sibling folder sharing the workspace's name as a prefix is outside
        "ls >&out",  # `>&word` writes the file `word`
        "git branch --unset-upstream",  # git branch reads only as a listing
        "git --git-dir=vendor/lib status",  # global options select another repository and its config
        "git --exec-path=. log",
        "git log -p --ext-diff",
        "git show --textconv HEAD:a",
        "xxd a b",  # a second operand is an output file
        "uniq a b",
        "file -C -m magic",  # compiles magic.mgc
        "grep -r foo --file=..",  # the value of --opt= is a path
        "rg --hostname-bin=gethost foo",  # rg runs it to build hyperlinks
        "for f in /etc/*; do cat $f; done",  # a loop variable takes the listed values
    ],
)
def test_mutant_killers_that_ask(command: str) -> None:
    assert not decide(Path("/home/u/proj"), command).allowed, command


@pytest.mark.parametrize("command", ["for f in a b; do cat $f; done", "ls 2>&1 | head", "git status -uno"])
def test_mutant_killers_that_read(command: str) -> None:
    assert decide(Path("/home/u/proj"), command).allowed, command


@pytest.mark.parametrize(
    "config",
    ["[core]\n\thooksPath = .husky\n", "[pager]\n\tlog = ./evil\n", "[diff]\n\texternal = ./evil\n", '[filter "x"]\n\tprocess = ./evil\n'],
)
def test_git_reads_ask_for_each_risky_config_key(tmp_path: Path, config: str) -> None:
    workspace = cloned(tmp_path)
    (workspace / ".git" / "config").write_text(config)
    assert not decide(workspace, "git status").allowed


def test_a_dot_git_file_that_cannot_be_read_counts_as_risky(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (workspace / ".git").write_text("not a gitdir line\n")
    assert not decide(workspace, "git status").allowed
    (workspace / ".git").write_text("gitdir: " + "x" * 5000 + "\n")  # a name too long: OSError
    assert not decide(workspace, "git status").allowed


def test_a_worktree_style_git_dir_is_found_by_its_commondir(tmp_path: Path) -> None:
    workspace = cloned(tmp_path)
    common, linked = workspace / "vendor" / "common", workspace / "vendor" / "wt"
    embed_bare_repository(common, EVIL_BARE)
    linked.mkdir()
    (linked / "HEAD").write_text("ref: refs/heads/main\n")
    (linked / "commondir").write_text("../common\n")
    assert not decide(workspace, "git -C vendor/wt status").allowed


@pytest.mark.parametrize(
    "command",
    ["x=\\$\\(touch\\ pw\\); echo ${x@P}", "a=(1); x=a\\[\\$\\(touch\\ pw\\)\\]; echo ${!x}", "echo ${!REF}"],
)
def test_indirection_and_prompt_expansion_are_code_nobody_sees(command: str) -> None:
    """Bash runs ``$(...)`` found in the value of ``${x@P}`` and in the subscript ``${!x}`` names; an escaped
    assignment hides it from every reading of the line, so no prefix rule matches. With a sandbox the line runs
    confined without a question, in default mode as in bypass: the kernel keeps what it computes to the workspace."""
    from pseudoclaude.sandbox import SandboxConfig
    from pseudoclaude.tools.permissions import Rules

    for mode, source in ((PermissionMode.DEFAULT, "sandbox"), (PermissionMode.BYPASS, "mode")):
        sandboxed = PermissionPolicy(mode=mode, workspace=Path("/home/u/proj"), home=HOME, sandbox=SandboxConfig())
        assert asyncio.run(sandboxed.check(tool("run_command"), {"command": command})) == Decision(True, "", source), command
    rules = Rules.from_settings({"permissions": {"allow": ["Bash(echo:*)"]}})
    ruled = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=Path("/home/u/proj"), home=HOME, rules=rules)
    assert not asyncio.run(ruled.check(tool("run_command"), {"command": command})).allowed, command


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_really_runs_code_in_prompt_expansion(tmp_path: Path) -> None:
    subprocess.run(["bash", "-c", "x=\\$\\(touch\\ pw\\); echo ${x@P}"], cwd=tmp_path, capture_output=True, check=False)
    assert (tmp_path / "pw").exists()


@pytest.mark.parametrize("mode", [PermissionMode.DEFAULT, PermissionMode.BYPASS])
def test_a_command_nested_too_deeply_is_refused_not_a_crash(mode: PermissionMode) -> None:
    """500 nested subshells overflowed the parser's walker: the check raised RecursionError out of the policy."""
    command = "(" * 500 + "rm -rf ~" + ")" * 500
    policy = PermissionPolicy(mode=mode, workspace=Path("/home/u/proj"), home=HOME)
    decision = asyncio.run(policy.check(tool("run_command"), {"command": command}))
    assert not decision.allowed and decision.source == "hard-deny"


def test_a_very_long_line_is_still_judged() -> None:
    from pseudoclaude.tools.permissions import Rules

    rules = Rules.from_settings({"permissions": {"deny": ["Bash(rm:*)"]}})
    policy = PermissionPolicy(mode=PermissionMode.BYPASS, workspace=Path("/home/u/proj"), home=HOME, rules=rules)
    decision = asyncio.run(policy.check(tool("run_command"), {"command": "echo " + "a" * 200_000 + "; rm x"}))
    assert not decision.allowed and decision.source == "rule"


@pytest.mark.parametrize(
    "command",
    [
        "grep -R SECRET .",
        "grep -rRn SECRET",
        "grep --dereference-recursive SECRET .",
        "rg -L SECRET",
        "rg --follow SECRET",
        "fd -L id",
        "find -L . -name id",
        "find . -follow -name id",
        "tree -l",
        "ls -LR",
        "du -L",
    ],
)
def test_walking_a_tree_through_its_symlinks_asks(tmp_path: Path, command: str) -> None:
    """A repository ships ``docs -> ~/.ssh``: a recursive read that follows links reads the user's keys."""
    workspace = cloned(tmp_path)
    outside = tmp_path / "user" / ".ssh"
    outside.mkdir(parents=True)
    (outside / "id").write_text("SECRET")
    (workspace / "docs").symlink_to(outside)
    assert not decide(workspace, command).allowed, command
    assert decide(workspace, "grep -rn SECRET .").allowed


@pytest.mark.skipif(shutil.which("grep") is None, reason="needs grep")
def test_grep_capital_r_really_follows_links_and_small_r_does_not(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "id").write_text("SECRET\n")
    (workspace / "docs").symlink_to(outside)
    follow = subprocess.run(["grep", "-R", "SECRET", "."], cwd=workspace, capture_output=True, text=True)
    plain = subprocess.run(["grep", "-r", "SECRET", "."], cwd=workspace, capture_output=True, text=True)
    assert "SECRET" in follow.stdout and "SECRET" not in plain.stdout


@pytest.mark.parametrize("path", [".claude/commands/deploy.md", ".claude/hooks/check.sh", ".claude/settings.local.json", "sub/.claude/commands/x.md"])
def test_the_claude_folder_is_protected(path: str) -> None:
    """A command file written there carries ``allowed-tools`` that apply when the user next runs it."""
    policy = PermissionPolicy(mode=PermissionMode.ACCEPT_EDITS, workspace=Path("/home/u/proj"), home=HOME)
    decision = asyncio.run(policy.check(tool("write_file"), {"path": path, "content": "---\nallowed-tools: Bash\n---\nx"}))
    assert not decision.allowed and "protected" in decision.reason, path


@pytest.mark.parametrize("command", ["git -C vendor/lib status", "cd vendor/lib && git status"])
def test_a_git_prefix_rule_does_not_cover_a_repository_whose_config_runs_code(tmp_path: Path, command: str) -> None:
    """As ``git -c core.fsmonitor=...`` is not covered by ``git:*``, neither is a committed folder whose config has one."""
    from pseudoclaude.tools.permissions import Rules

    workspace = cloned(tmp_path)
    embed_bare_repository(workspace / "vendor" / "lib", EVIL_BARE)
    rules = Rules.from_settings({"permissions": {"allow": ["Bash(git:*)"]}})
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=workspace, home=HOME, rules=rules)
    assert not asyncio.run(policy.check(tool("run_command"), {"command": command})).allowed
    assert asyncio.run(policy.check(tool("run_command"), {"command": "git commit -m x"})).allowed


@pytest.mark.parametrize("command", ["cat .env", "head -n 3 config/.env", "grep KEY .env", "wc -l < .env", "cd config && cat .env", "cat link-to-env"])
def test_a_deny_rule_on_reading_a_file_also_stops_reading_it_through_the_shell(tmp_path: Path, command: str) -> None:
    from pseudoclaude.tools.permissions import Rules

    workspace = cloned(tmp_path)
    (workspace / "config").mkdir()
    (workspace / ".env").write_text("KEY=secret\n")
    (workspace / "link-to-env").symlink_to(workspace / ".env")
    rules = Rules.from_settings({"permissions": {"deny": ["Read(**/.env)"]}})
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=workspace, home=HOME, rules=rules)
    assert not asyncio.run(policy.check(tool("run_command"), {"command": command})).allowed, command
    assert asyncio.run(policy.check(tool("run_command"), {"command": "cat README.md"})).allowed


@pytest.mark.parametrize("command", ["cat *.py", "head -n1 ./*.py", "grep -h . src/../*.py", "wc -l [e]vil.py"])
def test_a_glob_matching_a_link_out_of_the_workspace_asks(tmp_path: Path, command: str) -> None:
    """The literal pattern stays inside; what bash expands it to may be a link the repository ships."""
    workspace = cloned(tmp_path)
    (workspace / "src").mkdir()
    (workspace / "a.py").write_text("ok\n")
    (tmp_path / "key").write_text("SECRET\n")
    assert decide(workspace, command).allowed, command
    (workspace / "evil.py").symlink_to(tmp_path / "key")
    assert not decide(workspace, command).allowed, command
    assert decide(workspace, "cat a*.py").allowed


@pytest.mark.parametrize("command", ["cp pre-commit .gi?/hooks/", "cp pre-commit .[g]it/hooks/", "mv x .g*/config"])
def test_a_glob_naming_a_protected_folder_is_a_protected_write(tmp_path: Path, command: str) -> None:
    from pseudoclaude.tools.permissions import Rules

    workspace = cloned(tmp_path)
    (workspace / ".git" / "hooks").mkdir()
    rules = Rules.from_settings({"permissions": {"allow": ["Bash(cp:*)", "Bash(mv:*)"]}})
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=workspace, home=HOME, rules=rules)
    decision = asyncio.run(policy.check(tool("run_command"), {"command": command}))
    assert not decision.allowed and "protected" in decision.reason, command


@pytest.mark.parametrize("rule", ["mcp__github", "mcp__github__*"])
def test_a_server_name_cannot_borrow_another_servers_allow_rule(rule: str) -> None:
    from pseudoclaude.mcp_client import tool_name
    from pseudoclaude.tools.permissions import Rules

    from .fakes import declared

    rules = Rules.from_settings({"permissions": {"allow": [rule]}})
    policy = PermissionPolicy(mode=PermissionMode.DEFAULT, workspace=Path("/home/u/proj"), home=HOME, rules=rules)
    assert not asyncio.run(policy.check(declared(tool_name("github__evil", "run"), "write"), {})).allowed
    assert asyncio.run(policy.check(declared(tool_name("github", "run"), "write"), {})).allowed
