"""The allow-list HTTP proxy a sandboxed command reaches the network through.

With ``network: allowed`` the command's network namespace has no route out; its
only way is a UNIX socket bind-mounted into the sandbox, where this proxy
listens (outside, in our process). It speaks just enough HTTP/1.1 for what
``HTTP_PROXY``/``HTTPS_PROXY`` clients send: ``CONNECT host:port`` (a tunnel,
for TLS) and requests with an absolute URI (``GET http://host/path``).

Invariants:

- A host passes when it equals an ``allowedDomains`` entry or, for an entry
  ``*.example.com``, is a subdomain of ``example.com`` (not ``example.com``
  itself). Everything else gets ``403`` and its host is recorded in
  :attr:`DomainProxy.refused`, so the sandbox can say which connection it
  blocked.
- The host checked is the host connected to and the host named upstream: the
  name is resolved once, here, and the connection goes to one of those
  addresses; a plain request is sent with ``Host`` set from its URI and
  ``Connection: close``, so a second request on the same connection cannot
  reach another host. A wildcard entry never leads to a loopback, link-local or
  unspecified address (a subdomain resolving to ``127.0.0.1`` or the cloud
  metadata address is refused); an exact entry may, as the user named it.
- Bounded: at most ``max_connections`` at once, a request head of at most
  ``max_header_bytes``, and a connection idle in both directions for
  ``idle_timeout_s`` is closed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Iterable
from urllib.parse import urlsplit

SOCKET_NAME = "proxy.sock"
MAX_REFUSED = 256
_UNIX_PATH_MAX = 107
_HOST_NAME = re.compile(r"^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$")
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer", "upgrade", "host"}


def normalize_host(host: str) -> str:
    """The form hosts are compared in: lower case, no trailing dot, no brackets around an IPv6 address."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host[:-1] if host.endswith(".") else host


def domain_match(host: str, allowed: Iterable[str]) -> str | None:
    """Which ``allowed`` entry lets ``host`` through (``example.com`` exactly, ``*.example.com`` its subdomains), or None.

    An IP address passes only when listed as it is: ``*.0.0.1`` names no subdomain."""
    host = normalize_host(host)
    literal = _is_address(host)
    for entry in allowed:
        pattern = normalize_host(entry)
        if pattern.startswith("*.") and not literal:
            suffix = pattern[1:]
            if len(suffix) > 1 and host.endswith(suffix) and len(host) > len(suffix):
                return entry
        elif pattern and host == pattern:
            return entry
    return None


@dataclass(frozen=True)
class _Request:
    method: str
    host: str
    port: int
    head: bytes
    """What to send upstream first: the rewritten request head, or nothing for a tunnel."""


class _Refusal(Exception):
    def __init__(self, status: int, reason: str, text: str) -> None:
        super().__init__(text)
        self.status, self.reason, self.text = status, reason, text


