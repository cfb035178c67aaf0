"""The fake servers refuse bad images as the real services do (raw httpx, no SDK in between).

What they refuse is what costs a session a 400 in real use: a declared type
the bytes are not, base64 that is not base64, an image over the size or pixel
limits, an image where the API does not take one (an assistant turn, a Chat
Completions tool message). What they accept is billed by pixels, as the
services bill it.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.image_checks import anthropic_tokens, openai_tokens
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.pictures import picture_bytes
from tests.fakes.script import Reply, approx_tokens

ANTHROPIC_HEADERS = {"x-api-key": "sk-test", "anthropic-version": "2023-06-01", "content-type": "application/json"}
OPENAI_HEADERS = {"authorization": "Bearer sk-test"}
PNG = picture_bytes(120, 80)
JPEG = picture_bytes(120, 80, "JPEG")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def image_block(data: bytes = PNG, media_type: str = "image/png", *, raw: str | None = None) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": raw if raw is not None else b64(data)}}


def anthropic_post(messages: list[dict[str, Any]]) -> tuple[httpx.Response, FakeAnthropicServer]:
    body = {"model": "claude-fake-1", "max_tokens": 1024, "stream": True, "messages": messages}
    with FakeAnthropicServer([Reply(text="ok")]) as server:
        response = httpx.post(f"{server.url}/v1/messages", content=json.dumps(body).encode(), headers=ANTHROPIC_HEADERS, timeout=30)
    return response, server


def user_with(*blocks: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [*blocks, {"type": "text", "text": "What is this?"}]}]


def rejected(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    payload = response.json()
    assert payload["type"] == "error" and payload["error"]["type"] == "invalid_request_error"
    return str(payload["error"]["message"])


def test_anthropic_accepts_a_real_png_and_bills_it_by_pixels() -> None:
    response, server = anthropic_post(user_with(image_block()))
    assert response.status_code == 200 and server.rejections == []
    start = json.loads(response.text.split("data: ", 1)[1].split("\n", 1)[0])
    stripped = {**server.requests[0], "messages": user_with(image_block(raw="x"))}
    assert start["message"]["usage"]["input_tokens"] == approx_tokens(server.requests[0])
    assert approx_tokens(server.requests[0]) - approx_tokens(stripped) == anthropic_tokens(120, 80)


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (image_block(PNG, "image/bmp"), "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg'"),
        (image_block(raw="not base64!!"), "messages.0.content.0.image.source.base64.data: Invalid base64 data"),
        (image_block(JPEG, "image/png"), "messages.0.content.0.image.source.base64.data: Image does not match the provided media type image/png"),
        (image_block(b"just some text, not a picture"), "messages.0.content.0.image.source.base64.data: Could not process image"),
        (image_block(picture_bytes(8001, 2)), "At least one of the image dimensions exceed max allowed size: 8000 pixels"),
        ({"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}, "does not match any of the expected tags"),
    ],
    ids=["media-type", "base64", "mismatch", "not-an-image", "too-wide", "url-source"],
)
def test_anthropic_refuses_bad_images_with_the_services_words(block: dict[str, Any], expected: str) -> None:
    response, server = anthropic_post(user_with(block))
    assert expected in rejected(response) and len(server.rejections) == 1


def test_anthropic_refuses_over_5_mb_of_base64() -> None:
    big = picture_bytes(8, 8) + b"\0" * 4_000_000
    message = rejected(anthropic_post(user_with(image_block(big)))[0])
    assert message.startswith("messages.0.content.0.image.source.base64: image exceeds 5 MB maximum:")
    assert message.endswith("bytes > 5242880 bytes")


def test_anthropic_allows_2000_pixels_a_side_once_a_request_holds_more_than_20_images() -> None:
    small = [image_block(picture_bytes(16, 16)) for _ in range(20)]
    assert anthropic_post(user_with(*small, image_block(picture_bytes(2001, 2))))[0].status_code == 400
    assert anthropic_post(user_with(*small[:19], image_block(picture_bytes(2001, 2))))[0].status_code == 200
    message = rejected(anthropic_post(user_with(*small, image_block(picture_bytes(2001, 2))))[0])
    assert message.endswith("exceed max allowed size for many-image requests: 2000 pixels")


def test_anthropic_takes_images_inside_a_tool_result_and_checks_them_there_too() -> None:
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}}]}

    def result(*content: dict[str, Any]) -> list[dict[str, Any]]:
        first = {"role": "user", "content": "look"}
        return [first, call, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": list(content)}]}]

    text = {"type": "text", "text": "shot.png"}
    assert anthropic_post(result(text, image_block()))[0].status_code == 200
    message = rejected(anthropic_post(result(text, image_block(JPEG, "image/gif")))[0])
    assert message == "messages.2.content.0.tool_result.content.1.image.source.base64.data: Image does not match the provided media type image/gif"
    message = rejected(anthropic_post(result(text, {"type": "tool_use", "id": "x"}))[0])
    assert message.startswith("messages.2.content.0.tool_result.content.1: Input tag 'tool_use'")


def test_anthropic_refuses_an_image_in_an_assistant_turn() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "draw"},
        {"role": "assistant", "content": [image_block()]},
        {"role": "user", "content": "thanks"},
    ]
    assert "image blocks may only appear in user messages" in rejected(anthropic_post(messages)[0])


def data_url(data: bytes, media_type: str = "image/png") -> str:
    return f"data:{media_type};base64,{b64(data)}"


def chat_post(messages: list[dict[str, Any]]) -> tuple[httpx.Response, FakeOpenAIServer]:
    body = {"model": "gpt-4.1", "messages": messages, "stream": True, "stream_options": {"include_usage": True}}
    with FakeOpenAIServer([Reply(text="ok")]) as server, httpx.Client(timeout=30) as client:
        response = client.post(f"{server.url}/chat/completions", json=body, headers=OPENAI_HEADERS)
    return response, server


def chat_user(url: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": url}}]}]


def openai_rejected(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 400, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["type"] == "invalid_request_error" and set(error) == {"message", "type", "param", "code"}
    return error


def test_chat_accepts_a_data_url_png_and_bills_it_by_tiles() -> None:
    response, server = chat_post(chat_user(data_url(PNG)))
    assert response.status_code == 200 and server.rejections == []
    usage = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: {")][-1]["usage"]
    assert usage["prompt_tokens"] == approx_tokens(server.requests[0])
    unreadable = {**server.requests[0], "messages": chat_user("data:image/png;base64,eA==")}
    assert usage["prompt_tokens"] - approx_tokens(unreadable) == openai_tokens(120, 80)


@pytest.mark.parametrize(
    ("url", "code"),
    [
        (data_url(PNG, "image/bmp"), "invalid_image_format"),
        ("data:image/png;base64,not base64!!", "invalid_base64"),
        (data_url(b"plain text"), "image_parse_error"),
        (data_url(JPEG, "image/png"), "invalid_image_format"),
        ("https://example.com/a.png", "invalid_image_url"),
    ],
    ids=["media-type", "base64", "not-an-image", "mismatch", "remote-url"],
)
def test_chat_refuses_bad_image_urls(url: str, code: str) -> None:
    error = openai_rejected(chat_post(chat_user(url))[0])
    assert error["code"] == code and error["param"] == "messages[0].content[1].image_url.url"


def test_chat_refuses_more_than_20_mb() -> None:
    big = data_url(picture_bytes(8, 8) + b"\0" * (20 * 1024 * 1024))
    assert openai_rejected(chat_post(chat_user(big))[0])["code"] == "image_too_large"


def test_chat_refuses_an_image_in_a_tool_message_as_the_service_does() -> None:
    calls = [{"id": "call_a", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]
    image = [{"type": "image_url", "image_url": {"url": data_url(PNG)}}]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "look"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "call_a", "content": image},
    ]
    error = openai_rejected(chat_post(messages)[0])
    assert error["message"] == (
        "Invalid 'messages[2]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL."
    )
    messages[2]["content"] = [{"type": "text", "text": "shot.png"}]
    assert chat_post([*messages, {"role": "user", "content": image}])[0].status_code == 200


def responses_post(items: list[dict[str, Any]]) -> tuple[httpx.Response, FakeOpenAIServer]:
    body = {"model": "gpt-4.1", "input": items, "stream": True, "store": False}
    with FakeOpenAIServer([Reply(text="ok")]) as server, httpx.Client(timeout=30) as client:
        response = client.post(f"{server.url}/responses", json=body, headers=OPENAI_HEADERS)
    return response, server


def tool_output(output: Any) -> list[dict[str, Any]]:
    call = {"type": "function_call", "call_id": "call_a", "name": "read_file", "arguments": "{}"}
    return [{"role": "user", "content": "look"}, call, {"type": "function_call_output", "call_id": "call_a", "output": output}]


def test_responses_takes_images_in_a_function_call_output_and_in_user_content() -> None:
    parts = [{"type": "input_text", "text": "shot.png"}, {"type": "input_image", "image_url": data_url(PNG), "detail": "auto"}]
    assert responses_post(tool_output(parts))[0].status_code == 200
    assert responses_post([{"role": "user", "content": parts}])[0].status_code == 200


def test_responses_refuses_bad_images_and_foreign_parts() -> None:
    bad = [{"type": "input_image", "image_url": data_url(JPEG, "image/webp")}]
    error = openai_rejected(responses_post(tool_output(bad))[0])
    assert error["param"] == "input[2].output[0].image_url" and error["code"] == "invalid_image_format"
    chat_shape = [{"type": "image_url", "image_url": {"url": data_url(PNG)}}]
    error = openai_rejected(responses_post([{"role": "user", "content": chat_shape}])[0])
    assert error["param"] == "input[0].content[0].type"
    detail = [{"type": "input_image", "image_url": data_url(PNG), "detail": "ultra"}]
    assert openai_rejected(responses_post(tool_output(detail))[0])["param"] == "input[2].output[0].detail"


def test_anthropic_refuses_more_than_100_images_and_a_body_over_32_mb() -> None:
    tiny = image_block(picture_bytes(4, 4))
    assert anthropic_post(user_with(*[tiny] * 100))[0].status_code == 200
    assert "too many images in the request: 101 > 100 maximum" in rejected(anthropic_post(user_with(*[tiny] * 101))[0])
    with FakeAnthropicServer([Reply(text="ok")]) as server:
        response = httpx.post(f"{server.url}/v1/messages", content=b" " * (32 * 1024 * 1024 + 1), headers=ANTHROPIC_HEADERS, timeout=30)
    assert response.status_code == 413 and response.json()["error"]["type"] == "request_too_large"


def test_the_in_process_provider_bills_a_neutral_image_by_its_pixels() -> None:
    import asyncio

    from pseudoclaude.llm import Message
    from pseudoclaude.llm.provider import Completed, Request
    from tests.fakes.pictures import picture
    from tests.fakes.scripted import ScriptedProvider

    async def usage(messages: list[Message]) -> int:
        provider = ScriptedProvider([Reply(text="ok")])
        events = [event async for event in provider.stream(Request(model="m", system="s", messages=messages))]
        assert isinstance(events[-1], Completed)
        return events[-1].usage.input_tokens

    shot = picture("shot.png", 1000, 750)
    with_image = asyncio.run(usage([Message.user("look", [shot])]))
    without = asyncio.run(usage([Message.user("look")]))
    assert anthropic_tokens(1000, 750) <= with_image - without < anthropic_tokens(1000, 750) + 60


def test_images_only_where_a_role_takes_them_and_details_the_services_know() -> None:
    part = {"type": "input_image", "image_url": data_url(PNG)}
    error = openai_rejected(responses_post([{"role": "developer", "content": [part]}, {"role": "user", "content": "hi"}])[0])
    assert error["param"] == "input[0].content[0].type"
    odd = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": data_url(PNG), "detail": "ultra"}}]}]
    assert openai_rejected(chat_post(odd)[0])["param"] == "messages[0].content[0].image_url.detail"
