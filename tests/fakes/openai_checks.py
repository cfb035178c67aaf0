"""Request validation of the fake OpenAI server: the checks the real service makes.

Each check returns an ``Invalid`` carrying the real error's message, ``param``
and ``code`` (the wording is the service's own, typos included: "preceeding"),
or None when the body passes. Only the rules that catch this project's costly
bugs are modelled: tool-call pairing, argument types, roles, stream options,
content parts (images only in user messages, as ``data:`` URLs of real images:
``image_checks``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from tests.fakes.image_checks import openai_data_url_problem

ROLES = ("system", "assistant", "user", "function", "tool", "developer")
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ORPHAN_TOOL_MESSAGE = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."


CHAT_PARAMETERS = frozenset(
    {
        "audio", "frequency_penalty", "function_call", "functions", "logit_bias", "logprobs", "max_completion_tokens",
        "max_tokens", "messages", "metadata", "modalities", "model", "n", "parallel_tool_calls", "prediction",
        "presence_penalty", "prompt_cache_key", "reasoning_effort", "response_format", "safety_identifier", "seed",
        "service_tier", "stop", "store", "stream", "stream_options", "temperature", "tool_choice", "tools",
        "top_logprobs", "top_p", "user", "verbosity", "web_search_options",
    }
)  # fmt: skip
"""What Chat Completions accepts; anything else (a Responses field such as ``input`` or ``reasoning``) is refused."""


@dataclass(frozen=True)
class Invalid:
    message: str
    param: str | None = None
    code: str | None = None


def check_body(body: Any) -> Invalid | None:
    if not isinstance(body, Mapping):
        return Invalid("Invalid type for body: expected an object.", None, "invalid_type")
    for key in body:
        if key not in CHAT_PARAMETERS:
            return Invalid(f"Unrecognized request argument supplied: {key}", None, None)
    if not body.get("model"):
        return Invalid("you must provide a model parameter", None, None)
    if "messages" not in body:
        return Invalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter")
    messages = body["messages"]
    if not isinstance(messages, list):
        return Invalid("Invalid type for 'messages': expected an array.", "messages", "invalid_type")
    if not messages:
        return Invalid(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            "messages",
            "empty_array",
        )
    if body.get("stream_options") is not None and body.get("stream") is not True:
        return Invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options", None)
    return (
        check_reasoning_parameters(body)
        or check_messages(messages)
        or check_tools(body.get("tools"))
        or check_tool_choice(body.get("tool_choice"), body.get("tools"))
    )


REASONING_MODEL = re.compile(r"^(?:[\w.-]+/)?(?:o1-pro|o1(?![\w-])|o1-20|o3|o4-mini|codex-mini|gpt-5(?!-chat)|gpt-6)")
"""The reasoning models this fake knows, by its own list (not the production model table): gpt-5 but gpt-5-chat, o1, o3, o4-mini."""
XHIGH_MODEL = re.compile(r"^(?:[\w.-]+/)?gpt-(?:5\.(?:[2-9]|1-codex-max)|6)")
MAX_MODEL = re.compile(r"^(?:[\w.-]+/)?gpt-(?:5\.6|6)")
"""The models that take ``max`` too (GPT-5.6 and GPT-6: ``none`` to ``max`` on their model pages)."""
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")


def check_reasoning_parameters(body: Mapping[str, Any]) -> Invalid | None:
    """What OpenAI refuses of a reasoning model (``max_tokens``, a temperature but 1, an effort it lacks), and
    ``reasoning_effort`` sent to any other model."""
    model = str(body.get("model") or "")
    effort = body.get("reasoning_effort")
    if not REASONING_MODEL.match(model):
        if effort is not None:
            return Invalid("Unsupported parameter: 'reasoning_effort' is not supported with this model.", "reasoning_effort", "unsupported_parameter")
        return None
    if "max_tokens" in body:
        message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
        return Invalid(message, "max_tokens", "unsupported_parameter")
    temperature = body.get("temperature")
    if temperature is not None and temperature != 1:
        message = f"Unsupported value: 'temperature' does not support {temperature} with this model. Only the default (1) value is supported."
        return Invalid(message, "temperature", "unsupported_value")
    accepted = (*REASONING_EFFORTS, "xhigh") if XHIGH_MODEL.match(model) else REASONING_EFFORTS
    accepted = (*accepted, "max") if MAX_MODEL.match(model) else accepted
    if effort is not None and effort not in accepted:
        listed = ", ".join(f"'{value}'" for value in accepted[:-1]) + f", and '{accepted[-1]}'"
        message = f"Unsupported value: 'reasoning_effort' does not support {effort!r} with this model. Supported values are: {listed}."
        return Invalid(message, "reasoning_effort", "unsupported_value")
    return None


def check_messages(messages: list[Any]) -> Invalid | None:
    open_calls: list[str] = []
    answerable: set[str] = set()
    opened_at = -1
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            return Invalid(f"Invalid type for 'messages[{i}]': expected an object.", f"messages[{i}]", "invalid_type")
        role = message.get("role")
        if role not in ROLES:
            supported = "'system', 'assistant', 'user', 'function', 'tool', and 'developer'"
            message = f"Invalid value: '{role}'. Supported values are: {supported}."
            return Invalid(message, f"messages[{i}].role", "invalid_value")
        problem = check_content(i, role, message.get("content"))
        if problem:
            return problem
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str):
                return Invalid(
                    f"Missing required parameter: 'messages[{i}].tool_call_id'.",
                    f"messages[{i}].tool_call_id",
                    "missing_required_parameter",
                )
            if call_id not in answerable:
                return Invalid(ORPHAN_TOOL_MESSAGE, f"messages.[{i}].role", None)
            if call_id in open_calls:
                open_calls.remove(call_id)
            continue
        if open_calls:
            return _unanswered(opened_at, open_calls)
        answerable = set()
        if role == "assistant" and message.get("tool_calls"):
            problem = check_tool_calls(i, message["tool_calls"])
            if problem:
                return problem
            open_calls = [call["id"] for call in message["tool_calls"]]
            answerable = set(open_calls)
            opened_at = i
    if open_calls:
        return _unanswered(opened_at, open_calls)
    return None


PART_TYPES = {
    "user": ("text", "image_url", "input_audio", "file"),
    "assistant": ("text", "refusal"),
}


def check_content(i: int, role: str, content: Any) -> Invalid | None:
    """A message's ``content``: a string, null (an assistant's tool calls), or a list of typed parts."""
    if content is None or isinstance(content, str):
        return None
    where = f"messages[{i}].content"
    if not isinstance(content, list):
        return Invalid(f"Invalid type for '{where}': expected one of a string or an array of objects.", where, "invalid_type")
    allowed = PART_TYPES.get(role, ("text",))
    for j, part in enumerate(content):
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "image_url" and role != "user":
            return Invalid(
                f"Invalid 'messages[{i}]'. Image URLs are only allowed for messages with role 'user', "
                f"but this message with role '{role}' contains an image URL.",
                f"messages[{i}]",
                None,
            )
        if kind not in allowed:
            supported = ", ".join(f"'{t}'" for t in allowed)
            return Invalid(f"Invalid value: '{kind}'. Supported values are: {supported}.", f"{where}[{j}].type", "invalid_value")
        if kind == "text" and not isinstance(part.get("text"), str):
            return Invalid(f"Missing required parameter: '{where}[{j}].text'.", f"{where}[{j}].text", "missing_required_parameter")
        if kind == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, Mapping) else None
            detail = image.get("detail", "auto") if isinstance(image, Mapping) else "auto"
            if detail not in ("auto", "low", "high", "original"):
                where_detail = f"{where}[{j}].image_url.detail"
                return Invalid(f"Invalid value: '{detail}'. Supported values are: 'auto', 'low', 'high', and 'original'.", where_detail, "invalid_value")
            problem = openai_data_url_problem(url)
            if problem:
                return Invalid(problem[0], f"{where}[{j}].image_url.url", problem[1])
    return None


def check_tool_calls(i: int, calls: Any) -> Invalid | None:
    if not isinstance(calls, list):
        where = f"messages[{i}].tool_calls"
        return Invalid(f"Invalid type for '{where}': expected an array.", where, "invalid_type")
    seen: set[str] = set()
    for j, call in enumerate(calls):
        where = f"messages[{i}].tool_calls[{j}]"
        if not isinstance(call, Mapping) or not isinstance(call.get("id"), str) or not call["id"]:
            return Invalid(f"Missing required parameter: '{where}.id'.", f"{where}.id", "missing_required_parameter")
        if call["id"] in seen:
            return Invalid(f"Duplicate value for '{where}.id': {call['id']}.", f"{where}.id", "invalid_value")
        seen.add(call["id"])
        if call.get("type") != "function":
            return Invalid(
                f"Invalid value: '{call.get('type')}'. Supported values are: 'function' and 'custom'.",
                f"{where}.type",
                "invalid_value",
            )
        function = call.get("function")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            name = f"{where}.function.name"
            return Invalid(f"Missing required parameter: '{name}'.", name, "missing_required_parameter")
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            got = "null" if arguments is None else type(arguments).__name__
            return Invalid(
                f"Invalid type for '{where}.function.arguments': expected a string, but got {got} instead.",
                f"{where}.function.arguments",
                "invalid_type",
            )
    return None


def check_tools(tools: Any) -> Invalid | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return Invalid("Invalid type for 'tools': expected an array.", "tools", "invalid_type")
    for k, tool in enumerate(tools):
        if not isinstance(tool, Mapping) or tool.get("type") != "function":
            return Invalid(f"Invalid value for 'tools[{k}].type'.", f"tools[{k}].type", "invalid_value")
        name = (tool.get("function") or {}).get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            return Invalid(
                f"Invalid 'tools[{k}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                f"tools[{k}].function.name",
                "invalid_value",
            )
    return None


def check_tool_choice(choice: Any, tools: Any) -> Invalid | None:
    """``tool_choice`` is "none", "auto", "required" or a named function, and only with ``tools``."""
    if choice is None:
        return None
    if not tools:
        return Invalid("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", "tool_choice", None)
    if isinstance(choice, str):
        if choice in ("none", "auto", "required"):
            return None
        return Invalid(f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and 'required'.", "tool_choice", "invalid_value")
    function = choice.get("function") if isinstance(choice, Mapping) else None
    if not isinstance(choice, Mapping) or choice.get("type") != "function" or not isinstance(function, Mapping):
        return Invalid("Invalid type for 'tool_choice': expected one of a string or an object.", "tool_choice", "invalid_type")
    names = {(t.get("function") or {}).get("name") for t in tools if isinstance(t, Mapping)}
    if function.get("name") not in names:
        return Invalid(f"Invalid value for 'tool_choice': function '{function.get('name')}' is not among the provided tools.", "tool_choice", None)
    return None


def _unanswered(index: int, call_ids: list[str]) -> Invalid:
    return Invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(call_ids)}",
        f"messages.[{index}].role",
        None,
    )
