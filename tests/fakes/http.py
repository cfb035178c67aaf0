"""The HTTP plumbing both fake provider servers share.

A real ``ThreadingHTTPServer`` on 127.0.0.1 (a free port), speaking HTTP/1.1
with chunked transfer encoding, so a stream that is cut short is a real
protocol error for the client, exactly as when a service drops a connection.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Mapping

Handler = Callable[["Exchange"], None]


class Exchange:
    """One request and the means to answer it (plain JSON or a chunked SSE stream)."""

    def __init__(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        self._h = handler
        self.method = handler.command
        self.path = handler.path
        self.headers = {k.lower(): v for k, v in handler.headers.items()}
        self.raw_body = body
        self._streaming = False

    def json(self) -> Any:
        return json.loads(self.raw_body.decode("utf-8"))

    def send_json(self, status: int, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        self._h.send_response(status)
        self._h.send_header("content-type", "application/json")
        self._h.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            self._h.send_header(key, value)
        self._h.end_headers()
        self._h.wfile.write(data)
        self._h.wfile.flush()

    def start_stream(self, headers: Mapping[str, str] | None = None) -> None:
        self._h.send_response(200)
        self._h.send_header("content-type", "text/event-stream")
        self._h.send_header("cache-control", "no-cache")
        self._h.send_header("transfer-encoding", "chunked")
        for key, value in (headers or {}).items():
            self._h.send_header(key, value)
        self._h.end_headers()
        self._streaming = True

    def send_chunk(self, data: bytes) -> None:
        if not data:
            return
        self._h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self._h.wfile.flush()

    def send_event(self, event: str | None, data: Any) -> None:
        """One server-sent event; ``data`` is JSON-encoded unless it is already a string."""
        payload = data if isinstance(data, str) else json.dumps(data)
        head = f"event: {event}\n" if event else ""
        self.send_chunk(f"{head}data: {payload}\n\n".encode("utf-8"))

    def end_stream(self) -> None:
        self._h.wfile.write(b"0\r\n\r\n")
        self._h.wfile.flush()

    def cut(self) -> None:
        """Drop the connection without finishing the chunked body."""
        self._h.close_connection = True
        try:
            self._h.wfile.flush()
            self._h.connection.shutdown(2)
        except OSError:
            pass


class FakeHTTPServer:
    """Serve ``handler`` on 127.0.0.1 in a background thread; use as a context manager."""

    def __init__(self, handler: Handler) -> None:
        outer = handler

        class _RequestHandler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _dispatch(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                try:
                    outer(Exchange(self, body))
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client went away (killed, or cut on purpose)

            do_POST = _dispatch
            do_GET = _dispatch

            def handle(self) -> None:
                try:
                    super().handle()
                except (ConnectionResetError, BrokenPipeError):
                    pass  # a client that closes its keep-alive connection, or is killed

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _RequestHandler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeHTTPServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeHTTPServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
