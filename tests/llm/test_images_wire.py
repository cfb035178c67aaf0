"""Images on the wire, through the real SDKs against the fake servers (which check images as the services do).

Each provider in its own shape: Anthropic image blocks (in the user turn, and
inside the tool_result); Chat Completions image_url parts in user messages
only (a tool round's images in one user message after its tool messages);
Responses input_image parts (inside function_call_output). A model without
vision, or an image whose bytes a resumed session lacks, gets the text note.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any, Sequence

from pseudoclaude.llm import Image
from pseudoclaude.llm.anthropic import AnthropicProvider
from pseudoclaude.llm.errors import ProviderError
from pseudoclaude.llm.messages import Message, ToolCall, ToolSpec
from pseudoclaude.llm.openai import OpenAIProvider, WireApi
from pseudoclaude.llm.provider import Completed, Request, StreamEvent
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.collect import collect_stream
from tests.fakes.image_checks import anthropic_tokens, openai_tokens
from tests.fakes.local_servers import FakeLocalServer
from tests.fakes.openai_server import CHAT_PATH, RESPONSES_PATH, FakeOpenAIServer
from tests.fakes.pictures import missing, picture, picture_bytes
from tests.fakes.script import Call, HttpError, Reply

KEY = "sk-test-secret-0123456789"
READ = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})
SHOT = picture("shot.png", 120, 80)
CALL = ToolCall("toolu_read1", "read_file", '{"path": "shot.png"}')


def request(model: str, messages: Sequence[Message]) -> Request:
    return Request(model=model, system="You are a coding agent.", messages=list(messages), tools=[READ])


def tool_round(images: tuple[Image, ...] = (SHOT,), *, text: str = "shot.png: 120x80 PNG") -> list[Message]:
    """A user asks, the model reads a picture, the tool result carries it."""
    return [
        Message.user("Is the button aligned?"),
        Message.assistant("Let me look.", [CALL]),
        Message.tool(CALL.id, text, images=images),
    ]


def b64(image: Image) -> str:
    return base64.b64encode(image.data).decode("ascii")


def anthropic(server: FakeAnthropicServer, req: Request) -> tuple[list[StreamEvent], ProviderError | None]:
    return collect_stream(AnthropicProvider(model=req.model, api_key=KEY, base_url=server.url, timeout=10), req)


def openai(server: FakeOpenAIServer, req: Request, api: WireApi) -> tuple[list[StreamEvent], ProviderError | None]:
    return collect_stream(OpenAIProvider(model=req.model, api_key=KEY, base_url=server.url, timeout=10, api=api), req)


def completed(events: list[StreamEvent]) -> Completed:
    assert isinstance(events[-1], Completed), events
    return events[-1]


# Anthropic


def test_anthropic_a_tool_round_that_read_a_png_sends_the_image_inside_the_tool_result() -> None:
    with FakeAnthropicServer([Reply(text="", calls=(Call("read_file", '{"path": "shot.png"}'),)), Reply(text="Aligned.")]) as server:
        asked = request("claude-fake-1", [Message.user("Is the button aligned?")])
        answer = completed(anthropic(server, asked)[0]).message
        call = answer.tool_calls[0]
        history = [*asked.messages, answer, Message.tool(call.id, "shot.png: 120x80 PNG", images=(SHOT,))]
        events, error = anthropic(server, request("claude-fake-1", history))
    assert error is None and server.rejections == [], server.rejections
    last = server.requests[-1]["messages"][-1]
    assert last["role"] == "user"
    result = last["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == call.id
    assert result["content"][0] == {"type": "text", "text": "shot.png: 120x80 PNG"}
    image = result["content"][1]
    assert image == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(SHOT)}}
    assert result["cache_control"] == {"type": "ephemeral"}, "the breakpoint stays on the last block of the last turn"
    assert completed(events).message.text == "Aligned."


def test_anthropic_a_thinking_tool_round_keeps_its_thinking_first_and_the_image_in_the_result() -> None:
    model = "claude-sonnet-4-5-test"
    first = Reply(thinking="Look at the screenshot.", calls=(Call("read_file", '{"path": "shot.png"}'),))
    with FakeAnthropicServer([first, Reply(thinking="It is aligned.", text="Aligned.")]) as server:
        asked = Request(model=model, system="s", messages=[Message.user("Aligned?")], tools=[READ], effort="medium")
        answer = completed(anthropic(server, asked)[0]).message
        history = [*asked.messages, answer, Message.tool(answer.tool_calls[0].id, "shot.png", images=(SHOT,))]
        _, error = anthropic(server, Request(model=model, system="s", messages=history, tools=[READ], effort="medium"))
    assert error is None and server.rejections == [], server.rejections
    assistant, result = server.requests[-1]["messages"][1:]
    assert assistant["content"][0]["type"] == "thinking"
    assert [part["type"] for part in result["content"][0]["content"]] == ["text", "image"]


def test_anthropic_a_user_image_goes_before_the_text_and_the_breakpoint_stays_on_the_last_block() -> None:
    photo = picture("photo.jpg", 90, 60, "JPEG")
    with FakeAnthropicServer([Reply(text="I see it.")]) as server:
        _, error = anthropic(server, request("claude-fake-1", [Message.user("What is wrong here?", [SHOT, photo])]))
    assert error is None and server.rejections == []
    blocks = server.requests[0]["messages"][0]["content"]
    assert [b["type"] for b in blocks] == ["image", "image", "text"]
    assert [b["source"]["media_type"] for b in blocks[:2]] == ["image/png", "image/jpeg"]
    assert blocks[1]["source"]["data"] == b64(photo)
    assert "cache_control" not in blocks[0] and "cache_control" not in blocks[1]
    assert blocks[2] == {"type": "text", "text": "What is wrong here?", "cache_control": {"type": "ephemeral"}}


def test_anthropic_an_image_only_message_carries_the_breakpoint_on_its_image() -> None:
    with FakeAnthropicServer([Reply(text="ok")]) as server:
        _, error = anthropic(server, request("claude-fake-1", [Message.user("", [SHOT])]))
    assert error is None and server.rejections == []
    (block,) = server.requests[0]["messages"][0]["content"]
    assert block["type"] == "image" and block["cache_control"] == {"type": "ephemeral"}


def test_anthropic_an_image_whose_bytes_are_missing_becomes_the_note() -> None:
    gone = missing("gone.png", 640, 480)
    with FakeAnthropicServer([Reply(text="ok")]) as server:
        _, error = anthropic(server, request("claude-fake-1", [*tool_round((gone,)), Message.user("and this?", [gone])]))
    assert error is None and server.rejections == []
    body = json.dumps(server.requests[0])
    assert '"type": "image"' not in body
    result, text = server.requests[0]["messages"][-1]["content"]
    assert "gone.png (640x480 PNG) not shown: its bytes are missing" in result["content"]
    assert text["text"].startswith("and this?\n[image gone.png (640x480 PNG) not shown")


def test_anthropic_the_same_request_is_the_same_bytes_and_images_are_billed_by_pixels() -> None:
    noisy = picture("noise.png", 200, 150, noisy=True)
    with_image = request("claude-fake-1", tool_round((noisy,)))
    without = request("claude-fake-1", tool_round(()))
    with FakeAnthropicServer([Reply(text="a"), Reply(text="b"), Reply(text="c")]) as server:
        usages = [completed(anthropic(server, r)[0]).usage for r in (with_image, with_image, without)]
    assert server.rejections == []
    assert server.raw_bodies[0] == server.raw_bodies[1]
    assert b64(noisy).encode() in server.raw_bodies[0]
    extra = usages[0].input_tokens - usages[2].input_tokens
    assert anthropic_tokens(200, 150) <= extra < anthropic_tokens(200, 150) + 60, extra
    assert len(b64(noisy)) // 4 > 20 * extra, "the base64 itself is not what is billed"


def screenshot_rounds(count: int, *, size: int = 0) -> list[Message]:
    """``count`` tool rounds, each returning one distinct PNG (``size``: padded to that many bytes)."""
    history: list[Message] = [Message.user("Check every page.")]
    for n in range(count):
        data = picture_bytes(8, 8, seed=n, noisy=True)
        image = Image("image/png", data + bytes(max(0, size - len(data))), f"page{n}.png", 8, 8)
        call = ToolCall(f"toolu_{n}", "read_file", json.dumps({"path": image.name}))
        history += [Message.assistant("", [call]), Message.tool(call.id, image.name, images=(image,))]
    return history


def test_anthropic_sends_at_most_100_images_the_oldest_become_notes_cut_in_steps_that_keep_the_prefix() -> None:
    with FakeAnthropicServer([Reply(text="a"), Reply(text="b")]) as server:
        for count in (110, 111):
            assert anthropic(server, request("claude-fake-1", screenshot_rounds(count)))[1] is None
    assert server.rejections == []
    first, second = server.requests
    assert [len(_images_in(body)) for body in server.requests] == [85, 86]
    oldest = json.dumps(first["messages"][2])
    assert "[image page0.png (8x8 PNG" in oldest and "left out of the request" in oldest
    assert first["messages"][:-1] == second["messages"][: len(first["messages"]) - 1], "the cut did not move"


def test_anthropic_keeps_the_images_of_a_request_under_the_32_mb_limit() -> None:
    with FakeAnthropicServer([Reply(text="ok")]) as server:
        _, error = anthropic(server, request("claude-fake-1", screenshot_rounds(8, size=3_600_000)))
    assert error is None and server.rejections == []
    assert 3 <= len(_images_in(server.requests[0])) < 8 and len(server.raw_bodies[0]) < 25 * 1024 * 1024


def _images_in(body: dict[str, Any]) -> list[str]:
    return re.findall(r'"type": "image"', json.dumps(body))


# OpenAI Chat Completions


def test_chat_a_tool_rounds_images_follow_its_tool_messages_in_one_user_message() -> None:
    second = picture("detail.png", 40, 30)
    other = ToolCall("call_grep", "grep", '{"pattern": "x"}')
    history = [
        Message.user("Is the button aligned?"),
        Message.assistant("", [CALL, other]),
        Message.tool(CALL.id, "shot.png: 120x80 PNG", images=(SHOT, second)),
        Message.tool(other.id, "no match"),
        Message.user("Also check the header."),
    ]
    with FakeOpenAIServer([Reply(text="Aligned.")]) as server:
        _, error = openai(server, request("gpt-4.1", history), "chat")
    assert error is None and server.rejections == [] and server.paths == [CHAT_PATH]
    wire = server.requests[0]["messages"][1:]
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "tool", "user", "user"]
    assert wire[2] == {"role": "tool", "tool_call_id": CALL.id, "content": "shot.png: 120x80 PNG"}
    shown = wire[4]["content"]
    assert shown[0] == {"type": "text", "text": f"Images returned by tool call {CALL.id} (read_file):"}
    assert shown[1] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(SHOT)}"}}
    assert shown[2]["image_url"]["url"] == f"data:image/png;base64,{b64(second)}" and len(shown) == 3
    assert wire[5] == {"role": "user", "content": "Also check the header."}


def test_chat_user_images_are_content_parts_after_the_text() -> None:
    with FakeOpenAIServer([Reply(text="I see it.")]) as server:
        _, error = openai(server, request("gpt-4.1", [Message.user("What is wrong here?", [SHOT])]), "chat")
    assert error is None and server.rejections == []
    content = server.requests[0]["messages"][1]["content"]
    assert content == [
        {"type": "text", "text": "What is wrong here?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(SHOT)}"}},
    ]


def test_chat_a_model_without_vision_gets_the_note_and_no_image() -> None:
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        _, error = openai(server, request("gpt-3.5-turbo", [*tool_round(), Message.user("and this?", [SHOT])]), "chat")
    assert error is None and server.rejections == []
    raw = server.raw_bodies[0]
    assert b"image_url" not in raw and b64(SHOT).encode() not in raw
    wire = server.requests[0]["messages"]
    assert "[image shot.png (120x80 PNG" in wire[-2]["content"] and "cannot see images" in wire[-2]["content"]
    assert [m["role"] for m in wire[1:]] == ["user", "assistant", "tool", "user"]
    assert wire[-1]["content"].startswith("and this?\n[image shot.png")


def test_chat_the_same_request_is_the_same_bytes_and_images_are_billed_by_tiles() -> None:
    noisy = picture("noise.png", 600, 400, noisy=True)
    with_image, without = request("gpt-4.1", tool_round((noisy,))), request("gpt-4.1", tool_round(()))
    with FakeOpenAIServer([Reply(text="a"), Reply(text="b"), Reply(text="c")]) as server:
        usages = [completed(openai(server, r, "chat")[0]).usage for r in (with_image, with_image, without)]
    assert server.rejections == [] and server.raw_bodies[0] == server.raw_bodies[1]
    extra = usages[0].input_tokens - usages[2].input_tokens
    assert openai_tokens(600, 400) <= extra < openai_tokens(600, 400) + 60, extra


def test_chat_a_text_only_local_model_refusing_images_is_asked_again_with_notes_and_never_sent_them_again() -> None:
    for kind in ("llamacpp", "vllm"):
        with FakeLocalServer(kind, window=100_000, replies=["I cannot see it.", "ok"], vision=False) as server:
            provider = OpenAIProvider(model=server.model, api_key=None, base_url=server.url, timeout=10)
            first, error = collect_stream(provider, request(server.model, tool_round()))
            again, error_again = collect_stream(provider, request(server.model, [*tool_round(), Message.user("next")]))
        assert error is None and error_again is None, (kind, error, error_again)
        assert completed(first).message.text == "I cannot see it." and completed(again).message.text == "ok"
        assert [_has_image(body) for body in server.requests] == [True, False, False], kind
        note = server.requests[1]["messages"][-1]["content"]
        assert f"not shown: the server refused images for {server.model}" in note, kind


def test_chat_a_local_vision_model_gets_the_image() -> None:
    with FakeLocalServer("llamacpp", window=100_000, replies=["I see it."]) as server:
        provider = OpenAIProvider(model=server.model, api_key=None, base_url=server.url, timeout=10)
        _, error = collect_stream(provider, request(server.model, tool_round()))
    assert error is None and [_has_image(body) for body in server.requests] == [True]


def _has_image(body: dict[str, Any]) -> bool:
    return "image_url" in json.dumps(body)


# OpenAI Responses


def test_responses_a_tool_rounds_image_travels_inside_its_function_call_output() -> None:
    with FakeOpenAIServer([Reply(text="", calls=(Call("read_file", '{"path": "shot.png"}'),)), Reply(text="Aligned.")]) as server:
        asked = request("gpt-5", [Message.user("Is the button aligned?")])
        answer = completed(openai(server, asked, "responses")[0]).message
        call = answer.tool_calls[0]
        history = [*asked.messages, answer, Message.tool(call.id, "shot.png: 120x80 PNG", images=(SHOT,))]
        _, error = openai(server, request("gpt-5", history), "responses")
    assert error is None and server.rejections == [] and server.paths == [RESPONSES_PATH] * 2
    output = server.requests[-1]["input"][-1]
    assert output["type"] == "function_call_output" and output["call_id"] == call.id
    assert output["output"] == [
        {"type": "input_text", "text": "shot.png: 120x80 PNG"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{b64(SHOT)}", "detail": "auto"},
    ]


def test_responses_user_images_are_input_image_parts() -> None:
    with FakeOpenAIServer([Reply(text="I see it.")]) as server:
        _, error = openai(server, request("gpt-5", [Message.user("What is wrong here?", [SHOT])]), "responses")
    assert error is None and server.rejections == []
    (item,) = server.requests[0]["input"]
    assert item["role"] == "user" and [p["type"] for p in item["content"]] == ["input_text", "input_image"]
    assert item["content"][1]["image_url"] == f"data:image/png;base64,{b64(SHOT)}"


def test_responses_a_model_without_vision_gets_the_note_and_no_image() -> None:
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        _, error = openai(server, request("o3-mini", [*tool_round(), Message.user("", [SHOT])]), "responses")
    assert error is None and server.rejections == []
    raw = server.raw_bodies[0]
    assert b"input_image" not in raw and b64(SHOT).encode() not in raw
    items = server.requests[0]["input"]
    assert isinstance(items[-2]["output"], str) and "cannot see images" in items[-2]["output"]
    assert items[-1] == {"role": "user", "content": "[image shot.png (120x80 PNG, 1 KB) not shown: the current model cannot see images]"}


def test_responses_a_server_refusing_images_is_asked_again_with_notes() -> None:
    refusal = HttpError(400, "invalid_request", "Invalid content type. image_url is only supported by certain models.")
    with FakeOpenAIServer([refusal, Reply(text="ok")]) as server:
        events, error = openai(server, request("text-model-x", tool_round()), "responses")
    assert error is None and completed(events).message.text == "ok"
    assert [b"input_image" in raw for raw in server.raw_bodies] == [True, False]
    assert "the server refused images for text-model-x" in server.requests[1]["input"][-1]["output"]


def test_a_refusal_that_is_not_about_images_is_not_retried() -> None:
    with FakeOpenAIServer([HttpError(400, "invalid_request", "Invalid value for 'temperature'."), Reply(text="ok")]) as server:
        _, error = openai(server, request("text-model-x", tool_round()), "chat")
    assert error is not None and "temperature" in error.message and len(server.requests) == 1


def test_responses_the_same_request_is_the_same_bytes() -> None:
    same = request("gpt-5", tool_round((SHOT, picture("b.webp", 30, 20, "WEBP"))))
    with FakeOpenAIServer([Reply(text="a"), Reply(text="b")]) as server:
        for _ in range(2):
            assert openai(server, same, "responses")[1] is None
    assert server.rejections == [] and server.raw_bodies[0] == server.raw_bodies[1]


def test_anthropic_thinking_leaves_the_window_room_for_the_images_pixels() -> None:
    from pseudoclaude.llm.anthropic_wire import to_wire_request

    tile = picture("tile.png", 16, 16)
    claimed = Image("image/png", tile.data, "big.png", 1500, 1000)  # billed as 1500x1000: 2000 tokens each
    plain = Request(model="claude-sonnet-4-5", system="s", messages=[Message.user("look")], effort="high")
    heavy = Request(model="claude-sonnet-4-5", system="s", messages=[Message.user("look", [claimed] * 90)], effort="high")
    roomy, tight = to_wire_request(plain)["max_tokens"], to_wire_request(heavy)["max_tokens"]
    assert tight <= 200_000 - 90 * 2000 < roomy


def test_anthropic_a_cached_prefix_holding_an_image_is_read_back_and_billed_by_pixels() -> None:
    noisy = picture("noise.png", 300, 200, noisy=True)
    rounds = tool_round((noisy,))
    long_system = "Follow the project rules. " * 400
    first = Request(model="claude-fake-1", system=long_system, messages=rounds, tools=[READ])
    later = [*rounds, Message.assistant("Aligned."), Message.user("thanks")]
    second = Request(model="claude-fake-1", system=long_system, messages=later, tools=[READ])
    with FakeAnthropicServer([Reply(text="Aligned."), Reply(text="ok")], report_cache=True) as server:
        usages = [completed(anthropic(server, r)[0]).usage for r in (first, second)]
    assert server.rejections == []
    assert usages[1].cache_read_tokens >= usages[0].prompt_tokens - 100, "the first request, image included, is read back"
    assert usages[1].prompt_tokens < len(b64(noisy)) // 4, "the image's base64 is not counted as text"
