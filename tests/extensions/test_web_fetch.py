"""web_fetch against a local HTTP server: HTML to Markdown, redirects, a 50 MB body, a binary file; its permissions by domain."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from pseudoclaude.tools import OutputBudget, ToolContext, ToolError, ToolOutput
from pseudoclaude.tools.permissions import PermissionMode, PermissionPolicy, Rules
from pseudoclaude.tools.web_fetch import WebFetchTool
from tests.e2e.support import cli_env, fake_server, run_cli
from tests.fakes.script import Call, Reply

PAGE = b"""<!doctype html><html><head><title>Demo docs</title><style>body{color:red}</style></head>
<body><script>alert('no')</script><h1>Install</h1><p>Run <code>pip install demo</code> then read
<a href="/guide">the guide</a>.</p><ul><li>fast</li><li>small</li></ul></body></html>"""
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
FIFTY_MB = 50 * 1024 * 1024


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        routes = {
            "/page.html": lambda: self._send(200, "text/html; charset=utf-8", PAGE),
            "/moved": lambda: self._redirect("/page.html"),
            "/loop": lambda: self._redirect("/loop-again"),
            "/loop-again": lambda: self._redirect("/loop"),
            "/elsewhere": lambda: self._redirect(f"http://localhost:{self.server.server_address[1]}/page.html"),
            "/image.png": lambda: self._send(200, "image/png", PNG),
            "/missing": lambda: self._send(404, "text/plain", b"no such page"),
            "/big-declared": lambda: self._big(declared=True),
            "/big-streamed": lambda: self._big(declared=False),
            "/long.txt": lambda: self._send(200, "text/plain", b"".join(b"line %d\n" % i for i in range(20_000))),
        }
        routes.get(self.path, lambda: self._send(404, "text/plain", b"?"))()

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, where: str) -> None:
        self.send_response(302)
        self.send_header("Location", where)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _big(self, *, declared: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        if declared:
            self.send_header("Content-Length", str(FIFTY_MB))
        self.end_headers()
        chunk = b"x" * 65536 + b"\n"
        try:
            for _ in range(FIFTY_MB // len(chunk)):
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def fetch(url: str, tmp_path: Path, budget: OutputBudget = OutputBudget()) -> ToolOutput:
    ctx = ToolContext(workspace=tmp_path, spill_dir=tmp_path / "tool-results").at(budget=budget)
    return asyncio.run(WebFetchTool(local_addresses=True).run({"url": url}, ctx))


def test_html_becomes_markdown_without_scripts_or_styles(site: str, tmp_path: Path) -> None:
    out = fetch(site + "/moved", tmp_path)
    assert out.content.startswith(f"# Demo docs\n[{site}/page.html · HTTP 200 · text/html · ")
    assert "# Install" in out.content and "`pip install demo`" in out.content and "[the guide](/guide)" in out.content
    assert "- fast\n- small" in out.content
    assert "alert" not in out.content and "color:red" not in out.content and not out.is_error


def test_a_redirect_loop_ends_after_the_limit(site: str, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="too many redirects: more than 5"):
        fetch(site + "/loop", tmp_path)


def test_a_redirect_to_another_host_is_returned_not_followed(site: str, tmp_path: Path) -> None:
    out = fetch(site + "/elsewhere", tmp_path)
    assert "redirects (HTTP 302) to another host: http://localhost:" in out.content and "Call web_fetch again" in out.content


@pytest.mark.parametrize("path", ["/big-declared", "/big-streamed"])
def test_a_50_mb_body_is_refused(site: str, tmp_path: Path, path: str) -> None:
    with pytest.raises(ToolError, match="10 MB"):
        fetch(site + path, tmp_path)


def test_a_binary_file_is_refused_with_its_type(site: str, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"is binary \(PNG image, 2,056 bytes\)"):
        fetch(site + "/image.png", tmp_path)


def test_an_http_error_is_an_error_result_with_the_body(site: str, tmp_path: Path) -> None:
    out = fetch(site + "/missing", tmp_path)
    assert out.is_error and "HTTP 404" in out.content and "no such page" in out.content


def test_a_long_page_goes_through_the_output_budget_and_is_spilled_whole(site: str, tmp_path: Path) -> None:
    out = fetch(site + "/long.txt", tmp_path, OutputBudget(read_bytes=8_000))
    assert out.shaped and len(out.content.encode()) < 9_000 and "line 19999" in out.content
    assert out.full_output is not None and "line 10000\n" in Path(out.full_output).read_text()


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "not a url"])
def test_only_http_and_https(url: str, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="only http:// and https://"):
        fetch(url, tmp_path)


def decide(mode: PermissionMode, url: str, tmp_path: Path, **rules: list[str]) -> Any:
    policy = PermissionPolicy(mode=mode, workspace=tmp_path, rules=Rules.from_settings({"permissions": rules}))
    return asyncio.run(policy.check(WebFetchTool(), {"url": url}))


def test_web_fetch_asks_by_default_and_names_the_domain_rule(tmp_path: Path) -> None:
    decision = decide(PermissionMode.DEFAULT, "https://docs.python.org/3/", tmp_path)
    assert not decision.allowed and "--allowed-tools 'web_fetch(domain:docs.python.org)'" in decision.reason


def test_plan_mode_asks_for_web_fetch_instead_of_refusing_it(tmp_path: Path) -> None:
    assert decide(PermissionMode.PLAN, "https://docs.python.org/3/", tmp_path).source == "headless"
    assert decide(PermissionMode.PLAN, "https://docs.python.org/3/", tmp_path, allow=["WebFetch(domain:docs.python.org)"]).allowed


def test_domain_rules_allow_and_deny_by_host(tmp_path: Path) -> None:
    allow = ["web_fetch(domain:docs.python.org)", "web_fetch(domain:*.example.com)"]
    assert decide(PermissionMode.DEFAULT, "https://docs.python.org/3/library/", tmp_path, allow=allow).allowed
    assert decide(PermissionMode.DEFAULT, "https://api.example.com/x", tmp_path, allow=allow).allowed
    assert not decide(PermissionMode.DEFAULT, "https://docs.python.org.evil.test/", tmp_path, allow=allow).allowed
    assert not decide(PermissionMode.BYPASS, "https://tracker.example.com/", tmp_path, deny=["WebFetch(domain:*.example.com)"]).allowed


@pytest.mark.slow
def test_the_model_fetches_a_page_it_is_allowed_to(site: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    script = [Reply(calls=(Call("web_fetch", json.dumps({"url": site + "/page.html"})),)), Reply(text="Read it.")]
    with fake_server("anthropic", script) as server:
        env = {**cli_env("anthropic", server.url, tmp_path / "home"), "PSEUDOCLAUDE_WEB_FETCH_LOCAL": "1"}
        proc = run_cli(["-p", "read the docs", "--allowed-tools", "web_fetch(domain:127.0.0.1)"], ws, env)
        assert server.rejections == []
        second = server.requests[1]
    assert proc.returncode == 0, proc.stderr
    result = [b for m in second["messages"] if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"][-1]
    text = result["content"] if isinstance(result["content"], str) else "".join(b.get("text", "") for b in result["content"])
    assert "# Install" in text and not result.get("is_error")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/",
        "http://localhost/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.7/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fe80::1]/",
        "http://0.0.0.0/",
    ],
)
def test_local_and_private_addresses_are_refused_by_default(url: str, tmp_path: Path) -> None:
    ctx = ToolContext(workspace=tmp_path, spill_dir=tmp_path / "tool-results")
    with pytest.raises(ToolError, match="public hosts only: .* is a local or private address"):
        asyncio.run(WebFetchTool().run({"url": url}, ctx))


def test_a_same_host_redirect_is_judged_again(site: str, tmp_path: Path) -> None:
    """The loopback site is refused before the first byte is sent, redirect or not."""
    ctx = ToolContext(workspace=tmp_path, spill_dir=tmp_path / "tool-results")
    with pytest.raises(ToolError, match="public hosts only"):
        asyncio.run(WebFetchTool().run({"url": site + "/moved"}, ctx))


def test_only_the_users_own_settings_open_local_addresses(tmp_path: Path) -> None:
    from pseudoclaude.config import load_settings
    from pseudoclaude.tools import default_tools

    home, ws = tmp_path / "home", tmp_path / "ws"
    (ws / ".pseudoclaude").mkdir(parents=True)
    home.mkdir()
    (ws / ".pseudoclaude" / "settings.json").write_text('{"webFetchLocalAddresses": true}')
    (ws / ".env").write_text("PSEUDOCLAUDE_WEB_FETCH_LOCAL=1\n")
    env = {"PSEUDOCLAUDE_HOME": str(home), "ANTHROPIC_API_KEY": "k"}
    assert not load_settings(ws, environ=env).web_fetch_local
    (home / "settings.json").write_text('{"webFetchLocalAddresses": true}')
    assert load_settings(ws, environ=env).web_fetch_local
    (home / "settings.json").unlink()
    assert load_settings(ws, environ={**env, "PSEUDOCLAUDE_WEB_FETCH_LOCAL": "1"}).web_fetch_local
    fetcher = next(t for t in default_tools(fetch_local_addresses=True) if t.name == "web_fetch")
    assert isinstance(fetcher, WebFetchTool) and fetcher.local_addresses
