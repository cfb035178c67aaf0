"""Context governance as a headless user meets it: paging a spilled result, /compact on a resumed session."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Mapping

import pytest

from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply, Step, is_summary_request

pytestmark = pytest.mark.slow


class ReadSpill:
    """Turn 1 prints a big file; turn 2 reads the spill file named in the preview; turn 3 answers."""

    def __init__(self) -> None:
        self.calls = 0
        self.spill_path: str | None = None

    def __call__(self, body: Mapping[str, Any]) -> Step:
        self.calls += 1
        if self.calls == 1:  # the command shapes its output and saves all of it; Layer 1 leaves it alone
            return Reply(text="Printing.", calls=(Call("run_command", json.dumps({"command": "head -c 60000 big.txt"})),))
        if self.calls == 2:
            found = re.search(r"complete output: (.+?\.txt)", json.dumps(body["messages"]))
            assert found, "the big result does not name its complete output"
            self.spill_path = found.group(1)
            return Reply(text="Paging the saved output.", calls=(Call("read_file", json.dumps({"path": self.spill_path, "offset": 1})),))
        return Reply(text="Seen it.")


@pytest.mark.parametrize("window", [16_000, 32_000])
def test_reading_a_spilled_result_is_never_spilled_again(window: int, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.txt").write_text("".join(f"{i:06d} " + "z" * 90 + "\n" for i in range(1200)))
    script = ReadSpill()
    with fake_server("anthropic", script) as server:
        proc = run_cli(
            ["-p", "look", "--output-format", "events", "--permission-mode", "bypass", "--context-window", str(window)],
            ws,
            cli_env("anthropic", server.url, tmp_path / "home"),
        )
        assert proc.returncode == 0, proc.stderr
        last_results = [b for b in server.requests[2]["messages"][-1]["content"] if b.get("type") == "tool_result"]
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    offloads = [e for e in events if e["type"] == "progress" and e["kind"] == "offload"]
    assert sum(e["data"]["offloaded"] for e in offloads) == 0
    page = json.dumps(last_results)
    assert "[content offloaded]" not in page and "000000" in page and "more lines; call read_file with offset=" in page


def test_compact_on_a_resumed_session_summarizes_with_focus_and_the_next_request_starts_from_the_summary(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()

    def responder(body: Mapping[str, Any]) -> Step:
        if is_summary_request(body):
            return Reply(text="<analysis>draft</analysis><summary>We discussed parsers at length.</summary>")
        return Reply(text=f"answer {len(body['messages'])}: " + "a long explanation of the topic. " * 80)

    with fake_server("anthropic", responder) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        for prompt in ("tell me about parsers", "and lexers", "and grammars"):
            assert run_cli(["--continue", "-p", prompt] if prompt != "tell me about parsers" else ["-p", prompt], ws, env).returncode == 0
        compact = run_cli(["--continue", "-p", "/compact focus on the grammar discussion", "--output-format", "events", "--context-window", "16000"], ws, env)
        assert compact.returncode == 0, compact.stderr
        summary_request = server.requests[-1]
        assert summary_request["tools"] and "tool_choice" not in summary_request, "the main loop's tool_choice (auto, the default)"
        assert "focus on the grammar discussion" in json.dumps(summary_request)
        events = [json.loads(line) for line in compact.stdout.splitlines()]
        assert any(e["type"] == "progress" and e["kind"] == "compact" for e in events)
        assert run_cli(["--continue", "-p", "what next?"], ws, env).returncode == 0
        after = json.dumps(server.requests[-1]["messages"])
        assert "We discussed parsers at length." in after and "draft" not in after
        assert after.count("tell me about parsers") == 1 and "[1] tell me about parsers" in after, "only in the pinned block"
        assert server.rejections == []
