"""The tools the model calls, and the contract every tool keeps (see ``base``).

The built-in tools are imported lazily through ``default_tools()``; importing
this package stays cheap.
"""

from pseudoclaude.tools.base import (
    FileStamp,
    Tool,
    ToolContext,
    ToolError,
    ToolKind,
    ToolOutput,
    ToolTraits,
    spec_of,
)
from pseudoclaude.tools.registry import ToolRegistry, builtin_registry, default_tools

__all__ = [
    "FileStamp",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolKind",
    "ToolOutput",
    "ToolRegistry",
    "ToolTraits",
    "builtin_registry",
    "default_tools",
    "spec_of",
]
