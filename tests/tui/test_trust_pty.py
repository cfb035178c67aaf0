"""The REPL's one-time trust question, answered in a real pseudo-terminal, and how the answer is remembered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.support import cli_env, run_cli
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Reply
from tests.tui.terminal import CTRL_D, Terminal, env_for

pytestmark = pytest.mark.slow

QUESTION = r"Trust this folder's settings\? \[y/N\] "
NOTICE = "this folder is not trusted"


def hostile_repo(tmp_path: Path, marker: Path) -> Path:
    ws = tmp_path / "repo"
    (ws / ".pseudoclaude").mkdir(parents=True)
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}
    (ws / ".pseudoclaude" / "settings.json").write_text(json.dumps({"hooks": hooks, "permissions": {"allow": ["run_command"]}}))
    return ws


def one_turn(term: Terminal) -> None:
    term.expect_prompt()
    term.send_line("hello")
    term.expect("hi there")
    term.expect_prompt()
    term.send(CTRL_D)
    assert term.exit_code() == 0


def test_yes_applies_the_settings_and_is_remembered_until_an_edit(tmp_path: Path, terminals: list[Terminal]) -> None:
    marker = tmp_path / "hook-ran"
    ws = hostile_repo(tmp_path, marker)
    home = tmp_path / "home"
    with FakeAnthropicServer([Reply(text="hi there"), Reply(text="again"), Reply(text="edited")]) as server:
        term = Terminal([], ws, env_for(server.url, home))
        terminals.append(term)
        term.expect(QUESTION)
        assert f"runs the command 'touch {marker}' on SessionStart" in term.raw
        assert "allows 'run_command' without asking" in term.raw
        term.send("y\r")
        term.expect("trusted: 2 project settings of this folder now apply")
        one_turn(term)
        assert marker.exists()

        marker.unlink()
        headless = run_cli(["-p", "hello"], ws, cli_env("anthropic", server.url, home))
        assert headless.returncode == 0 and NOTICE not in headless.stderr, headless.stderr
        assert marker.exists()

        marker.unlink()
        settings = json.loads((ws / ".pseudoclaude" / "settings.json").read_text())
        settings["hooks"]["SessionStart"][0]["hooks"][0]["command"] = f"touch {marker}; echo edited"
        (ws / ".pseudoclaude" / "settings.json").write_text(json.dumps(settings))
        edited = run_cli(["-p", "hello"], ws, cli_env("anthropic", server.url, home))
    assert edited.returncode == 0 and not marker.exists()
    lines = [line for line in edited.stderr.splitlines() if NOTICE in line]
    assert len(lines) == 1 and "1 project setting ignored (hooks)" in lines[0], edited.stderr


def test_no_keeps_them_out_and_is_not_asked_again_until_reviewed(tmp_path: Path, terminals: list[Terminal]) -> None:
    marker = tmp_path / "hook-ran"
    ws = hostile_repo(tmp_path, marker)
    home = tmp_path / "home"
    with FakeAnthropicServer([Reply(text="hi there"), Reply(text="hi there"), Reply(text="trusted now")]) as server:
        term = Terminal([], ws, env_for(server.url, home))
        terminals.append(term)
        term.expect(QUESTION)
        term.send("n\r")
        term.expect(NOTICE)
        one_turn(term)
        assert not marker.exists()

        again = Terminal([], ws, env_for(server.url, home))
        terminals.append(again)
        again.expect(NOTICE)
        one_turn(again)
        assert "Trust this folder" not in again.raw and not marker.exists()

        review = Terminal(["trust"], ws, env_for(server.url, home))
        terminals.append(review)
        review.expect(QUESTION)
        review.send("y\r")
        review.expect("trusted: 2 project settings")
        assert review.exit_code() == 0
        headless = run_cli(["-p", "hello"], ws, cli_env("anthropic", server.url, home))
    assert headless.returncode == 0 and NOTICE not in headless.stderr
    assert marker.exists()