class DomainProxy:
    """An allow-list HTTP proxy on ``directory/proxy.sock`` for the life of an ``async with`` block.

    ``directory`` should be private to us (``tempfile.mkdtemp`` makes it 0700): the socket is made 0600 only once it
    exists. With ``tcp=True`` it also listens on ``127.0.0.1:port``, for a sandbox that has no network namespace
    (Seatbelt allows the command that one port)."""

    def __init__(
        self,
        allowed_domains: Iterable[str],
        directory: Path,
        *,
        max_connections: int = 64,
        max_header_bytes: int = 64 * 1024,
        idle_timeout_s: float = 120.0,
        connect_timeout_s: float = 15.0,
        tcp: bool = False,
    ) -> None:
        self.allowed_domains = tuple(normalize_host(entry) for entry in allowed_domains)
        self.socket_path = Path(directory) / SOCKET_NAME
        if len(os.fsencode(self.socket_path)) > _UNIX_PATH_MAX:
            raise ValueError(f"the proxy socket path is too long for a UNIX socket ({_UNIX_PATH_MAX} bytes): {self.socket_path}")
        self.max_connections = max_connections
        self.max_header_bytes = max_header_bytes
        self.idle_timeout_s = idle_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self._refused: dict[str, None] = {}
        self.tcp = tcp
        self.port: int | None = None
        """The TCP port on 127.0.0.1 (``tcp=True``), once the ``async with`` block has begun."""
        self._servers: list[asyncio.AbstractServer] = []
        self._connections: set[asyncio.Task[None]] = set()

    @property
    def refused(self) -> tuple[str, ...]:
        """The hosts a request was refused for, each once, in the order first refused (the first ``MAX_REFUSED``)."""
        return tuple(self._refused)

    async def __aenter__(self) -> DomainProxy:
        self.socket_path.unlink(missing_ok=True)
        self._servers.append(await asyncio.start_unix_server(self._accept, path=str(self.socket_path), limit=self.max_header_bytes))
        os.chmod(self.socket_path, 0o600)
        if self.tcp:
            server = await asyncio.start_server(self._accept, "127.0.0.1", 0, limit=self.max_header_bytes)
            self._servers.append(server)
            self.port = server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        for server in self._servers:
            server.close()
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.gather(*self._connections, return_exceptions=True)
        for server in self._servers:
            await server.wait_closed()
        self.socket_path.unlink(missing_ok=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        if len(self._connections) >= self.max_connections:
            await _answer(writer, _Refusal(503, "Service Unavailable", f"the proxy has {self.max_connections} connections open already"))
            return
        self._connections.add(task)
        try:
            await self._serve(reader, writer)
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            self._connections.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await self._read_request(reader)
            match = domain_match(request.host, self.allowed_domains)
            if match is None:
                self._refuse(request.host)
                raise _Refusal(403, "Forbidden", f"blocked by the sandbox: {request.host} is not in allowedDomains")
            upstream_reader, upstream_writer = await self._connect(request, exact=not match.startswith("*."))
        except _Refusal as refusal:
            await _answer(writer, refusal)
            return
        try:
            if request.method == "CONNECT":
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            else:
                upstream_writer.write(request.head)
            await self._relay(reader, writer, upstream_reader, upstream_writer, tunnel=request.method == "CONNECT")
        finally:
            upstream_writer.close()

    def _refuse(self, host: str) -> None:
        if len(self._refused) < MAX_REFUSED:
            self._refused[normalize_host(host)] = None

    async def _read_request(self, reader: asyncio.StreamReader) -> _Request:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.idle_timeout_s)
        except asyncio.LimitOverrunError:
            raise _Refusal(431, "Request Header Fields Too Large", f"the request head is over {self.max_header_bytes} bytes") from None
        except TimeoutError:
            raise _Refusal(408, "Request Timeout", "no request head in time") from None
        return _parse(head)

    async def _connect(self, request: _Request, *, exact: bool) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Resolve once and connect to one of those addresses, so the host checked is the host reached."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.connect_timeout_s):
                addresses = await loop.getaddrinfo(request.host, request.port, type=socket.SOCK_STREAM)
                usable = [a for a in addresses if exact or not _local(str(a[4][0]))]
                if not usable:
                    self._refuse(request.host)
                    raise _Refusal(403, "Forbidden", f"blocked by the sandbox: {request.host} resolves to a local address")
                failure: OSError | None = None
                for family, kind, proto, _, address in usable:
                    sock = socket.socket(family, kind, proto)
                    sock.setblocking(False)
                    try:
                        await loop.sock_connect(sock, address)
                        return await asyncio.open_connection(sock=sock, limit=self.max_header_bytes)
                    except OSError as error:
                        sock.close()
                        failure = error
                    except BaseException:
                        sock.close()
                        raise
                raise _Refusal(502, "Bad Gateway", f"cannot connect to {request.host}:{request.port}: {failure}")
        except TimeoutError:
            raise _Refusal(504, "Gateway Timeout", f"no connection to {request.host}:{request.port} in time") from None
        except socket.gaierror as error:
            raise _Refusal(502, "Bad Gateway", f"cannot resolve {request.host}: {error.strerror}") from None

    async def _relay(
        self,
        client_reader: asyncio.StreamReader,
        client_writer: asyncio.StreamWriter,
        upstream_reader: asyncio.StreamReader,
        upstream_writer: asyncio.StreamWriter,
        *,
        tunnel: bool,
    ) -> None:
        """Copy both ways until both sides have finished or neither has sent anything for ``idle_timeout_s``.

        For a plain request the response head is rewritten to say ``Connection: close``, so the client does not send
        its next request (perhaps for another host) down this connection, whatever the origin answered."""
        last = [time.monotonic()]

        async def read(source: asyncio.StreamReader, head: bool) -> bytes:
            while True:
                try:
                    if head:
                        return await asyncio.wait_for(source.readuntil(b"\r\n\r\n"), self.idle_timeout_s)
                    return await asyncio.wait_for(source.read(64 * 1024), self.idle_timeout_s)
                except TimeoutError:
                    if time.monotonic() - last[0] >= self.idle_timeout_s:
                        raise

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter, heads: bool) -> None:
            while heads:
                head = await read(source, head=True)
                last[0] = time.monotonic()
                heads = head.startswith(b"HTTP/1.1 1") or head.startswith(b"HTTP/1.0 1")
                sink.write(head if heads else _closing(head))
            while chunk := await read(source, head=False):
                last[0] = time.monotonic()
                sink.write(chunk)
                await sink.drain()
            if sink.can_write_eof():
                sink.write_eof()

        pumps = [
            asyncio.ensure_future(pump(client_reader, upstream_writer, False)),
            asyncio.ensure_future(pump(upstream_reader, client_writer, not tunnel)),
        ]
        try:
            await asyncio.gather(*pumps)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            for task in pumps:
                task.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)


