"""Long sessions against local servers: the window learned from the server, and never an answer to a prompt it cut."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Mapping

from pseudoclaude.agent import Agent
from pseudoclaude.agent.build import build_agent
from pseudoclaude.config import Flags, load_settings
from tests.fakes.local_servers import FakeLocalServer, ReplyItem

MODEL = "qwen2.5-coder:7b"


def big_files(folder: Path, count: int, size: int = 12_000) -> None:
    for index in range(count):
        lines = [f"line {n} of file {index}: " + "lorem ipsum dolor sit amet " * 2 for n in range(size // 70)]
        (folder / f"big{index}.txt").write_text("\n".join(lines) + "\n")


def reader(files: int) -> Any:
    """Reads ``big0.txt``, ``big1.txt``... one per model request (a compaction forgets the count, the server does not), then answers."""
    asked = [0]

    def reply(body: Mapping[str, Any]) -> ReplyItem:
        index, asked[0] = asked[0], asked[0] + 1
        if index < files:
            return {"name": "read_file", "arguments": {"path": f"big{index}.txt"}}
        return "read them all"

    return reply


def agent_at(workspace: Path, server: FakeLocalServer, **flags: Any) -> Agent:
    env = {"OPENAI_BASE_URL": server.url, "PSEUDOCLAUDE_HOME": str(workspace / ".home")}
    return build_agent(load_settings(workspace, Flags(model=MODEL, provider="openai", permission_mode="bypass", **flags), environ=env))


def run(agent: Agent, prompt: str) -> list[Any]:
    async def go() -> list[Any]:
        try:
            return [event async for event in agent.run(prompt)]
        finally:
            await agent.aclose()

    return asyncio.run(go())


def test_a_32k_llamacpp_session_learns_the_window_from_props_and_never_exceeds_it(tmp_path: Path) -> None:
    big_files(tmp_path, 14)
    with FakeLocalServer("llamacpp", model=MODEL, window=32_768, replies=reader(14)) as server:
        agent = agent_at(tmp_path, server)
        events = run(agent, "read big0.txt to big13.txt")
        status = agent.status()
    assert (status.context_window, status.window_source) == (32_768, "llama.cpp /props n_ctx (per slot)")
    assert events[-1].reason == "end_turn" and events[-1].final_text == "read them all"
    assert max(server.sent) <= 32_768 and sum(server.sent) > 3 * 32_768  # the session needed more than one window
    assert "GET /props" in server.paths


def test_the_users_smaller_setting_wins_over_the_server(tmp_path: Path) -> None:
    with FakeLocalServer("vllm", model=MODEL, window=32_768, replies=["hi"]) as server:
        agent = agent_at(tmp_path, server, context_window=16_000)
        run(agent, "hello")
        status = agent.status()
    assert (status.context_window, status.window_source) == (16_000, "your setting")


def test_a_larger_server_window_replaces_the_default_for_an_unknown_model(tmp_path: Path) -> None:
    with FakeLocalServer("vllm", model=MODEL, window=200_000, replies=["hi"]) as server:
        agent = agent_at(tmp_path, server)
        run(agent, "hello")
        status = agent.status()
    assert (status.context_window, status.window_source) == (200_000, "vLLM /v1/models max_model_len")


def test_ollamas_default_window_is_told_once_with_how_to_raise_it(tmp_path: Path) -> None:
    with FakeLocalServer("ollama", model=MODEL, window=8192, num_ctx_parameter=8192, model_window=32_768, replies=["hi", "again"]) as server:
        agent = agent_at(tmp_path, server)

        async def go() -> list[Any]:
            try:
                return [e async for e in agent.run("hello")] + [e async for e in agent.run("more")]
            finally:
                await agent.aclose()

        events = asyncio.run(go())
    warnings = [e.message for e in events if getattr(e, "kind", None) == "warning"]
    assert len([w for w in warnings if "OLLAMA_CONTEXT_LENGTH" in w]) == 1


def test_ollama_cutting_the_front_silently_never_lets_the_session_go_on_with_what_it_did_not_see(tmp_path: Path) -> None:
    big_files(tmp_path, 8, size=6_000)
    # /api/show says num_ctx 32768, but the server runs 8192 (started with another OLLAMA_CONTEXT_LENGTH): only the
    # usage it reports shows the cut.
    with FakeLocalServer("ollama", model=MODEL, window=8192, num_ctx_parameter=32_768, model_window=32_768, replies=reader(8)) as server:
        agent = agent_at(tmp_path, server)
        events = run(agent, "read big0.txt to big7.txt")
        bodies = [json.dumps(body) for body in server.requests]
        truncated = list(server.truncated_answers)
        status = agent.status()
    assert truncated, "the session outgrew the window the server runs"
    for answer in truncated:  # no answer to a cut prompt ever reached the conversation
        assert not any(answer in body for body in bodies), (answer, truncated)
    notices = [e.message for e in events if getattr(e, "kind", None) == "overflow"]
    assert notices and "the server read only" in notices[0] and "dropped the front" in notices[0] and "compacting and retrying once" in notices[0]
    stop = events[-1]
    assert stop.reason in ("end_turn", "context_overflow")
    if stop.reason == "context_overflow":
        assert "window" in stop.message
    assert status.context_window <= 8192 and status.window_source == "a silently truncated prompt"
