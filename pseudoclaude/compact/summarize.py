"""Layer 2's model call: summarize a conversation into a fixed nine-part summary.

The summary is asked **in place** when it can be: the very request the main
loop would send next (its system prompt and suffix, its tools, its
``tool_choice``, its messages, hence its cache markers, built by the caller's
``RequestShape``) with the instruction appended as the last user message
(merged into it when the conversation ends with one, so roles keep
alternating). Everything before the instruction is byte-identical to the
prefix the provider has just cached, so the summary is paid mostly at the
cached price. ``tool_choice`` stays as the main loop sends it: Anthropic
documents that a change of ``tool_choice`` invalidates the cached *message*
blocks (only tools and system would still be read from the cache), and
OpenAI caches by exact prefix, so "auto" is the one form certain to hit on
both. Tools are forbidden by the text-only preamble instead (what Claude
Code's fork does); a reply that still calls a tool, or has no summary text,
is a failed attempt: it is retried once in place, then the transcript form
below is used. The in-place form is sent only when the conversation plus the
instruction fits its budget (the caller's ``in_place_budget_tokens``); when it
does not, or the provider answers ``PromptTooLong``, the transcript form is
used (``manage.py`` first tries the prefix the previous request sent, which
the cache already holds).

The transcript form carries **no tools and exactly one user message**: the
history is rendered as a plain transcript inside it, so no provider can object
to role order or to tool blocks without tool definitions. The model writes an
``<analysis>`` scratchpad, then a ``<summary>``; only the text of the last
``<summary>`` is kept (the whole reply, analysis removed, when it has none).

The request is budgeted before it is sent: closed groups (see ``select.py``)
are dropped from the middle, oldest first after the first user request, until
the estimate fits ``budget_tokens`` (window - summary reserve - the trigger's
safety margin). A previous summary at the head of the history goes after the
middle, the first request after that, the latest user message never. When the provider still answers
``PromptTooLong``, up to ``SUMMARY_RETRY_LIMIT`` more tries follow, each
dropping the oldest whole groups worth at least a quarter of the transcript;
a tool call is never sent without its result. The request goes through the
one retry policy (``llm.retry``), so a 429 or 529 during compaction is retried
like any other model call.
"""

from __future__ import annotations

import math
import re
from contextlib import aclosing
from dataclasses import replace
from typing import Callable, Sequence

from pseudoclaude.compact.budget import ESTIMATE_CHARS_PER_TOKEN, SUMMARY_MAX_OUTPUT_TOKENS, SUMMARY_RETRY_LIMIT
from pseudoclaude.compact.estimate import estimate_messages
from pseudoclaude.compact.select import Counter, closed_groups
from pseudoclaude.llm import (
    Completed,
    Image,
    Message,
    PromptTooLong,
    PromptTruncated,
    Provider,
    ProviderError,
    Request,
    RetryPolicy,
    Retrying,
    TextChunk,
    stream_with_retry,
)

ImageText = Callable[[Image], str]
"""The line that stands for an image in a summary transcript (``imagenotes.summary_image_text`` names its file)."""
RequestShape = Callable[[Sequence[Message]], Request]
"""The request the main loop would send with these messages (system, tools, tool_choice, cache markers)."""
PromptCheck = Callable[[Sequence[Message], int, "int | None"], None]
"""Checks a summary request against the prompt tokens the server reported reading: (its messages, that count, the
overhead sent with them, or None for the main loop's system prompt and tools); raises ``PromptTruncated`` on a cut."""
IN_PLACE_ATTEMPTS = 2
"""In-place tries before the transcript form when a reply calls a tool or carries no summary (it costs little: cached)."""

SUMMARY_SYSTEM_PROMPT = "You are a helpful AI assistant tasked with summarizing conversations."
SUMMARY_MESSAGE_PREFIX = "This session continues an earlier conversation that was compacted to fit the context window."
DROP_FRACTION_ON_RETRY = 0.25
RENDER_OVERHEAD_TOKENS = 10

