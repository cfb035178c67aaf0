"""The real REPL in a pseudo-terminal: ``@shot.png`` and pasted image paths attach images; a bad one keeps the draft.

What the adapters put on the wire is theirs to test (h21wire); here the
request carries the ``[image N: name]`` reference, and the session records the
user message with its images and their bytes under ``images/``.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.tui.terminal import CTRL_D, SlowAnthropicServer, Terminal, env_for, request_text

pytestmark = pytest.mark.slow

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), "orange").save(out, format="PNG")
    return out.getvalue()


def recorded_user_messages(home: Path) -> tuple[list[dict[str, Any]], Path]:
    [jsonl] = list(home.rglob("session.jsonl"))
    entries = [json.loads(line) for line in jsonl.read_text().splitlines()]
    return [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "user"], jsonl.parent


def test_a_mentioned_and_a_pasted_image_are_attached_and_shown_as_one_line_each(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    shot = png(120, 80)
    (workspace / "shot.png").write_bytes(shot)
    dragged = tmp_path / "Screen Shot 2.png"
    dragged.write_bytes(png(60, 30))
    home = tmp_path / "home"
    with FakeAnthropicServer([Reply(text="The button is off by 4 pixels."), Reply(text="Both are orange.")]) as server:
        term = Terminal([], workspace, env_for(server.url, home))
        terminals.append(term)
        term.expect_prompt()
        term.send_line("what is wrong in @shot.png")
        term.expect(r"\[image 1\] shot\.png \(120x80 PNG, 1 KB\)")
        term.expect("The button is off by 4 pixels.")
        term.expect_prompt()
        term.send("compare with ")
        term.send(PASTE_START + f"'{dragged}'" + PASTE_END)
        term.send_line("")
        term.expect(r"\[image 1\] Screen Shot 2\.png \(60x30 PNG")
        term.expect("Both are orange.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    assert "what is wrong in [image 1: shot.png]" in request_text(server.requests[0])
    assert "compare with [image 1: Screen Shot 2.png]" in request_text(server.requests[1])
    assert str(tmp_path) not in request_text(server.requests[1])
    messages, folder = recorded_user_messages(home)
    assert [[(i["name"], i["width"], i["height"]) for i in m["images"]] for m in messages] == [[("shot.png", 120, 80)], [("Screen Shot 2.png", 60, 30)]]
    sha = hashlib.sha256(shot).hexdigest()
    assert messages[0]["images"][0]["sha256"] == sha
    assert (folder / "images" / f"{sha}.png").read_bytes() == shot


def test_an_image_that_cannot_be_sent_is_one_line_and_the_message_stays_at_the_prompt(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "mock.png").write_text("this is not a picture")
    home = tmp_path / "home"
    with FakeAnthropicServer([Reply(text="Now I see it.")]) as server:
        term = Terminal([], workspace, env_for(server.url, home))
        terminals.append(term)
        term.expect_prompt()
        term.send_line("check @mock.png please")
        term.expect(r"✗ @mock\.png: not a PNG, JPEG, GIF or WebP image .*not sent")
        term.expect_prompt()
        assert server.requests == []
        (workspace / "mock.png").write_bytes(png(10, 10))
        term.send("\r")  # the draft came back: Enter sends it as it was
        term.expect(r"\[image 1\] mock\.png \(10x10 PNG")
        term.expect("Now I see it.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert "check [image 1: mock.png] please" in request_text(server.requests[0])
    messages, _ = recorded_user_messages(home)
    assert len(messages) == 1 and messages[0]["images"][0]["width"] == 10


def test_an_image_typed_while_the_agent_works_waits_for_the_turn_and_is_attached(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "after.png").write_bytes(png(33, 22))
    home = tmp_path / "home"
    (workspace / "notes.txt").write_text("alpha\n")
    script = [
        Reply(text="A slowly streamed first answer. " * 3, text_chunks=40, calls=(Call("read_file", json.dumps({"path": "notes.txt"})),)),
        Reply(text="Done with the first."),
        Reply(text="Seen the second one."),
    ]
    with SlowAnthropicServer(script, delay=0.03) as server:
        term = Terminal([], workspace, env_for(server.url, home))
        terminals.append(term)
        term.expect_prompt()
        term.send_line("First question")
        term.expect("Working")
        term.send_line("and @after.png")
        term.expect("queued: and @after.png")
        term.expect(r"\[image 1\] after\.png \(33x22 PNG")
        term.expect("Seen the second one.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == [] and len(server.requests) == 3
    assert "after" not in request_text(server.requests[0]) + request_text(server.requests[1])
    assert "and [image 1: after.png]" in request_text(server.requests[2])
    messages, _ = recorded_user_messages(home)
    assert [len(m.get("images", ())) for m in messages] == [0, 1]
