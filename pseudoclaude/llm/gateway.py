"""What changes when requests go through a gateway or a base URL instead of straight to the service.

Claude Code users reach LiteLLM, OpenRouter and corporate gateways with two
variables, read the same way here: ``ANTHROPIC_AUTH_TOKEN`` (sent as
``Authorization: Bearer <token>``, with no ``x-api-key``) and
``ANTHROPIC_CUSTOM_HEADERS`` (newline-separated ``Name: value`` lines added to
every request, ``parse_custom_headers``). Which variables a provider reads is
its entry's (``ProviderEntry.token_variable`` / ``headers_variable``).

A server at an OpenAI base URL may not speak the Responses API, so OpenAI's
reasoning models go there through Chat Completions (``openai_api``), where the
effort is ``reasoning_effort`` and the reasoning is not carried between turns:
``models.effort_notice`` says so in one line.

Importing this module imports nothing but the standard library.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["CustomHeadersError", "Headers", "official_openai", "openai_api", "parse_custom_headers"]

Headers = tuple[tuple[str, str], ...]
"""HTTP headers in the order written: (name, value) pairs."""

_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
"""An HTTP field name (RFC 9110 ``token``)."""
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_FRAMING = frozenset({"host", "content-length", "transfer-encoding", "connection", "content-type"})
"""Headers the HTTP client writes for the body it sends: replacing them would break the request, not route it."""


class CustomHeadersError(ValueError):
    """A custom-headers line that is not ``Name: value`` (the settings loader turns it into a ``ConfigError``)."""


def parse_custom_headers(text: str | None, variable: str = "ANTHROPIC_CUSTOM_HEADERS") -> Headers:
    """The headers in ``text``: one ``Name: value`` per line, blank lines skipped, the value stripped.

    A malformed line is an error naming ``variable`` and the line number, not
    a header silently left out: a gateway that never sees its routing or auth
    header answers with an error far from its cause. The value itself is never
    quoted in the error (it is often a credential).
    """
    if not text:
        return ()
    headers: list[tuple[str, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, colon, value = line.partition(":")
        name = name.strip()
        where = f"{variable} line {number}"
        if not colon or not name:
            raise CustomHeadersError(f"{where} is not `Name: value` (one header per line)")
        if not _TOKEN.match(name):
            raise CustomHeadersError(f"{where}: {name!r} is not a valid header name")
        if name.lower() in _FRAMING:
            raise CustomHeadersError(f"{where}: {name} is set by the HTTP client and cannot be replaced")
        value = value.strip()
        if _CONTROL.search(value):
            raise CustomHeadersError(f"{where}: the value of {name} holds a control character")
        headers.append((name, value))
    return tuple(headers)


def official_openai(base_url: str | None) -> bool:
    """Whether requests go to OpenAI itself (no base URL, or one at api.openai.com)."""
    return base_url is None or "api.openai.com" in base_url


def openai_api(reasoning_model: bool, base_url: str | None, api: str = "auto") -> Literal["responses", "chat"]:
    """The API a request takes: the one chosen, else Responses for a reasoning model on OpenAI itself, else Chat Completions.

    ``reasoning_model``: the model table gives the model an OpenAI effort
    style. A server at another base URL is not assumed to speak Responses
    (LiteLLM, vLLM, Ollama all speak Chat Completions); ``api="responses"``
    (``PSEUDOCLAUDE_OPENAI_API``) says it does.
    """
    if api in ("responses", "chat"):
        return "responses" if api == "responses" else "chat"
    return "responses" if reasoning_model and official_openai(base_url) else "chat"
