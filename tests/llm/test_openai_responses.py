"""OpenAIProvider over the Responses API, through the real openai SDK against the wire-level fake.

The fake validates as the service does (function-call pairing, reasoning items
in place and carrying content it issued, unknown parameters), so a request it
accepts is one OpenAI would accept.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from pseudoclaude.llm.errors import BadRequest, Overloaded, PromptTooLong, ProviderError, RateLimited, ServerError, StreamCut
from pseudoclaude.llm.messages import Message, Thinking, ToolCall, ToolSpec
from pseudoclaude.llm.models import cost_usd
from pseudoclaude.llm.openai import OpenAIProvider
from pseudoclaude.llm.provider import Completed, Request, StreamEvent, TextChunk, ThinkingChunk, ToolCallStart
from tests.fakes.collect import collect_stream
from tests.fakes.http import Exchange, FakeHTTPServer
from tests.fakes.openai_server import RESPONSES_PATH, FakeOpenAIServer
from tests.fakes.script import Call, CutStream, HttpError, Reply, Step, StreamError

KEY = "sk-test-secret-0123456789"
READ = ToolSpec("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})
RESPONSES_ONLY = {"input", "instructions", "reasoning", "include", "max_output_tokens", "previous_response_id", "text", "truncation"}


def _request(messages: Sequence[Message] = (Message.user("hi"),), model: str = "gpt-5", **extra: Any) -> Request:
    return Request(model=model, system="You are helpful.", messages=list(messages), tools=[READ], **extra)


def _provider(url: str, model: str = "gpt-5", api: Any = "responses") -> OpenAIProvider:
    return OpenAIProvider(model=model, api_key=KEY, base_url=url, timeout=10, api=api)


def _round(server: FakeOpenAIServer, request: Request, api: Any = "responses") -> tuple[list[StreamEvent], ProviderError | None]:
    return collect_stream(_provider(server.url, request.model, api), request)


def _completed(events: list[StreamEvent]) -> Completed:
    assert isinstance(events[-1], Completed), events
    return events[-1]


def _two_rounds(first: Reply, second: Step = Reply(text="done"), **extra: Any) -> tuple[FakeOpenAIServer, Completed]:
    """A tool round and the request after it, as the runner sends them."""
    with FakeOpenAIServer([first, second]) as server:
        asked = _request(**extra)
        answer = _completed(_round(server, asked)[0])
        history = [*asked.messages, answer.message, *(Message.tool(c.id, "file text") for c in answer.message.tool_calls)]
        events, error = _round(server, _request(history, **extra))
    assert error is None and server.rejections == [], server.rejections
    return server, answer


def test_max_effort_goes_as_far_as_each_reasoning_row_takes_and_the_fake_accepts_it() -> None:
    from pseudoclaude.llm import PROVIDERS

    expected = {"effort_max": "max", "effort_xhigh": "xhigh", "effort": "high"}
    first: dict[str, str] = {}  # one model of each style, the table's first
    for row in (row for entry in PROVIDERS for row in entry.models if row.reasoning in expected and row.full_ids()):
        first.setdefault(row.reasoning, row.full_ids()[0])
    rows = [(model, expected[style]) for style, model in first.items()]
    assert {sent for _, sent in rows} == set(expected.values())
    with FakeOpenAIServer([Reply(text="ok") for _ in rows]) as server:
        for model, _ in rows:
            assert _round(server, _request(model=model, effort="max"))[1] is None, model
    assert [body["reasoning"]["effort"] for body in server.requests] == [sent for _, sent in rows]
    assert server.rejections == []


def test_the_table_sends_reasoning_models_on_openai_itself_through_responses_and_everything_else_through_chat() -> None:
    official = OpenAIProvider(model="gpt-5", api_key=KEY)
    assert official.takes_responses("gpt-5") and official.takes_responses("o3") and official.takes_responses("gpt-5.2-codex")
    assert not official.takes_responses("gpt-4.1") and not official.takes_responses("gpt-5-chat-latest")
    local = OpenAIProvider(model="gpt-5", api_key=None, base_url="http://127.0.0.1:11434/v1")
    assert not local.takes_responses("gpt-5")
    assert OpenAIProvider(model="x", api_key=None, base_url="http://127.0.0.1:1/v1", api="responses").takes_responses("x")


def test_reasoning_summary_streams_as_thinking_then_text_and_the_item_is_kept_opaque() -> None:
    with FakeOpenAIServer([Reply(text="Hello", thinking="Plan the greeting.", reasoning_tokens=64)]) as server:
        events, error = _round(server, _request())
    assert error is None and server.paths == [RESPONSES_PATH]
    assert "".join(e.text for e in events if isinstance(e, ThinkingChunk)) == "Plan the greeting."
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "Hello"
    first_text = next(i for i, e in enumerate(events) if isinstance(e, TextChunk))
    assert all(not isinstance(e, ThinkingChunk) for e in events[first_text:])
    message = _completed(events).message
    assert message.text == "Hello"
    [part] = message.thinking
    assert (part.provider, part.kind, part.text) == ("openai", "reasoning", "Plan the greeting.")
    assert json.loads(part.opaque)["encrypted_content"] in server.issued


def test_a_tool_round_carries_the_encrypted_reasoning_item_into_the_next_request_unchanged() -> None:
    first = Reply(text="Reading.", thinking="I need the file.", calls=(Call("read", '{"path": "a.py"}'),))
    server, answer = _two_rounds(first)
    issued = json.loads(answer.message.thinking[0].opaque)
    items = server.requests[1]["input"]
    kinds = [item.get("type", item.get("role")) for item in items]
    assert kinds == ["user", "reasoning", "assistant", "function_call", "function_call_output"]
    assert items[1] == {"type": "reasoning", "summary": issued["summary"], "encrypted_content": issued["encrypted_content"]}
    assert items[3] == {"type": "function_call", "call_id": answer.message.tool_calls[0].id, "name": "read", "arguments": '{"path": "a.py"}'}
    assert all("id" not in item for item in items)


def test_effort_and_summary_reach_the_request_with_stateless_encrypted_reasoning() -> None:
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        _round(server, _request(effort="high"))
    body = server.requests[0]
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["store"] is False and body["stream"] is True
    assert body["instructions"] == "You are helpful."
    assert body["tools"] == [{"type": "function", "name": "read", "description": "Read a file", "parameters": dict(READ.input_schema), "strict": False}]


def test_max_effort_is_xhigh_where_the_model_takes_it_and_high_elsewhere() -> None:
    with FakeOpenAIServer([Reply(text="a"), Reply(text="b"), Reply(text="c")]) as server:
        _round(server, _request(model="gpt-5.2", effort="max"))
        _round(server, _request(model="gpt-5", effort="max"))
        _round(server, _request(model="o3", thinking="disabled", effort="high"))
    efforts = [body["reasoning"] for body in server.requests]
    assert efforts == [{"effort": "xhigh", "summary": "auto"}, {"effort": "high", "summary": "auto"}, {"effort": "low"}]
    assert server.requests[0]["max_output_tokens"] > 8192 and server.rejections == []


def test_a_model_that_does_not_reason_gets_no_reasoning_parameters_even_through_responses() -> None:
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        events, error = _round(server, _request(model="gpt-4.1", effort="high"))
    assert error is None and server.rejections == []
    assert not {"reasoning", "include"} & set(server.requests[0])
    assert server.requests[0]["max_output_tokens"] == 8192


def test_a_compatible_server_never_receives_responses_only_fields() -> None:
    reasoned = Message.assistant("Reading.", [ToolCall("call_1", "read", "{}")], [Thinking("openai", "reasoning", "t", '{"encrypted_content":"x"}')])
    history = [Message.user("hi"), reasoned, Message.tool("call_1", "text")]
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        events, error = _round(server, _request(history, effort="high"), api="auto")
    assert error is None and server.rejections == []
    assert server.paths == ["/v1/chat/completions"]
    body = server.requests[0]
    assert not RESPONSES_ONLY & set(body)
    assert "encrypted_content" not in json.dumps(body) and "reasoning" not in body
    assert body["reasoning_effort"] == "high" and "max_tokens" not in body


def test_reasoning_tokens_are_counted_in_the_output_usage_and_its_cost() -> None:
    reply = Reply(text="ok", input_tokens=1000, cache_read_tokens=400, output_tokens=50, reasoning_tokens=950)
    with FakeOpenAIServer([reply]) as server:
        usage = _completed(_round(server, _request())[0]).usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens, usage.reasoning_tokens) == (1000, 400, 1000, 950)
    assert cost_usd("gpt-5", usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == 1000 * 1.25e-6 + 400 * 0.125e-6 + 1000 * 10e-6


def test_a_resumed_conversation_sends_the_same_bytes() -> None:
    first = Reply(text="Reading.", thinking="I need the file.", calls=(Call("read", '{"path": "a.py"}'),))
    with FakeOpenAIServer([first, Reply(text="one"), Reply(text="two")]) as server:
        answer = _completed(_round(server, _request(effort="medium"))[0])
        history = [Message.user("hi"), answer.message, Message.tool(answer.message.tool_calls[0].id, "file text")]
        replayed = [Message.from_dict(json.loads(json.dumps(m.to_dict()))) for m in history]
        _round(server, _request(history, effort="medium"))
        _round(server, _request(replayed, effort="medium"))
    assert server.rejections == []
    assert server.raw_bodies[1] == server.raw_bodies[2]


def test_the_prompt_cache_key_names_the_stable_prefix_only() -> None:
    with FakeOpenAIServer([Reply(text="a"), Reply(text="b"), Reply(text="c")]) as server:
        _round(server, _request())
        _round(server, _request([Message.user("hi"), Message.assistant("a"), Message.user("more")], system_suffix="today"))
        _round(server, Request(model="gpt-5", system="Other.", messages=[Message.user("hi")], tools=[READ]))
    keys = [body["prompt_cache_key"] for body in server.requests]
    assert keys[0] == keys[1] != keys[2]
    assert server.requests[1]["input"][0] == {"role": "developer", "content": "today"}


def test_a_dropped_stream_mid_function_call_is_stream_cut_without_completed() -> None:
    cut = CutStream(Reply(text="Reading.", thinking="plan", calls=(Call("read", '{"path": "a.py"}'),)))
    for step in (cut, CutStream(cut.reply, name_only=True)):
        with FakeOpenAIServer([step]) as server:
            events, error = _round(server, _request())
        assert isinstance(error, StreamCut)
        assert not any(isinstance(e, Completed) for e in events)
        assert any(isinstance(e, ToolCallStart) for e in events)


def test_an_error_inside_the_stream_maps_by_its_code() -> None:
    with FakeOpenAIServer([StreamError(Reply(text="partial words"), after_deltas=1)]) as server:
        events, error = _round(server, _request())
    assert isinstance(error, ServerError) and not any(isinstance(e, Completed) for e in events)
    with FakeOpenAIServer([StreamError(Reply(text="x"), error_type="rate_limit_error")]) as server:
        assert isinstance(_round(server, _request())[1], RateLimited)


def test_the_output_cap_completes_as_max_tokens_and_drops_a_dangling_reasoning_item_next_time() -> None:
    with FakeOpenAIServer([Reply(thinking="long thought", stop_reason="max_tokens"), Reply(text="ok")]) as server:
        answer = _completed(_round(server, _request())[0])
        assert answer.stop_reason == "max_tokens" and answer.message.thinking
        events, error = _round(server, _request([Message.user("hi"), answer.message, Message.user("go on")]))
    assert error is None and server.rejections == []
    assert "reasoning" not in [item.get("type") for item in server.requests[1]["input"]]


def test_a_stream_that_ends_without_response_completed_is_stream_cut() -> None:
    def handler(exchange: Exchange) -> None:
        exchange.start_stream()
        exchange.send_event(
            "response.created", {"type": "response.created", "sequence_number": 0, "response": {"id": "r", "status": "in_progress", "output": []}}
        )
        exchange.send_event(
            "response.output_text.delta",
            {"type": "response.output_text.delta", "sequence_number": 1, "item_id": "m", "output_index": 0, "content_index": 0, "delta": "Hel"},
        )
        exchange.end_stream()

    with FakeHTTPServer(handler) as http:
        events, error = collect_stream(_provider(f"{http.url}/v1"), _request())
    assert isinstance(error, StreamCut)
    assert events == [TextChunk("Hel")]


def test_two_reasoning_items_in_one_turn_each_precede_an_output_item() -> None:
    first = Reply(text="Reading.", thinking="plan", calls=(Call("read", '{"path": "a.py"}'), Call("read", '{"path": "b.py"}')))
    with FakeOpenAIServer([first, first, Reply(text="ok")]) as server:
        one = _completed(_round(server, _request())[0]).message
        two = _completed(_round(server, _request())[0]).message
        calls = [one.tool_calls[0], two.tool_calls[1]]
        both = Message.assistant("Reading.", calls, [*one.thinking, *two.thinking])
        history = [Message.user("hi"), both, *(Message.tool(c.id, "x") for c in calls)]
        events, error = _round(server, _request(history))
    assert error is None and server.rejections == []
    kinds = [item.get("type", item.get("role")) for item in server.requests[2]["input"]]
    assert kinds == ["user", "reasoning", "assistant", "reasoning", "function_call", "function_call", "function_call_output", "function_call_output"]


def test_another_providers_thinking_is_never_sent() -> None:
    signed = Thinking("anthropic", "thinking", "hmm", "sig-abc")
    history = [Message.user("hi"), Message.assistant("hello", thinking=[signed]), Message.user("again")]
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        _round(server, _request(history))
    assert server.rejections == [] and "sig-abc" not in server.raw_bodies[0].decode()


def test_a_function_call_output_without_its_call_is_a_bad_request() -> None:
    history = [Message.user("hi"), Message.tool("call_missing", "text")]
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        events, error = _round(server, _request(history))
    assert isinstance(error, BadRequest)
    assert server.rejections == [(400, "No tool call found for function call output with call_id call_missing.")]


def test_a_tampered_reasoning_item_is_refused() -> None:
    forged = Thinking("openai", "reasoning", "", json.dumps({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAforged"}))
    history = [Message.user("hi"), Message.assistant("hello", thinking=[forged]), Message.user("again")]
    with FakeOpenAIServer([Reply(text="ok")]) as server:
        events, error = _round(server, _request(history))
    assert isinstance(error, BadRequest) and "could not be verified" in str(error)


def test_an_organization_refused_summaries_is_asked_again_without_them_and_never_again() -> None:
    with FakeOpenAIServer([Reply(text="one", thinking="t"), Reply(text="two", thinking="t")], verified=False) as server:
        provider = _provider(server.url)
        first, error = collect_stream(provider, _request(effort="high"))
        second, again = collect_stream(provider, _request(effort="high"))
    assert error is None and again is None
    assert _completed(first).message.text == "one" and _completed(second).message.text == "two"
    assert [body["reasoning"] for body in server.requests] == [{"effort": "high", "summary": "auto"}, {"effort": "high"}, {"effort": "high"}]
    assert not any(isinstance(e, ThinkingChunk) for e in first) and _completed(first).message.thinking


def test_a_server_that_answers_a_whole_response_as_json_still_completes() -> None:
    whole = {
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5",
        "output": [
            {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Think."}], "encrypted_content": "gAAAAx"},
            {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Reading.", "annotations": []}]},
            {"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_1", "name": "read", "arguments": "{}"},
        ],
        "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 3}, "total_tokens": 15},
    }  # fmt: skip

    with FakeHTTPServer(lambda exchange: exchange.send_json(200, whole)) as http:
        events, error = collect_stream(_provider(f"{http.url}/v1"), _request())
    assert error is None
    done = _completed(events)
    assert (done.message.text, done.message.tool_calls, done.stop_reason) == ("Reading.", (ToolCall("call_1", "read", "{}"),), "tool_use")
    assert done.message.thinking[0].text == "Think." and done.usage.reasoning_tokens == 3
    assert [type(e).__name__ for e in events] == ["TextChunk", "ToolCallStart", "ToolArgsChunk", "Completed"], (
        "the arguments no delta carried arrive as one piece"
    )


def test_two_message_items_in_one_response_read_as_two_paragraphs() -> None:
    def handler(exchange: Exchange) -> None:
        exchange.start_stream()
        for n, (item, delta) in enumerate([("msg_a", "First."), ("msg_b", "Second.")]):
            exchange.send_event(
                "response.output_text.delta",
                {"type": "response.output_text.delta", "sequence_number": n, "item_id": item, "output_index": n, "content_index": 0, "delta": delta},
            )
        exchange.send_event(
            "response.completed", {"type": "response.completed", "sequence_number": 2, "response": {"id": "r", "status": "completed", "output": []}}
        )
        exchange.end_stream()

    with FakeHTTPServer(handler) as http:
        events, error = collect_stream(_provider(f"{http.url}/v1"), _request())
    assert error is None and _completed(events).message.text == "First.\n\nSecond."


def test_after_a_model_switch_the_earlier_models_reasoning_is_left_out_not_refused() -> None:
    first = Reply(text="Reading.", thinking="plan", calls=(Call("read", "{}"),))
    with FakeOpenAIServer([first, Reply(text="ok"), Reply(text="ok")]) as server:
        answer = _completed(_round(server, _request(model="gpt-5"))[0]).message
        history = [Message.user("hi"), answer, Message.tool(answer.tool_calls[0].id, "x")]
        _round(server, _request(history, model="o3"))
        _round(server, _request(history, model="gpt-5"))
    assert server.rejections == []
    assert [len([i for i in body["input"] if i.get("type") == "reasoning"]) for body in server.requests[1:]] == [0, 1]
    assert json.loads(answer.thinking[0].opaque)["model"] == "gpt-5"


def test_http_errors_and_an_overflowing_prompt_map_as_on_chat_completions() -> None:
    with FakeOpenAIServer([HttpError(429, "rate_limit", retry_after=2), HttpError(503, "overloaded")]) as server:
        limited, overloaded = _round(server, _request())[1], _round(server, _request())[1]
    assert isinstance(limited, RateLimited) and limited.retry_after == 2
    assert isinstance(overloaded, Overloaded)
    with FakeOpenAIServer([Reply(text="never")], context_window=10) as server:
        assert isinstance(_round(server, _request())[1], PromptTooLong)
    assert server.paths == [RESPONSES_PATH]
