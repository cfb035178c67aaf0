"""The real REPL in a pseudo-terminal: a long bracketed paste is one line in the input and whole at the model.

The paste arrives as a terminal sends it (``ESC[200~ ... ESC[201~``, line
breaks as ``\\r``); the fake Anthropic server records the request it got.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Reply
from tests.tui.terminal import CTRL_D, Terminal, start

pytestmark = pytest.mark.slow

LINES = [f"pasted line {i}" for i in range(1, 41)]
PASTED = "\n".join(LINES)
PLACEHOLDER = "[Pasted text #1 +40 lines]"
BACKSPACE = "\x7f"
CTRL_T = "\x14"


def bracketed(text: str) -> str:
    return "\x1b[200~" + text.replace("\n", "\r") + "\x1b[201~"


def last_user_text(body: dict[str, Any]) -> str:
    content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def run(tmp_path: Path, terminals: list[Terminal], *keys: str, wait_for: str = PLACEHOLDER) -> tuple[Terminal, FakeAnthropicServer]:
    """Paste ``PASTED`` at the prompt, wait for ``wait_for``, press ``keys``, send, and wait for the reply."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with FakeAnthropicServer([Reply(text="Got it, thanks.")]) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send(bracketed(PASTED))
        term.expect(re.escape(wait_for))
        for key in keys:
            term.send(key)
            time.sleep(0.1)
        term.send("\r")
        term.expect("Got it, thanks.")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    assert server.rejections == []
    return term, server


def test_a_40_line_paste_is_one_line_in_the_input_and_40_lines_at_the_model(tmp_path: Path, terminals: list[Terminal]) -> None:
    term, server = run(tmp_path, terminals, " what", " fails?")
    assert "pasted line 2" not in term.raw  # never drawn: neither in the input nor in the scrollback
    assert term.raw.count(PLACEHOLDER) >= 1
    sent = last_user_text(server.requests[-1])
    assert sent.startswith(PASTED + " what fails?")
    assert sent.count("pasted line ") == 40
    recorded = next((tmp_path / "home").rglob("session.jsonl")).read_text()
    assert json.dumps(PASTED)[1:-1] in recorded
    assert PLACEHOLDER not in recorded


def test_backspace_after_the_placeholder_deletes_the_paste(tmp_path: Path, terminals: list[Terminal]) -> None:
    _, server = run(tmp_path, terminals, BACKSPACE, "only this")
    assert last_user_text(server.requests[-1]).startswith("only this")
    assert "pasted line" not in json.dumps(server.requests[-1]["messages"])


def test_ctrl_t_unfolds_the_paste_in_the_input_and_it_is_sent_whole(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with FakeAnthropicServer([Reply(text="Got it, thanks.")]) as server:
        term = start(terminals, workspace, server, tmp_path / "home")
        term.expect_prompt()
        term.send(bracketed(PASTED))
        term.expect(re.escape(PLACEHOLDER))
        term.send(CTRL_T)
        term.expect("pasted line 40")
        term.send("\r")
        term.expect("Got it, thanks.")
    assert last_user_text(server.requests[-1]).startswith(PASTED)
