"""The native context engine as a headless user meets it, against the wire-level fake Anthropic server.

The request carries ``context_management`` and its beta headers only for models that take them (the table says
which); a compaction the server makes is kept, sent back first and byte for byte, with the pinned block after it,
and a resumed session sends the same block; a refusal is retried once without the feature; no summary request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import pytest

from pseudoclaude.compact.summarize import SUMMARY_SECTIONS
from pseudoclaude.llm import model_info
from tests.e2e.support import cli_env, fake_server, json_lines, run_cli
from tests.fakes.anthropic_context_rules import COMPACT, COMPACT_BETA, EDITING_BETA, betas, compaction_signature
from tests.fakes.script import Call, Reply, Step, is_summary_request

pytestmark = pytest.mark.slow

COMPACTING = "claude-sonnet-4-6"
PLAIN = "claude-3-5-sonnet-latest"
RULE = "never touch setup.py"


def _models_by_support() -> tuple[str, str]:
    """(a model the table says takes compaction, one it says takes none): the test's own expectations come from the table."""
    compacting, plain = model_info(COMPACTING), model_info(PLAIN)
    assert compacting is not None and COMPACT in compacting.context_management
    assert plain is not None and not plain.context_management
    return COMPACTING, PLAIN


def _run(args: list[str], ws: Path, env: dict[str, str], model: str, engine: str = "native") -> Any:
    *flags, prompt = args
    return run_cli([*flags, "-p", prompt, "--model", model, "--context-engine", engine, "--permission-mode", "bypass", "--output-format", "events"], ws, env)


@pytest.mark.parametrize("engine", ["native", "pipeline"])
def test_the_edits_and_their_beta_headers_go_only_to_models_that_take_them(engine: str, tmp_path: Path) -> None:
    compacting, plain = _models_by_support()
    ws = tmp_path / "ws"
    ws.mkdir()
    with fake_server("anthropic", [Reply(text="one"), Reply(text="two")]) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        assert _run(["hello"], ws, env, compacting, engine).returncode == 0
        assert _run(["hello"], ws, env, plain, engine).returncode == 0
        assert server.rejections == []
        native, other = server.requests
        native_betas, other_betas = betas(server.headers[0]), betas(server.headers[1])
    assert "context_management" not in other and not other_betas & {EDITING_BETA, COMPACT_BETA}
    if engine == "pipeline":
        assert "context_management" not in native and not native_betas & {EDITING_BETA, COMPACT_BETA}
        return
    edits = {edit["type"]: edit for edit in native["context_management"]["edits"]}
    supported = model_info(compacting)
    assert supported is not None and set(edits) <= set(supported.context_management)
    assert "clear_thinking_20251015" not in edits, "the request does not think"
    assert {EDITING_BETA, COMPACT_BETA} <= native_betas
    compact = edits[COMPACT]
    assert SUMMARY_SECTIONS.splitlines()[0] in compact["instructions"] and "pinned block" in compact["instructions"]
    clear = edits["clear_tool_uses_20250919"]
    assert clear["clear_at_least"]["value"] > 0 and clear["trigger"]["value"] < compact["trigger"]["value"]