NO_TOOLS_PREAMBLE = """CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.

- Do NOT use read_file, run_command, grep, glob, edit_file, write_file, or ANY other tool.
- You already have all the context you need in the conversation below.
- Tool calls will be REJECTED and will waste your only turn: you will fail the task.
- Your entire response must be plain text: an <analysis> block followed by a <summary> block.
"""

IN_PLACE_PREAMBLE = """CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.

- Tool calls will be REJECTED and will waste your only turn: you will fail the task.
- You already have all the context you need in the conversation above.
- Your entire response must be plain text: an <analysis> block followed by a <summary> block.
"""

SUMMARY_SECTIONS = """1. Primary Request and Intent: every explicit request and intention of the user, in detail. Quote verbatim every constraint and instruction the user stated (what to do or not do, preferences, limits, conventions to follow): they must survive this summary word for word.
2. Key Technical Concepts: the technologies, frameworks and concepts discussed.
3. Files and Code Sections: the files examined, modified or created, why each matters, with the important code snippets.
4. Errors and Fixes: each error met and how it was fixed, including user feedback on it.
5. Problem Solving: problems solved and any troubleshooting still under way.
6. All User Messages: every user message that is not a tool result, listed in order (a pinned block after the summary repeats them verbatim with the files touched, the todo list and the last failing command, so a short line each is enough).
7. Pending Tasks: the tasks you were explicitly asked to do that are not finished.
8. Current Work: precisely what was being worked on right before this summary, with file names and code.
9. Optional Next Step: the next step directly in line with the most recent request, quoting the latest messages to show exactly where the work stopped. Do not start tangential work. If the last task was finished, say so and give no next step: never invent one the user did not ask for.
"""
"""The nine sections every summary has (the pipeline's and the native engine's instructions share them)."""

SUMMARY_INSTRUCTIONS = (
    """Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and to your previous actions. The summary must capture the technical details, code patterns and decisions needed to continue the work without losing context.

First, inside <analysis> tags, go through the conversation chronologically and identify for each part: the user's explicit requests and intent, how you handled them, the key decisions, technical concepts and code patterns, and the specific details (file names, full code snippets, function signatures, edits). Note the errors you met and how they were fixed, and any feedback the user gave.

Then write the summary inside <summary> tags, with exactly these nine sections:

"""
    + SUMMARY_SECTIONS
)


MEMORY_CONTEXT_NOTE = (
    "For context, these are the user's standing instructions: the instruction files of this workspace and the facts "
    "saved in the user's cross-session memory. They stay in the system prompt after this summary, so do not copy "
    "them into it; use them to judge what matters."
)


class EmptySummary(ProviderError):
    """The summary model answered, but with no usable summary text. Not retried."""


def plain_image_text(image: Image) -> str:
    """How a transcript names an image when nothing better is known (no session folder to point at)."""
    return f"[image {image.describe()}]"


def render_message(message: Message, image_text: ImageText = plain_image_text) -> str:
    """One message of the transcript the summary model reads; each image is one line of text (``image_text``)."""
    if message.role == "tool" and message.tool_result is not None:
        result = message.tool_result
        label = "tool error" if result.is_error else "tool result"
        pictures = "".join(f"{image_text(image)}\n" for image in result.images)
        return f"[{label} for call {result.call_id}]\n{result.content}\n{pictures}"
    lines = [f"[{message.role}]"]
    if message.text:
        lines.append(message.text)
    lines.extend(image_text(image) for image in message.images)
    lines.extend(f"[tool call {call.id}: {call.name}] {call.arguments}" for call in message.tool_calls)
    return "\n".join(lines) + "\n"


def _without_images(message: Message) -> Message:
    if not message.all_images():
        return message
    result = message.tool_result
    return replace(message, images=(), tool_result=replace(result, images=()) if result is not None else None)


