"""An MCP server's question (``elicitation/create``), asked in the REPL's footer like an approval.

Each field of the server's form is one question; the typed line is the
answer (converted to the field's type: integer, number, boolean, one of an
``enum``). An empty first answer declines; a question asked outside a turn
(no one at the footer) is declined too. A URL request asks whether to go on:
``y`` accepts (the user opens the URL themselves), anything else declines.
"""

from __future__ import annotations

from typing import Any, Mapping

from pseudoclaude.mcp_client import ElicitAnswer, ElicitRequest
from pseudoclaude.tui.approval import TerminalApprover

Value = str | int | float | bool | None


class TerminalElicitor:
    """Satisfies ``pseudoclaude.mcp_client.client_requests.Elicitor``, asking through the REPL's approver."""

    def __init__(self, approver: TerminalApprover) -> None:
        self.approver = approver

    async def __call__(self, request: ElicitRequest) -> ElicitAnswer:
        heading = f"MCP server {request.server!r} asks: {request.message}"
        if request.url:
            answer = await self.approver.ask_text(f"{heading}\n  Open {request.url} and go on? (y / n)")
            return ElicitAnswer("accept" if (answer or "").strip().lower() in ("y", "yes") else "decline")
        if not request.fields:
            answer = await self.approver.ask_text(f"{heading} (y / n)")
            return ElicitAnswer("accept" if (answer or "").strip().lower() in ("y", "yes") else "decline")
        content: dict[str, Value] = {}
        for number, (name, schema) in enumerate(request.fields.items()):
            label = f"{name}{' (required)' if name in request.required else ''}{_choices(schema)}"
            answer = await self.approver.ask_text(f"{heading}\n  {label}:" if number == 0 else f"  {label}:")
            if answer is None or (number == 0 and not answer.strip()):
                return ElicitAnswer("decline")
            if answer.strip():
                content[name] = _typed(answer.strip(), schema)
        return ElicitAnswer("accept", content)


def _choices(schema: Mapping[str, Any]) -> str:
    options = schema.get("enum")
    return f" [{' / '.join(str(o) for o in options)}]" if isinstance(options, list) and options else ""


def _typed(text: str, schema: Mapping[str, Any]) -> Value:
    kind = schema.get("type")
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
    except ValueError:
        return text
    if kind == "boolean":
        return text.lower() in ("y", "yes", "true", "1")
    return text
