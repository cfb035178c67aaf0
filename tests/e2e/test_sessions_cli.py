"""Sessions as a user meets them: list, show, resume, and a session in use."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any, Mapping

import pytest

from tests.e2e.support import cli_command, cli_env, fake_server, run_cli
from tests.fakes.script import Reply, Step

pytestmark = pytest.mark.slow


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


def test_list_show_and_continue(ws: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("anthropic", [Reply(text="First answer."), Reply(text="Second answer."), Reply(text="Continued answer.")]) as server:
        env = cli_env("anthropic", server.url, home)
        assert run_cli(["-p", "first question about parsers"], ws, env).returncode == 0
        second = run_cli(["-p", "second question about lexers", "--output-format", "json"], ws, env)
        session_id = json.loads(second.stdout)["session_id"]
        listing = run_cli(["sessions", "list"], ws, env)
        assert listing.returncode == 0
        assert "first question about parsers" in listing.stdout and "second question about lexers" in listing.stdout
        shown = run_cli(["sessions", "show", session_id[:-2]], ws, env)
        assert shown.returncode == 0 and "second question about lexers" in shown.stdout and "Second answer." in shown.stdout
        cont = run_cli(["--continue", "-p", "and then?", "--output-format", "json"], ws, env)
        assert json.loads(cont.stdout)["session_id"] == session_id
        history = json.dumps(server.requests[2]["messages"])
        assert "second question about lexers" in history and "Second answer." in history and "first question" not in history
        assert server.rejections == []


def test_resume_of_an_unknown_or_hostile_id_is_a_clear_usage_error(ws: Path, tmp_path: Path) -> None:
    env = cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home")
    for bad in ("20991231-000000-abcdef", "../../etc"):
        proc = run_cli(["--resume", bad, "-p", "hi"], ws, env)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_continue_without_any_session_says_so(ws: Path, tmp_path: Path) -> None:
    env = cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home")
    proc = run_cli(["--continue", "-p", "hi"], ws, env)
    assert proc.returncode == 2 and "no earlier session" in proc.stderr


class HangOnce:
    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def __call__(self, body: Mapping[str, Any]) -> Step:
        self.calls += 1
        if self.calls == 2:
            self.entered.set()
            self.release.wait(30)
        return Reply(text=f"answer {self.calls}")


def test_a_second_process_on_the_same_session_is_refused(ws: Path, tmp_path: Path, processes: list[subprocess.Popen[Any]]) -> None:
    home = tmp_path / "home"
    script = HangOnce()
    with fake_server("anthropic", script) as server:
        env = cli_env("anthropic", server.url, home)
        assert run_cli(["-p", "start"], ws, env).returncode == 0
        holder = subprocess.Popen(cli_command("--continue", "-p", "long one"), cwd=ws, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(holder)
        try:
            assert script.entered.wait(30)
            second = run_cli(["--continue", "-p", "intruder"], ws, env)
            assert second.returncode == 2 and "in use" in second.stderr
        finally:
            script.release.set()
            holder.wait(30)
        assert holder.returncode == 0
        assert "intruder" not in json.dumps(server.requests)


def test_json_reports_this_runs_usage_and_the_sessions_totals_across_a_resume(ws: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_server("anthropic", [Reply(text="one", input_tokens=100, output_tokens=7), Reply(text="two", input_tokens=200, output_tokens=9)]) as server:
        env = cli_env("anthropic", server.url, home)
        assert run_cli(["-p", "first"], ws, env).returncode == 0
        second = run_cli(["--continue", "-p", "second", "--output-format", "json"], ws, env)
    result = json.loads(second.stdout)
    assert (result["usage"]["input_tokens"], result["usage"]["output_tokens"]) == (200, 9)
    assert (result["session_usage"]["input_tokens"], result["session_usage"]["output_tokens"]) == (300, 16)


def test_a_resumed_session_keeps_its_memory_snapshot_and_a_new_one_sees_new_facts(ws: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "MEMORY.md").write_text("- The user prefers tabs.\n")
    with fake_server("anthropic", [Reply(text="one"), Reply(text="two"), Reply(text="three")]) as server:
        env = cli_env("anthropic", server.url, home)
        assert run_cli(["-p", "first"], ws, env).returncode == 0
        (home / "MEMORY.md").write_text("- The user prefers tabs.\n- The tests need redis.\n")
        assert run_cli(["--continue", "-p", "second"], ws, env).returncode == 0
        assert run_cli(["-p", "a new session"], ws, env).returncode == 0
        systems = [json.dumps(body["system"]) for body in server.requests]
    assert "prefers tabs" in systems[0] and systems[1] == systems[0]
    assert "redis" not in systems[1] and "redis" in systems[2]


def _make_session(sessions_dir: Path, workspace: Path, title: str) -> str:
    from pseudoclaude.session import create_session

    session = create_session(sessions_dir, workspace, model="claude-sonnet-4-5", provider="anthropic")
    session.set_title(title)
    session_id = session.id
    session.close()
    return session_id


@pytest.mark.parametrize("columns", ["60", "80", "100"])
def test_list_never_cuts_the_id_the_title_gives_way(ws: Path, tmp_path: Path, columns: str) -> None:
    sessions_dir = tmp_path / "sessions"
    session_id = _make_session(sessions_dir, ws, "a very long title about refactoring the parser and the lexer and the tests " * 2)
    env = {**cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home"), "COLUMNS": columns}
    listing = run_cli(["sessions", "list", "--sessions-dir", str(sessions_dir)], ws, env)
    assert listing.returncode == 0 and session_id in listing.stdout and "Updated" in listing.stdout
    assert "…" in listing.stdout and all(len(line) <= int(columns) for line in listing.stdout.splitlines())


def test_list_json_and_all_workspaces(ws: Path, tmp_path: Path) -> None:
    sessions_dir, other = tmp_path / "sessions", tmp_path / "other"
    other.mkdir()
    mine = _make_session(sessions_dir, ws, "mine")
    theirs = _make_session(sessions_dir, other, "theirs")
    env = cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home")
    here = json.loads(run_cli(["sessions", "list", "--json", "--sessions-dir", str(sessions_dir)], ws, env).stdout)
    assert [(s["id"], s["title"], s["cwd"]) for s in here] == [(mine, "mine", str(ws.resolve()))]
    every = json.loads(run_cli(["sessions", "list", "--all", "--json", "--sessions-dir", str(sessions_dir)], ws, env).stdout)
    assert {s["id"] for s in every} == {mine, theirs}
    table = run_cli(["sessions", "list", "--all", "--sessions-dir", str(sessions_dir)], ws, {**env, "COLUMNS": "200"})
    assert theirs in table.stdout and str(other.resolve()) in table.stdout and "Workspace" in table.stdout
