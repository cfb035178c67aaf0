"""The two Claude Code flags Zed's ACP adapter passes: ``--replay-user-messages`` and ``--allow-dangerously-skip-permissions``.

Run through the real CLI with stream-json on stdin, as the Agent SDK runs it
(``--replay-user-messages ""``: the SDK passes its extra flags with an empty
value). The echo carries the SDK's ``uuid`` and ``isReplay``, after the
prompt's ``init`` (the adapter reads a result as its prompt's only after that
echo); bypass can be switched on only when the process allowed it, and the
allowing flag loosens nothing by itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.support import cli_env, fake_server, json_lines, run_cli
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

STREAM = ["--output-format", "stream-json", "--input-format", "stream-json", "--verbose"]


def lines(*objects: object) -> str:
    return "".join(json.dumps(item) + "\n" for item in objects)


def user(text: str, uuid: str) -> dict[str, object]:
    return {
        "type": "user",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
        "session_id": "",
        "parent_tool_use_id": None,
        "uuid": uuid,
    }


def mode_request(request_id: str, mode: str) -> dict[str, object]:
    return {"type": "control_request", "request_id": request_id, "request": {"subtype": "set_permission_mode", "mode": mode}}


def test_replay_echoes_each_user_message_with_its_uuid_after_the_init(tmp_path: Path) -> None:
    stdin = lines(user("first", "0b7d3c1e-1111-4aaa-8bbb-000000000001"), user("second", "0b7d3c1e-1111-4aaa-8bbb-000000000002"))
    with fake_server("anthropic", [Reply(text="one"), Reply(text="two")]) as server:
        proc = run_cli([*STREAM, "--replay-user-messages", ""], tmp_path, cli_env("anthropic", server.url, tmp_path / "home"), stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    out = json_lines(proc.stdout)
    replays = [o for o in out if o["type"] == "user" and o.get("isReplay")]
    assert [r["uuid"] for r in replays] == ["0b7d3c1e-1111-4aaa-8bbb-000000000001", "0b7d3c1e-1111-4aaa-8bbb-000000000002"]
    assert replays[0]["message"] == {"role": "user", "content": [{"type": "text", "text": "first"}]} and replays[0]["parent_tool_use_id"] is None
    kinds = [(o["type"], o.get("subtype")) for o in out]
    first_replay = out.index(replays[0])
    assert kinds[first_replay - 1] == ("system", "init") and out.index(replays[1]) > [i for i, o in enumerate(out) if o["type"] == "result"][0]
    assert replays[0]["session_id"] == out[-1]["session_id"]


def test_without_replay_no_user_message_is_echoed(tmp_path: Path) -> None:
    with fake_server("anthropic", [Reply(text="one")]) as server:
        proc = run_cli(
            STREAM, tmp_path, cli_env("anthropic", server.url, tmp_path / "home"), stdin=lines(user("first", "0b7d3c1e-1111-4aaa-8bbb-000000000001"))
        )
    assert proc.returncode == 0, proc.stderr
    assert not [o for o in json_lines(proc.stdout) if o["type"] == "user" and o.get("isReplay")]


def test_replay_needs_stream_json_both_ways(tmp_path: Path) -> None:
    proc = run_cli(["-p", "hi", "--replay-user-messages"], tmp_path, cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home"))
    assert proc.returncode == 2 and "--replay-user-messages needs --input-format stream-json" in proc.stderr


@pytest.mark.parametrize("allow", [False, True])
def test_bypass_is_switched_on_later_only_when_allowed(allow: bool, tmp_path: Path) -> None:
    flags = [*STREAM, "--permission-prompt-tool", "stdio", *(["--allow-dangerously-skip-permissions"] if allow else [])]
    stdin = lines(mode_request("m1", "bypassPermissions"), user("write it", "0b7d3c1e-1111-4aaa-8bbb-000000000003"))
    script = [Reply(text="Writing.", calls=(Call("write_file", json.dumps({"path": "out.txt", "content": "x\n"})),)), Reply(text="Done.")]
    with fake_server("anthropic", script) as server:
        proc = run_cli(flags, tmp_path, cli_env("anthropic", server.url, tmp_path / "home"), stdin=stdin)
    out = json_lines(proc.stdout)
    (response,) = [o["response"] for o in out if o["type"] == "control_response"]
    if allow:
        assert response["subtype"] == "success" and response["response"] == {"mode": "bypassPermissions"}
        assert (tmp_path / "out.txt").read_text() == "x\n", "bypass, once switched on, runs the write without asking"
    else:
        assert response["subtype"] == "error" and "--allow-dangerously-skip-permissions" in response["error"]
        assert not (tmp_path / "out.txt").exists(), "still in default mode: the write is asked about, and the input ended before an answer"


def test_allowing_bypass_loosens_nothing_by_itself(tmp_path: Path) -> None:
    script = [Reply(text="Writing.", calls=(Call("write_file", json.dumps({"path": "out.txt", "content": "x\n"})),)), Reply(text="Refused.")]
    with fake_server("anthropic", script) as server:
        proc = run_cli(
            ["-p", "write it", "--output-format", "json", "--allow-dangerously-skip-permissions"], tmp_path, cli_env("anthropic", server.url, tmp_path / "home")
        )
    result = json.loads(proc.stdout)
    assert not (tmp_path / "out.txt").exists() and [d["tool_name"] for d in result["permission_denials"]] == ["Write"]
