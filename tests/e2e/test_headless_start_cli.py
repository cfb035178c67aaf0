"""How a headless run starts (issue 30, issue 27): the provider SDK imported in a warm-up thread, joined before
the first request; MCP servers started before the ``system``/``init`` line of a plain ``-p`` run.

The warm-up's safety argument is in ``pseudoclaude/llm/warmup.py``: the main thread never imports an SDK-side
package (pydantic, httpx, anyio, the SDK, mcp, bashlex) while the thread runs. The run here records every module
load with its thread through an audit hook (``import`` events fire once per module actually loaded) and checks it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.support import cli_env, fake_server, json_lines
from tests.fakes.script import Call, Reply

pytestmark = pytest.mark.slow

DEMO = Path(__file__).resolve().parent.parent / "extensions" / "mcp_demo_server.py"
CONFIG = json.dumps({"mcpServers": {"demo": {"command": sys.executable, "args": [str(DEMO)]}}})
SDK_SIDE = ("anthropic", "pydantic", "pydantic_core", "httpx", "httpx2", "httpcore", "httpcore2", "anyio", "mcp", "sniffio", "jiter")

RECORDER = """
import atexit, json, sys, threading, time
loads = []
sys.addaudithook(lambda event, args: loads.append((threading.current_thread().name, args[0], time.monotonic())) if event == "import" else None)
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(loads)))
from pseudoclaude.cli import main
main()
"""


def recorded_run(
    tmp_path: Path, args: list[str], env_extra: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], list[tuple[str, str, float]], list[float]]:
    ws, record = tmp_path / "ws", tmp_path / "loads.json"
    ws.mkdir()
    script = [Reply(text="Listing.", calls=(Call("run_command", json.dumps({"command": "ls"})),)), Reply(text="done")]
    with fake_server("anthropic", script) as server:
        env = {**cli_env("anthropic", server.url, tmp_path / "home"), "PSEUDOCLAUDE_NO_WARMUP": "", **(env_extra or {})}
        proc = subprocess.run([sys.executable, "-c", RECORDER, str(record), *args], cwd=ws, env=env, capture_output=True, text=True, timeout=120)
        arrivals = list(server.arrivals)
    loads = [tuple(row) for row in json.loads(record.read_text())]
    return proc, loads, arrivals  # type: ignore[return-value]


def top(module: str) -> str:
    return module.split(".")[0]


def test_the_sdk_is_imported_by_the_warm_up_thread_and_the_main_thread_imports_nothing_of_its_side_meanwhile(tmp_path: Path) -> None:
    proc, loads, arrivals = recorded_run(tmp_path, ["-p", "list the folder"])
    assert proc.returncode == 0, proc.stderr
    warm = [row for row in loads if row[0] == "pseudoclaude-warm-up"]
    assert {"anthropic", "pydantic", "bashlex"} <= {top(row[1]) for row in warm}
    sdk_end = max(t for _, module, t in warm if top(module) != "bashlex")
    main = [row for row in loads if row[0] == "MainThread"]
    warm_start = min(t for _, _, t in warm)
    assert [m for _, m, t in main if top(m) in SDK_SIDE and warm_start < t < sdk_end] == []
    assert [m for _, m, _ in main if top(m) == "bashlex"] == []  # the warm-up had it; the permission check joined
    assert arrivals and arrivals[0] > sdk_end  # joined before the first request


def test_no_warmup_imports_the_sdk_on_the_main_thread(tmp_path: Path) -> None:
    proc, loads, _ = recorded_run(tmp_path, ["-p", "list the folder"], {"PSEUDOCLAUDE_NO_WARMUP": "1"})
    assert proc.returncode == 0, proc.stderr
    assert {row[0] for row in loads} == {"MainThread"}
    assert "anthropic" in {row[1] for row in loads}


def test_with_an_mcp_server_its_sdk_is_imported_only_after_the_warm_up_imported_pydantic_and_httpx(tmp_path: Path) -> None:
    proc, loads, _ = recorded_run(tmp_path, ["-p", "list the folder", "--mcp-config", CONFIG])
    assert proc.returncode == 0, proc.stderr
    warm = [row for row in loads if row[0] == "pseudoclaude-warm-up"]
    sdk_end = max(t for _, module, t in warm if top(module) != "bashlex")
    mcp_loads = [t for name, module, t in loads if name == "MainThread" and top(module) == "mcp"]
    assert mcp_loads and min(mcp_loads) > sdk_end


def test_plain_print_starts_mcp_servers_before_init_so_init_says_connected_and_lists_their_prompts(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with fake_server("anthropic", [Reply(text="done")]) as server:
        env = cli_env("anthropic", server.url, tmp_path / "home")
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "pseudoclaude", "-p", "hi", "--output-format", "stream-json", "--verbose", "--mcp-config", CONFIG],
            cwd=ws,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 0, proc.stderr
    lines = json_lines(proc.stdout)
    init = next(line for line in lines if line.get("subtype") == "init")
    assert init["mcp_servers"] == [{"name": "demo", "status": "connected"}]
    assert "mcp__demo__greet" in init["slash_commands"]
    assert lines[-1]["type"] == "result" and lines[-1]["is_error"] is False
    assert time.monotonic() - started < 60
