"""What a server may ask of us: the roots (the workspace) and elicitation (a question for the user).

Both capabilities are declared at ``initialize`` (the SDK declares a capability
when its callback is given). ``roots/list`` answers with the workspace as one
``file://`` root, so a server like server-filesystem chooses the folder the
session works in. ``elicitation/create`` goes to an ``Elicitor``: the REPL's
asks the user; without one (``-p``, the SDK) the request is declined and a
notice says so, because no one is there to answer and a made-up answer would
be worse than none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Protocol

ElicitAction = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class ElicitRequest:
    """A server's question: its message, and the fields (name -> JSON schema) a form answer fills in, or a URL to open."""

    server: str
    message: str
    fields: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    url: str = ""


@dataclass(frozen=True)
class ElicitAnswer:
    action: ElicitAction
    content: Mapping[str, str | int | float | bool | None] = field(default_factory=dict)


class Elicitor(Protocol):
    async def __call__(self, request: ElicitRequest) -> ElicitAnswer: ...


def headless_decline(notice: Callable[[str], None]) -> Elicitor:
    """The elicitor of a run with no one to ask: every request is declined, with one notice line each."""

    async def decline(request: ElicitRequest) -> ElicitAnswer:
        notice(f"MCP server {request.server!r} asked for input ({request.message[:200]!r}); declined: no one can answer in a headless run")
        return ElicitAnswer("decline")

    return decline


def roots_callback(workspace: Path) -> Any:
    """The SDK's ``list_roots_callback``: the workspace as the one root."""
    from mcp import types

    root = workspace.resolve()

    async def list_roots(context: Any) -> Any:
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri(), name=root.name or str(root))])  # type: ignore[arg-type]

    return list_roots


def elicitation_callback(server: str, elicitor: Elicitor) -> Any:
    """The SDK's ``elicitation_callback``: the request as an ``ElicitRequest`` for ``elicitor``, its answer back."""
    from mcp import types

    async def elicit(context: Any, params: Any) -> Any:
        if getattr(params, "mode", "form") == "url":
            request = ElicitRequest(server, str(params.message), url=str(params.url))
        else:
            schema = getattr(params, "requested_schema", None)
            schema = schema if isinstance(schema, Mapping) else {}
            properties = schema.get("properties")
            properties = properties if isinstance(properties, Mapping) else {}
            required = schema.get("required")
            required = required if isinstance(required, list) else []
            request = ElicitRequest(
                server,
                str(params.message),
                {str(k): v for k, v in properties.items() if isinstance(v, Mapping)},
                tuple(str(r) for r in required),
            )
        answer = await elicitor(request)
        return types.ElicitResult(action=answer.action, content=dict(answer.content) if answer.action == "accept" else None)

    return elicit
