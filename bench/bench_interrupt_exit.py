"""How long the process takes to exit after a signal while a command or a hook runs (issue 26; target under 0.5 s).

`python bench/bench_interrupt_exit.py [--runs 3]`

Plays a scripted session against the wire-level fake Anthropic server: the model
runs `sleep 30` (or a hook sleeps 30 s), the bench waits until that process is
seen running, sends the signal and times signal -> exit. It also checks that
nothing of the command or hook is left running. Cases:

- headless `-p` in each output format, SIGINT and SIGTERM, while a command runs;
- a PreToolUse hook that sleeps, and a SessionEnd hook that would sleep (it gets
  0.25 s when a signal ends the process, then is stopped);
- a SIGINT that lands as the command starts (the moment before its process
  group is known: it used to leave the CLI waiting 30 s);
- the REPL in a pseudo-terminal: Ctrl-C during a command (back to the prompt),
  Ctrl-C twice at the prompt (exit), SIGTERM during a command.

Medians of `--runs` runs, in milliseconds; `left` counts runs where something survived.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.support import cli_command, cli_env, fake_server  # noqa: E402
from tests.fakes.script import Call, Reply  # noqa: E402


def running(marker: str) -> list[int]:
    out = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout
    return [int(pid) for pid in out.split()]


def wait_for(condition: Callable[[], Any], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)


def reap(markers: list[str]) -> bool:
    """Kill what a run left behind (processes this bench started, by their pids); True when something was left."""
    time.sleep(0.3)
    left = [pid for marker in markers for pid in running(marker)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return bool(left)


def workspace(tmp: Path, hooks: dict[str, str]) -> tuple[Path, Path]:
    ws, home = tmp / "ws", tmp / "home"
    ws.mkdir()
    home.mkdir()
    if hooks:
        (ws / ".pseudoclaude").mkdir()
        (ws / ".pseudoclaude" / "settings.json").write_text(
            json.dumps({"hooks": {e: [{"hooks": [{"type": "command", "command": c}]}] for e, c in hooks.items()}})
        )
        (home / "settings.json").write_text(json.dumps({"trustedWorkspaces": [str(ws)]}))
    return ws, home


def headless(output_format: str, signum: int, sleeper: str) -> tuple[float, bool]:
    tag = f"bench-exit-{time.time_ns()}"
    command, hooks, wait = f"sleep 30; echo {tag}-cmd", {}, f"{tag}-cmd"
    if sleeper == "PreToolUse hook":
        command, hooks, wait = "echo hi", {"PreToolUse": f"sleep 30; echo {tag}-hook"}, f"{tag}-hook"
    elif sleeper == "SessionEnd hook":
        hooks = {"SessionEnd": f"sleep 30; echo {tag}-hook"}
    with tempfile.TemporaryDirectory() as folder:
        ws, home = workspace(Path(folder), hooks)
        script = [Reply(text="Starting.", calls=(Call("run_command", json.dumps({"command": command})),)), Reply(text="done")]
        with fake_server("anthropic", script) as server:
            proc = subprocess.Popen(
                cli_command("-p", "go", "--output-format", output_format, "--permission-mode", "bypass"),
                cwd=ws,
                env=cli_env("anthropic", server.url, home),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert proc.stdout is not None
            if sleeper == "as it starts":
                for _ in range(2):
                    proc.stdout.readline()  # system/init, then the assistant message with the call: the command is starting
            else:
                wait_for(lambda: running(wait))
                time.sleep(0.1)
            started = time.monotonic()
            proc.send_signal(signum)
            proc.communicate(timeout=60)
            seconds = time.monotonic() - started
        return seconds, reap([f"{tag}-cmd", f"{tag}-hook"])


def repl(case: str) -> tuple[float, bool]:
    import pexpect

    from tests.fakes.anthropic_server import FakeAnthropicServer
    from tests.tui.terminal import CPR_REQUEST, CTRL_C, Terminal, env_for

    tag = f"bench-exit-repl-{time.time_ns()}"
    with tempfile.TemporaryDirectory() as folder:
        ws, home = workspace(Path(folder), {})
        script = [Reply(text="Running.", calls=(Call("run_command", json.dumps({"command": f"sleep 30; echo {tag}"})),)), Reply(text="ok")]
        with FakeAnthropicServer(script) as server:
            term = Terminal(["--permission-mode", "bypass"], ws, env_for(server.url, home, "anthropic"))
            try:
                term.expect_prompt()
                term.send_line("go")
                wait_for(lambda: running(tag))
                time.sleep(0.1)
                started = time.monotonic()
                if case == "Ctrl-C during a command -> prompt":
                    term.send(CTRL_C)
                    term.expect("Interrupted")
                    seconds = time.monotonic() - started
                    term.expect_prompt()
                elif case == "Ctrl-C twice at the prompt -> exit":
                    term.send(CTRL_C)
                    term.expect("Interrupted")
                    term.expect_prompt()
                    term.send(CTRL_C)
                    term.expect("Press Ctrl-C again")
                    started = time.monotonic()
                    term.send(CTRL_C)
                else:
                    term.child.kill(signal.SIGTERM)
                if case != "Ctrl-C during a command -> prompt":
                    while term.child.expect([pexpect.EOF, re.escape(CPR_REQUEST)], timeout=60) == 1:
                        term.child.send("\x1b[20;1R")  # a real terminal answers the cursor-position request at once
                    seconds = time.monotonic() - started
            finally:
                term.close()
        return seconds, reap([tag])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    cases: list[tuple[str, Callable[[], tuple[float, bool]]]] = []
    for output_format in ("text", "json", "stream-json", "events"):
        for signum in (signal.SIGINT, signal.SIGTERM):
            cases.append((f"-p {output_format:11} {signum.name:7} command", lambda f=output_format, s=signum: headless(f, s, "command")))
    for sleeper in ("PreToolUse hook", "SessionEnd hook", "as it starts"):
        for signum in (signal.SIGINT, signal.SIGTERM):
            cases.append((f"-p stream-json {signum.name:7} {sleeper}", lambda s=signum, w=sleeper: headless("stream-json", s, w)))
    for case in ("Ctrl-C during a command -> prompt", "Ctrl-C twice at the prompt -> exit", "SIGTERM during a command -> exit"):
        cases.append((f"REPL {case}", lambda c=case: repl(c)))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {runs} runs")
    print(f"{'case':58} {'median ms':>9} {'max ms':>7} left")
    for name, run in cases:
        results = [run() for _ in range(runs)]
        times = [seconds * 1000 for seconds, _ in results]
        print(f"{name:58} {statistics.median(times):9.0f} {max(times):7.0f} {sum(left for _, left in results)}", flush=True)


if __name__ == "__main__":
    main()
