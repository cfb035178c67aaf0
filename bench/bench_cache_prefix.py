"""Prompt-cache prefix stability over a scripted 50-turn session.

``python bench/bench_cache_prefix.py``

Runs the real CLI against the fake Anthropic and OpenAI servers for 50 tool
turns (with Layer 1 offloads along the way, no summary) and prints, for each
request after the first, the share of the previous request that is an exact
prefix of it, in the order the provider reads a prompt (tools, system,
messages), with cache markers removed. A provider's prompt cache only hits on
an identical prefix, so anything below 100% on a turn without a summary is
cache lost. Target: at least 99% on every such turn.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.anthropic_server import FakeAnthropicServer  # noqa: E402
from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402
from tests.fakes.script import Call, Reply, Step  # noqa: E402

TURNS = 50


def responder(body: Mapping[str, Any], state: dict[str, int] = {}) -> Step:
    index = state.setdefault("n", 0)
    state["n"] = index + 1
    if index < TURNS:
        name = "big.txt" if index % 10 == 5 else f"f{index % 7}.txt"
        return Reply(text=f"Step {index}.", calls=(Call("read_file", json.dumps({"path": name})),))
    return Reply(text="Done.")


def strip_markers(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_markers(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_markers(v) for v in value]
    return value


def prompt_order(body: Mapping[str, Any]) -> str:
    """The prompt as the provider reads it: tools, system, then messages, one JSON piece each."""
    body = strip_markers(body)
    pieces = [json.dumps(tool, sort_keys=True) for tool in body.get("tools", [])]
    system = body.get("system", [])
    pieces += [json.dumps(block, sort_keys=True) for block in (system if isinstance(system, list) else [system])]
    for message in body.get("messages", []):
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        pieces.append(message.get("role", ""))
        pieces += [json.dumps(block, sort_keys=True) for block in blocks]
        pieces += [json.dumps(call, sort_keys=True) for call in message.get("tool_calls", []) or []]
    return "\x00".join(pieces)


def common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    low, high = 0, n
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def run(kind: str) -> list[float]:
    state: dict[str, int] = {}
    server_cls = FakeAnthropicServer if kind == "anthropic" else FakeOpenAIServer
    with tempfile.TemporaryDirectory() as tmp, server_cls(lambda body: responder(body, state)) as server:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        for n in range(7):
            (ws / f"f{n}.txt").write_text("".join(f"file {n} line {i}\n" for i in range(60)))
        (ws / "big.txt").write_text("".join(f"{i:05d} " + "y" * 70 + "\n" for i in range(900)))
        env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
        if kind == "anthropic":
            env.update(ANTHROPIC_API_KEY="bench", ANTHROPIC_BASE_URL=server.url, PSEUDOCLAUDE_MODEL="claude-sonnet-4-5")
        else:
            env.update(OPENAI_API_KEY="bench", OPENAI_BASE_URL=server.url, PSEUDOCLAUDE_MODEL="gpt-4.1")
        env["PSEUDOCLAUDE_HOME"] = str(Path(tmp) / "home")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pseudoclaude",
                "-p",
                "Read files.",
                "--max-turns",
                str(TURNS + 5),
                "--permission-mode",
                "bypass",
                "--context-window",
                "100000",
            ],
            cwd=ws,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        bodies = [prompt_order(body) for body in server.requests]
    return [common_prefix(prev, cur) / len(prev) for prev, cur in zip(bodies, bodies[1:])]


def main() -> None:
    for kind in ("anthropic", "openai"):
        shares = run(kind)
        worst = min(shares)
        print(
            f"{kind:9} {len(shares) + 1} requests: prefix kept median {statistics.median(shares):.2%}, "
            f"worst {worst:.2%}, turns under 99%: {sum(s < 0.99 for s in shares)}"
        )


if __name__ == "__main__":
    main()
