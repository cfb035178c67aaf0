"""Context governance: Layer 1 offload, Layer 2 summary, and the state behind them.

The agent calls ``manage_context`` before every model call (it returns a
``ContextOutcome``: the conversation to send and what each layer did) and
``ContextState.record_usage`` after it; ``/compact`` calls ``force_compact``.
The session store is reached only through the ``CompactSession`` Protocol.
Nothing here imports an SDK or tiktoken at import time.
"""

from pseudoclaude.compact.budget import (
    AUTO_FAILURE_LIMIT,
    AUTO_SAFETY_MARGIN_TOKENS,
    DEFAULT_FALLBACK_CONTEXT_WINDOW,
    ESTIMATE_CHARS_PER_TOKEN,
    MANUAL_SAFETY_MARGIN_TOKENS,
    PREVIEW_HEAD_BYTES,
    PREVIEW_HEAD_LINES,
    RECENT_KEEP_MESSAGES,
    RECENT_KEEP_TOKENS,
    SINGLE_TOOL_RESULT_LIMIT_BYTES,
    SUMMARY_RESERVE_TOKENS,
    SUMMARY_RETRY_LIMIT,
    TOOL_ROUND_AGGREGATE_LIMIT_BYTES,
    Budget,
)
from pseudoclaude.compact.estimate import (
    BytesEstimator,
    Calibration,
    Estimator,
    TiktokenEstimator,
    estimate_messages,
)
from pseudoclaude.compact.layer import Layer, LayerAction, LayerStep
from pseudoclaude.compact.manage import (
    DETERMINISTIC_LAYERS,
    BeforeSummary,
    ContextOutcome,
    Trigger,
    compact_conversation,
    force_compact,
    history_after_meta,
    manage_context,
)
from pseudoclaude.compact.native import adopt_compaction, native_instructions, server_context
from pseudoclaude.compact.offload import OffloadResult, offload_layer, offload_tool_results
from pseudoclaude.compact.pinned import PinnedTool, WorkingSet, is_user_request
from pseudoclaude.compact.pinnedview import PinnedParts
from pseudoclaude.compact.reattach import FileText, PinnedSource
from pseudoclaude.compact.seam import CompactSession
from pseudoclaude.compact.state import ContextState, ContextStatus
from pseudoclaude.compact.select import expand_to_tool_boundary, select_recent
from pseudoclaude.compact.truncation import TRUNCATED_SOURCE, check_truncation
from pseudoclaude.compact.summarize import EmptySummary, RequestShape, extract_summary, summarize

__all__ = [
    "adopt_compaction",
    "native_instructions",
    "offload_layer",
    "server_context",
    "AUTO_FAILURE_LIMIT",
    "AUTO_SAFETY_MARGIN_TOKENS",
    "DEFAULT_FALLBACK_CONTEXT_WINDOW",
    "ESTIMATE_CHARS_PER_TOKEN",
    "MANUAL_SAFETY_MARGIN_TOKENS",
    "PREVIEW_HEAD_BYTES",
    "PREVIEW_HEAD_LINES",
    "RECENT_KEEP_MESSAGES",
    "RECENT_KEEP_TOKENS",
    "SINGLE_TOOL_RESULT_LIMIT_BYTES",
    "SUMMARY_RESERVE_TOKENS",
    "SUMMARY_RETRY_LIMIT",
    "TOOL_ROUND_AGGREGATE_LIMIT_BYTES",
    "TRUNCATED_SOURCE",
    "DETERMINISTIC_LAYERS",
    "BeforeSummary",
    "Budget",
    "BytesEstimator",
    "Calibration",
    "CompactSession",
    "ContextOutcome",
    "ContextState",
    "ContextStatus",
    "EmptySummary",
    "RequestShape",
    "Estimator",
    "Layer",
    "LayerAction",
    "LayerStep",
    "FileText",
    "OffloadResult",
    "PinnedSource",
    "PinnedParts",
    "PinnedTool",
    "TiktokenEstimator",
    "Trigger",
    "WorkingSet",
    "is_user_request",
    "check_truncation",
    "compact_conversation",
    "estimate_messages",
    "expand_to_tool_boundary",
    "extract_summary",
    "force_compact",
    "history_after_meta",
    "manage_context",
    "offload_tool_results",
    "select_recent",
    "summarize",
]
