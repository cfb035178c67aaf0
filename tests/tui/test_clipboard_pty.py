"""The real REPL in a pseudo-terminal: Ctrl+V pastes the clipboard's image through a fake ``xclip``/``wl-paste`` on PATH.

The fake tools are shell scripts printing a PNG made with Pillow (the REPL
runs them without a shell); the fake Anthropic server checks the image block
it receives as the real service does.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Reply
from tests.tui.terminal import CTRL_D, SlowAnthropicServer, Terminal, env_for, request_text

pytestmark = pytest.mark.slow

CTRL_V = "\x16"


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), "purple").save(out, format="PNG")
    return out.getvalue()


def fake_tool(folder: Path, name: str, body: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text("#!/bin/sh\n" + body)
    (folder / name).chmod(0o755)


def clipboard_env(server_url: str, home: Path, bin_dir: Path, **display: str) -> dict[str, str]:
    env = env_for(server_url, home)
    for name in ("WAYLAND_DISPLAY", "DISPLAY"):
        env.pop(name, None)
    env.update(display)
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}"
    env["HOME"] = str(home.parent)  # the mention reads ~/home/clipboard/...: short enough not to wrap
    return env


def fake_xclip(bin_dir: Path, image: Path, pause: str = "") -> None:
    fake_tool(
        bin_dir,
        "xclip",
        f'case "$*" in\n  *TARGETS*) printf "TARGETS\\ntext/plain\\nimage/png\\n";;\n  *image/png*) {pause}cat "{image}";;\n  *) exit 1;;\nesac\n',
    )


def user_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    message = [m for m in body["messages"] if m["role"] == "user"][-1]
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def paste_and_send(term: Terminal, before: str, after: str, *, wait: bool) -> None:
    term.expect_prompt()
    term.send(before)
    term.send(CTRL_V)
    if wait:
        term.expect(r'@"~/home/clipboard/clipboard-[0-9a-f]{12}\.png"')
    term.send_line(after)


@pytest.mark.parametrize("tool", ["xclip", "wl-paste", "slow xclip"])
def test_ctrl_v_attaches_the_copied_image_to_the_message(tool: str, tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace, home, bin_dir = tmp_path / "ws", tmp_path / "home", tmp_path / "bin"
    workspace.mkdir()
    (tmp_path / "copied.png").write_bytes(copied := png(90, 45))
    if tool != "wl-paste":
        pause = "sleep 1; " if tool == "slow xclip" else ""  # Enter comes before the image: the message waits for it
        fake_xclip(bin_dir, tmp_path / "copied.png", pause)
        display = {"DISPLAY": ":0"}
    else:
        fake_tool(
            bin_dir,
            "wl-paste",
            f'case "$*" in\n  *--list-types*) printf "image/png\\ntext/plain\\n";;\n  *"--type image/png"*) cat "{tmp_path}/copied.png";;\n  *) exit 1;;\nesac\n',
        )
        display = {"WAYLAND_DISPLAY": "wayland-0"}
    with FakeAnthropicServer([Reply(text="A purple rectangle.")]) as server:
        term = Terminal([], workspace, clipboard_env(server.url, home, bin_dir, **display))
        terminals.append(term)
        paste_and_send(term, "what is this", "in the corner?", wait=tool != "slow xclip")
        term.expect(r"\[image 1\] clipboard-[0-9a-f]{12}\.png \(90x45 PNG")
        term.expect("A purple rectangle.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    blocks = user_blocks(server.requests[0])
    images = [b for b in blocks if b["type"] == "image"]
    assert [base64.b64decode(b["source"]["data"]) for b in images] == [copied]
    assert images[0]["source"]["media_type"] == "image/png"
    text = " ".join(b["text"] for b in blocks if b["type"] == "text")
    assert "what is this [image 1: clipboard-" in text and ".png] in the corner?" in text
    assert str(home) not in text


@pytest.mark.parametrize(("clipboard", "hint"), [("text", "the clipboard"), ("no tool", "to paste images")])
def test_ctrl_v_without_an_image_says_why_and_loses_nothing(clipboard: str, hint: str, tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace, home, bin_dir = tmp_path / "ws", tmp_path / "home", tmp_path / "bin"
    workspace.mkdir()
    bin_dir.mkdir()
    if clipboard == "text":
        fake_tool(bin_dir, "xclip", 'case "$*" in\n  *TARGETS*) printf "TARGETS\\nUTF8_STRING\\ntext/plain\\n";;\n  *) printf "some copied words";;\nesac\n')
    with FakeAnthropicServer([Reply(text="Nothing attached.")]) as server:
        env = clipboard_env(server.url, home, bin_dir, DISPLAY=":0")
        if clipboard == "no tool":
            env["PATH"] = str(bin_dir)
        term = Terminal([], workspace, env)
        terminals.append(term)
        term.expect_prompt()
        term.send("keep this ")
        term.send(CTRL_V)
        term.expect(hint)  # the toolbar is redrawn by difference: "Ctrl+V: no image on" may come in pieces
        term.send_line("text")
        term.expect("Nothing attached.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    blocks = user_blocks(server.requests[0])
    assert [b["type"] for b in blocks if b["type"] == "image"] == []
    assert "keep this text" in " ".join(b["text"] for b in blocks if b["type"] == "text")
    assert not (home / "clipboard").exists() or list((home / "clipboard").iterdir()) == []


@pytest.mark.parametrize("tool", ["xclip", "slow xclip"])
def test_ctrl_v_while_the_agent_works_attaches_the_image_to_the_typed_message(tool: str, tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace, home, bin_dir = tmp_path / "ws", tmp_path / "home", tmp_path / "bin"
    workspace.mkdir()
    (tmp_path / "copied.png").write_bytes(copied := png(70, 35))
    fake_xclip(bin_dir, tmp_path / "copied.png", "sleep 1; " if tool == "slow xclip" else "")  # slow: Enter waits for the image
    script = [Reply(text="A slowly streamed first answer. " * 4, text_chunks=60), Reply(text="Seen the pasted one.")]
    with SlowAnthropicServer(script, delay=0.05) as server:
        term = Terminal([], workspace, clipboard_env(server.url, home, bin_dir, DISPLAY=":0"))
        terminals.append(term)
        term.expect_prompt()
        term.send_line("First question")
        term.expect("Working")
        term.send("look at ")
        term.send(CTRL_V)
        if tool == "xclip":
            term.expect(r'@"~/home/clipboard/clipboard-[0-9a-f]{12}\.png"')
        term.send_line("this one")
        term.expect(r"\[image 1\] clipboard-[0-9a-f]{12}\.png \(70x35 PNG")
        term.expect("Seen the pasted one.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == [] and len(server.requests) == 2
    assert "clipboard" not in request_text(server.requests[0])
    blocks = user_blocks(server.requests[1])
    assert [base64.b64decode(b["source"]["data"]) for b in blocks if b["type"] == "image"] == [copied]
    text = " ".join(b["text"] for b in blocks if b["type"] == "text")
    assert "look at [image 1: clipboard-" in text and ".png] this one" in text


def test_ctrl_v_while_the_agent_works_without_an_image_says_why(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace, home, bin_dir = tmp_path / "ws", tmp_path / "home", tmp_path / "bin"
    workspace.mkdir()
    fake_tool(bin_dir, "xclip", 'case "$*" in\n  *TARGETS*) printf "TARGETS\\nUTF8_STRING\\n";;\n  *) printf "words";;\nesac\n')
    script = [Reply(text="A slowly streamed first answer. " * 4, text_chunks=60), Reply(text="Only words came.")]
    with SlowAnthropicServer(script, delay=0.05) as server:
        term = Terminal([], workspace, clipboard_env(server.url, home, bin_dir, DISPLAY=":0"))
        terminals.append(term)
        term.expect_prompt()
        term.send_line("First question")
        term.expect("Working")
        term.send("keep this")
        term.send(CTRL_V)
        term.expect("no image on the clipboard")
        term.send_line(" text")
        term.expect("Only words came.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    assert "keep this text" in request_text(server.requests[-1]) and '"image"' not in request_text(server.requests[-1])
