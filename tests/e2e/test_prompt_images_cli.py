"""Images on the command line and in stream-json input: recorded with the prompt, or refused before any request.

The adapters send the images (h21wire); these tests pin what this side owes
them: the user message of the session holds the image, its bytes are in the
session's ``images/`` folder, and a file or block that cannot be sent stops
the run with one clear line before the provider is asked anything.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage

from tests.e2e.support import cli_env, fake_server, json_lines, run_cli
from tests.fakes.script import Reply


def png(width: int = 64, height: int = 48) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), "green").save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def user_messages(home: Path) -> tuple[list[dict[str, Any]], Path]:
    [jsonl] = list(home.rglob("session.jsonl"))
    entries = [json.loads(line) for line in jsonl.read_text().splitlines()]
    return [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "user"], jsonl.parent


def test_image_options_ride_on_the_prompt_and_are_kept_in_the_session(workspace: Path, tmp_path: Path) -> None:
    shot, chart = png(), png(30, 20)
    (workspace / "shot.png").write_bytes(shot)
    (tmp_path / "chart.png").write_bytes(chart)
    home = tmp_path / "home"
    with fake_server("anthropic", [Reply(text="A green square.")]) as server:
        proc = run_cli(["-p", "What do you see?", "-i", "shot.png", "--image", str(tmp_path / "chart.png")], workspace, cli_env("anthropic", server.url, home))
        assert server.rejections == []
    assert proc.returncode == 0, proc.stderr
    assert "A green square." in proc.stdout
    [message], folder = user_messages(home)
    assert message["text"] == "What do you see?"
    assert [(i["name"], i["width"], i["height"], i["media_type"]) for i in message["images"]] == [
        ("shot.png", 64, 48, "image/png"),
        (str(tmp_path / "chart.png"), 30, 20, "image/png"),
    ]
    for image, data in zip(message["images"], (shot, chart)):
        assert image["sha256"] == hashlib.sha256(data).hexdigest()
        assert (folder / "images" / f"{image['sha256']}.png").read_bytes() == data


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (lambda ws: (ws / "notes.txt").write_text("hello"), ["-p", "hi", "-i", "notes.txt"], "--image notes.txt: not a PNG, JPEG, GIF or WebP image"),
        (lambda ws: None, ["-p", "hi", "-i", "gone.png"], "--image gone.png: No such file or directory"),
        (lambda ws: (ws / "a.png").write_bytes(png()), ["-i", "a.png"], "--image works with -p"),
        (lambda ws: (ws / "a.png").write_bytes(png()), ["-p", "", "-i", "a.png"], "no prompt given"),
    ],
)
def test_an_image_option_that_cannot_be_sent_exits_2_before_any_request(workspace: Path, tmp_path: Path, setup: Any, args: list[str], message: str) -> None:
    setup(workspace)
    with fake_server("anthropic", [Reply(text="never")]) as server:
        proc = run_cli(args, workspace, cli_env("anthropic", server.url, tmp_path / "home"), stdin="")
        assert server.requests == []
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert not list((tmp_path / "home").rglob("session.jsonl"))


def test_a_bad_image_option_still_prints_a_result_object_in_json(workspace: Path, tmp_path: Path) -> None:
    (workspace / "notes.txt").write_text("hello")
    proc = run_cli(["-p", "hi", "-i", "notes.txt", "--output-format", "json"], workspace, cli_env("anthropic", "http://127.0.0.1:9", tmp_path / "home"))
    assert proc.returncode == 2
    result = json.loads(proc.stdout)
    assert result["is_error"] and "notes.txt: not a PNG" in result["errors"][0]


def stream_lines(*messages: Any) -> str:
    lines = [{"type": "user", "message": {"role": "user", "content": content}, "session_id": "default", "parent_tool_use_id": None} for content in messages]
    return "".join(json.dumps(line) + "\n" for line in lines)


def image_block(data: bytes | str) -> dict[str, Any]:
    encoded = data if isinstance(data, str) else base64.b64encode(data).decode()
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": encoded}}


def test_stream_json_image_blocks_are_attached_and_a_bad_one_is_an_error_result(workspace: Path, tmp_path: Path) -> None:
    shot = png(50, 40)
    stdin = stream_lines(
        [{"type": "text", "text": "Describe this."}, image_block(shot)],
        [{"type": "text", "text": "And this?"}, image_block("%%% not base64 %%%")],
        "Still there?",
    )
    home = tmp_path / "home"
    with fake_server("anthropic", [Reply(text="Green."), Reply(text="Yes.")]) as server:
        proc = run_cli(
            ["--output-format", "stream-json", "--input-format", "stream-json", "--verbose"], workspace, cli_env("anthropic", server.url, home), stdin=stdin
        )
        assert server.rejections == [] and len(server.requests) == 2
    results = [line for line in json_lines(proc.stdout) if line["type"] == "result"]
    assert [r["is_error"] for r in results] == [False, True, False]
    assert [results[0]["result"], results[2]["result"]] == ["Green.", "Yes."]
    assert "image 1: its data is not valid base64" in results[1]["error"]
    assert "not valid base64" in proc.stderr and "Traceback" not in proc.stderr
    messages, folder = user_messages(home)
    assert [m["text"] for m in messages] == ["Describe this.", "Still there?"]
    [image] = messages[0]["images"]
    assert (image["width"], image["height"]) == (50, 40)
    assert (folder / "images" / f"{image['sha256']}.png").read_bytes() == shot
    assert "And this?" not in json.dumps(server.requests)


def test_an_image_option_for_a_model_without_vision_warns_and_still_runs(workspace: Path, tmp_path: Path) -> None:
    (workspace / "shot.png").write_bytes(png())
    with fake_server("openai", [Reply(text="I cannot see it.")]) as server:
        env = {**cli_env("openai", server.url, tmp_path / "home"), "PSEUDOCLAUDE_MODEL": "gpt-3.5-turbo"}
        proc = run_cli(["-p", "What is it?", "-i", "shot.png"], workspace, env)
        assert len(server.requests) == 1
    assert proc.returncode == 0, proc.stderr
    assert "warning: gpt-3.5-turbo cannot see images" in proc.stderr
