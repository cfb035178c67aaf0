"""The tools the model calls, and the contract every tool keeps (see ``base``).

The built-in tools are imported lazily through ``default_tools()``; importing
this package stays cheap.
"""

from pseudoclaude.tools.base import (
    FileStamp,
    Tool,
    ToolContext,
    ToolError,
    ToolOutput,
    spec_of,
)
from pseudoclaude.tools.registry import ToolRegistry, default_tools

__all__ = ["FileStamp", "Tool", "ToolContext", "ToolError", "ToolOutput", "ToolRegistry", "default_tools", "spec_of"]