class Compacting:
    """Request 1 is scripted at 170k tokens (over the trigger): the server compacts; the model reads a file, then answers."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, body: Mapping[str, Any]) -> Step:
        self.calls += 1
        if self.calls == 1:
            return Reply(text="Reading the parser.", calls=(Call("read_file", json.dumps({"path": "parser.py"})),), input_tokens=170_000)
        return Reply(text=f"done {self.calls}")


def test_a_compaction_is_kept_sent_back_verbatim_with_the_pinned_block_and_survives_a_resume(tmp_path: Path) -> None:
    compacting, _ = _models_by_support()
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "parser.py").write_text("def parse(text):\n    return text.split()\n")
    with fake_server("anthropic", Compacting()) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        first = _run([f"fix the parser, {RULE}"], ws, env, compacting)
        assert first.returncode == 0, first.stderr
        resumed = _run(["--continue", "and the lexer"], ws, env, compacting)
        assert resumed.returncode == 0, resumed.stderr
        assert server.rejections == []
        requests = server.requests
        made = server.applied[0].compaction
    assert made is not None and len(requests) == 3
    assert not any(is_summary_request(body) for body in requests), "no summary request of our own"
    after, on_resume = requests[1]["messages"], requests[2]["messages"]
    sent = after[0]["content"][0]
    assert after[0]["role"] == "assistant" and {k: sent[k] for k in ("type", "content", "signature")} == made
    assert sent["signature"] == compaction_signature(sent["content"])
    assert json.dumps(on_resume[0]["content"][0]) == json.dumps(sent), "a resume sends the same block"
    pinned = [b["text"] for b in after[1]["content"] if b.get("type") == "text"]
    assert pinned and RULE in pinned[0] and "parser.py" in pinned[0], "the pinned block follows the compacting turn"
    assert [b["type"] for b in after[1]["content"]][0] == "tool_result"
    events = json_lines(first.stdout)
    assert any(e["type"] == "progress" and e["kind"] == "compact" and e["data"].get("engine") == "native" for e in events)


def test_a_provider_compaction_is_one_compact_boundary_in_stream_json(tmp_path: Path) -> None:
    compacting, _ = _models_by_support()
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "parser.py").write_text("def parse(text):\n    return text.split()\n")
    with fake_server("anthropic", Compacting()) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        flags = ["--model", compacting, "--context-engine", "native", "--permission-mode", "bypass", "--output-format", "stream-json", "--verbose"]
        done = run_cli(["-p", f"fix the parser, {RULE}", *flags], ws, env)
        assert done.returncode == 0, done.stderr
        assert server.applied[0].compaction is not None
    boundaries = [line for line in json_lines(done.stdout) if line.get("subtype") == "compact_boundary"]
    assert len(boundaries) == 1, boundaries
    assert boundaries[0]["compact_metadata"]["trigger"] == "auto" and boundaries[0]["compact_metadata"]["pre_tokens"] > 0


def test_a_refusal_is_retried_once_without_it_and_the_session_falls_back(tmp_path: Path) -> None:
    compacting, _ = _models_by_support()
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "parser.py").write_text("x = 1\n")
    script = [Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "parser.py"})),)), Reply(text="done")]
    with fake_server("anthropic", script, refuse_context_management=True) as server:
        proc = _run(["look"], ws, cli_env("anthropic", server.url, tmp_path / "home"), compacting)
        assert proc.returncode == 0, proc.stderr
        assert len(server.rejections) == 1 and "anthropic-beta" in server.rejections[0][1]
        asked = ["context_management" in body for body in server.requests]
    assert asked == [True, False, False], "once with it, then never again"
    warnings = [e["message"] for e in json_lines(proc.stdout) if e["type"] == "progress" and e["kind"] == "warning"]
    assert sum("refused its context management" in w for w in warnings) == 1


class CompactingResponses:
    """The Responses API: request 1 is scripted over the threshold (the server compacts), the model reads, then answers."""

    def __init__(self, window: int) -> None:
        self.calls, self.window = 0, window

    def __call__(self, body: Mapping[str, Any]) -> Step:
        self.calls += 1
        if self.calls == 1:
            return Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "parser.py"})),), input_tokens=self.window - 1000)
        return Reply(text=f"done {self.calls}")


def test_openai_responses_compaction_item_is_kept_sent_back_first_and_survives_a_resume(tmp_path: Path) -> None:
    model = "gpt-5"
    info = model_info(model)
    assert info is not None and info.provider == "openai" and info.reasoning, "a model the table sends through the Responses API"
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "parser.py").write_text("x = 1\n")
    with fake_server("openai", CompactingResponses(info.context_window)) as server:
        env = {**cli_env("openai", server.url, tmp_path / "home"), "PSEUDOCLAUDE_OPENAI_API": "responses"}  # a base URL speaks Chat unless told
        first = _run([f"fix the parser, {RULE}"], ws, env, model)
        assert first.returncode == 0, first.stderr
        resumed = _run(["--continue", "and the lexer"], ws, env, model)
        assert resumed.returncode == 0, resumed.stderr
        requests = [body for body in server.requests if "input" in body]
    assert len(requests) == 3 and all(body["store"] is False for body in requests)
    threshold = requests[0]["context_management"][0]["compact_threshold"]
    assert 0 < threshold < info.context_window
    assert not any(is_summary_request({"messages": [{"content": body["input"][-1].get("content", "")}]}) for body in requests)
    after, on_resume = requests[1]["input"], requests[2]["input"]
    items = [item for item in after if item.get("type") == "compaction"]
    assert len(items) == 1 and set(items[0]) == {"type", "encrypted_content"}
    assert json.dumps([i for i in on_resume if i.get("type") == "compaction"]) == json.dumps(items), "a resume sends the same item"
    first_user = next(i for i in after if i.get("role") == "user")
    assert RULE in json.dumps(first_user), "the pinned block follows the compaction"
    assert not any(RULE in json.dumps(i) for i in after[: after.index(items[0])]), "nothing before the compaction is sent again"


def test_an_openai_gateway_that_does_not_know_the_parameter_is_asked_once(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "parser.py").write_text("x = 1\n")
    script = [Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "parser.py"})),)), Reply(text="done")]
    with fake_server("openai", script, refuse_context_management=True) as server:
        env = {**cli_env("openai", server.url, tmp_path / "home"), "PSEUDOCLAUDE_OPENAI_API": "responses"}
        proc = _run(["look"], ws, env, "gpt-5")
        assert proc.returncode == 0, proc.stderr
        asked = ["context_management" in body for body in server.requests if "input" in body]
        assert len(server.rejections) == 1 and "context_management" in server.rejections[0][1]
    assert asked == [True, False, False]


def test_the_models_endpoint_says_which_models_take_the_edits(tmp_path: Path) -> None:
    from tests.fakes.anthropic_models import model_entry

    strategies = ("clear_thinking_20251015", "clear_tool_uses_20250919", COMPACT)
    catalogue = [
        model_entry("claude-nova-9", max_input_tokens=200_000, max_tokens=64_000, thinking=("adaptive",), context_management=strategies),
        model_entry("claude-nova-1", max_input_tokens=200_000, max_tokens=64_000, thinking=("adaptive",), context_management=()),
    ]
    table = model_info("claude-nova-9")
    assert table is None or not table.context_management, "the table does not say it: only the endpoint can"
    ws = tmp_path / "ws"
    ws.mkdir()
    with fake_server("anthropic", [Reply(text="one"), Reply(text="two")], models=catalogue) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        assert _run(["hello"], ws, env, "claude-nova-9").returncode == 0
        assert _run(["hello"], ws, env, "claude-nova-1").returncode == 0
        assert server.rejections == []
        sent = [("context_management" in body, bool(betas(headers))) for body, headers in zip(server.requests, server.headers)]
    assert sent == [(True, True), (False, False)]
