"""``--include-partial-messages`` streams tool calls as Claude Code does: a ``tool_use`` block, then its arguments in pieces.

A reader that assembles the ``stream_event`` lines of a message gets the
``assistant`` message that follows: the same blocks at the same indexes, each
tool call's ``input_json_delta`` pieces parsing to its final ``input`` (with
Claude Code's argument names). The pieces never reach the session file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_env, fake_server, json_lines, run_cli
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

WRITE = Call("write_file", json.dumps({"path": "notes/new.txt", "content": 'line one\nline "two"\n'}), chunks=5)
GREP = Call("grep", json.dumps({"pattern": "line", "case_insensitive": True, "path": "notes"}), chunks=4)
LIST = Call("list_dir", "{}", chunks=1)

SETUPS = {
    "anthropic": ("anthropic", {}, ["--max-thinking-tokens", "2048"]),
    "openai": ("openai", {}, []),
    "responses": ("openai", {"PSEUDOCLAUDE_MODEL": "gpt-5", "PSEUDOCLAUDE_OPENAI_API": "responses"}, ["--effort", "low"]),
}


def assembled(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The content blocks of one streamed message, as a Claude Code reader builds them from the raw events."""
    blocks: dict[int, dict[str, Any]] = {}
    json_pieces: dict[int, list[str]] = {}
    for event in events:
        if event["type"] == "content_block_start":
            assert event["index"] not in blocks, "each index starts once"
            blocks[event["index"]] = dict(event["content_block"])
        elif event["type"] == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            else:
                assert delta["type"] == "input_json_delta" and block["type"] == "tool_use"
                json_pieces.setdefault(event["index"], []).append(delta["partial_json"])
    for index, pieces in json_pieces.items():
        blocks[index]["input"] = json.loads("".join(pieces))
    assert sorted(blocks) == list(range(len(blocks))), "indexes count from 0 without gaps"
    return [blocks[i] for i in sorted(blocks)]


def messages(lines: list[dict[str, Any]]) -> list[tuple[list[dict[str, Any]], dict[str, Any]]]:
    """Each streamed message's raw events with the ``assistant`` line that follows them."""
    pairs, current = [], []
    for line in lines:
        if line["type"] == "stream_event":
            current.append(line["event"])
        elif line["type"] == "assistant":
            pairs.append((current, line["message"]))
            current = []
    return pairs


def comparable(block: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k != "signature"}


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_tool_arguments_stream_in_pieces_that_add_up_to_the_final_input(setup: str, tmp_path: Path) -> None:
    kind, extra_env, flags = SETUPS[setup]
    workspace = tmp_path / "ws"
    (workspace / "notes").mkdir(parents=True)
    script = [Reply(text="I will write it, then look.", thinking="Write first, then check.", calls=(WRITE, GREP, LIST)), Reply(text="Done.")]
    with fake_server(kind, script) as server:
        env = {**cli_env(kind, server.url, tmp_path / "home"), **extra_env}
        args = ["-p", "go", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--permission-mode", "acceptEdits", *flags]
        proc = run_cli(args, workspace, env)
    assert proc.returncode == 0, proc.stderr
    (first, first_message), (second, second_message) = messages(json_lines(proc.stdout))
    assert [e["type"] for e in first][:1] == ["message_start"] and [e["type"] for e in first][-2:] == ["message_delta", "message_stop"]
    assert [comparable(b) for b in assembled(first)] == [comparable(b) for b in first_message["content"]]
    tool_uses = [b for b in first_message["content"] if b["type"] == "tool_use"]
    assert [b["name"] for b in tool_uses] == ["Write", "Grep", "LS"]
    assert tool_uses[0]["input"] == {"file_path": "notes/new.txt", "content": 'line one\nline "two"\n'}
    assert tool_uses[1]["input"]["-i"] is True
    pieces = [e for e in first if e["type"] == "content_block_delta" and e["index"] == first_message["content"].index(tool_uses[0])]
    assert len(pieces) > 1, "the arguments arrive in pieces, not whole"
    starts = [e for e in first if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use"]
    assert all(e["content_block"]["input"] == {} for e in starts)
    assert assembled(second) == second_message["content"]
    session = next((tmp_path / "home").rglob("session.jsonl")).read_text()
    assert "tool_input" not in session and "partial_json" not in session and "input_json_delta" not in session
    assert (workspace / "notes" / "new.txt").read_text() == 'line one\nline "two"\n'


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_the_pieces_stay_out_of_the_text_and_json_formats(output_format: str, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "notes").mkdir(parents=True)
    with fake_server("anthropic", [Reply(text="Writing.", calls=(WRITE,)), Reply(text="Done.")]) as server:
        proc = run_cli(
            ["-p", "go", "--output-format", output_format, "--permission-mode", "acceptEdits"], workspace, cli_env("anthropic", server.url, tmp_path / "home")
        )
    assert proc.returncode == 0, proc.stderr
    assert "tool_input" not in proc.stdout and "partial_json" not in proc.stdout and "notes/new.txt" not in proc.stdout
    assert proc.stdout.strip().endswith("Done.") or json.loads(proc.stdout)["result"] == "Done."


def test_the_events_format_shows_the_pieces_as_events(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "notes").mkdir(parents=True)
    with fake_server("openai", [Reply(text="Writing.", calls=(WRITE,)), Reply(text="Done.")]) as server:
        proc = run_cli(
            ["-p", "go", "--output-format", "events", "--permission-mode", "acceptEdits"], workspace, cli_env("openai", server.url, tmp_path / "home")
        )
    assert proc.returncode == 0, proc.stderr
    lines = json_lines(proc.stdout)
    [start] = [line for line in lines if line["type"] == "tool_input_start"]
    deltas = [line for line in lines if line["type"] == "tool_input_delta"]
    message = next(line for line in lines if line["type"] == "assistant_message")
    assert start["name"] == "write_file" and start["index"] == 0 and len(deltas) > 1
    assert "".join(d["fragment"] for d in deltas) == message["tool_calls"][0]["arguments"] == WRITE.arguments
    order = [line["type"] for line in lines]
    assert order.index("tool_input_start") < order.index("tool_input_delta") < order.index("assistant_message")
