"""The REPL side of the extensions: /tasks lists and kills a background command; Esc reaches running sub-agents."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Mapping

import pytest

from pseudoclaude.session import load_subruns
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply, StallStream, Step
from tests.tui.terminal import CTRL_D, ESC, Terminal, env_for, request_text

pytestmark = pytest.mark.slow


def test_tasks_lists_a_background_command_and_kills_it(tmp_path: Path, terminals: list[Terminal]) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    script = [
        Reply(text="Starting.", calls=(Call("run_command", json.dumps({"command": "echo ready; sleep 300", "background": True})),)),
        Reply(text="It runs in the background."),
    ]
    with FakeAnthropicServer(script) as server:
        term = Terminal(["--permission-mode", "bypass"], ws, {**env_for(server.url, tmp_path / "home"), "HOME": str(tmp_path)})
        terminals.append(term)
        term.expect_prompt()
        term.send_line("start a watcher")
        term.expect("It runs in the background.")
        term.expect_prompt()
        term.send_line("/tasks")
        term.expect(r"bg1\s+running")
        term.expect_prompt()
        term.send_line("/tasks kill bg1")
        term.expect("Stopped bg1")
        term.expect_prompt()
        term.send_line("/tasks")
        term.expect(r"bg1\s+killed")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert "Started in the background as bg1" in request_text(server.requests[1])


def test_a_background_command_that_exits_is_announced_and_told_to_the_model(tmp_path: Path, terminals: list[Terminal]) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    script = [
        Reply(calls=(Call("run_command", json.dumps({"command": "sleep 0.5; exit 3", "background": True})),)),
        Reply(text="Started."),
        Reply(text="Noted."),
    ]
    with FakeAnthropicServer(script) as server:
        term = Terminal(["--permission-mode", "bypass"], ws, {**env_for(server.url, tmp_path / "home"), "HOME": str(tmp_path)})
        terminals.append(term)
        term.expect_prompt()
        term.send_line("build in the background")
        term.expect("Started.")
        term.expect_prompt()
        time.sleep(1.0)
        term.send_line("/tasks")
        term.expect(r"bg1\s+exit 3")
        term.expect("bg1 exited with code 3")
        term.expect_prompt()
        term.send_line("how did it go?")
        term.expect("Noted.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert "background command bg1 exited with code 3" in request_text(server.requests[2])


def test_escape_interrupts_running_sub_agents_and_records_it(tmp_path: Path, terminals: list[Terminal]) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()

    def script(request: Mapping[str, Any]) -> Step:
        if "sub-agent of PseudoClaude" in json.dumps(request.get("system", "")):
            return StallStream(Reply(text="thinking about it for a long while"), after_deltas=1, seconds=30)
        if len(request["messages"]) == 1:
            task = {"description": "slow search", "prompt": "search everything", "subagent_type": "explore"}
            return Reply(text="Delegating.", calls=(Call("task", json.dumps(task)), Call("task", json.dumps({**task, "description": "other"}))))
        return Reply(text="Fine, stopping.")

    home = tmp_path / "home"
    with FakeAnthropicServer(script) as server:
        term = Terminal([], ws, {**env_for(server.url, home), "HOME": str(tmp_path)})
        terminals.append(term)
        term.expect_prompt()
        term.send_line("look around")
        term.expect("Delegating.")
        assert server.stalled.wait(10)
        term.send(ESC)
        term.expect("Interrupted")
        term.expect_prompt()
        term.send_line("ok")
        term.expect("Fine, stopping.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    assert "interrupted" in request_text(server.requests[-1])
    folder = next(home.rglob("session.jsonl")).parent
    subruns = load_subruns(folder)
    assert len(subruns) == 2
    files = sorted((folder / "subagents").glob("*.jsonl"))
    assert len(files) == 2 and all('"interrupt"' in path.read_text() for path in files)
