"""``recall`` in a real session: built by ``build_agent`` against the fake Anthropic server, two ``/compact``s, then searched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.agent.facade import Agent
from tests.agent.test_facade import drain, play
from tests.fakes.script import Call, Reply, Step, is_summary_request

MARKER = "ZEBRA-7731: the off-by-one is in add_range"
MIDDLE = "QUOKKA-4412 found in the middle of the output"
COMMAND = "python3 -c \"import sys; [print(f'PASSED test_{i}' if i != 6000 else 'QUOKKA-4412 found in the middle of the output') for i in range(12000)]\""


def results_in(body: Mapping[str, Any]) -> list[str]:
    return [
        block["content"] if isinstance(block.get("content"), str) else json.dumps(block.get("content"), ensure_ascii=False)
        for message in body.get("messages", [])
        for block in (message.get("content") if isinstance(message.get("content"), list) else [])
        if block.get("type") == "tool_result"
    ]


def test_recall_finds_tool_results_from_before_two_compactions_by_text_and_by_path(tmp_path: Path) -> None:
    (tmp_path / "ws" / "src").mkdir(parents=True)
    (tmp_path / "ws" / "src" / "calc.py").write_text("def add_range(a, b):\n    # " + MARKER + "\n    return sum(range(a, b))\n")
    plan: list[Step] = [
        Reply(calls=(Call("read_file", json.dumps({"path": "src/calc.py"})),)),
        Reply(calls=(Call("run_command", json.dumps({"command": COMMAND})),)),
        Reply(text="Read it."),
        *[Reply(text=f"Filler answer {n}, a long explanation of the topic. " * 80) for n in range(8)],
        Reply(
            calls=(
                Call("recall", json.dumps({"query": "zebra-7731"})),
                Call("recall", json.dumps({"path": "src/calc.py"})),
                Call("recall", json.dumps({"query": "QUOKKA-\\d+", "regex": True})),
            )
        ),
        Reply(text="Found it again."),
    ]

    def responder(body: Mapping[str, Any]) -> Step:
        if is_summary_request(body):
            return Reply(text="<summary>We looked at a file and ran the tests.</summary>")
        return plan.pop(0)

    async def scenario(agent: Agent) -> None:
        await drain(agent.run("Find the bug in src/calc.py"))
        for n in range(4):
            await drain(agent.run(f"more {n}"))
        await drain(agent.compact())
        for n in range(4):
            await drain(agent.run(f"again {n}"))
        await drain(agent.compact())
        await drain(agent.run("What did the file say?"))

    _, requests = play(tmp_path, responder, scenario, permission_mode="bypass", context_window=16_000)
    working = [body for body in requests if not is_summary_request(body)]
    after_recall = working[-1]
    assert sum(map(is_summary_request, requests)) == 2
    by_text, by_path, in_spill = results_in(after_recall)[-3:]
    assert MARKER in by_text and "before compaction 1" in by_text and "result of read_file" in by_text
    assert MARKER in by_path and '"path": "src/calc.py"' in by_path and "run_command" not in by_path
    assert MIDDLE in in_spill and "result of run_command" in in_spill
    assert not any(MIDDLE in result for result in results_in(working[2]))


def test_recall_reads_complete_outputs_only_from_the_sessions_own_spill_folder(tmp_path: Path) -> None:
    """A path recorded in a session file is data: it must not make recall read a file outside the session."""
    from pseudoclaude.agent.history import SessionHistory
    from pseudoclaude.llm import Message, ToolCall
    from pseudoclaude.session import create_session

    secret = tmp_path / "secret.txt"
    secret.write_text("the user's private key " * 100)
    session = create_session(tmp_path / "sessions", tmp_path, model="m", provider="anthropic")
    inside = session.write_spill("c2", "the complete output " * 100)
    session.append_message(Message.user("go"))
    session.append_message(Message.assistant("", [ToolCall("c1", "run_command", '{"command": "cat x"}'), ToolCall("c2", "run_command", '{"command": "make"}')]))
    session.append_message(Message.tool("c1", "short", full_output=str(secret)))
    session.append_message(Message.tool("c2", "short", full_output=str(inside)))
    session.append_compaction(summary="s", messages=[Message.user("summary")], trigger="manual", before_tokens=10, after_tokens=5)
    session.close()
    texts = [m.text for m in SessionHistory(session.jsonl_path, session.spill_dir).summarized()]
    assert not any("private key" in text for text in texts)
    assert any("the complete output" in text for text in texts)
