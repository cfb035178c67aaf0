"""What every end-to-end test needs: a fake provider server, the CLI's environment, a CLI run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

KEYS = {"anthropic": "sk-ant-test-secret-123", "openai": "sk-test-secret-456"}
MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4.1"}


def fake_server(kind: str, script: Any, **kwargs: Any) -> Any:
    """The wire-level fake of ``kind`` ("anthropic" or "openai") playing ``script``."""
    if kind == "anthropic":
        from tests.fakes.anthropic_server import FakeAnthropicServer

        return FakeAnthropicServer(script, **kwargs)
    from tests.fakes.openai_server import FakeOpenAIServer

    return FakeOpenAIServer(script, **kwargs)


def cli_env(kind: str, url: str, home: Path) -> dict[str, str]:
    """This process's environment without real keys, pointed at a fake server, with its own home."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    prefix = kind.upper()
    env.update({f"{prefix}_API_KEY": KEYS[kind], f"{prefix}_BASE_URL": url, "PSEUDOCLAUDE_MODEL": MODELS[kind], "PSEUDOCLAUDE_HOME": str(home)})
    return env


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pseudoclaude", *args]


def run_cli(args: list[str], workspace: Path, env: dict[str, str], stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli_command(*args), cwd=workspace, env=env, input=stdin, capture_output=True, text=True, timeout=timeout)


def json_lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def repository_with_fake_git(tmp_path: Path, body: str) -> tuple[Path, Path]:
    """(a workspace with a ``.git`` folder, a folder holding a ``git`` that runs the shell ``body``): put the folder first
    on PATH to stand for git where the CLI asks it for the branch."""
    workspace, folder = tmp_path / "ws", tmp_path / "bin"
    (workspace / ".git").mkdir(parents=True)
    folder.mkdir()
    (folder / "git").write_text("#!/bin/sh\n" + body)
    (folder / "git").chmod(0o755)
    return workspace, folder
