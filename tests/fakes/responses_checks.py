"""Request validation of the fake OpenAI Responses endpoint: the checks the real service makes.

Each check returns an ``Invalid`` with the service's own wording, or None.
Modelled: unknown parameters, at the top and inside items (a Chat Completions field sent here, or the
reverse), the pairing of ``function_call`` and ``function_call_output`` items,
reasoning items (in place: followed by an output item of their turn; carrying
encrypted content this server issued, since with ``store: false`` nothing else
can be resolved), item ids that name nothing stored, strict function schemas,
reasoning parameters on a model that does not reason, and content parts:
``input_text`` / ``input_image`` in messages and in a ``function_call_output``'s
list ``output`` (images as ``data:`` URLs of real images: ``image_checks``).
"""

from __future__ import annotations

from typing import Any, Mapping

from tests.fakes.image_checks import openai_data_url_problem
from tests.fakes.openai_checks import TOOL_NAME, Invalid

PARAMETERS = frozenset(
    {
        "background", "context_management", "conversation", "include", "input", "instructions", "max_output_tokens", "max_tool_calls",
        "metadata", "model", "parallel_tool_calls", "previous_response_id", "prompt", "prompt_cache_key",
        "prompt_cache_retention", "reasoning", "safety_identifier", "service_tier", "store", "stream",
        "stream_options", "temperature", "text", "tool_choice", "tools", "top_logprobs", "top_p", "truncation", "user",
    }
)  # fmt: skip
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
SUMMARIES = ("auto", "concise", "detailed")
INCLUDABLE = ("reasoning.encrypted_content", "message.output_text.logprobs", "file_search_call.results")
REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5", "gpt-6", "codex")
MAX_EFFORT_PREFIXES = ("gpt-5.6", "gpt-6")
"""The models that take ``max`` too (GPT-5.6 and GPT-6: ``none`` to ``max`` on their model pages)."""
ITEM_FIELDS = {
    "message": frozenset({"type", "role", "content", "id", "status"}),
    "function_call": frozenset({"type", "call_id", "name", "arguments", "id", "status"}),
    "function_call_output": frozenset({"type", "call_id", "output", "id", "status"}),
    "reasoning": frozenset({"type", "id", "summary", "encrypted_content", "content"}),
    "compaction": frozenset({"type", "id", "encrypted_content"}),
}


def is_reasoning_model(model: str) -> bool:
    name = model.lower().split("/")[-1]
    return name.startswith(REASONING_PREFIXES) and not name.startswith("gpt-5-chat")


SUMMARY_UNVERIFIED = (
    "Your organization must be verified to generate reasoning summaries. Please go to: "
    "https://platform.openai.com/settings/organization/general and click on Verify Organization. "
    "If you just verified, it can take up to 15 minutes for access to propagate."
)


def check_responses_body(body: Any, issued: Mapping[str, str], *, verified: bool = True) -> Invalid | None:
    """The first problem with ``body``; ``issued``: the encrypted contents this server handed out, and to which model;
    ``verified``: whether the organization may have reasoning summaries."""
    if not isinstance(body, Mapping):
        return Invalid("Invalid type for body: expected an object.", None, "invalid_type")
    for key in body:
        if key not in PARAMETERS:
            return Invalid(f"Unknown parameter: '{key}'.", key, "unknown_parameter")
    if not body.get("model"):
        return Invalid("Missing required parameter: 'model'.", "model", "missing_required_parameter")
    cap = body.get("max_output_tokens")
    if cap is not None and (not isinstance(cap, int) or cap < 16):
        return Invalid(
            f"Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got {cap} instead.",
            "max_output_tokens",
            "integer_below_min_value",
        )
    store = body.get("store", True)
    reasoning = body.get("reasoning")
    if not verified and isinstance(reasoning, Mapping) and reasoning.get("summary") is not None:
        return Invalid(SUMMARY_UNVERIFIED, "reasoning.summary", "unsupported_value")
    return (
        check_context_management(body.get("context_management"))
        or check_reasoning(str(body["model"]), body.get("reasoning"))
        or check_include(body.get("include"), store)
        or check_function_tools(body.get("tools"))
        or check_responses_tool_choice(body.get("tool_choice"), body.get("tools"))
        or check_input(body.get("input"), store, issued, str(body["model"]))
    )


def check_context_management(entries: Any) -> Invalid | None:
    """``context_management``: a list of ``{type: "compaction", compact_threshold}`` (SDK ``ContextManagement``)."""
    if entries is None:
        return None
    if not isinstance(entries, list):
        return Invalid("Invalid type for 'context_management': expected an array.", "context_management", "invalid_type")
    for n, entry in enumerate(entries):
        where = f"context_management[{n}]"
        if not isinstance(entry, Mapping) or entry.get("type") != "compaction":
            return Invalid(f"Invalid value for '{where}.type': only 'compaction' is supported.", f"{where}.type", "invalid_value")
        extra = set(entry) - {"type", "compact_threshold"}
        if extra:
            return Invalid(f"Unknown parameter: '{where}.{sorted(extra)[0]}'.", f"{where}.{sorted(extra)[0]}", "unknown_parameter")
        threshold = entry.get("compact_threshold")
        if threshold is not None and (not isinstance(threshold, int) or isinstance(threshold, bool) or threshold < 1):
            return Invalid(f"Invalid '{where}.compact_threshold': expected a positive integer.", f"{where}.compact_threshold", "invalid_value")
    return None