def build_summary_prompt(transcript: str, instructions: str | None = None, memory: str | None = None) -> str:
    focus = f"\nThe user asked this summary to focus on:\n{instructions.strip()}\n" if instructions and instructions.strip() else ""
    known = f"\n{MEMORY_CONTEXT_NOTE}\n<memory>\n{memory.strip()}\n</memory>\n" if memory and memory.strip() else ""
    return (
        f"{NO_TOOLS_PREAMBLE}\n{SUMMARY_INSTRUCTIONS}{focus}{known}\n"
        f"<conversation>\n{transcript}</conversation>\n\n"
        "REMINDER: do not call any tools. Answer with an <analysis> block followed by a <summary> block."
    )


def build_summary_instruction(instructions: str | None = None, memory: str | None = None) -> str:
    """The instruction appended to the conversation itself (the in-place form)."""
    focus = f"\nThe user asked this summary to focus on:\n{instructions.strip()}\n" if instructions and instructions.strip() else ""
    known = f"\n{MEMORY_CONTEXT_NOTE}\n<memory>\n{memory.strip()}\n</memory>\n" if memory and memory.strip() else ""
    return (
        f"{IN_PLACE_PREAMBLE}\n{SUMMARY_INSTRUCTIONS}{focus}{known}\n"
        "REMINDER: do not call any tools. Answer with an <analysis> block followed by a <summary> block."
    )


def with_instruction(messages: Sequence[Message], instruction: str) -> list[Message]:
    """``messages`` and the instruction as the last user message, roles alternating.

    After tool results it is a user message of its own (the Anthropic adapter
    puts it in the same turn, after the ``tool_result`` blocks); after a user
    message it is merged into it.
    """
    out = list(messages)
    if out and out[-1].role == "user":
        return [*out[:-1], replace(out[-1], text=f"{out[-1].text}\n\n{instruction}")]
    return [*out, Message.user(instruction)]


def in_place_request(shape: RequestShape, messages: Sequence[Message], instruction: str, max_tokens: int) -> Request:
    """The main loop's request for ``messages`` with ``instruction`` appended: everything else as the loop sends it."""
    main = shape(messages)
    messages = tuple(with_instruction(main.messages, instruction))
    return replace(main, messages=messages, max_tokens=max_tokens)


def extract_summary(reply: str) -> str:
    """The text of the last ``<summary>`` block; the reply without analysis when it has none."""
    closed: list[str] = re.findall(r"<summary>(.*?)</summary>", reply, flags=re.DOTALL)
    if closed:
        return closed[-1].strip()
    opened = reply.rfind("<summary>")
    if opened >= 0:
        return reply[opened + len("<summary>") :].strip()
    return re.sub(r"<analysis>.*?(?:</analysis>|\Z)", "", reply, flags=re.DOTALL).strip()


SECTION_START = re.compile(r"^\s*(?:\*\*)?[1-9]\.\s", flags=re.MULTILINE)


def validated_summary(summary: str, max_tokens: int, count: Counter) -> str:
    """The summary to commit, or ``ProviderError``: empty and thinking-only answers are failures,
    and one over its budget is cut at the last numbered-section boundary that fits (a cut that
    keeps fewer than two sections is not a useful summary, so it is a failure too)."""
    text = summary.strip()
    if not text or text.startswith("<analysis>"):
        raise ProviderError("the summary was empty or contained only analysis")

    def tokens(candidate: str) -> int:
        return count([Message.user(candidate)])

    if tokens(text) <= max_tokens:
        return text
    starts = [match.start() for match in SECTION_START.finditer(text)]
    for end in reversed(starts[2:]):
        candidate = text[:end].rstrip()
        if tokens(candidate) <= max_tokens:
            return candidate
    raise ProviderError("the summary was longer than its budget")


def is_summary_message(message: Message) -> bool:
    return message.role == "user" and message.text.startswith(SUMMARY_MESSAGE_PREFIX)


