"""What the sandbox tests share: a workspace with its own temp folder, the real bubblewrap, a command through run_command."""

from __future__ import annotations

import http.server

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pseudoclaude.sandbox import CommandSandbox, SandboxConfig, detect_sandbox
from pseudoclaude.tools import RunCommandTool, ToolContext, ToolOutput


def real_sandbox(workspace: Path, **config: Any) -> CommandSandbox:
    """The bubblewrap sandbox of this machine for ``workspace``; the test is skipped where bwrap cannot run."""
    sandbox, status = detect_sandbox(SandboxConfig(**config), workspace)
    if sandbox is None or status.kind != "bubblewrap":
        pytest.skip(f"no bubblewrap here: {status.detail}")
    return sandbox


def run(command: str, workspace: Path, sandbox: CommandSandbox | None, *, timeout: int = 60) -> ToolOutput:
    """``command`` through the run_command tool, confined by ``sandbox`` (None: unconfined)."""
    return asyncio.run(RunCommandTool().run({"command": command, "timeout": timeout}, ToolContext(workspace=workspace, sandbox=sandbox)))


def exit_code(output: ToolOutput) -> Any:
    return output.display.get("exit_code")


class Origin(http.server.ThreadingHTTPServer):
    """An HTTP server on the host's loopback, standing in for an allowed domain; ``seen``: (Host, path) of each request."""

    seen: list[tuple[str, str]]


class OriginHandler(http.server.BaseHTTPRequestHandler):
    server: Origin
    protocol_version = "HTTP/1.1"  # keeps connections alive unless told otherwise

    def do_GET(self) -> None:
        self.server.seen.append((self.headers["Host"], self.path))
        body = f"origin saw {self.headers['Host']} {self.path}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


async def finished(proc: asyncio.subprocess.Process, timeout_s: float) -> tuple[int, str]:
    """``proc``'s exit code and combined output; killed (and the timeout raised) if it runs past ``timeout_s``."""
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout_s)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace")
