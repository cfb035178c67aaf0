"""``pseudoclaude doctor``: one line per check, exit 1 when one fails, no tokens spent."""

from __future__ import annotations

import os
from pathlib import Path

from tests.e2e.support import run_cli
from tests.fakes.local_servers import FakeLocalServer
from tests.fakes.ports import refusing_port


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL")) and not k.startswith("PSEUDOCLAUDE_")}
    return {**env, "PSEUDOCLAUDE_HOME": str(tmp_path / "home"), **extra}


def test_a_working_ollama_setup(tmp_path: Path) -> None:
    with FakeLocalServer("ollama", model="qwen2.5-coder:7b", window=32_768, loaded=True, model_window=32_768) as server:
        out = run_cli(["doctor", "--model", "qwen2.5-coder:7b"], tmp_path, _env(tmp_path, OPENAI_BASE_URL=server.url))
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stdout
    assert [line.split()[:2] for line in lines] == [
        ["ok", "provider"],
        ["ok", "key"],
        ["ok", "endpoint"],
        ["ok", "model"],
        ["ok", "window"],
        ["ok", "facts"],
        ["ok", "tools"],
        ["ok", "tokenizer"],
        ["ok", "sandbox"],
        ["ok", "settings"],
    ]
    assert "32,768 tokens (Ollama /api/ps (the loaded model))" in lines[4]
    assert not server.requests  # no model request: no tokens spent


def test_a_missing_model_and_ollamas_small_default_are_named(tmp_path: Path) -> None:
    with FakeLocalServer("ollama", model="qwen2.5-coder:7b", window=4096, model_window=32_768) as server:
        out = run_cli(["doctor", "--model", "llama3"], tmp_path, _env(tmp_path, OPENAI_BASE_URL=server.url))
    assert out.returncode == 1
    assert "FAIL  model      llama3 is not among the models the endpoint lists (qwen2.5-coder:7b)" in out.stdout


def test_an_unreachable_server_fails_and_says_where(tmp_path: Path) -> None:
    with refusing_port() as port:
        out = run_cli(["doctor", "--model", "m"], tmp_path, _env(tmp_path, OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1"))
    assert out.returncode == 1
    assert f"FAIL  endpoint   http://127.0.0.1:{port}/v1/models does not answer" in out.stdout
    assert len(out.stdout.splitlines()) == 10


def test_nothing_configured_fails_on_the_first_line(tmp_path: Path) -> None:
    out = run_cli(["doctor"], tmp_path, _env(tmp_path))
    assert out.returncode == 1
    assert out.stdout.splitlines()[0].startswith("FAIL  provider   no model provider is configured")


def test_the_sandbox_line_names_kind_mode_and_network(tmp_path: Path) -> None:
    """The sandbox is probed as a session would probe it; this machine (and CI) has a working bubblewrap."""
    from pseudoclaude.sandbox import SandboxConfig, detect_sandbox

    sandbox, _ = detect_sandbox(SandboxConfig(), tmp_path)
    out = run_cli(["doctor"], tmp_path, _env(tmp_path))
    last = out.stdout.splitlines()[-1]
    if sandbox is None:
        assert last.startswith("warn  sandbox    none: "), last
    else:
        assert last == "ok    sandbox    bubblewrap · workspace-write · network off", last
    off = run_cli(["doctor", "--sandbox", "off"], tmp_path, _env(tmp_path)).stdout.splitlines()[-1]
    assert off.startswith("ok    sandbox    none: off"), off
    read_only = run_cli(["doctor", "--sandbox", "read-only"], tmp_path, _env(tmp_path)).stdout.splitlines()[-1]
    assert sandbox is None or read_only == "ok    sandbox    bubblewrap · read-only · network off", read_only
