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
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Awaitable, Callable, Literal, Mapping, TextIO, cast

from pseudoclaude.mcp_client.client_requests import Elicitor, elicitation_callback, headless_decline, roots_callback
from pseudoclaude.mcp_client.content import CallResult, ImagePart, call_result, parts_of, resource_contents
from pseudoclaude.mcp_client.spec import ServerSpec

__all__ = ["CallResult", "ImagePart", "RemotePrompt", "RemoteResource", "RemoteTool", "ServerConnection", "ServerGone"]

State = Literal["starting", "ready", "failed", "stopped"]
STOP_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class RemoteTool:
    """A tool as the server listed it."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True)
class RemoteResource:
    """A resource as the server listed it (``resources/list``)."""

    uri: str
    name: str
    description: str = ""
    mime_type: str = ""


@dataclass(frozen=True)
class RemotePrompt:
    """A prompt as the server listed it (``prompts/list``): its declared arguments in order, (name, required, description)."""

    name: str
    description: str
    arguments: tuple[tuple[str, bool, str], ...] = ()


class ServerGone(Exception):
    """The server is not (or no longer) running; the message says why."""


class ServerConnection:
    def __init__(
        self,
        spec: ServerSpec,
        workspace: Path,
        *,
        call_timeout_s: float,
        elicitor: Elicitor | None = None,
        notice: Callable[[str], None] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.spec = spec
        self.workspace = workspace
        self.call_timeout_s = call_timeout_s
        self.elicitor = elicitor or headless_decline(notice or (lambda line: None))
        self.environ = environ
        self.state: State = "starting"
        self.error: str | None = spec.problem
        self.tools: tuple[RemoteTool, ...] = ()
        self.resources: tuple[RemoteResource, ...] | None = None
        """The listed resources; None when the server does not advertise the resources capability."""
        self.prompts: tuple[RemotePrompt, ...] = ()
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
        try:
            result = await self._request(lambda session: session.call_tool(tool, dict(arguments)))
        except _Answered as answered:
            return answered.result
        return call_result(result)

    async def list_resources(self) -> tuple[RemoteResource, ...]:
        """``resources/list`` now (the list may have changed since start-up); an error answer raises ``ServerGone``-free ``ValueError``."""
        try:
            self.resources = await self._request(_list_resources)
        except _Answered as answered:
            raise ValueError(answered.result.text) from None
        return self.resources or ()

    async def read_resource(self, uri: str) -> CallResult:
        """``resources/read``: the resource's text parts joined, its image parts as images."""
        try:
            result = await self._request(lambda session: session.read_resource(uri))
        except _Answered as answered:
            return answered.result
        texts: list[str] = []
        images: list[ImagePart] = []
        for contents in getattr(result, "contents", None) or ():
            text, image = resource_contents(contents)
            texts.extend([text] if text else [])
            images.extend([image] if image else [])
        return CallResult("\n".join(texts) if texts or images else "(empty resource)", False, tuple(images))

    async def get_prompt(self, name: str, arguments: Mapping[str, str]) -> CallResult:
        """``prompts/get``: the prompt's messages as one text (each message's text, images apart)."""
        try:
            result = await self._request(lambda session: session.get_prompt(name, dict(arguments)))
        except _Answered as answered:
            return answered.result
        texts: list[str] = []
        images: list[ImagePart] = []
        for message in getattr(result, "messages", None) or ():
            parts, found = parts_of([message.content])
            texts.extend(parts)
            images.extend(found)
        return CallResult("\n\n".join(texts), False, tuple(images))

    async def _request(self, send: Callable[[Any], Awaitable[Any]]) -> Any:
        """One request on the session within the call timeout; an answer that is an error raises ``_Answered``."""
        if self.state != "ready" or self._session is None:
            raise ServerGone(self.error or f"the server is {self.state}")
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED

        try:
            return await asyncio.wait_for(send(self._session), self.call_timeout_s)
        except asyncio.TimeoutError:
            raise _Answered(CallResult(f"The MCP server did not answer within {self.call_timeout_s:g} s; the call may still run there.", True)) from None
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                self._fail("its process exited or closed the connection")
                raise ServerGone(self.error or str(error)) from None
            raise _Answered(CallResult(f"MCP error: {error}", True)) from None
        except (OSError, EOFError) as error:
            self._fail(f"the connection failed ({type(error).__name__}: {error})")
            raise ServerGone(self.error or str(error)) from None

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

                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        list_roots_callback=roots_callback(self.workspace),
                        elicitation_callback=elicitation_callback(self.spec.name, self.elicitor),
                    )
                )
                await session.initialize()
                capabilities = session.server_capabilities
                self.tools = await _list_tools(session)
                if getattr(capabilities, "resources", None) is not None:
                    self.resources = await _list_resources(session)
                if getattr(capabilities, "prompts", None) is not None:
                    self.prompts = await _list_prompts(session)
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
            environ = os.environ if self.environ is None else self.environ
            params = StdioServerParameters(command=spec.command, args=list(spec.args), env={**environ, **spec.env}, cwd=self.workspace)
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


async def _paged(session: Any, method: str, key: str) -> list[Any]:
    """Every item of a paginated ``list`` request (at most 100 pages)."""
    from mcp.types import PaginatedRequestParams

    items: list[Any] = []
    cursor: str | None = None
    for _ in range(100):
        listed = await getattr(session, method)(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        items.extend(getattr(listed, key, None) or ())
        cursor = getattr(listed, "next_cursor", None)
        if not cursor:
            break
    return items


async def _list_tools(session: Any) -> tuple[RemoteTool, ...]:
    return tuple(RemoteTool(t.name, t.description or "", t.input_schema or {}) for t in await _paged(session, "list_tools", "tools"))


async def _list_resources(session: Any) -> tuple[RemoteResource, ...]:
    listed = await _paged(session, "list_resources", "resources")
    return tuple(RemoteResource(str(r.uri), r.name, r.description or "", r.mime_type or "") for r in listed)


async def _list_prompts(session: Any) -> tuple[RemotePrompt, ...]:
    return tuple(
        RemotePrompt(p.name, p.description or "", tuple((a.name, bool(a.required), a.description or "") for a in p.arguments or ()))
        for p in await _paged(session, "list_prompts", "prompts")
    )


class _Answered(Exception):
    """The server answered a request with an error (or not in time): the result to hand on."""

    def __init__(self, result: CallResult) -> None:
        super().__init__(result.text)
        self.result = result


def _describe(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, FileNotFoundError):
        return f"cannot start it: {error.filename or error} not found"
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}"[:300] if text else type(error).__name__
