"""The allow-list proxy and the forwarder, on the real bubblewrap: a command with no network of its own reaches an allowed
host (a test server on the host's loopback, named ``vm`` or ``localhost``) through them, and nothing else. Every command
and exchange is bounded in time."""

from __future__ import annotations

import asyncio
import shutil
import socket
import time
import urllib.request
from pathlib import Path

import pytest

from tests.sandbox.support import Origin, finished

from pseudoclaude.sandbox.forwarder import forwarded_argv
from pseudoclaude.sandbox.limits import ResourceLimits, limited
from pseudoclaude.sandbox.proxy import MAX_REFUSED, DomainProxy, domain_match

TIMEOUT_S = 20.0
ALLOWED = socket.gethostname()  # /etc/hosts maps it to 127.0.0.1, and it is not in the forwarder's NO_PROXY
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


@pytest.fixture
def short_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("px")  # a UNIX socket path has to stay under 108 bytes


async def _exchange(proxy: DomainProxy, *messages: bytes) -> bytes:
    reader, writer = await asyncio.open_unix_connection(str(proxy.socket_path))
    try:
        for message in messages:
            writer.write(message)
        return await asyncio.wait_for(reader.read(), TIMEOUT_S)
    finally:
        writer.close()


async def _sandboxed(proxy: DomainProxy, command: str, prefix: tuple[str, ...] = ()) -> tuple[int, str, float]:
    directory = str(proxy.socket_path.parent)
    argv = [*prefix, "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid", "--unshare-ipc"]
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    argv += ["--bind", directory, directory, "--", *forwarded_argv(["bash", "-c", command], proxy.socket_path)]
    started = time.monotonic()
    proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    code, out = await finished(proc, TIMEOUT_S)
    return code, out, time.monotonic() - started


def test_an_entry_allows_that_host_and_a_wildcard_its_subdomains_only() -> None:
    allowed = ("pypi.org", "*.github.com")

    assert domain_match("pypi.org", allowed) == "pypi.org"
    assert domain_match("PyPI.org.", allowed) == "pypi.org"
    assert domain_match("api.github.com", allowed) == "*.github.com"
    assert domain_match("a.b.github.com", allowed) == "*.github.com"
    assert domain_match("github.com", allowed) is None
    assert domain_match("evilgithub.com", allowed) is None
    assert domain_match("pypi.org.evil.com", allowed) is None
    assert domain_match("files.pypi.org", allowed) is None
    assert domain_match("127.0.0.1", ("*.0.0.1",)) is None


def test_a_plain_request_reaches_an_allowed_host_named_as_its_uri_says(short_dir: Path, origin: Origin) -> None:
    port = origin.server_address[1]

    async def scenario() -> bytes:
        async with DomainProxy([ALLOWED], short_dir) as proxy:
            return await _exchange(proxy, f"GET http://{ALLOWED}:{port}/a?b=1 HTTP/1.1\r\nHost: elsewhere.example\r\n\r\n".encode())

    answer = asyncio.run(scenario())

    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(f"origin saw {ALLOWED}:{port} /a?b=1\n".encode())
    assert b"\r\nConnection: close\r\n" in answer  # so the client sends no second request, for another host, down it
    assert origin.seen == [(f"{ALLOWED}:{port}", "/a?b=1")]


def test_a_host_not_on_the_list_gets_403_and_is_recorded_once(short_dir: Path, origin: Origin) -> None:
    port = origin.server_address[1]

    async def scenario() -> tuple[bytes, bytes, bytes, tuple[str, ...]]:
        async with DomainProxy(["*.example.com"], short_dir) as proxy:
            tunnel = await _exchange(proxy, b"CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n")
            again = await _exchange(proxy, b"CONNECT EVIL.test.:443 HTTP/1.1\r\n\r\n")
            disguised = await _exchange(proxy, f"GET http://a.example.com@{ALLOWED}:{port}/ HTTP/1.1\r\n\r\n".encode())
            return tunnel, again, disguised, proxy.refused

    tunnel, again, disguised, refused = asyncio.run(scenario())

    assert tunnel.startswith(b"HTTP/1.1 403 Forbidden") and b"evil.test is not in allowedDomains" in tunnel
    assert again.startswith(b"HTTP/1.1 403") and disguised.startswith(b"HTTP/1.1 403")
    assert refused == ("evil.test", ALLOWED)
    assert origin.seen == []


def test_the_refused_list_stays_bounded(short_dir: Path) -> None:
    async def scenario() -> tuple[str, ...]:
        async with DomainProxy([], short_dir) as proxy:
            for n in range(MAX_REFUSED + 20):
                await _exchange(proxy, f"CONNECT host{n}.test:443 HTTP/1.1\r\n\r\n".encode())
            return proxy.refused

    refused = asyncio.run(scenario())

    assert len(refused) == MAX_REFUSED and refused[:2] == ("host0.test", "host1.test")


def test_the_proxy_can_listen_on_loopback_tcp_too_for_a_sandbox_without_a_network_namespace(short_dir: Path, origin: Origin) -> None:
    url = f"http://{ALLOWED}:{origin.server_address[1]}/tcp"

    async def scenario() -> str:
        async with DomainProxy([ALLOWED], short_dir, tcp=True) as proxy:
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": f"http://127.0.0.1:{proxy.port}"}))
            return await asyncio.to_thread(lambda: opener.open(url, timeout=TIMEOUT_S).read().decode())

    assert asyncio.run(scenario()) == f"origin saw {ALLOWED}:{origin.server_address[1]} /tcp\n"


