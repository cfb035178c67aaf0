"""The fake Anthropic server's Models API: ``GET /v1/models`` and ``GET /v1/models/{id}``.

Answers have the SDK's ``ModelInfo`` shape (``anthropic.types.ModelInfo``):
``id``, ``type: "model"``, ``display_name``, ``created_at``, ``lifecycle``,
and, when the catalogue entry gives them, ``max_input_tokens``, ``max_tokens``
and a complete ``capabilities`` object (every key present, as the service
promises). ``model_entry`` builds one; a test checks the whole answer with the
SDK's own model. An unknown id is a 404 ``not_found_error``; ``delay_s``
holds every answer back (an endpoint that is too slow for start-up).
"""

from __future__ import annotations

import time
import urllib.parse
from typing import Any, Mapping, Sequence

CatalogueEntry = str | Mapping[str, Any]


def _support(value: bool) -> dict[str, bool]:
    return {"supported": value}


def model_entry(
    model: str,
    *,
    max_input_tokens: int | None = None,
    max_tokens: int | None = None,
    thinking: Sequence[str] | None = None,
    efforts: Sequence[str] = ("low", "medium", "high", "max"),
    context_management: Sequence[str] = (),
    image_input: bool = True,
) -> dict[str, Any]:
    """A catalogue entry: ``ModelInfo`` fields, with ``capabilities`` when ``thinking`` is given (the accepted types)."""
    entry: dict[str, Any] = {"id": model}
    if max_input_tokens is not None:
        entry["max_input_tokens"] = max_input_tokens
    if max_tokens is not None:
        entry["max_tokens"] = max_tokens
    if thinking is not None:
        strategies = ("clear_thinking_20251015", "clear_tool_uses_20250919", "compact_20260112")
        entry["capabilities"] = {
            "batch": _support(True),
            "citations": _support(True),
            "code_execution": _support(True),
            "context_management": {"supported": bool(context_management), **{name: _support(name in context_management) for name in strategies}},
            "effort": {"supported": bool(efforts), **{level: _support(level in efforts) for level in ("low", "medium", "high", "max", "xhigh")}},
            "image_input": _support(image_input),
            "pdf_input": _support(True),
            "server_tools": {"supported": True, "code_execution": _support(True), "web_search": _support(True)},
            "structured_outputs": _support(True),
            "thinking": {
                "supported": bool(thinking),
                "types": {name: _support(name in thinking) for name in ("adaptive", "between_tools", "enabled")} | {"disabled": _support(True)},
            },
        }
    return entry


def model_info(entry: CatalogueEntry) -> dict[str, Any]:
    """The ``ModelInfo`` answer for one catalogue entry."""
    fields = {"id": entry} if isinstance(entry, str) else dict(entry)
    model = str(fields["id"])
    return {"type": "model", "display_name": model, "created_at": "2025-01-01T00:00:00Z", "lifecycle": "active", **fields}


class ModelCatalogue:
    """What the Models API serves; ``lookups`` records every ``GET /v1/models/{id}`` (the id and the headers)."""

    def __init__(self, entries: Sequence[CatalogueEntry], *, delay_s: float = 0.0) -> None:
        self.infos = [model_info(entry) for entry in entries]
        self.delay_s = delay_s
        self.lookups: list[tuple[str, dict[str, str]]] = []

    def answer(self, path: str, headers: Mapping[str, str]) -> tuple[int, dict[str, Any]] | None:
        """The status and body for ``GET path``, or None when ``path`` is not a Models API route."""
        route = path.split("?")[0]
        if route == "/v1/models":
            ids = [info["id"] for info in self.infos]
            return 200, {"data": self.infos, "has_more": False, "first_id": ids[0] if ids else None, "last_id": ids[-1] if ids else None}
        if not route.startswith("/v1/models/"):
            return None
        model = urllib.parse.unquote(route[len("/v1/models/") :])
        self.lookups.append((model, dict(headers)))
        if self.delay_s:
            time.sleep(self.delay_s)
        for info in self.infos:
            if info["id"] == model:
                return 200, info
        return 404, {"type": "error", "error": {"type": "not_found_error", "message": f"model: {model}"}, "request_id": "req_fake"}
