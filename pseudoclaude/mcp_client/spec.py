"""MCP server declarations, in Claude Code's ``mcpServers`` format, checked and expanded.

A declaration is untrusted input (a repository's ``.mcp.json``, a settings
file, a ``--mcp-config`` string): ``server_specs`` validates its shape and
expands ``${VAR}`` / ``${VAR:-default}`` in the command, arguments, ``env``,
URL and headers from the process environment. A declaration that cannot be
used (an unknown type, a missing variable) becomes a ``ServerSpec`` carrying
its ``problem``, reported in one line while the other servers start.

The expanded values (tokens in ``env`` or ``headers``) live only in memory:
nothing here is recorded in the session, and ``ServerSpec.target`` (what
``/mcp`` shows) names the command or URL, never an environment or header value.

Tool names are ``mcp__<server>__<tool>`` (Claude Code's), reduced to the
characters both providers accept (``[A-Za-z0-9_-]``, at most 64).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Mapping

Transport = Literal["stdio", "http", "sse", "sdk"]
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_TOOL_NAME = 64
_TYPES: dict[str, Transport] = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamablehttp": "http", "sse": "sse", "sdk": "sdk"}


@dataclass(frozen=True)
class ServerSpec:
    """One server to start: its transport and expanded parameters, or the ``problem`` that keeps it from starting."""

    name: str
    source: str
    transport: Transport = "stdio"
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    problem: str | None = None
    shown: str = ""

    @property
    def target(self) -> str:
        """What the server is, for ``/mcp``: the command line or URL as declared, ``${VAR}`` unexpanded (no secret)."""
        return self.shown


class _Unset(Exception):
    pass


def expand(text: str, environ: Mapping[str, str]) -> str:
    """``text`` with ``${VAR}`` and ``${VAR:-default}`` replaced; an unset variable without a default raises."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if value is None or (value == "" and default is not None):
            if default is None:
                raise _Unset(name)
            return default
        return value

    return _VARIABLE.sub(one, text)


def server_specs(declared: Mapping[str, tuple[str, Mapping[str, Any]]], environ: Mapping[str, str]) -> list[ServerSpec]:
    """One ``ServerSpec`` per declared server (name -> (source, raw declaration)), in declaration order."""
    return [_spec(name, source, raw, environ) for name, (source, raw) in declared.items()]


def _spec(name: str, source: str, raw: Mapping[str, Any], environ: Mapping[str, str]) -> ServerSpec:
    shown = _declared_target(raw)
    try:
        return replace(_parse(name, source, raw, environ), shown=shown)
    except _Unset as unset:
        return ServerSpec(name, source, problem=f"the environment variable {unset.args[0]} is not set (used as ${{{unset.args[0]}}})", shown=shown)
    except ValueError as error:
        return ServerSpec(name, source, problem=str(error), shown=shown)


def _declared_target(raw: Any) -> str:
    if not isinstance(raw, Mapping):
        return ""
    if "command" in raw:
        args: list[Any] = raw["args"] if isinstance(raw.get("args"), list) else []
        return " ".join(str(part) for part in (raw["command"], *args))[:200]
    return str(raw.get("url", ""))[:200]


def _parse(name: str, source: str, raw: Mapping[str, Any], environ: Mapping[str, str]) -> ServerSpec:
    if not isinstance(raw, Mapping):
        raise ValueError("a server must be a JSON object")
    kind = str(raw.get("type") or ("stdio" if "command" in raw else "http" if "url" in raw else "")).lower()
    transport = _TYPES.get(kind)
    if transport is None:
        raise ValueError(f"unknown server type {kind!r}: use stdio, http or sse" if kind else "neither `command` nor `url` is given")
    if transport == "sdk":  # in the Agent SDK's process, reached through it (sdk_transport)
        return ServerSpec(name, source, "sdk")
    if transport == "stdio":
        command = raw.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ValueError("`command` must be a non-empty string")
        args = _strings(raw.get("args", []), "args")
        env = _string_map(raw.get("env", {}), "env")
        return ServerSpec(
            name,
            source,
            "stdio",
            expand(command, environ),
            tuple(expand(a, environ) for a in args),
            {k: expand(v, environ) for k, v in env.items()},
        )
    url = raw.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://", "${")):
        raise ValueError("`url` must be an http:// or https:// URL")
    headers = _string_map(raw.get("headers", {}), "headers")
    return ServerSpec(name, source, transport, url=expand(url, environ), headers={k: expand(v, environ) for k, v in headers.items()})


def _strings(value: Any, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"`{key}` must be a list of strings")
    return value


def _string_map(value: Any, key: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"`{key}` must be an object of strings")
    return dict(value)


def safe_name(text: str) -> str:
    """``text`` with every character a provider refuses in a tool name replaced by ``_``."""
    return _UNSAFE.sub("_", text) or "_"


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, sanitized; a name over 64 characters keeps its start and a short hash.

    The server part never holds ``__``: a server named ``github__x`` would otherwise have tools named
    ``mcp__github__x__...``, which the user's ``mcp__github`` allow rule covers."""
    name = f"mcp__{re.sub('_{2,}', '_', safe_name(server))}__{safe_name(tool)}"
    if len(name) <= MAX_TOOL_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - 9]}_{digest}"


_TOP_LEVEL_REFUSED = ("$schema", "oneOf", "anyOf", "allOf", "not", "enum", "$id")


def input_schema(schema: Any) -> dict[str, Any]:
    """A server's input schema as both providers accept it: an object schema at the top, no top-level combinators."""
    out = {k: v for k, v in schema.items() if k not in _TOP_LEVEL_REFUSED} if isinstance(schema, Mapping) else {}
    out["type"] = "object"
    if not isinstance(out.get("properties"), Mapping):
        out["properties"] = {}
    if "required" in out and not (isinstance(out["required"], list) and all(isinstance(r, str) for r in out["required"])):
        del out["required"]
    return out