def test_the_proxy_is_bounded_in_header_size_idle_time_and_connections(short_dir: Path) -> None:
    async def scenario() -> tuple[bytes, bytes, bytes]:
        async with DomainProxy([ALLOWED], short_dir, max_connections=2, max_header_bytes=1024, idle_timeout_s=0.3) as proxy:
            huge = await _exchange(proxy, b"GET http://x/ HTTP/1.1\r\nX: " + b"y" * 4096 + b"\r\n\r\n")
            silent = await _exchange(proxy)
            held = [await asyncio.open_unix_connection(str(proxy.socket_path)) for _ in range(2)]
            await asyncio.sleep(0.05)
            third = await _exchange(proxy)
            for _, writer in held:
                writer.close()
            return huge, silent, third

    huge, silent, third = asyncio.run(scenario())

    assert huge.startswith(b"HTTP/1.1 431")
    assert silent.startswith(b"HTTP/1.1 408")
    assert third.startswith(b"HTTP/1.1 503")


@needs_bwrap
def test_an_allowed_domain_goes_through_the_forwarder_and_the_proxy(short_dir: Path, origin: Origin) -> None:
    url = f"http://{ALLOWED}:{origin.server_address[1]}"
    command = f'curl -sS {url}/curl; curl -sS --proxytunnel {url}/tunnel; python3 -c \'import urllib.request as u; print(u.urlopen("{url}/py").read().decode(), end="")\''

    async def scenario() -> tuple[int, str, float]:
        async with DomainProxy([ALLOWED], short_dir) as proxy:
            return await _sandboxed(proxy, command)

    code, out, _ = asyncio.run(scenario())

    assert code == 0, out
    assert [path for _, path in origin.seen] == ["/curl", "/tunnel", "/py"]
    assert out.count("origin saw") == 3


@needs_bwrap
def test_the_pieces_compose_limits_then_bubblewrap_then_the_forwarder(short_dir: Path, origin: Origin) -> None:
    url = f"http://{ALLOWED}:{origin.server_address[1]}"

    async def scenario() -> tuple[int, str, float]:
        async with DomainProxy([ALLOWED], short_dir) as proxy, limited(ResourceLimits(processes=32)) as applied:
            return await _sandboxed(proxy, f"curl -sS {url}/a & curl -sS {url}/b & wait", applied.prefix)

    code, out, _ = asyncio.run(scenario())

    assert code == 0 and sorted(path for _, path in origin.seen) == ["/a", "/b"], out


@needs_bwrap
def test_a_domain_not_on_the_list_gets_403_inside_and_is_recorded(short_dir: Path, origin: Origin) -> None:
    command = f"curl -sS -o /dev/null -w '%{{http_code}}\\n' http://blocked.test:{origin.server_address[1]}/; curl -sS https://also-blocked.test/"

    async def scenario() -> tuple[int, str, tuple[str, ...]]:
        async with DomainProxy(["localhost"], short_dir) as proxy:
            code, out, _ = await _sandboxed(proxy, command)
            return code, out, proxy.refused

    code, out, refused = asyncio.run(scenario())

    assert out.startswith("403\n") and "403" in out.splitlines()[1], out
    assert code != 0 and refused == ("blocked.test", "also-blocked.test")
    assert origin.seen == []


@needs_bwrap
def test_a_direct_connection_to_the_hosts_loopback_receives_nothing(short_dir: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    command = (
        f"curl -sS --noproxy '*' --max-time 3 http://127.0.0.1:{port}/; echo curl=$?; "
        f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 3)' 2>/dev/null; echo python=$?; "
        f"(echo x > /dev/tcp/127.0.0.1/{port}) 2>/dev/null; echo devtcp=$?"
    )

    async def scenario() -> tuple[int, str, float]:
        async with DomainProxy(["localhost"], short_dir) as proxy:
            return await _sandboxed(proxy, command)

    code, out, _ = asyncio.run(scenario())
    try:
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        listener.close()

    assert code == 0 and "curl=0" not in out and "python=0" not in out and "devtcp=0" not in out, out


@needs_bwrap
@pytest.mark.parametrize(("command", "status"), [("exit 7", 7), ("true", 0), ("kill -TERM $$", 143), ("sleep 60 & exit 3", 3)])
def test_the_forwarder_exits_with_the_commands_status_and_takes_its_leftovers(short_dir: Path, command: str, status: int) -> None:
    async def scenario() -> tuple[int, str, float]:
        async with DomainProxy([], short_dir) as proxy:
            return await _sandboxed(proxy, command)

    code, out, elapsed = asyncio.run(scenario())

    assert (code, out) == (status, "") and elapsed < 10


@needs_bwrap
def test_the_command_sees_the_forwarder_in_its_proxy_variables(short_dir: Path) -> None:
    async def scenario() -> tuple[int, str, float]:
        async with DomainProxy([], short_dir) as proxy:
            return await _sandboxed(proxy, 'echo "$HTTPS_PROXY $http_proxy $ALL_PROXY $NO_PROXY"')

    code, out, _ = asyncio.run(scenario())

    https, http, every, no_proxy = out.split()
    assert code == 0 and https == http == every and https.startswith("http://127.0.0.1:")
    assert no_proxy == "localhost,127.0.0.1,::1"