def meta_prefix_length(messages: Sequence[Message]) -> int:
    """How many leading messages are the meta messages of an earlier compaction (0 or up to 3)."""
    return min(3, len(messages)) if messages and is_summary_message(messages[0]) else 0


class _Transcript:
    """The rendered history as closed groups that can be dropped from the middle.

    The first user request and the latest user message are what a summary
    must never lose, so trimming starts after the first request and goes
    forward (oldest first); an earlier summary's meta messages go after that,
    the first request only when nothing else is left, and the latest user
    message never (the last group left is never dropped).
    """

    def __init__(self, messages: Sequence[Message], count: Counter, image_text: ImageText = plain_image_text) -> None:
        groups = closed_groups(messages)
        prefix = meta_prefix_length(messages)
        users = [i for i, m in enumerate(messages) if m.role == "user" and i >= prefix]
        first = [g for g in groups if users and g[0] <= users[0] < g[1]]
        latest = [g for g in groups if users and g[0] <= users[-1] < g[1] and g not in first]
        meta = [g for g in groups if g[1] <= prefix]
        ordinary = [g for g in groups if g not in meta and g not in first and g not in latest]
        self.drop_order = ordinary + meta + first + latest
        self.texts = {g: "".join(render_message(m, image_text) for m in messages[g[0] : g[1]]) for g in groups}
        self.tokens = {g: self._tokens(messages[g[0] : g[1]], count, image_text) for g in groups}
        self.kept = set(groups)
        self.omitted = 0
        self.order = groups

    @staticmethod
    def _tokens(group: Sequence[Message], count: Counter, image_text: ImageText) -> int:
        """A group's tokens as text: its images count as the lines that stand for them, not as pictures."""
        notes = sum(len(image_text(image)) for m in group for image in m.all_images())
        text = count([_without_images(m) for m in group])
        return text + math.ceil(notes / ESTIMATE_CHARS_PER_TOKEN) + RENDER_OVERHEAD_TOKENS * len(group)

    def total(self) -> int:
        return sum(self.tokens[g] for g in self.kept)

    def drop_oldest(self, at_least: int) -> bool:
        """Drop whole groups (at least one, until ``at_least`` tokens); False when only one is left."""
        dropped = 0
        for group in self.drop_order:
            if len(self.kept) <= 1 or (dropped and dropped >= at_least):
                break
            if group in self.kept:
                self.kept.discard(group)
                dropped += self.tokens[group]
                self.omitted += group[1] - group[0]
        return dropped > 0

    def render(self) -> str:
        parts: list[str] = []
        marked = False
        for group in self.order:
            if group in self.kept:
                parts.append(self.texts[group])
            elif not marked and self.omitted:
                parts.append(f"[... {self.omitted} earlier messages omitted to fit the context window ...]\n")
                marked = True
        return "\n".join(parts)


class CalledTool(ProviderError):
    """The in-place summary reply called a tool instead of answering in text: a failed attempt."""


async def _ask(provider: Provider, request: Request, retry: RetryPolicy, on_usage: Callable[[int], None] | None = None) -> str:
    """The reply's text; ``on_usage`` sees the prompt tokens the server reported before the reply is used."""
    deltas: list[str] = []
    async with aclosing(stream_with_retry(provider, request, retry)) as events:
        async for event in events:
            if isinstance(event, TextChunk):
                deltas.append(event.text)
            elif isinstance(event, Completed):
                if on_usage is not None:
                    on_usage(event.usage.prompt_tokens)
                if event.message.tool_calls:
                    raise CalledTool("the summary reply called a tool")
                return event.message.text
            elif isinstance(event, Retrying):
                deltas.clear()
    return "".join(deltas)


def _checker(check: PromptCheck | None, messages: Sequence[Message], overhead: int | None) -> Callable[[int], None] | None:
    if check is None:
        return None
    return lambda reported: check(messages, reported, overhead)


