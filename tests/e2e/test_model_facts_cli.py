"""Through the CLI: the models endpoint's facts reach the wire and the reports, and the next run reads them from the home."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.support import cli_env, json_lines, run_cli
from tests.fakes.anthropic_models import model_entry
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Reply

MODEL = "claude-opus-4-6"  # the table: 200,000 tokens, 128,000 out, adaptive thinking
ARGS = ["--model", MODEL, "--effort", "high", "--output-format", "stream-json", "--verbose"]


def _context_window(stdout: str) -> int:
    return int(json_lines(stdout)[-1]["modelUsage"][MODEL]["contextWindow"])


def test_the_endpoints_window_and_output_limit_reach_the_run_and_the_next_run_reads_the_cache(tmp_path: Path) -> None:
    entry = model_entry(MODEL, max_input_tokens=1_000_000, max_tokens=20_000, thinking=("adaptive", "enabled"))
    with FakeAnthropicServer([Reply(text="One."), Reply(text="Two.")], models=(entry,)) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        first = run_cli(["-p", "hi", *ARGS], tmp_path, env)
        second = run_cli(["-p", "again", *ARGS], tmp_path, env)
        lookups = len(server.models.lookups)  # type: ignore[union-attr]
        sent = [body["max_tokens"] for body in server.requests]
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert (_context_window(first.stdout), _context_window(second.stdout)) == (1_000_000, 1_000_000)
    assert sent == [20_000, 20_000]  # the thinking request is capped at the endpoint's max_tokens
    assert lookups == 1  # the second run found the answer in the home
    assert list(json.loads((tmp_path / "home" / "model-facts.json").read_text())) == [f"{server.url} {MODEL}"]


def test_without_the_models_endpoint_the_table_answers(tmp_path: Path) -> None:
    with FakeAnthropicServer([Reply(text="One.")]) as server:
        done = run_cli(["-p", "hi", *ARGS], tmp_path, cli_env("anthropic", server.url, tmp_path / "home"))
        sent = server.requests[0]["max_tokens"]
    assert done.returncode == 0, done.stderr
    assert _context_window(done.stdout) == 200_000
    assert sent > 20_000  # the table's 128,000-token limit leaves room for the whole thinking budget
