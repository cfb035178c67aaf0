"""One MCP server's connection, kept by a task of its own.

The SDK's transports and ``ClientSession`` are async context managers that
must be entered and left by the same task, so each server lives in one task
(``_serve``): it connects, initializes, lists the tools, says it is ready and
then waits for ``stop()``. Calls come from the tool rounds' tasks and go
through the session's request streams, which any task may use.

States: ``starting`` -> ``ready`` -> ``stopped`` on ``stop()``; ``failed``
when it could not start (an error, the start-up timeout) or when a call finds
it gone (a closed connection: the process died). A failed server's tools are
withdrawn by the manager and its failure is reported once, in one line; the
session goes on. A stdio server's stderr goes to a private temporary file
(never onto the terminal); its last line joins the failure's message.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal, Mapping, TextIO, cast

from pseudoclaude.mcp_client.spec import ServerSpec

State = Literal["starting", "ready", "failed", "stopped"]
STOP_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class RemoteTool:
    """A tool as the server listed it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True)
class ImagePart:
    """An image content part as the server sent it: its declared MIME type and base64 data, not yet checked."""

    mime_type: str
    data: str


@dataclass(frozen=True)
class CallResult:
    """A call's text (audio and binary resources named, not shown), its images, and whether the server flagged an error."""

    text: str
    is_error: bool
    images: tuple[ImagePart, ...] = ()


class ServerGone(Exception):
    """The server is not (or no longer) running; the message says why."""


