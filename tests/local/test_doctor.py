"""``pseudoclaude doctor``: one line per check, exit 1 when one fails, no tokens spent."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from tests.e2e.support import run_cli
from tests.fakes.local_servers import FakeLocalServer


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL")) and not k.startswith("PSEUDOCLAUDE_")}
    return {**env, "PSEUDOCLAUDE_HOME": str(tmp_path / "home"), **extra}


def test_a_working_ollama_setup(tmp_path: Path) -> None:
    with FakeLocalServer("ollama", model="qwen2.5-coder:7b", window=32_768, loaded=True, model_window=32_768) as server:
        out = run_cli(["doctor", "--model", "qwen2.5-coder:7b"], tmp_path, _env(tmp_path, OPENAI_BASE_URL=server.url))
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stdout
    assert [line.split()[:2] for line in lines] == [
        ["ok", "provider"], ["ok", "key"], ["ok", "endpoint"], ["ok", "model"], ["ok", "window"], ["ok", "tools"], ["ok", "tokenizer"]
    ]
    assert "32,768 tokens (Ollama /api/ps (the loaded model))" in lines[4]
    assert not server.requests  # no model request: no tokens spent


def test_a_missing_model_and_ollamas_small_default_are_named(tmp_path: Path) -> None:
    with FakeLocalServer("ollama", model="qwen2.5-coder:7b", window=4096, model_window=32_768) as server:
        out = run_cli(["doctor", "--model", "llama3"], tmp_path, _env(tmp_path, OPENAI_BASE_URL=server.url))
    assert out.returncode == 1
    assert "FAIL  model      llama3 is not among the models the endpoint lists (qwen2.5-coder:7b)" in out.stdout


def test_an_unreachable_server_fails_and_says_where(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    out = run_cli(["doctor", "--model", "m"], tmp_path, _env(tmp_path, OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1"))
    assert out.returncode == 1
    assert f"FAIL  endpoint   http://127.0.0.1:{port}/v1/models does not answer" in out.stdout
    assert len(out.stdout.splitlines()) == 7


def test_nothing_configured_fails_on_the_first_line(tmp_path: Path) -> None:
    out = run_cli(["doctor"], tmp_path, _env(tmp_path))
    assert out.returncode == 1
    assert out.stdout.splitlines()[0].startswith("FAIL  provider   no model provider is configured")
