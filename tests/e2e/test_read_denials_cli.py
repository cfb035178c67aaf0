"""A ``Read(**/.env)`` deny rule holds for the in-process tools through the real CLI: a scripted model
greps, globs, lists and reads its way around it, and the secret appears nowhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

SECRET = "CANARY-5f3c9e-do-not-leak"


def test_a_workspace_wide_grep_never_shows_a_denied_env_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "app").mkdir(parents=True)
    (ws / ".env").write_text(f"API_TOKEN={SECRET}\n")
    (ws / "app" / ".env").write_text(f"NESTED={SECRET}\n")
    (ws / "app" / "main.py").write_text("print('CANARY-public')\n")
    (ws / "notes").symlink_to(".env")
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Read(**/.env)"]}}))
    calls = (
        Call("grep", json.dumps({"pattern": "CANARY", "output_mode": "content"})),
        Call("grep", json.dumps({"pattern": "CANARY", "path": "app", "glob": "*.env", "output_mode": "content"})),
        Call("glob", json.dumps({"pattern": "**/*"})),
        Call("list_dir", json.dumps({})),
        Call("read_file", json.dumps({"path": "notes"})),
        Call("read_file", json.dumps({"path": "app/../.env"})),
    )
    with fake_server("anthropic", [Reply(text="Looking.", calls=calls), Reply(text="Done.")]) as server:
        proc = run_cli(["-p", "find the token", "--output-format", "stream-json", "--verbose"], ws, cli_env("anthropic", server.url, home))
        assert server.rejections == []
        sent = json.dumps(server.requests)
    assert proc.returncode == 0, proc.stderr
    session = "".join(path.read_text(errors="replace") for path in home.rglob("*") if path.is_file())
    for where in (proc.stdout, proc.stderr, sent, session):
        assert SECRET not in where
    results = [
        b
        for m in server.requests[1]["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    texts = [r["content"] if isinstance(r["content"], str) else "".join(b.get("text", "") for b in r["content"]) for r in results]
    assert texts[0] == "1 matching line in 1 file:\napp/main.py:1:print('CANARY-public')\n"
    assert texts[1].startswith("No matches for 'CANARY'")
    assert ".env" not in texts[2].split("(")[0] and "2 matching files not listed" in texts[2]
    assert "  .env  (read denied by `read_file(**/.env)`)" in texts[3]
    assert all("denied by the permission rule `read_file(**/.env)`" in text.lower() for text in texts[4:]), texts[4:]
    assert any(path.name == "session.jsonl" for path in home.rglob("*"))
