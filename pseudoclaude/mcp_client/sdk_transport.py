"""The transport of an in-process Agent SDK server (``create_sdk_mcp_server``, ``"type": "sdk"``).

The server lives in the SDK's process, not ours: every JSON-RPC message our
``ClientSession`` writes becomes an ``mcp_message`` control request to the SDK
(``{"server_name", "message"}``), and the ``mcp_response`` of its answer is
what the session reads back. Requests travel concurrently (a slow tool does not
hold up a ping); a notification's acknowledgement is dropped, as a JSON-RPC
notification has no answer. A request the SDK cannot answer (its input ended,
it replied with an error) is answered here with a JSON-RPC error, so the call
fails instead of hanging.

Only a process driven by the SDK (``--input-format stream-json``) has someone to
ask: the stdin driver installs the bridge (``install``) before any server
starts; without one, an SDK server fails at start with one line saying why.
"""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator, Awaitable, Callable, Mapping

SdkRequest = Callable[[Mapping[str, Any]], Awaitable[Mapping[str, Any]]]
"""Send a control request to the SDK; its response body (``RuntimeError`` when it failed)."""

_bridge: list[SdkRequest] = []


def install(request: SdkRequest) -> None:
    """The SDK's side of the control channel, for every SDK server this process starts."""
    _bridge[:] = [request]


class NoSdk(Exception):
    """An SDK server was declared, but no Agent SDK drives this process."""


@contextlib.asynccontextmanager
async def sdk_streams(server: str) -> AsyncIterator[tuple[Any, Any]]:
    """(read, write) streams for ``ClientSession``, carried by ``mcp_message`` control requests."""
    if not _bridge:
        raise NoSdk('an SDK server ("type": "sdk") lives in the Agent SDK\'s process: it needs --input-format stream-json')
    request = _bridge[0]
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](16)

    async def forward(message: SessionMessage) -> None:
        payload = message.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
        is_request = "method" in payload and "id" in payload
        try:
            reply = await request({"subtype": "mcp_message", "server_name": server, "message": payload})
            response = reply.get("mcp_response")
        except RuntimeError as error:
            response = {"jsonrpc": "2.0", "id": payload.get("id"), "error": {"code": -32603, "message": f"the Agent SDK did not answer: {error}"}}
        if not is_request or not isinstance(response, dict):
            return
        try:
            parsed: SessionMessage | Exception = SessionMessage(types.jsonrpc_message_adapter.validate_python(response, by_name=False))
        except ValueError as error:
            parsed = error
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await read_writer.send(parsed)

    async def pump() -> None:
        async with write_reader, anyio.create_task_group() as group:
            async for message in write_reader:
                group.start_soon(forward, message)

    async with read_writer, read_stream, write_stream, anyio.create_task_group() as group:
        group.start_soon(pump)
        try:
            yield read_stream, write_stream
        finally:
            group.cancel_scope.cancel()
