"""Long sessions against a provider that enforces its context window.

A scripted 100-turn session whose tool results are 20 KB each must complete
without a single 400: every request the fake server receives stays under the
window, compaction happens a bounded number of times and never loops. Run for
the 60,000-token window of the issue and for small local-model windows.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Mapping

import pytest

from tests.e2e.support import cli_command, cli_env, fake_server, json_lines
from tests.fakes.script import Call, Reply, Step, approx_tokens, is_summary_request

pytestmark = pytest.mark.slow

TURNS = 100


class LongSession:
    def __init__(self) -> None:
        self.main_calls = 0
        self.summaries = 0

    def __call__(self, body: Mapping[str, Any]) -> Step:
        if is_summary_request(body):
            self.summaries += 1
            return Reply(text=f"<analysis>notes</analysis><summary>Read files r0..r9 in a loop; {self.main_calls} reads so far.</summary>")
        index = self.main_calls
        self.main_calls += 1
        if index < TURNS:
            return Reply(text=f"Step {index}.", calls=(Call("read_file", json.dumps({"path": f"r{index % 10}.txt"})),))
        return Reply(text="Finished the long task.")


def make_workspace(root: Path) -> Path:
    ws = root / "ws"
    ws.mkdir()
    for n in range(10):
        (ws / f"r{n}.txt").write_text("".join(f"r{n} {i:03d} " + "the quick brown fox jumps over the lazy dog " * 4 + "\n" for i in range(110)))
    return ws


@pytest.mark.parametrize("window", [60_000, 32_000, 16_000])
@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_a_hundred_turns_of_20kb_results_never_overflow(kind: str, window: int, tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    assert 19_000 < (ws / "r0.txt").stat().st_size < 21_000
    session = LongSession()
    with fake_server(kind, session, context_window=window) as server:
        proc = subprocess.run(
            cli_command(
                "-p",
                "Read the files again and again.",
                "--output-format",
                "events",
                "--context-window",
                str(window),
                "--max-turns",
                str(TURNS + 5),
                "--permission-mode",
                "bypass",
            ),
            cwd=ws,
            env=cli_env(kind, server.url, tmp_path / "home"),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        events = [json.loads(line) for line in proc.stdout.splitlines()]
        assert events[-1]["result"] == "Finished the long task."
        assert server.rejections == []
        assert max(approx_tokens(body) for body in server.requests) <= window
    compactions = [e for e in events if e["type"] == "progress" and e["kind"] == "compact"]
    assert 1 <= len(compactions) == session.summaries
    assert len(compactions) <= TURNS // 3, f"compacted {len(compactions)} times in {TURNS} turns"
    assert session.main_calls == TURNS + 1


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_an_overflow_the_window_table_did_not_foresee_is_recovered_by_one_compaction(kind: str, tmp_path: Path) -> None:
    """The server's window (12k) is far smaller than the model table says: the first 400 triggers one forced compaction and a retry."""
    ws = make_workspace(tmp_path)
    session = LongSession()
    with fake_server(kind, session, context_window=12_000) as server:
        proc = subprocess.run(
            cli_command("-p", "Read the files.", "--output-format", "events", "--max-turns", "200", "--permission-mode", "bypass"),
            cwd=ws,
            env=cli_env(kind, server.url, tmp_path / "home"),
            capture_output=True,
            text=True,
            timeout=300,
        )
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    overflows = [e for e in events if e["type"] == "progress" and e["kind"] == "overflow"]
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert overflows, "the fake server never refused a request: the scenario does not exercise recovery"
    assert events[-1]["result"] == "Finished the long task."
    assert len([r for r in server.rejections if r[0] == 400]) == len(overflows)
    assert "12000 tokens" in overflows[0]["message"]


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_a_resumed_session_keeps_budgeting_against_the_window_the_provider_stated(kind: str, tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    home = tmp_path / "home"
    with fake_server(kind, LongSession(), context_window=12_000) as server:
        env = cli_env(kind, server.url, home)
        first = subprocess.run(
            cli_command("-p", "Read the files.", "--max-turns", "6", "--permission-mode", "bypass"),
            cwd=ws,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert "too long" in first.stderr
        refused = len(server.rejections)
        resumed = subprocess.run(
            cli_command("--continue", "-p", "Keep reading.", "--max-turns", "30", "--output-format", "events", "--permission-mode", "bypass"),
            cwd=ws,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert len(server.rejections) == refused, "the resumed session forgot the window and overflowed again"
    events = json_lines(resumed.stdout)
    assert any(e["type"] == "progress" and e["kind"] == "compact" for e in events)


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_an_overflow_compaction_cannot_fix_stops_with_a_clear_error_and_no_loop(kind: str, tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    with fake_server(kind, LongSession(), context_window=1_500) as server:
        proc = subprocess.run(
            cli_command("-p", "Read the files.", "--output-format", "json", "--permission-mode", "bypass"),
            cwd=ws,
            env=cli_env(kind, server.url, tmp_path / "home"),
            capture_output=True,
            text=True,
            timeout=120,
        )
    result = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert result["stop_reason"] == "context_overflow" and "too long" in result["error"]
    assert len(server.requests) <= 6
