"""The model layer: the neutral conversation, the Provider protocol, one error tree, one retry policy.

The adapters (``llm.anthropic``, ``llm.openai``) are not imported here: they
import their SDKs on first use, off the start-up path.
"""

from pseudoclaude.llm.errors import (
    AuthError,
    BadRequest,
    ConnectionFailed,
    Overloaded,
    PromptTooLong,
    ProviderError,
    RateLimited,
    ServerError,
    StreamCut,
)
from pseudoclaude.llm.messages import Message, ToolCall, ToolResult, ToolSpec, Usage
from pseudoclaude.llm.models import context_window, model_info
from pseudoclaude.llm.provider import (
    Completed,
    Provider,
    Request,
    StreamEvent,
    TextDelta,
    ToolCallStart,
)
from pseudoclaude.llm.retry import Retrying, RetryPolicy, stream_with_retry

__all__ = [
    "AuthError",
    "BadRequest",
    "Completed",
    "ConnectionFailed",
    "Message",
    "Overloaded",
    "PromptTooLong",
    "Provider",
    "ProviderError",
    "RateLimited",
    "Request",
    "RetryPolicy",
    "Retrying",
    "ServerError",
    "StreamCut",
    "StreamEvent",
    "TextDelta",
    "ToolCall",
    "ToolCallStart",
    "ToolResult",
    "ToolSpec",
    "Usage",
    "context_window",
    "model_info",
    "stream_with_retry",
]
