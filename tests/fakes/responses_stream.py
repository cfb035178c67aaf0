"""The fake OpenAI Responses endpoint's answers: streamed events in the real API's order and shape.

One answer is: ``response.created``, ``response.in_progress``; a reasoning item
(for a reasoning model: ``output_item.added``, the summary parts and their
``reasoning_summary_text.delta`` when a summary was asked for,
``output_item.done`` carrying ``encrypted_content`` when it was included); a
message item (``content_part.added``, ``output_text.delta``s, ``done`` events);
one ``function_call`` item per call (``function_call_arguments.delta``s); and
``response.completed`` (or ``response.incomplete`` at the output cap) with the
whole response and its usage (``input_tokens_details.cached_tokens``,
``output_tokens_details.reasoning_tokens``). Every event has its
``sequence_number`` and is sent as ``event: <type>`` + ``data: <json>``.
"""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Any, Callable, Mapping

from tests.fakes.http import Exchange
from tests.fakes.responses_checks import is_reasoning_model
from tests.fakes.responses_compaction import Compacted
from tests.fakes.script import Call, CutStream, Reply, StallStream, StreamError, approx_tokens, split_text

Issue = Callable[[str, str], None]


class ResponsesStreamer:
    """Writes one answer to a ``POST /v1/responses`` request; ``issue`` records each encrypted content handed out, and for which model."""

    def __init__(self, exchange: Exchange, body: Mapping[str, Any], serial: int, issue: Issue, compacted: Compacted | None = None) -> None:
        """``compacted``: the server's rendering of the request and the compaction it made (``responses_compaction``)."""
        self.exchange = exchange
        self.compacted = compacted
        self.body = body
        self.serial = serial
        self.issue = issue
        self.sequence = 0
        self.output: list[dict[str, Any]] = []
        reasoning = body.get("reasoning") or {}
        self.reasons = is_reasoning_model(str(body.get("model")))
        self.summary = self.reasons and bool(reasoning.get("summary"))
        self.encrypted = "reasoning.encrypted_content" in (body.get("include") or ())
        self.compacted_now = False

    def reply(self, reply: Reply) -> None:
        self._open()
        self._compaction(reply)
        self._reasoning(reply)
        self._message(reply.text, reply.text_chunks)
        for index, call in enumerate(reply.calls):
            self._call(index, call, reply.calls)
        incomplete = reply.stop_reason == "max_tokens"
        response = self._response("incomplete" if incomplete else "completed", usage=self._usage(reply))
        if incomplete:
            response["incomplete_details"] = {"reason": "max_output_tokens"}
        self._send("response.incomplete" if incomplete else "response.completed", response=response)
        self.exchange.end_stream()

    def error_after(self, step: StreamError) -> None:
        self._open()
        pieces = split_text(step.reply.text, step.reply.text_chunks)[: step.after_deltas]
        self._message("".join(pieces), len(pieces), finish=False)
        message = "The server had an error while processing your request. Sorry about that!"
        if step.error_type == "rate_limit_error":
            self._send("error", code="rate_limit_exceeded", message="Rate limit reached. Please try again in 1s.", param=None)
        else:
            error = {"code": "server_error", "message": message}
            self._send("response.failed", response={**self._response("failed"), "error": error})
        self.exchange.end_stream()

    def cut(self, step: CutStream) -> None:
        self._open()
        reply = step.reply
        self._reasoning(reply)
        self._message(reply.text, reply.text_chunks)
        for index, call in enumerate(reply.calls[: step.call_index]):
            self._call(index, call, reply.calls)
        call = reply.calls[step.call_index]
        item = self._call_item(step.call_index, call)
        self._added({**item, "status": "in_progress", "arguments": ""})
        if not step.name_only:
            half = call.arguments[: max(1, len(call.arguments) // 2)]
            self._send("response.function_call_arguments.delta", item_id=item["id"], output_index=len(self.output), delta=half)
        self.exchange.cut()

    def stall(self, step: StallStream, stalled: threading.Event) -> None:
        """The reasoning summary's first ``after_deltas`` deltas, then silence (the model thinking) until cut."""
        self._open()
        item_id = f"rs_fake{self.serial}_0"
        self._added({"id": item_id, "type": "reasoning", "summary": []})
        if self.summary:
            self._send("response.reasoning_summary_part.added", item_id=item_id, output_index=0, summary_index=0, part={"type": "summary_text", "text": ""})
            for piece in split_text(step.reply.thinking, 6)[: step.after_deltas]:
                self._send("response.reasoning_summary_text.delta", item_id=item_id, output_index=0, summary_index=0, delta=piece)
        stalled.set()
        deadline = time.monotonic() + step.seconds
        try:
            while time.monotonic() < deadline:
                time.sleep(0.1)
                self.exchange.send_chunk(b": keep-alive\n\n")
        except OSError:
            return
        self.exchange.cut()

    def _open(self) -> None:
        self.exchange.start_stream()
        self._send("response.created", response=self._response("in_progress"))
        self._send("response.in_progress", response=self._response("in_progress"))

    def _reasoning(self, reply: Reply) -> None:
        if not self.reasons:
            return
        item_id = f"rs_fake{self.serial}_{len(self.output)}"
        index = len(self.output)
        self._added({"id": item_id, "type": "reasoning", "summary": []})
        summary: list[dict[str, Any]] = []
        if self.summary and reply.thinking:
            part = {"type": "summary_text", "text": ""}
            self._send("response.reasoning_summary_part.added", item_id=item_id, output_index=index, summary_index=0, part=part)
            for piece in split_text(reply.thinking, 3):
                self._send("response.reasoning_summary_text.delta", item_id=item_id, output_index=index, summary_index=0, delta=piece)
            self._send("response.reasoning_summary_text.done", item_id=item_id, output_index=index, summary_index=0, text=reply.thinking)
            summary = [{"type": "summary_text", "text": reply.thinking}]
            self._send("response.reasoning_summary_part.done", item_id=item_id, output_index=index, summary_index=0, part=summary[0])
        item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": summary}
        if self.encrypted:
            secret = hashlib.sha256(f"{self.serial}:{item_id}:{reply.thinking}".encode()).hexdigest()
            item["encrypted_content"] = f"gAAAAAfake{secret}"
            self.issue(item["encrypted_content"], str(self.body.get("model")))
        self._done(item)

    def _message(self, text: str, chunks: int, *, finish: bool = True) -> None:
        if not text:
            return
        item_id = f"msg_fake{self.serial}_{len(self.output)}"
        index = len(self.output)
        self._added({"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"})
        empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        self._send("response.content_part.added", item_id=item_id, output_index=index, content_index=0, part=empty)
        for piece in split_text(text, chunks):
            self._send("response.output_text.delta", item_id=item_id, output_index=index, content_index=0, delta=piece, logprobs=[])
        if not finish:
            return
        self._send("response.output_text.done", item_id=item_id, output_index=index, content_index=0, text=text, logprobs=[])
        part = {**empty, "text": text}
        self._send("response.content_part.done", item_id=item_id, output_index=index, content_index=0, part=part)
        self._done({"id": item_id, "type": "message", "status": "completed", "content": [part], "role": "assistant"})

    def _call_item(self, index: int, call: Call) -> dict[str, Any]:
        call_id = call.id or f"call_fake{self.serial}_{index}"
        return {"id": f"fc_fake{self.serial}_{index}", "type": "function_call", "call_id": call_id, "name": call.name}

    def _call(self, index: int, call: Call, calls: tuple[Call, ...]) -> None:
        item = self._call_item(index, call)
        position = len(self.output)
        self._added({**item, "status": "in_progress", "arguments": ""})
        for fragment in split_text(call.arguments, call.chunks):
            self._send("response.function_call_arguments.delta", item_id=item["id"], output_index=position, delta=fragment)
        self._send("response.function_call_arguments.done", item_id=item["id"], output_index=position, arguments=call.arguments)
        self._done({**item, "status": "completed", "arguments": call.arguments})

    def _compaction(self, reply: Reply) -> None:
        """The server-side compaction made for this request (``responses_compaction``), as an opaque ``compaction`` item
        first (SDK ``ResponseCompactionItem``): its encrypted content is what this server verifies when it comes back."""
        item = self.compacted.item if self.compacted is not None else None
        if item is None:
            return
        self._send("response.compaction.compacting", item_id=item["id"], output_index=len(self.output))
        self._added(item)
        self._done(dict(item))
        self.compacted_now = True

    def _added(self, item: Mapping[str, Any]) -> None:
        self._send("response.output_item.added", output_index=len(self.output), item=dict(item))

    def _done(self, item: dict[str, Any]) -> None:
        self._send("response.output_item.done", output_index=len(self.output), item=item)
        self.output.append(item)

    def _usage(self, reply: Reply) -> dict[str, Any]:
        """The prompt as the server rendered it (after a compaction: the compacted prompt the reply was sampled from)."""
        rendered = self.compacted.tokens if self.compacted is not None else approx_tokens(self.body)
        scripted = reply.input_tokens if not self.compacted_now else None
        uncached = scripted if scripted is not None else rendered
        prompt = uncached + reply.cache_read_tokens + reply.cache_write_tokens
        reasoning = reply.reasoning_tokens if self.reasons else 0
        output = reply.output_tokens + reasoning
        return {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": reply.cache_read_tokens, "cache_write_tokens": reply.cache_write_tokens},
            "output_tokens": output,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": prompt + output,
        }

    def _response(self, status: str, usage: Mapping[str, Any] | None = None) -> dict[str, Any]:
        body = self.body
        return {
            "id": f"resp_fake{self.serial}",
            "object": "response",
            "created_at": 1_700_000_000 + self.serial,
            "status": status,
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "model": body.get("model"),
            "output": list(self.output) if status != "in_progress" else [],
            "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "previous_response_id": None,
            "reasoning": {"effort": (body.get("reasoning") or {}).get("effort"), "summary": (body.get("reasoning") or {}).get("summary")},
            "store": body.get("store", True),
            "temperature": 1.0,
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": dict(usage) if usage is not None else None,
            "metadata": {},
        }

    def _send(self, kind: str, **fields: Any) -> None:
        self.exchange.send_event(kind, {"type": kind, "sequence_number": self.sequence, **fields})
        self.sequence += 1