def check_reasoning(model: str, reasoning: Any) -> Invalid | None:
    if reasoning is None:
        return None
    if not isinstance(reasoning, Mapping):
        return Invalid("Invalid type for 'reasoning': expected an object.", "reasoning", "invalid_type")
    if not is_reasoning_model(model):
        return Invalid("Unsupported parameter: 'reasoning.effort' is not supported with this model.", "reasoning.effort", "unsupported_parameter")
    for key in reasoning:
        if key not in ("effort", "summary", "generate_summary"):
            return Invalid(f"Unknown parameter: 'reasoning.{key}'.", f"reasoning.{key}", "unknown_parameter")
    effort = reasoning.get("effort")
    efforts = (*EFFORTS, "max") if model.split("/")[-1].startswith(MAX_EFFORT_PREFIXES) else EFFORTS
    if effort is not None and effort not in efforts:
        supported = ", ".join(f"'{e}'" for e in efforts)
        return Invalid(f"Invalid value: '{effort}'. Supported values are: {supported}.", "reasoning.effort", "invalid_value")
    summary = reasoning.get("summary")
    if summary is not None and summary not in SUMMARIES:
        return Invalid(f"Invalid value: '{summary}'. Supported values are: 'auto', 'concise', and 'detailed'.", "reasoning.summary", "invalid_value")
    return None


def check_include(include: Any, store: Any) -> Invalid | None:
    if include is None:
        return None
    if not isinstance(include, list) or any(value not in INCLUDABLE for value in include):
        return Invalid(f"Invalid value for 'include': {include!r}.", "include", "invalid_value")
    if "reasoning.encrypted_content" in include and store is not False:
        return Invalid("Encrypted reasoning content is only returned to stateless requests: set 'store' to false.", "include", None)
    return None


def check_function_tools(tools: Any) -> Invalid | None:
    """Flat function tools (``name`` at the top, not under ``function``); strict unless ``strict: false``."""
    if tools is None:
        return None
    if not isinstance(tools, list):
        return Invalid("Invalid type for 'tools': expected an array.", "tools", "invalid_type")
    for k, tool in enumerate(tools):
        if not isinstance(tool, Mapping) or tool.get("type") != "function":
            return Invalid(f"Invalid value for 'tools[{k}].type'.", f"tools[{k}].type", "invalid_value")
        if "function" in tool or not isinstance(tool.get("name"), str):
            return Invalid(f"Missing required parameter: 'tools[{k}].name'.", f"tools[{k}].name", "missing_required_parameter")
        if not TOOL_NAME.match(tool["name"]):
            return Invalid(
                f"Invalid 'tools[{k}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                f"tools[{k}].name",
                "invalid_value",
            )
        schema = tool.get("parameters")
        if tool.get("strict") is not False and not (isinstance(schema, Mapping) and schema.get("additionalProperties") is False):
            return Invalid(
                f"Invalid schema for function '{tool['name']}': In context=(), 'additionalProperties' is required to be supplied and to be false.",
                f"tools[{k}].parameters",
                "invalid_function_parameters",
            )
    return None