class ServerConnection:
    def __init__(self, spec: ServerSpec, workspace: Path, *, call_timeout_s: float) -> None:
        self.spec = spec
        self.workspace = workspace
        self.call_timeout_s = call_timeout_s
        self.state: State = "starting"
        self.error: str | None = spec.problem
        self.tools: tuple[RemoteTool, ...] = ()
        self._session: Any = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stderr: IO[str] | None = None
        if spec.problem is not None:
            self.state = "failed"

    def start(self) -> None:
        if self.state == "starting" and self._task is None:
            self._task = asyncio.create_task(self._serve(), name=f"mcp:{self.spec.name}")

    async def wait_ready(self, timeout_s: float) -> None:
        """Wait until the server is ready or failed; past ``timeout_s`` it fails and its task is stopped."""
        if self.state != "starting":
            return
        try:
            await asyncio.wait_for(self._ready.wait(), timeout_s)
        except asyncio.TimeoutError:
            self._fail(f"did not answer within {timeout_s:g} s")
            await self._cancel()

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> CallResult:
        if self.state != "ready" or self._session is None:
            raise ServerGone(self.error or f"the server is {self.state}")
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED

        try:
            result = await asyncio.wait_for(self._session.call_tool(tool, dict(arguments)), self.call_timeout_s)
        except asyncio.TimeoutError:
            return CallResult(f"The MCP server did not answer within {self.call_timeout_s:g} s; the call may still run there.", True)
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                self._fail("its process exited or closed the connection")
                raise ServerGone(self.error or str(error)) from None
            return CallResult(f"MCP error: {error}", True)
        except (OSError, EOFError) as error:
            self._fail(f"the connection failed ({type(error).__name__}: {error})")
            raise ServerGone(self.error or str(error)) from None
        text, images = _content_of(result)
        return CallResult(text, bool(getattr(result, "is_error", False)), images)

    async def check_alive(self, timeout_s: float = 2.0) -> None:
        """Ping a ready server; a closed connection fails it now (a slow answer does not: it may be busy)."""
        if self.state != "ready" or self._session is None:
            return
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED

        try:
            await asyncio.wait_for(self._session.send_ping(), timeout_s)
        except asyncio.TimeoutError:
            return
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                self._fail("its process exited or closed the connection")
        except (OSError, EOFError) as error:
            self._fail(f"the connection failed ({type(error).__name__}: {error})")

    async def stop(self) -> None:
        self._stop.set()
        if self.state in ("starting", "ready"):
            self.state = "stopped"
        if self._task is not None and not self._task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._task), STOP_TIMEOUT_S)
            except (asyncio.TimeoutError, Exception):
                await self._cancel()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    async def _cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def _fail(self, why: str) -> None:
        if self.state in ("failed", "stopped"):
            return
        self.state = "failed"
        last = self._last_stderr_line()
        self.error = why + (f"; it said: {last}" if last else "")
        self._session = None
        self._ready.set()

    def _last_stderr_line(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.flush()
            self._stderr.seek(0)
            lines = [line.strip() for line in self._stderr.read()[-4000:].splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return lines[-1][:200] if lines else ""

    async def _serve(self) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                from mcp import ClientSession

                session = await stack.enter_async_context(ClientSession(read, write))
                await session.initialize()
                self.tools = await _list_tools(session)
                self._session, self.state = session, "ready"
                self._ready.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            self._fail("start-up was cancelled")
            raise
        except BaseException as error:  # noqa: BLE001 - any failure of a server is reported, never raised into the session
            self._fail(_describe(error))
        finally:
            self._session = None
            self._ready.set()

    def _transport(self) -> Any:
        spec = self.spec
        if spec.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            self._stderr = _append_only(cast(TextIO, tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")))
            params = StdioServerParameters(command=spec.command, args=list(spec.args), env=dict(spec.env) or None, cwd=self.workspace)
            return stdio_client(params, errlog=self._stderr)
        if spec.transport == "sdk":
            from pseudoclaude.mcp_client.sdk_transport import sdk_streams

            return sdk_streams(spec.name)
        if spec.transport == "sse":
            from mcp.client.sse import sse_client

            return sse_client(spec.url, headers=dict(spec.headers) or None)
        return _http_streams(spec.url, dict(spec.headers))


def _append_only(stream: TextIO) -> TextIO:
    """The server writes to the file's end whatever position reading its last line leaves (a shared file offset)."""
    import fcntl
    import os

    flags = fcntl.fcntl(stream.fileno(), fcntl.F_GETFL)
    fcntl.fcntl(stream.fileno(), fcntl.F_SETFL, flags | os.O_APPEND)
    return stream


@contextlib.asynccontextmanager
async def _http_streams(url: str, headers: dict[str, str]) -> Any:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers=headers or None) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            yield streams[0], streams[1]


async def _list_tools(session: Any) -> tuple[RemoteTool, ...]:
    tools: list[RemoteTool] = []
    cursor: str | None = None
    for _ in range(100):
        from mcp.types import PaginatedRequestParams

        listed = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(RemoteTool(t.name, t.description or "", t.input_schema or {}) for t in listed.tools)
        cursor = getattr(listed, "next_cursor", None)
        if not cursor:
            break
    return tuple(tools)


def _content_of(result: Any) -> tuple[str, tuple[ImagePart, ...]]:
    parts: list[str] = []
    images: list[ImagePart] = []
    for item in getattr(result, "content", None) or ():
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(item.text)
        elif kind == "image":
            images.append(ImagePart(str(getattr(item, "mime_type", "") or ""), str(getattr(item, "data", "") or "")))
        elif kind == "audio":
            size = len(getattr(item, "data", "") or "") * 3 // 4
            parts.append(f"[{kind} {getattr(item, 'mime_type', '')}, about {size:,} bytes: not shown]")
        elif kind == "resource_link":
            parts.append(f"[resource: {getattr(item, 'uri', '')}]")
        elif kind == "resource":
            resource = getattr(item, "resource", None)
            text = getattr(resource, "text", None)
            parts.append(text if isinstance(text, str) else f"[binary resource {getattr(resource, 'uri', '')}: not shown]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        import json

        parts.append(json.dumps(structured, ensure_ascii=False, indent=1))
    return "\n".join(parts) if parts or images else "(no content)", tuple(images)


def _describe(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, FileNotFoundError):
        return f"cannot start it: {error.filename or error} not found"
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}"[:300] if text else type(error).__name__

