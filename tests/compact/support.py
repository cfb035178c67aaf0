"""Fakes for the compaction tests: a summary provider and a recording session."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import AsyncIterator, Callable, Sequence, Union

from pseudoclaude.llm.errors import ProviderError
from pseudoclaude.llm.images import Image
from pseudoclaude.llm.messages import Message, ToolCall
from pseudoclaude.llm.provider import Completed, Request, StreamEvent, TextChunk, Usage
from pseudoclaude.session.images import save_image
from pseudoclaude.session.spill import write_spill

Answer = Union[str, ProviderError, Callable[[Request], Union[str, ProviderError]]]


@dataclass
class SummaryProvider:
    """Answers each request with the next answer (text or error); the last one repeats.

    ``prompt_tokens`` gives the usage each answer reports (None: no usage, as before).
    """

    answers: Sequence[Answer] = field(default_factory=lambda: ["<analysis>thinking</analysis><summary>the summary</summary>"])
    name: str = "fake"
    model: str = "fake-model"
    requests: list[Request] = field(default_factory=list)
    prompt_tokens: Callable[[Request], int] | None = None

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        answer = self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]
        if callable(answer):
            answer = answer(request)
        if isinstance(answer, ProviderError):
            raise answer
        yield TextChunk(answer)
        usage = Usage(input_tokens=self.prompt_tokens(request)) if self.prompt_tokens is not None else Usage()
        yield Completed(Message.assistant(answer), usage)

    async def aclose(self) -> None:
        return None


@dataclass
class RecordingSession:
    """A ``CompactSession`` that keeps what it is told, in order, and spills into ``spill_dir`` (None: spills fail)."""

    spill_dir: Path | None = None
    events: list[tuple[str, dict[str, object]]] = field(default_factory=list)

    def write_spill(self, call_id: str, content: str) -> Path:
        if self.spill_dir is None:
            raise OSError("this session has no spill directory")
        self.spill_dir.mkdir(parents=True, exist_ok=True)
        return write_spill(self.spill_dir, call_id, content)

    def append_replacement(
        self,
        call_id: str,
        preview: str,
        *,
        layer: str,
        original_bytes: int,
        path: str | None = None,
        resets_anchor: bool = False,
        drops_images: bool = False,
    ) -> None:
        self.events.append(
            (
                "replacement",
                {
                    "call_id": call_id,
                    "path": path or "",
                    "preview": preview,
                    "original_bytes": original_bytes,
                    "layer": layer,
                    "resets_anchor": resets_anchor,
                    "drops_images": drops_images,
                },
            )
        )

    def keep_image(self, image: Image) -> Path:
        """Saves like the real store (``session.images.save_image``) under ``spill_dir``'s parent; ``OSError`` without one."""
        if self.spill_dir is None:
            raise OSError("this session has no folder")
        self.spill_dir.parent.mkdir(parents=True, exist_ok=True)
        save_image(self.spill_dir.parent, image)
        return (self.spill_dir.parent / "images" / image.file_name).absolute()

    def append_compaction(self, *, summary: str, messages: Sequence[Message], trigger: str, before_tokens: int, after_tokens: int) -> None:
        self.events.append(("compaction", {"summary": summary, "messages": list(messages), "trigger": trigger, "before": before_tokens, "after": after_tokens}))

    def append_window(self, context_window: int) -> None:
        self.events.append(("window", {"context_window": context_window}))

    def append_calibration(self, bytes_per_token: float, samples: int) -> None:
        self.events.append(("calibration", {"bytes_per_token": bytes_per_token, "samples": samples}))


def tool_round(call_ids_and_contents: Sequence[tuple[str, str]], text: str = "") -> list[Message]:
    """An assistant message calling one tool per id, followed by the results."""
    calls = [ToolCall(id=call_id, name="read_file", arguments='{"path": "x"}') for call_id, _ in call_ids_and_contents]
    return [Message.assistant(text, calls)] + [Message.tool(call_id, content) for call_id, content in call_ids_and_contents]
