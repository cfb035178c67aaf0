"""What a scripted headless task costs, start to exit (issue 30).

`python bench/bench_headless.py [--runs 7] [--peers /tmp/peers]`

A 4-request task against the wire-level fake Anthropic server: the model reads
a file, greps, runs `ls` through the shell (a permission check: bashlex), then
answers. The fake answers by the request (how many tool results it carries),
so clients that make extra requests (Claude Code's title and quota calls) get
a short text and the task still plays in four steps.

Clients, run paired and interleaved (one run of each per round, the order
rotated), each in a fresh process with its own home:

- `ours`: `pseudoclaude -p` as shipped (the provider SDK warmed up in a thread);
- `ours, no warm-up`: the same with `PSEUDOCLAUDE_NO_WARMUP=1` (the SDK imported
  at the first request, as before);
- `claude-code`: `claude -p` from `--peers` (`npm install --prefix /tmp/peers
  @anthropic-ai/claude-code`), skipped when not installed. It merges the
  blocks of assistant messages that share a message id, so the fake gives each
  reply its own (as the real API does); with a fixed id its second tool round
  came back as one message with two thinking blocks and was refused.

Codex (`@openai/codex`) has no row: pointed at the fake OpenAI server
(`wire_api = "responses"`), its every request carries a top-level
`client_metadata`, which the fake refuses as an unknown parameter, and public
reports disagree on whether OpenAI's public endpoint accepts it, so the check
stays as it is.

Per client: wall and CPU (user + system of the process and what it reaped)
medians with their spread (min-max), first-request latency (process start to
the fake server reading the first `POST /v1/messages`) and exit latency (the
last byte on stdout to the process's exit). Goals: first request within 1.5 s,
exit within 0.1 s of the last byte.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.support import cli_command, cli_env, fake_server  # noqa: E402
from tests.fakes.script import Call, Reply  # noqa: E402

PROMPT = "Find where greet is defined, look at it, list the folder, then say done."

TOOLS = {
    "ours": (("read_file", {"path": "app.py"}), ("grep", {"pattern": "def greet"}), ("run_command", {"command": "ls"})),
    "claude-code": (("Read", "file_path"), ("Grep", {"pattern": "def greet"}), ("Bash", {"command": "ls", "description": "list"})),
}


def responder(client: str, workspace: Path) -> Any:
    """Answer by the request: the n-th step of the task by how many tool results it carries; a short text to any other request."""
    calls = TOOLS["claude-code" if client == "claude-code" else "ours"]

    def answer(body: Mapping[str, Any]) -> Reply:
        if not body.get("tools"):
            return Reply(text="ok")
        done = sum(
            1 for m in body.get("messages", []) for b in (m.get("content") if isinstance(m.get("content"), list) else []) if b.get("type") == "tool_result"
        )
        if done >= len(calls):
            return Reply(text="done", thinking="finished")
        name, arguments = calls[done]
        if arguments == "file_path":
            arguments = {"file_path": str(workspace / "app.py")}
        return Reply(text=f"step {done + 1}", thinking="next step", calls=(Call(name, json.dumps(arguments)),))

    return answer


@dataclass
class Sample:
    wall: float
    cpu: float
    first_request: float
    exit_after_output: float
    requests: int
    ok: bool


@dataclass
class Client:
    name: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    samples: list[Sample] = field(default_factory=list)


def one_run(client: Client, kind_root: Path) -> Sample:
    with tempfile.TemporaryDirectory(dir=kind_root) as folder:
        ws, home = Path(folder) / "ws", Path(folder) / "home"
        ws.mkdir()
        home.mkdir()
        (ws / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n")
        (ws / "README.md").write_text("# demo\n")
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
        with fake_server("anthropic", responder(client.name, ws)) as server:
            env = cli_env("anthropic", server.url, home)
            env.update(client.env)
            env.setdefault("HOME", str(home))
            if client.name == "claude-code":
                env.update(
                    {"HOME": str(home), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "ANTHROPIC_MODEL": "claude-sonnet-4-5"}
                )
            stderr = open(Path(folder) / "stderr", "wb")
            start = time.monotonic()
            proc = subprocess.Popen(client.command, cwd=ws, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr)
            assert proc.stdout is not None
            last_byte, out = start, b""
            while chunk := os.read(proc.stdout.fileno(), 65536):
                last_byte, out = time.monotonic(), out + chunk
            _, status, usage = os.wait4(proc.pid, 0)
            ended = time.monotonic()
            proc.returncode = os.waitstatus_to_exitcode(status)
            stderr.close()
            arrivals = list(server.arrivals)
        ok = proc.returncode == 0 and b"done" in out
        if not ok:
            sys.stderr.write(f"{client.name}: exit {proc.returncode}: {out[-300:]!r} {(Path(folder) / 'stderr').read_bytes()[-500:]!r}\n")
        return Sample(ended - start, usage.ru_utime + usage.ru_stime, (arrivals[0] - start) if arrivals else float("nan"), ended - last_byte, len(arrivals), ok)


def spread(values: list[float], unit: float = 1.0, digits: int = 2) -> str:
    values = [v * unit for v in values]
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--peers", type=Path, default=Path("/tmp/peers"))
    args = parser.parse_args()
    ours = cli_command("-p", PROMPT, "--output-format", "text")
    clients = [Client("ours", ours, {"PSEUDOCLAUDE_NO_WARMUP": ""}), Client("ours, no warm-up", ours, {"PSEUDOCLAUDE_NO_WARMUP": "1"})]
    claude = args.peers / "node_modules" / ".bin" / "claude"
    if claude.exists():
        clients.append(Client("claude-code", [str(claude), "-p", PROMPT, "--output-format", "text", "--allowedTools", "Read Grep Bash(ls)"]))
    else:
        print(f"(Claude Code not installed under {args.peers}: skipped)")
    root = Path(tempfile.mkdtemp(prefix="bench-headless-"))
    try:
        for round_number in range(args.runs):
            order = clients[round_number % len(clients) :] + clients[: round_number % len(clients)]
            for client in order:
                client.samples.append(one_run(client, root))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    load = os.getloadavg()
    print(f"{args.runs} paired rounds, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores; medians (min-max)\n")
    print("| client | wall s | CPU s | first request s | exit after output ms | requests | ok |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for client in clients:
        s = client.samples
        print(
            f"| {client.name} | {spread([x.wall for x in s])} | {spread([x.cpu for x in s])} | {spread([x.first_request for x in s])} "
            f"| {spread([x.exit_after_output for x in s], 1000, 0)} | {statistics.median(x.requests for x in s):.0f} | {sum(x.ok for x in s)}/{len(s)} |"
        )
    base = clients[0].samples
    for other in clients[1:]:
        ratios_cpu = [a.cpu / b.cpu for a, b in zip(base, other.samples)]
        ratios_wall = [a.wall / b.wall for a, b in zip(base, other.samples)]
        print(f"\nours / {other.name}, paired: CPU {spread(ratios_cpu)}x, wall {spread(ratios_wall)}x")


if __name__ == "__main__":
    main()