def check_responses_tool_choice(choice: Any, tools: Any) -> Invalid | None:
    if choice is None or choice in ("none", "auto", "required"):
        return None
    if isinstance(choice, Mapping) and choice.get("type") == "function":
        names = {t.get("name") for t in tools or () if isinstance(t, Mapping)}
        if choice.get("name") in names:
            return None
        return Invalid(f"Tool choice '{choice.get('name')}' not found in 'tools' parameter.", "tool_choice", None)
    return Invalid(f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and 'required'.", "tool_choice", "invalid_value")


def check_input(items: Any, store: Any, issued: Mapping[str, str], model: str) -> Invalid | None:
    if isinstance(items, str):
        return None
    if not isinstance(items, list):
        return Invalid("Missing required parameter: 'input'.", "input", "missing_required_parameter")
    calls: set[str] = set()
    answered: set[str] = set()
    for i, item in enumerate(items):
        problem = _check_item(i, item, items, store, issued, model)
        if problem is not None:
            return problem
        kind = _kind(item)
        if kind == "function_call":
            calls.add(item["call_id"])
        elif kind == "function_call_output":
            if item["call_id"] not in calls:
                return Invalid(f"No tool call found for function call output with call_id {item['call_id']}.", "input", None)
            answered.add(item["call_id"])
    for call_id in sorted(calls - answered):
        return Invalid(f"No tool output found for function call {call_id}.", "input", None)
    return None


def _kind(item: Mapping[str, Any]) -> str:
    return str(item.get("type") or "message")


def _check_item(i: int, item: Any, items: list[Any], store: Any, issued: Mapping[str, str], model: str) -> Invalid | None:
    where = f"input[{i}]"
    if not isinstance(item, Mapping):
        return Invalid(f"Invalid type for '{where}': expected an object.", where, "invalid_type")
    kind = _kind(item)
    for key in item:
        if kind in ITEM_FIELDS and key not in ITEM_FIELDS[kind]:
            return Invalid(f"Unknown parameter: '{where}.{key}'.", f"{where}.{key}", "unknown_parameter")
    if isinstance(item.get("id"), str) and store is False and not item.get("encrypted_content"):
        return Invalid(
            f"Item with id '{item['id']}' not found. Items are not persisted when `store` is set to false. "
            "Try again with `store` set to true, or remove this item from your input.",
            "input",
            None,
        )
    if kind == "message":
        if item.get("role") not in ("user", "assistant", "system", "developer"):
            return Invalid(
                f"Invalid value: '{item.get('role')}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", f"{where}.role", "invalid_value"
            )
        if not isinstance(item.get("content"), (str, list)):
            return Invalid(f"Missing required parameter: '{where}.content'.", f"{where}.content", "missing_required_parameter")
        allowed = {"user": INPUT_PARTS, "assistant": OUTPUT_PARTS}.get(item["role"], ("input_text",))
        return _check_parts(f"{where}.content", item["content"], allowed)
    if kind in ("function_call", "function_call_output"):
        for key in ("call_id", "arguments", "name") if kind == "function_call" else ("call_id",):
            if not isinstance(item.get(key), str):
                return Invalid(f"Missing required parameter: '{where}.{key}'.", f"{where}.{key}", "missing_required_parameter")
        if kind == "function_call_output":
            output = item.get("output")
            if not isinstance(output, (str, list)):
                return Invalid(f"Missing required parameter: '{where}.output'.", f"{where}.output", "missing_required_parameter")
            return _check_parts(f"{where}.output", output, INPUT_PARTS)
        return None
    if kind == "reasoning":
        return _check_reasoning_item(i, item, items, store, issued, model)
    if kind == "compaction":
        content = item.get("encrypted_content")
        if not isinstance(content, str) or content not in issued:
            return Invalid("The encrypted content of a compaction item could not be verified.", f"{where}.encrypted_content", "invalid_encrypted_content")
        if any(_kind(other) == "compaction" for other in items[:i]):
            return Invalid("Only the latest compaction item may be sent; drop the items it replaced.", where, None)
        return None
    return Invalid(
        f"Invalid value: '{kind}'. Supported values are: 'message', 'function_call', 'function_call_output', 'reasoning' and 'compaction'.",
        f"{where}.type",
        "invalid_value",
    )


INPUT_PARTS = ("input_text", "input_image", "input_file")
OUTPUT_PARTS = ("output_text", "refusal")


def _check_parts(where: str, content: Any, allowed: tuple[str, ...]) -> Invalid | None:
    """A content list: typed parts of ``allowed`` kinds; an ``input_image`` is a ``data:`` URL of a real image."""
    if isinstance(content, str):
        return None
    for j, part in enumerate(content):
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind not in allowed:
            supported = ", ".join(f"'{t}'" for t in allowed)
            return Invalid(f"Invalid value: '{kind}'. Supported values are: {supported}.", f"{where}[{j}].type", "invalid_value")
        if kind == "input_text" and not isinstance(part.get("text"), str):
            return Invalid(f"Missing required parameter: '{where}[{j}].text'.", f"{where}[{j}].text", "missing_required_parameter")
        if kind == "input_image":
            detail = part.get("detail", "auto")
            if detail not in ("auto", "low", "high", "original"):
                return Invalid(
                    f"Invalid value: '{detail}'. Supported values are: 'auto', 'low', 'high', and 'original'.", f"{where}[{j}].detail", "invalid_value"
                )
            problem = openai_data_url_problem(part.get("image_url"))
            if problem:
                return Invalid(problem[0], f"{where}[{j}].image_url", problem[1])
    return None


def _check_reasoning_item(i: int, item: Mapping[str, Any], items: list[Any], store: Any, issued: Mapping[str, str], model: str) -> Invalid | None:
    where = f"input[{i}]"
    name = item.get("id") or where
    if not isinstance(item.get("summary"), list):
        return Invalid(f"Missing required parameter: '{where}.summary'.", f"{where}.summary", "missing_required_parameter")
    encrypted = item.get("encrypted_content")
    if encrypted is None and store is False:
        return Invalid(f"Reasoning item {name} has no encrypted_content: with `store` false it cannot be resolved.", "input", None)
    if encrypted is not None and issued.get(encrypted) != model:
        return Invalid(
            f"The encrypted content for item {name} could not be verified. Reason: Encrypted content could not be decrypted or parsed.",
            "input",
            "invalid_encrypted_content",
        )
    following = items[i + 1] if i + 1 < len(items) else None
    is_output = isinstance(following, Mapping) and (
        _kind(following) == "function_call" or (_kind(following) == "message" and following.get("role") == "assistant")
    )
    if not is_output:
        return Invalid(f"Item '{name}' of type 'reasoning' was provided without its required following item.", "input", None)
    return None
