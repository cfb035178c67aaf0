"""How many approval questions an everyday session asks in default mode, with the sandbox and without.

``python bench/bench_sandbox_approvals.py``

The real Claude Agent SDK drives the real CLI (``--output-format stream-json``)
against the wire-level fake Anthropic server, in default permission mode, with
a ``can_use_tool`` callback that answers yes to every question and counts it.
The model is a script of what a day's small task looks like, in a real
temporary git repository with a Makefile and a test suite:

build (``make``), test (``python -m pytest``), read and edit a file, test
again, ``git add`` + ``git commit``, ``git status`` / ``git log``, install a
package (``pip install`` from a package index served on this machine's
127.0.0.1, which a sandbox with the network off cannot reach), use it.

It runs the session twice, ``--sandbox workspace-write`` (the default where
bubblewrap works) and ``--sandbox off``, and prints one table: questions asked
for commands and for edits, and whether every step's command succeeded.
Anthropic reports 84% fewer prompts with Claude Code's sandbox; the aim here is
at most one command question with the sandbox, the one for the network install.
Edits ask in default mode in both runs by design (the diff is shown for review,
as Claude Code does); accept-edits mode removes that question.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import http.server
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.e2e.support import cli_env, fake_server  # noqa: E402
from tests.fakes.script import Call, Reply  # noqa: E402


def tiny_wheel() -> tuple[str, bytes]:
    """A valid pure-Python wheel of a one-module package, made in memory."""
    name, version = "tinypkg", "1.0"
    files = {f"{name}/__init__.py": b"def hello():\n    return 'hello from tinypkg'\n"}
    info = f"{name}-{version}.dist-info"
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"

    def record_line(path: str, data: bytes) -> str:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        return f"{path},sha256={digest},{len(data)}"

    record = "\n".join([*(record_line(p, d) for p, d in files.items()), f"{info}/RECORD,,"]) + "\n"
    files[f"{info}/RECORD"] = record.encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return f"{name}-{version}-py3-none-any.whl", buffer.getvalue()


class PackageIndex:
    """A PEP 503 simple index with one wheel, on 127.0.0.1 (outside any sandbox's network namespace)."""

    def __init__(self) -> None:
        self.wheel_name, self.wheel = tiny_wheel()
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/") in ("/simple/tinypkg", "/simple/tinypkg/index.html"):
                    body = f'<a href="/files/{index.wheel_name}">{index.wheel_name}</a>'.encode()
                    kind = "text/html"
                elif self.path == f"/files/{index.wheel_name}":
                    body, kind = index.wheel, "application/octet-stream"
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple/"

    def __enter__(self) -> PackageIndex:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def make_project(root: Path) -> Path:
    """A small git project: a module with a bug, its tests, a Makefile."""
    ws = root / "proj"
    ws.mkdir()
    (ws / "shop.py").write_text("def with_tax(total, rate):\n    return total * rate\n")
    (ws / "test_shop.py").write_text("from shop import with_tax\n\n\ndef test_tax():\n    assert with_tax(100, 0.2) == 120\n")
    (ws / "Makefile").write_text("build:\n\tpython3 -m py_compile shop.py\n\tmkdir -p build && cp shop.py build/\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run([*git, "add", "-A"], cwd=ws, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=ws, check=True)
    return ws


def script(index_url: str) -> list[Reply]:
    """The model's side of the session: one call a step, in order."""
    python = sys.executable
    commit = "git -c user.name=bench -c user.email=bench@example.invalid"
    steps = [
        ("run_command", {"command": "make build"}),
        ("run_command", {"command": f"{python} -m pytest -q -p no:cacheprovider"}),
        ("read_file", {"path": "shop.py"}),
        ("edit_file", {"path": "shop.py", "old_string": "total * rate", "new_string": "total * (1 + rate)"}),
        ("run_command", {"command": f"{python} -m pytest -q -p no:cacheprovider"}),
        ("run_command", {"command": f"git add shop.py && {commit} commit -qm 'with_tax adds the rate'"}),
        ("run_command", {"command": "git status --short && git log --oneline -2"}),
        ("run_command", {"command": f"{python} -m pip install -q --no-cache-dir --target vendor --index-url {index_url} tinypkg"}),
        ("run_command", {"command": f"PYTHONPATH=vendor {python} -c 'import tinypkg; print(tinypkg.hello())'"}),
    ]
    replies = [Reply(text=f"Step {i + 1}.", calls=(Call(name, json.dumps(args)),)) for i, (name, args) in enumerate(steps)]
    return [*replies, Reply(text="Done: built, tested, fixed, committed, installed.")]


@dataclass
class Outcome:
    sandbox: str
    command_questions: int
    edit_questions: int
    asked: list[str]
    failed_steps: list[str]
    """What the session should have left and did not: the build, the edit, the commit, the package, passing tests."""


def run_session(sandbox: str, cli_path: str) -> Outcome:
    import claude_agent_sdk as sdk

    with tempfile.TemporaryDirectory() as tmp, PackageIndex() as index:
        ws = make_project(Path(tmp))
        asked: list[str] = []

        async def decide(name: str, tool_input: dict[str, Any], context: Any) -> Any:
            asked.append(f"{name}: {tool_input.get('command') or tool_input.get('file_path') or ''}"[:90])
            return sdk.PermissionResultAllow()

        async def prompts() -> Iterator[dict[str, Any]]:  # type: ignore[misc]
            yield {"type": "user", "message": {"role": "user", "content": "Fix with_tax and ship it."}, "parent_tool_use_id": None, "session_id": "default"}

        with fake_server("anthropic", script(index.url)) as server:
            env = {**cli_env("anthropic", server.url, Path(tmp) / "home"), "PYTHONPATH": str(REPO)}
            opts = sdk.ClaudeAgentOptions(cli_path=cli_path, cwd=str(ws), env=env, can_use_tool=decide, extra_args={"sandbox": sandbox})

            async def go() -> list[Any]:
                return [m async for m in sdk.query(prompt=prompts(), options=opts)]

            asyncio.run(asyncio.wait_for(go(), 300))
        failed = [
            what
            for what, done in (
                ("build", (ws / "build" / "shop.py").is_file()),
                ("edit", "(1 + rate)" in (ws / "shop.py").read_text()),
                ("commit", subprocess.run(["git", "log", "--oneline"], cwd=ws, capture_output=True, text=True).stdout.count("\n") == 2),
                ("install", (ws / "vendor" / "tinypkg" / "__init__.py").is_file()),
                ("tests pass", subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=ws, capture_output=True).returncode == 0),
            )
            if not done
        ]
        commands = sum(1 for a in asked if a.startswith("Bash"))
        return Outcome(sandbox, commands, len(asked) - commands, asked, failed)


def main() -> None:
    with tempfile.TemporaryDirectory() as bindir:
        wrapper = Path(bindir) / "pseudoclaude"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m pseudoclaude "$@"\n')
        wrapper.chmod(0o755)
        outcomes = [run_session(mode, str(wrapper)) for mode in ("workspace-write", "off")]
    print("| sandbox | command questions | edit questions | work left undone |")
    print("|---|---|---|---|")
    for o in outcomes:
        print(f"| {o.sandbox} | {o.command_questions} | {o.edit_questions} | {', '.join(o.failed_steps) or 'none'} |")
    for o in outcomes:
        print(f"\n{o.sandbox}: asked")
        for line in o.asked:
            print(f"  - {line}")
    on, off = outcomes
    if off.command_questions:
        print(f"\ncommand questions: {on.command_questions} vs {off.command_questions} ({100 * (1 - on.command_questions / off.command_questions):.0f}% fewer)")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
