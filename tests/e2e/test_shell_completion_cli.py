"""``--model`` Tab completion in the shell, through the real process: typer's protocol, and bash running the script
``--show-completion`` prints. The expected ids come from the table ``/model`` falls back to, filtered by prefix."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pseudoclaude.llm import PROVIDERS, table_model_ids
from tests.e2e.support import cli_command

pytestmark = pytest.mark.slow


def _offline_env(home: Path) -> dict[str, str]:
    """No keys and no base URLs (completion must not need them, nor ask a service), an empty home."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL", "_AUTH_TOKEN"))}
    return {**env, "PSEUDOCLAUDE_HOME": str(home)}


def _expected(prefix: str) -> list[str]:
    return [model for model in table_model_ids() if model.startswith(prefix)]


@pytest.mark.parametrize(
    ("words", "cword", "prefix"),
    [("pseudoclaude --model cl", 2, "cl"), ("pseudoclaude -p hi -m gpt-5", 4, "gpt-5"), ("pseudoclaude --model ", 2, "")],
)
def test_the_completion_protocol_offers_the_tables_ids_by_prefix(words: str, cword: int, prefix: str, tmp_path: Path) -> None:
    env = {**_offline_env(tmp_path), "_PSEUDOCLAUDE_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
    done = subprocess.run(cli_command(), env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    offered = done.stdout.splitlines()
    assert offered == _expected(prefix) and offered, (words, offered)
    if not prefix:
        assert {entry.name for entry in PROVIDERS} == {"anthropic", "openai"} and any(m.startswith("gpt-") for m in offered)
        assert any(m.startswith("claude-") for m in offered), "every provider's ids, as /model lists them"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_running_the_shown_completion_script_completes_the_model(tmp_path: Path) -> None:
    env = {**_offline_env(tmp_path), "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}  # name the shell, not detect it
    shown = subprocess.run([*cli_command(), "--show-completion", "bash"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "_PSEUDOCLAUDE_COMPLETE=complete_bash" in shown.stdout, shown.stderr
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "pseudoclaude"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pseudoclaude "$@"\n')
    launcher.chmod(0o755)
    (tmp_path / "completion.bash").write_text(shown.stdout)
    session = (
        "source completion.bash\n"
        "COMP_WORDS=(pseudoclaude --model claude-s)\nCOMP_CWORD=2\n"
        '_pseudoclaude_completion pseudoclaude\nprintf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {**env, "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"}
    env.pop("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION")
    done = subprocess.run(["bash", "--norc", "--noprofile"], input=session, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == _expected("claude-s") != []
