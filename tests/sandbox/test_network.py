"""With the network off, nothing inside reaches a listener outside, not even on loopback."""

from __future__ import annotations

import asyncio
import shutil
import socket
import tempfile
import threading
from pathlib import Path
from typing import Iterator

import pytest

from pseudoclaude.tools import BackgroundJobs, RunCommandTool, ToolContext
from tests.sandbox.support import Origin, exit_code, real_sandbox, run


class Listener:
    """A TCP listener on 127.0.0.1 (outside the sandbox) that counts the connections it accepts."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.server.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    opened = Listener()
    yield opened
    opened.close()


CLIENTS = {
    "curl": "curl -sS -m 3 http://127.0.0.1:{port}/",
    "python": "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3)\"",
    "bash": "exec 3<>/dev/tcp/127.0.0.1/{port}",
}


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_a_loopback_listener_outside_receives_nothing_with_the_network_off(workspace: Path, listener: Listener, client: str) -> None:
    output = run(CLIENTS[client].format(port=listener.port), workspace, real_sandbox(workspace))
    assert listener.accepted == 0
    assert "network is off" in output.display["sandbox_blocked"]


def test_with_the_network_on_the_same_client_gets_through(workspace: Path, listener: Listener) -> None:
    run(CLIENTS["python"].format(port=listener.port), workspace, real_sandbox(workspace, network="all"))
    assert listener.accepted == 1


@pytest.mark.parametrize("network", ["off", "all"])
def test_a_unix_socket_outside_cannot_be_reached_either(workspace: Path, outside: Path, network: str) -> None:
    path = str(outside / "daemon.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen()
    server.settimeout(0.5)
    try:
        output = run(
            f"curl -sS -m 3 --unix-socket {path} http://daemon/; python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect('{path}')\"",
            workspace,
            real_sandbox(workspace, network=network),
        )
        with pytest.raises(TimeoutError):
            server.accept()
    finally:
        server.close()
    assert "Operation not permitted" in output.content


def test_socketpair_still_works_for_asyncio_and_multiprocessing(workspace: Path) -> None:
    output = run("python3 -c \"import asyncio; asyncio.run(asyncio.sleep(0)); print('loop ok')\"", workspace, real_sandbox(workspace))
    assert "loop ok" in output.content


ALLOWED = socket.gethostname()  # /etc/hosts maps it to a loopback address: the proxy lets an exact entry reach it


def test_an_allowed_domain_goes_through_the_proxy_and_nothing_else(workspace: Path, origin: Origin, listener: Listener) -> None:
    sandbox = real_sandbox(workspace, network="allowed", allowed_domains=(ALLOWED,))
    port = origin.server_address[1]
    allowed = run(f"curl -sS -m 10 http://{ALLOWED}:{port}/", workspace, sandbox)
    assert "origin saw" in allowed.content
    refused = run(f"curl -sS -m 10 -f http://example.invalid:{port}/", workspace, sandbox)
    assert "example.invalid" in refused.display["sandbox_blocked"]
    direct = run(f"curl -sS -m 3 --noproxy '*' http://127.0.0.1:{listener.port}/", workspace, sandbox)
    assert listener.accepted == 0 and exit_code(direct) != 0


def test_each_commands_proxy_folder_is_removed_when_the_command_ends(workspace: Path) -> None:
    """The proxy's socket lives in a folder of its own per command (bound read-only inside); a long session runs
    thousands of commands, so each folder goes with its command, not at exit."""
    sandbox = real_sandbox(workspace, network="allowed", allowed_domains=(ALLOWED,))
    seen = [run("ls -d /tmp/pc-px-*/*", workspace, sandbox).content.splitlines()[0] for _ in range(2)]
    assert seen[0] != seen[1] and all(line.startswith("/tmp/pc-px-") for line in seen)
    assert [Path(folder).exists() for folder in seen] == [False, False]


def test_with_allowed_domains_a_unix_socket_in_the_temp_folder_is_masked(workspace: Path, tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="pc-sock-", dir="/tmp"))
    path = str(folder / "daemon.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen()
    server.settimeout(0.5)
    try:
        run(
            f"python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect('{path}')\"",
            workspace,
            real_sandbox(workspace, network="allowed", allowed_domains=(ALLOWED,)),
        )
        with pytest.raises(TimeoutError):
            server.accept()
    finally:
        server.close()
        shutil.rmtree(folder)


def test_with_the_network_off_commands_of_a_session_still_reach_each_others_servers(workspace: Path, listener: Listener) -> None:
    sandbox = real_sandbox(workspace)
    (workspace / "index.html").write_text("served inside\n")
    port = listener.port + 1 if listener.port < 65000 else listener.port - 1

    async def serve_then_fetch() -> str:
        jobs = BackgroundJobs()
        await jobs.start(f"python3 -m http.server {port} --bind 127.0.0.1", workspace, sandbox=sandbox)
        try:
            fetch = f"for i in $(seq 300); do curl -sS -m 2 http://127.0.0.1:{port}/index.html && break; sleep 0.1; done"  # up to 30 s for the server to start on a loaded machine (5 s once was not)
            return (await RunCommandTool().run({"command": fetch}, ToolContext(workspace=workspace, sandbox=sandbox))).content
        finally:
            await jobs.aclose()

    assert "served inside" in asyncio.run(serve_then_fetch())
    run(CLIENTS["python"].format(port=listener.port), workspace, sandbox)
    assert listener.accepted == 0


def test_two_commands_at_once_each_reach_the_allowed_domain(workspace: Path, origin: Origin) -> None:
    sandbox = real_sandbox(workspace, network="allowed", allowed_domains=(ALLOWED,))
    url = f"http://{ALLOWED}:{origin.server_address[1]}/"

    async def both() -> list[str]:
        jobs = BackgroundJobs()
        job = await jobs.start(f"sleep 1; curl -sS -m 10 {url}", workspace, sandbox=sandbox)
        try:
            foreground = await RunCommandTool().run({"command": f"curl -sS -m 10 {url}"}, ToolContext(workspace=workspace, sandbox=sandbox))
            background = ""
            for _ in range(200):
                new = jobs.read(job.id)
                background += new.text
                if not new.job.running:
                    break
                await asyncio.sleep(0.05)
            return [foreground.content, background + jobs.read(job.id).text]
        finally:
            await jobs.aclose()

    foreground, background = asyncio.run(both())
    assert "origin saw" in foreground and "origin saw" in background
