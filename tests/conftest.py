"""Test-wide guards: no real keys, no network but loopback.

Every test runs with the provider variables cleared and with a socket guard
that refuses any connection that is not to 127.0.0.0/8 or ::1, so no test can
reach a real service by accident.
"""

from __future__ import annotations

import ipaddress
import socket
import subprocess
from typing import Any, Iterator

import pytest

from tests.skip_policy import pytest_runtest_logreport, pytest_sessionfinish, pytest_terminal_summary  # noqa: F401 - hooks

_PROVIDER_VARS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "PSEUDOCLAUDE_MODEL",
    "PSEUDOCLAUDE_PROVIDER",
    "PSEUDOCLAUDE_CONTEXT_WINDOW",
    "PSEUDOCLAUDE_HOME",
)


def _is_loopback(address: Any) -> bool:
    if isinstance(address, (str, bytes)):
        return True  # AF_UNIX path
    host = address[0]
    if host in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if not _is_loopback(address):
        raise ConnectionRefusedError(f"tests may only connect to loopback, not {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if not _is_loopback(address):
        raise ConnectionRefusedError(f"tests may only connect to loopback, not {address!r}")
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    for name in _PROVIDER_VARS:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("pc-home")
    monkeypatch.setenv("PSEUDOCLAUDE_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "claude-config"))  # never the real ~/.claude
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    yield


@pytest.fixture
def terminals() -> Iterator[list[Any]]:
    """The REPL terminals a test opens (``tests.tui.terminal.start``), each closed when the test ends, passed or not."""
    opened: list[Any] = []
    yield opened
    for terminal in opened:
        terminal.close()


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[Any]]]:
    """The processes a test starts (append each ``Popen``): killed if still running, waited for and their pipes closed when the test ends, passed or not."""
    started: list[subprocess.Popen[Any]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(10)
        finally:
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
