"""Custom slash commands: Markdown files read where Claude Code users keep them, expanded in the REPL and in -p."""

from __future__ import annotations

from pathlib import Path

import pytest

from pseudoclaude.agent import load_custom_commands
from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Reply
from tests.tui.terminal import CTRL_D, Terminal, env_for, request_text

REVIEW = """---
description: Review a file for bugs
argument-hint: <file> [focus]
allowed-tools: Bash(git diff:*), Bash(git log:*)
model: claude-haiku-4-5
---
Review $1 carefully; focus on $2.
All arguments: $ARGUMENTS
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, Path]:
    ws, home, user = tmp_path / "ws", tmp_path / "home", tmp_path / "user"
    for folder in (ws, home, user):
        folder.mkdir()
    return ws, home, user


def test_front_matter_placeholders_and_namespaces(dirs: tuple[Path, Path, Path]) -> None:
    ws, home, user = dirs
    write(ws / ".claude" / "commands" / "frontend" / "review.md", REVIEW)
    write(user / ".claude" / "commands" / "plain.md", "Explain the design.\n")
    commands = load_custom_commands(ws, home, user)
    assert [c.name for c in commands.commands] == ["/frontend:review", "/plain"]
    review = commands.find("/frontend:review")
    assert review is not None
    assert (review.description, review.argument_hint, review.model, review.scope) == ("Review a file for bugs", "<file> [focus]", "claude-haiku-4-5", "project")
    assert review.allowed_tools == ("Bash(git diff:*)", "Bash(git log:*)")
    assert review.expand('src/app.py "error handling"') == 'Review src/app.py carefully; focus on error handling.\nAll arguments: src/app.py "error handling"'
    plain = commands.find("/plain")
    assert plain is not None and plain.scope == "user"
    assert plain.expand("now") == "Explain the design.\n\nARGUMENTS: now"


def test_project_pseudoclaude_folder_wins_over_claude_and_user(dirs: tuple[Path, Path, Path]) -> None:
    ws, home, user = dirs
    write(ws / ".pseudoclaude" / "commands" / "x.md", "ours")
    write(ws / ".claude" / "commands" / "x.md", "claude's")
    write(home / "commands" / "x.md", "user's")
    command = load_custom_commands(ws, home, user).find("/x")
    assert command is not None and command.body == "ours"


def test_allowed_tools_of_a_project_command_needs_trust(dirs: tuple[Path, Path, Path]) -> None:
    ws, home, user = dirs
    write(ws / ".claude" / "commands" / "review.md", REVIEW)
    write(home / "commands" / "mine.md", '---\nallowed-tools: ["Bash(make:*)", "Bash(oops"]\n---\nbuild\n')
    commands = load_custom_commands(ws, home, user)
    untrusted = commands.expand("/review a.py", trusted=False, provider="anthropic")
    assert untrusted is not None and untrusted.allowed_tools == ()
    assert any("allowed-tools ignored" in notice for notice in untrusted.notices)
    trusted = commands.expand("/review a.py", trusted=True, provider="anthropic")
    assert trusted is not None and trusted.allowed_tools == ("Bash(git diff:*)", "Bash(git log:*)")
    assert trusted.model == "claude-haiku-4-5"
    other = commands.expand("/review a.py", trusted=True, provider="openai")
    assert other is not None and other.model is None and any("model" in n for n in other.notices)
    mine = commands.expand("/mine", trusted=False, provider="anthropic")
    assert mine is not None and mine.allowed_tools == ("Bash(make:*)",)
    assert commands.expand("/nothing here", trusted=True, provider="anthropic") is None


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_a_claude_command_expands_in_print_mode(kind: str, dirs: tuple[Path, Path, Path], tmp_path: Path) -> None:
    ws, home, user = dirs
    write(ws / ".claude" / "commands" / "x.md", "---\ndescription: say\n---\nPlease look at $ARGUMENTS and report.\n")
    with fake_server(kind, [Reply(text="Looked.")]) as server:
        env = {**cli_env(kind, server.url, home), "HOME": str(user)}
        proc = run_cli(["-p", "/x src/app.py twice"], ws, env)
    assert proc.returncode == 0, proc.stderr
    assert "Looked." in proc.stdout
    assert "Please look at src/app.py twice and report." in request_text(server.requests[0])
    assert "$ARGUMENTS" not in request_text(server.requests[0])


@pytest.mark.slow
def test_a_claude_command_expands_in_the_repl_and_shows_in_help_and_completion(dirs: tuple[Path, Path, Path], terminals: list[Terminal]) -> None:
    ws, home, user = dirs
    write(ws / ".claude" / "commands" / "xray.md", "---\ndescription: inspect deeply\n---\nInspect $ARGUMENTS now.\n")
    with fake_server("anthropic", [Reply(text="Inspected it.")]) as server:
        term = Terminal([], ws, {**env_for(server.url, home), "HOME": str(user)})
        terminals.append(term)
        term.expect_prompt()
        term.send_line("/help")
        term.expect(r"/xray[^\n]*inspect deeply")
        term.expect_prompt()
        term.send("/xr")
        term.expect("inspect deeply")
        term.send("\t")
        term.send(" notes.txt\r")
        term.expect("Inspected it.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert "Inspect notes.txt now." in request_text(server.requests[0])
