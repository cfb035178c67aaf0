"""The Tool protocol: what the runner needs from every tool.

A tool validates its own arguments and raises ``ToolError`` for any misuse;
the runner turns that into an error result the model can react to. A tool
never prints; what a renderer may want (a diff, an exit code) travels in
``ToolOutput.display``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Protocol

from pseudoclaude.llm.messages import ToolSpec


class ToolError(Exception):
    """A misuse or failure that goes back to the model as an error result."""


@dataclass(frozen=True)
class FileStamp:
    """What a file looked like when the model last read or wrote it."""

    mtime_ns: int
    size: int
    sha256: str


@dataclass
class ToolContext:
    """Per-session facts and state shared by the tools.

    ``spill_dir`` is the session's ``tool-results/`` folder (None when the
    session is not persisted). ``file_stamps`` remembers files read or written
    in this session, so ``write_file`` can refuse to overwrite a file the model
    has not seen or that changed on disk since. ``result_limit_bytes`` is the
    largest result the context budget keeps inline (Layer 1's single-result
    limit, kept current by the runner): ``read_file`` pages under it, so
    reading a spilled file never produces a result that is spilled again. ``memory`` is the session's
    memory store (``pseudoclaude.agent.memory.MemoryStore``), used by ``remember``.
    """

    workspace: Path
    spill_dir: Path | None = None
    extra_dirs: tuple[Path, ...] = ()
    file_stamps: dict[Path, FileStamp] = field(default_factory=dict)
    todos: list[dict[str, Any]] = field(default_factory=list)
    memory: Any = None
    result_limit_bytes: int | None = None


@dataclass(frozen=True)
class ToolOutput:
    """A tool's result: ``content`` is what the model reads.

    ``summary`` is one short line for the event stream; ``display`` carries
    structured extras for renderers (``diff``, ``exit_code``, ``total_bytes``...).
    """

    content: str
    is_error: bool = False
    summary: str = ""
    display: Mapping[str, Any] = field(default_factory=dict)


class Tool(Protocol):
    """A capability the model can call.

    ``read_only`` is the tool's own declaration; the permission policy keeps a
    separate list, and plan mode requires both to agree.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        ...


def spec_of(tool: Tool) -> ToolSpec:
    """The model-facing description of ``tool``."""
    return ToolSpec(name=tool.name, description=tool.description, input_schema=tool.input_schema)
