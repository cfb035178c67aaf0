"""Driving the real ``pseudoclaude`` REPL in a pseudo-terminal against the fake provider servers.

prompt-toolkit asks the terminal where the cursor is (``ESC[6n``) before it
draws the status toolbar; a real terminal answers, so ``Terminal.expect``
answers too while it waits for its pattern.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import pexpect

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.http import Exchange

CPR_REQUEST = "\x1b[6n"
ESC = "\x1b"
CTRL_C = "\x03"
CTRL_D = "\x04"


def env_for(server_url: str, home: Path, kind: str = "anthropic") -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL")) and not k.startswith("PSEUDOCLAUDE_")}
    base.update({"TERM": "xterm-256color", "PSEUDOCLAUDE_HOME": str(home), "EDITOR": "true", "COLUMNS": "120", "LINES": "40"})
    if kind == "anthropic":
        base.update({"ANTHROPIC_API_KEY": "k-test", "ANTHROPIC_BASE_URL": server_url, "PSEUDOCLAUDE_MODEL": "claude-sonnet-4-5"})
    else:
        base.update({"OPENAI_API_KEY": "k-test", "OPENAI_BASE_URL": server_url, "PSEUDOCLAUDE_MODEL": "gpt-4.1"})
    return base


COLLECTING_LAUNCHER = (
    "import gc, runpy, sys, threading, time\n"
    "def collect():\n"
    "    while True:\n"
    "        started = time.monotonic(); gc.collect(); time.sleep(max(0.02, 2 * (time.monotonic() - started)))\n"
    "threading.Thread(target=collect, daemon=True).start()\n"
    "sys.argv[0] = 'pseudoclaude'\n"
    "runpy.run_module('pseudoclaude', run_name='__main__', alter_sys=True)\n"
)
"""Runs ``pseudoclaude`` with a full garbage collection every 20 ms, or twice as long as the last one took: an unreferenced
pending task is destroyed (and reported) at once. A full collection of the REPL's heap takes about 100 ms once the SDK is
imported, so a fixed 20 ms pause held the GIL five sixths of the time: on a loaded CI machine the REPL's first turn
starved past the test's 30 s (its spinner stayed at 0s). The collector now takes at most a third of it."""


class Terminal:
    """One REPL process in a 40x120 pseudo-terminal; ``raw`` is everything it printed so far."""

    def __init__(
        self,
        args: list[str],
        cwd: Path,
        env: dict[str, str],
        timeout: float = 30,
        *,
        collect_garbage: bool = False,
        dimensions: tuple[int, int] = (40, 120),
    ) -> None:
        launch = ["-c", COLLECTING_LAUNCHER] if collect_garbage else ["-m", "pseudoclaude"]
        self.child = pexpect.spawn(
            sys.executable,
            [*launch, *args],
            cwd=str(cwd),
            env=env,
            dimensions=dimensions,
            encoding="utf-8",
            timeout=timeout,
        )
        self.raw = ""

    def expect(self, pattern: str, timeout: float | None = None) -> str:
        """Wait for ``pattern`` (a regex) in the output, answering cursor-position requests meanwhile."""
        deadline = time.monotonic() + (timeout or self.child.timeout or 30)
        while True:
            left = max(0.1, deadline - time.monotonic())
            index = self.child.expect([pattern, re.escape(CPR_REQUEST)], timeout=left)
            self.raw += (self.child.before or "") + (self.child.after if isinstance(self.child.after, str) else "")
            if index == 0:
                return self.child.after if isinstance(self.child.after, str) else ""
            self.child.send("\x1b[20;1R")

    def expect_prompt(self) -> str:
        """The next idle prompt; returns its status line."""
        return self.expect(r"ctx \d+% \(compacts at \d+%\)[^\r\n]*")

    def send(self, text: str) -> None:
        self.child.send(text)

    def send_line(self, text: str) -> None:
        self.child.send(text)
        time.sleep(0.05)
        self.child.send("\r")

    def exit_code(self, timeout: float = 20) -> int | None:
        self.child.expect(pexpect.EOF, timeout=timeout)
        self.child.close()
        return self.child.exitstatus

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


def context_percent(status_line: str) -> int:
    match = re.search(r"ctx (\d+)%", status_line)
    assert match, status_line
    return int(match.group(1))


class SlowAnthropicServer(FakeAnthropicServer):
    """The fake Anthropic server, pausing ``delay`` seconds between the events of each stream."""

    def __init__(self, script: Any, *, delay: float, **kwargs: Any) -> None:
        super().__init__(script, **kwargs)
        self.delay = delay

    def _stream(self, ex: Exchange, events: list[tuple[str, dict[str, Any]]]) -> None:
        ex.start_stream({"request-id": "req_fake"})
        for name, data in events:
            ex.send_event(name, data)
            time.sleep(self.delay)


def request_text(body: dict[str, Any]) -> str:
    return json.dumps(body.get("messages", []))


def start(terminals: list[Terminal], workspace: Path, server: Any, home: Path, *args: str, kind: str = "anthropic", **options: Any) -> Terminal:
    """A REPL in ``workspace`` against ``server`` (the ``kind`` of fake), closed with the test (``terminals`` fixture)."""
    terminal = Terminal([*args], workspace, env_for(server.url, home, kind), **options)
    terminals.append(terminal)
    return terminal
