"""A resumed session keeps what it read and the effort it chose: the real CLI against the fake Anthropic server.

The first run reads ``src/shop/cart.py``; ``--continue`` then edits it with no
read in between. The read-first rule still holds across the processes: a file
changed on disk since the read is refused with the re-read message, and a
session recorded before format 1.6 (no stamps) asks for the read as it always did.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply, Step

pytestmark = pytest.mark.slow

ORIGINAL = "def total(items):\n    return sum(items)\n"
EDIT = json.dumps({"path": "src/shop/cart.py", "old_string": "sum(items)", "new_string": "sum(items) + 0"})


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src" / "shop").mkdir(parents=True)
    (ws / "src" / "shop" / "cart.py").write_text(ORIGINAL)
    return ws


def read_then_edit() -> list[Step]:
    return [
        Reply(text="Reading.", calls=(Call("read_file", json.dumps({"path": "src/shop/cart.py"})),)),
        Reply(text="Read it."),
        Reply(text="Editing.", calls=(Call("edit_file", EDIT),)),
        Reply(text="Edited."),
    ]


def last_tool_result(request: dict[str, Any]) -> dict[str, Any]:
    results = [
        block for message in request["messages"] if isinstance(message["content"], list) for block in message["content"] if block.get("type") == "tool_result"
    ]
    return results[-1]


def result_text(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def session_file(home: Path) -> Path:
    [path] = list((home / "sessions").rglob("session.jsonl"))
    return path


def resume_and_edit(tmp_path: Path, between: Any = None) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    """Read in one process, run ``between(ws, home)``, edit after ``--continue``: the workspace, the edit's result, every request."""
    ws, home = workspace(tmp_path), tmp_path / "home"
    with fake_server("anthropic", read_then_edit()) as server:
        env = cli_env("anthropic", server.url, home)
        first = run_cli(["-p", "read the cart"], ws, env)
        assert first.returncode == 0, first.stderr
        if between is not None:
            between(ws, home)
        second = run_cli(["--continue", "-p", "now edit it", "--permission-mode", "accept-edits"], ws, env)
        assert second.returncode == 0, second.stderr
        requests = list(server.requests)
    assert len(requests) == 4, "one model round per step: no extra read"
    return ws, last_tool_result(requests[3]), requests


def test_an_edit_after_continue_of_a_file_read_in_the_first_run_needs_no_read(tmp_path: Path) -> None:
    ws, result, _ = resume_and_edit(tmp_path)
    assert not result.get("is_error"), result_text(result)
    assert (ws / "src" / "shop" / "cart.py").read_text() == ORIGINAL.replace("sum(items)", "sum(items) + 0")
    kinds = [json.loads(line)["type"] for line in session_file(tmp_path / "home").read_text().splitlines()]
    assert kinds.count("file_stamp") == 2, "the read, then the edit's own stamp"


def test_a_file_changed_on_disk_since_the_read_is_still_refused_after_continue(tmp_path: Path) -> None:
    def change(ws: Path, home: Path) -> None:
        (ws / "src" / "shop" / "cart.py").write_text(ORIGINAL + "# changed by the user\n")

    ws, result, _ = resume_and_edit(tmp_path, change)
    assert result.get("is_error") and "has changed on disk since you read it" in result_text(result)
    assert (ws / "src" / "shop" / "cart.py").read_text().endswith("# changed by the user\n")


def test_a_session_recorded_before_the_stamps_resumes_and_asks_for_the_read(tmp_path: Path) -> None:
    def make_old(ws: Path, home: Path) -> None:
        path = session_file(home)
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        old = [{**entry, "version": "1.5"} for entry in lines if entry["type"] not in ("file_stamp", "effort", "mode")]
        path.write_text("".join(json.dumps(entry) + "\n" for entry in old))

    ws, result, requests = resume_and_edit(tmp_path, make_old)
    assert result.get("is_error") and "has not been read in this session" in result_text(result)
    assert "Read it." in json.dumps(requests[2]["messages"]), "the conversation itself resumed"
    assert (ws / "src" / "shop" / "cart.py").read_text() == ORIGINAL


def test_the_effort_chosen_survives_continue(tmp_path: Path) -> None:
    ws, home = workspace(tmp_path), tmp_path / "home"
    model = "claude-opus-4-5"
    with fake_server("anthropic", [Reply(text="one"), Reply(text="two")]) as server:
        env = cli_env("anthropic", server.url, home)
        assert run_cli(["-p", "hi", "--model", model, "--effort", "high"], ws, env).returncode == 0
        assert run_cli(["--continue", "-p", "again", "--model", model], ws, env).returncode == 0
        first, resumed = (request.get("thinking") for request in server.requests)
    assert first == {"type": "enabled", "budget_tokens": 32_000}
    assert resumed == first, "the resumed run asks for the same thinking"