def _closing(head: bytes) -> bytes:
    """A response head that tells the client this connection ends with the response."""
    lines = head.split(b"\r\n")[:-2]
    kept = [line for line in lines[1:] if line.split(b":", 1)[0].strip().lower() not in (b"connection", b"keep-alive", b"proxy-connection")]
    return b"\r\n".join([lines[0], *kept, b"Connection: close", b"", b""])


def _parse(head: bytes) -> _Request:
    lines = head.decode("latin-1").split("\r\n")[:-2]
    parts = lines[0].split(" ") if lines else []
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _Refusal(400, "Bad Request", "not an HTTP/1 request line")
    method, target, _ = parts
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise _Refusal(400, "Bad Request", "a malformed header line")
        headers.append((name, value.strip()))
    if method == "CONNECT":
        host, port = _authority(target)
        return _Request(method, host, port, b"")
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        raise _Refusal(400, "Bad Request", "a proxy request needs an absolute http:// URI (use CONNECT for https)")
    host, port = _authority(url.netloc.rpartition("@")[2], default_port=80)
    named = {value.strip().lower() for name, value in headers if name.lower() == "connection"}
    kept = [(name, value) for name, value in headers if name.lower() not in _HOP_BY_HOP and name.lower() not in named]
    authority = url.netloc.rpartition("@")[2]
    rewritten = [f"{method} {url.path or '/'}{'?' + url.query if url.query else ''} HTTP/1.1", f"Host: {authority}"]
    rewritten += [f"{name}: {value}" for name, value in kept] + ["Connection: close", "", ""]
    return _Request(method, host, port, "\r\n".join(rewritten).encode("latin-1"))


def _authority(text: str, default_port: int | None = None) -> tuple[str, int]:
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        host, colon, port_text = text.rpartition(":") if ":" in text else (text, "", "")
    if not port_text and default_port is not None:
        port_text = str(default_port)
    if not port_text.isdigit() or not 0 < int(port_text) < 65536 or not _valid_host(host):
        raise _Refusal(400, "Bad Request", f"not a host:port: {text[:200]}")
    return host, int(port_text)


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _valid_host(host: str) -> bool:
    host = normalize_host(host)
    return _is_address(host) or bool(_HOST_NAME.match(host))


def _local(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast


async def _answer(writer: asyncio.StreamWriter, refusal: _Refusal) -> None:
    body = (refusal.text + "\n").encode("utf-8", "replace")
    head = f"HTTP/1.1 {refusal.status} {refusal.reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    try:
        writer.write(head.encode("latin-1") + body)
        await writer.drain()
        writer.close()
    except OSError:
        pass
