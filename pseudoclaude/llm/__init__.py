"""The model layer: the neutral conversation, the Provider protocol, one error tree, one retry policy,
and the provider table (``providers.py``) that says which adapters exist.

The adapters (``llm.anthropic``, ``llm.openai``) are not imported here: the
table's factories import them, and they import their SDKs on first use, off
the start-up path.
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
from pseudoclaude.llm.messages import Message, Thinking, ToolCall, ToolResult, ToolSpec, Usage
from pseudoclaude.llm.models import (
    DEFAULT_FALLBACK_CONTEXT_WINDOW,
    context_window,
    cost_usd,
    request_cost,
    effort_notice,
    encoding_for,
    model_info,
    provider_for_model,
    reasoning_style,
)
from pseudoclaude.llm.provider import (
    EFFORTS,
    Completed,
    Effort,
    Provider,
    Request,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ThinkingMode,
    ToolCallStart,
    ToolChoice,
)
from pseudoclaude.llm.providers import (
    PROVIDERS,
    ModelRow,
    ProviderEntry,
    ReasoningStyle,
    UnknownProvider,
    build_provider,
    provider_entry,
    warm_up,
)
from pseudoclaude.llm.retry import Retrying, RetryPolicy, stream_with_retry

__all__ = [
    "AuthError",
    "BadRequest",
    "Completed",
    "EFFORTS",
    "Effort",
    "ConnectionFailed",
    "DEFAULT_FALLBACK_CONTEXT_WINDOW",
    "Message",
    "ModelRow",
    "Overloaded",
    "PROVIDERS",
    "PromptTooLong",
    "Provider",
    "ProviderEntry",
    "ProviderError",
    "ReasoningStyle",
    "RateLimited",
    "Request",
    "RetryPolicy",
    "Retrying",
    "ServerError",
    "StreamCut",
    "StreamEvent",
    "TextChunk",
    "Thinking",
    "ThinkingChunk",
    "ThinkingMode",
    "ToolCall",
    "ToolCallStart",
    "ToolChoice",
    "ToolResult",
    "ToolSpec",
    "UnknownProvider",
    "Usage",
    "build_provider",
    "context_window",
    "cost_usd",
    "request_cost",
    "effort_notice",
    "encoding_for",
    "model_info",
    "provider_entry",
    "provider_for_model",
    "reasoning_style",
    "stream_with_retry",
    "warm_up",
]