def _summary_of(reply: str) -> str:
    summary = extract_summary(reply)
    if not summary:
        raise EmptySummary("the summary model returned no summary text")
    return summary


async def summarize(
    provider: Provider,
    model: str,
    messages: Sequence[Message],
    *,
    budget_tokens: int,
    instructions: str | None = None,
    max_tokens: int = SUMMARY_MAX_OUTPUT_TOKENS,
    count: Counter = estimate_messages,
    memory: str | None = None,
    retry: RetryPolicy = RetryPolicy(),
    shape: RequestShape | None = None,
    prompt_tokens: int | None = None,
    in_place_budget_tokens: int | None = None,
    image_text: ImageText = plain_image_text,
    check: PromptCheck | None = None,
) -> str:
    """The summary text of ``messages``; raises ``ProviderError`` (``PromptTooLong``, ``EmptySummary``...).

    With ``shape`` the summary is asked in place when ``prompt_tokens`` (what
    ``messages`` cost as the main loop sends them, system prompt and tools
    included: the provider's own count of the request that sent them, where
    there is one; None counts the messages alone) + the instruction fit
    ``in_place_budget_tokens`` (default ``budget_tokens``). Our own count of
    the prefix is only an estimate: where it disagreed with the provider's
    (the o200k count against the session-cost bench's OpenAI fake, 5-8k more
    for the same request at 32k) the summary fell to the uncached transcript,
    20 of 22 times. Otherwise, or on
    ``PromptTooLong``, or after ``IN_PLACE_ATTEMPTS`` replies that called a tool
    or carried no summary text, as a transcript trimmed to ``budget_tokens``.
    In place, the images are sent as the main loop sends them (the provider
    has them cached); in a transcript each becomes the line ``image_text``
    gives it (a user's attachment or a tool's image the summary then replaces).
    ``check`` sees each reply's reported prompt tokens (a local server's silent
    cut, see ``truncation.py``): its ``PromptTruncated`` is raised at once, for
    the caller to learn the window and budget again, never retried here.
    """
    if not messages:
        raise EmptySummary("there is nothing to summarize")
    if shape is not None:
        instruction = build_summary_instruction(instructions, memory)
        request = in_place_request(shape, messages, instruction, max_tokens)
        limit = budget_tokens if in_place_budget_tokens is None else in_place_budget_tokens
        prefix = count(messages) if prompt_tokens is None else prompt_tokens
        if prefix + count([Message.user(instruction)]) <= limit:
            for _attempt in range(IN_PLACE_ATTEMPTS):
                try:
                    summary = extract_summary(await _ask(provider, request, retry, _checker(check, request.messages, None)))
                except PromptTruncated:
                    raise
                except PromptTooLong:
                    break
                except CalledTool:
                    continue
                if summary:
                    return summary
    transcript = _Transcript(messages, count, image_text)
    overhead = count([Message.user(build_summary_prompt("", instructions, memory))])
    excess = transcript.total() + overhead - budget_tokens
    if excess > 0:
        transcript.drop_oldest(excess)
    system_tokens = count([Message.user(SUMMARY_SYSTEM_PROMPT)])
    last_error: PromptTooLong | None = None
    for _attempt in range(SUMMARY_RETRY_LIMIT + 1):
        prompt = build_summary_prompt(transcript.render(), instructions, memory)
        request = Request(model=model, system=SUMMARY_SYSTEM_PROMPT, messages=(Message.user(prompt),), tools=(), max_tokens=max_tokens)
        try:
            reply = await _ask(provider, request, retry, _checker(check, request.messages, system_tokens))
        except PromptTruncated:
            raise
        except PromptTooLong as error:
            last_error = error
            if not transcript.drop_oldest(int(transcript.total() * DROP_FRACTION_ON_RETRY)):
                break
            continue
        return _summary_of(reply)
    assert last_error is not None
    raise last_error
