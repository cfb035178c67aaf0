"""The permission policy as a headless user meets it without a sandbox, through the real CLI (with one: tests/sandbox/test_approvals_cli.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow


def run_one_call(tmp_path: Path, call: Call, *flags: str) -> tuple[Any, dict[str, Any], Path]:
    """One call through the real CLI with no sandbox (``--sandbox off``): these are the rules without one."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("a\nb\nc\n")
    with fake_server("anthropic", [Reply(text="Trying.", calls=(call,)), Reply(text="Done.")]) as server:
        proc = run_cli(["-p", "do it", "--output-format", "json", "--sandbox", "off", *flags], ws, cli_env("anthropic", server.url, tmp_path / "home"))
        assert server.rejections == []
        second = server.requests[1]
    results = [b for m in second["messages"] if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"]
    assert proc.returncode == 0, proc.stderr
    return results[-1], json.loads(proc.stdout), ws


def text_of(result: dict[str, Any]) -> str:
    content = result.get("content", "")
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def test_headless_default_mode_denies_a_command_and_says_how_to_allow_it(tmp_path: Path) -> None:
    result, summary, ws = run_one_call(tmp_path, Call("run_command", json.dumps({"command": "touch made-by-agent"})))
    assert result.get("is_error") is True
    assert "--permission-mode" in text_of(result) and "--allowed-tools" in text_of(result)
    assert not (ws / "made-by-agent").exists()
    assert summary["result"] == "Done."


def test_an_allowed_tools_rule_lets_exactly_that_command_run(tmp_path: Path) -> None:
    result, _, _ = run_one_call(tmp_path, Call("run_command", json.dumps({"command": "wc -l notes.txt"})), "--allowed-tools", "run_command(wc:*)")
    assert not result.get("is_error") and "3 notes.txt" in text_of(result)


def test_an_allow_rule_does_not_cover_a_chained_command(tmp_path: Path) -> None:
    result, _, ws = run_one_call(
        tmp_path, Call("run_command", json.dumps({"command": "wc -l notes.txt && touch sneaky"})), "--allowed-tools", "run_command(wc:*)"
    )
    assert result.get("is_error") is True and not (ws / "sneaky").exists()


def test_plan_mode_refuses_writes_and_tells_the_model_to_plan(tmp_path: Path) -> None:
    result, _, ws = run_one_call(tmp_path, Call("write_file", json.dumps({"path": "new.txt", "content": "x"})), "--permission-mode", "plan")
    assert result.get("is_error") is True and "plan" in text_of(result).lower()
    assert not (ws / "new.txt").exists()


def test_bypass_still_refuses_the_hard_deny_list(tmp_path: Path) -> None:
    result, _, _ = run_one_call(
        tmp_path, Call("run_command", json.dumps({"command": "echo hi; sudo rm -rf --no-preserve-root /"})), "--dangerously-skip-permissions"
    )
    assert result.get("is_error") is True and "rm" in text_of(result)


def test_the_sandbox_holds_in_bypass_mode(tmp_path: Path) -> None:
    result, _, _ = run_one_call(tmp_path, Call("read_file", json.dumps({"path": "../../../../etc/passwd"})), "--permission-mode", "bypass")
    assert result.get("is_error") is True and "root:" not in text_of(result)


def test_headless_default_mode_runs_a_read_only_command_and_refuses_its_writing_look_alike(tmp_path: Path) -> None:
    result, _, _ = run_one_call(tmp_path, Call("run_command", json.dumps({"command": "wc -l notes.txt | cat"})))
    assert not result.get("is_error") and "3 notes.txt" in text_of(result)
    result, _, ws = run_one_call(_fresh(tmp_path / "again"), Call("run_command", json.dumps({"command": "ls > listing.txt"})))
    assert result.get("is_error") is True and not (ws / "listing.txt").exists()


def test_a_prefix_rule_does_not_run_a_hidden_substitution(tmp_path: Path) -> None:
    result, _, ws = run_one_call(tmp_path, Call("run_command", json.dumps({"command": "echo ${X:-$(touch C)}"})), "--allowed-tools", "run_command(echo:*)")
    assert result.get("is_error") is True and not (ws / "C").exists()


@pytest.mark.parametrize("path", [".git/hooks/pre-commit", ".pseudoclaude/settings.local.json"])
def test_accept_edits_does_not_write_a_protected_path_headless(tmp_path: Path, path: str) -> None:
    result, _, ws = run_one_call(
        tmp_path, Call("write_file", json.dumps({"path": path, "content": "#!/bin/sh\ntouch pwned\n"})), "--permission-mode", "accept-edits"
    )
    assert result.get("is_error") is True and "protected" in text_of(result)
    assert not (ws / path).exists()


def _fresh(path: Path) -> Path:
    path.mkdir()
    return path
