""" "Always" in a real pseudo-terminal: a command's prefix is saved and the next test file runs without a question;
a root file's rule is said without a leading slash and still matches that file (issue 29 item 4)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.script import Call, Reply
from tests.tui.terminal import CTRL_D, Terminal, start

pytestmark = pytest.mark.slow

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")


def _run(command: str) -> Call:
    return Call("run_command", json.dumps({"command": command}))


def _write(text: str) -> Call:
    return Call("write_file", json.dumps({"path": "NOTES.md", "content": text}))


def test_always_saves_the_command_prefix_and_the_root_file_rule_and_neither_asks_again(tmp_path: Path, terminals: list[Terminal]) -> None:
    workspace = tmp_path / "ws"
    (workspace / "tests").mkdir(parents=True)
    for name in ("a.py", "b.py"):
        (workspace / "tests" / name).write_text("def test_it() -> None:\n    pass\n")
    script = [
        Reply(text="First file.", calls=(_run("python3 -m pytest -q tests/a.py"),)),
        Reply(text="Second file.", calls=(_run("python3 -m pytest tests/b.py"),)),
        Reply(text="Notes.", calls=(_write("one\n"),)),
        Reply(text="Notes again.", calls=(_write("two\n"),)),
        Reply(text="All done."),
    ]
    with FakeAnthropicServer(script) as server:
        term = start(terminals, workspace, server, tmp_path / "home", "--sandbox", "off")
        term.expect_prompt()
        term.send_line("Run the tests, then write notes")
        term.expect(r"\[n\] no, and say why")
        question = " ".join(_ANSI.sub("", term.raw[term.raw.rfind("Allow run_command") :]).split())
        assert "don't ask again for `python3 -m pytest` commands in this folder" in question
        term.send("a")
        term.expect(r"allowed from now on: run_command\(python3 -m pytest:\*\)")
        term.expect(r"Allow write_file")
        term.expect(r"\[n\] no, and say why")
        question = " ".join(_ANSI.sub("", term.raw[term.raw.rfind("Allow write_file") :]).split())
        assert "don't ask again for write_file on `NOTES.md`" in question
        term.send("a")
        term.expect("All done")
        term.expect_prompt()
        term.send(CTRL_D)
        assert term.exit_code() == 0
    screen = _ANSI.sub("", term.raw)
    for tool in ("run_command", "write_file"):
        answered = screen.index(f"allowed from now on: {tool}(")
        assert f"Allow {tool}" in screen[:answered] and f"Allow {tool}" not in screen[answered:]  # the live footer redraws a question; none after the answer
    assert "tests/b.py" in screen[screen.index("allowed from now on: run_command(") :]
    assert (workspace / "NOTES.md").read_text() == "two\n"
    saved = json.loads((workspace / ".pseudoclaude" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["run_command(python3 -m pytest:*)", "write_file(/NOTES.md)"]
