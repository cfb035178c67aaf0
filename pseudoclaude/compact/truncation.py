"""Silent truncation: a local server that counted far fewer prompt tokens than were sent cut the prompt.

Ollama (at its default ``num_ctx``) and some llama.cpp setups do not refuse a
prompt longer than their window: they drop its front and answer what is left,
then report the tokens they kept. The only trace is that count, so each
request to a local server is checked against the estimate of what was sent:
the main loop's requests (``agent/context.py``) and the summary requests of
Layer 2 (``manage.py``), whose answer would otherwise summarize only the end
of the conversation (the task at its start lost) and be kept as if whole.

One rule for both. With an anchor (the exact count of an earlier request this
one extends: the main loop's previous request, or the conversation an in-place
summary appends its instruction to) the server must count at least that anchor
plus ``TRUNCATION_GROWTH_SHARE`` of the estimate of what was added; without
one, ``TRUNCATION_RATIO`` of the whole estimate. Either way the gap to the
estimate must be ``TRUNCATION_MIN_GAP`` tokens at least (estimates of small
prompts are noisy). Prompts with images are not checked: a local vision model
counts them its own way, and the published rules would see a cut that is not there.
"""

from __future__ import annotations

from typing import Sequence

from pseudoclaude.compact.state import ContextState
from pseudoclaude.llm import Message, PromptTruncated

TRUNCATION_RATIO = 0.5
"""Without an anchor: a server that counts fewer than this share of the prompt tokens we estimate has cut the prompt."""
TRUNCATION_GROWTH_SHARE = 0.75
"""With an anchor: the server must count at least the anchor plus this share of our estimate of the messages added."""
TRUNCATION_MIN_GAP = 256
"""...and the gap to our estimate must be this many tokens at least (estimates of small prompts are noisy)."""
TRUNCATED_SOURCE = "a silently truncated prompt"
"""The window source a truncation teaches (``ContextState.learn_window``), shown in the status."""

MAIN_CONSEQUENCE = "it dropped the front of the prompt (where the system prompt and tools are) to fit a window of about {window:,} tokens"
SUMMARY_CONSEQUENCE = (
    "it dropped the front of the conversation to fit a window of about {window:,} tokens, so its summary would "
    "describe only the end (the task lost) and was not kept"
)
"""What a cut means, in the ``PromptTruncated`` message (``{window}``: the tokens the server kept)."""


def check_truncation(
    reported: int,
    messages: Sequence[Message],
    state: ContextState,
    *,
    overhead_tokens: int | None = None,
    consequence: str = MAIN_CONSEQUENCE,
) -> None:
    """Raise ``PromptTruncated`` (``limit_tokens``: the count the server kept) when ``reported`` shows a cut.

    ``messages`` in the main loop's request form (the session's system prompt
    and tools around them, ``state.estimate`` and its anchor apply) unless
    ``overhead_tokens`` is given: then they went with that overhead alone and
    no anchor (a summary transcript, which shares no prefix with the loop).
    """
    if reported <= 0 or any(message.all_images() for message in messages):
        return
    if overhead_tokens is None:
        estimated, floor = state.estimate(messages), _anchored_floor(messages, state)
    else:
        estimated = overhead_tokens + state.estimator.count(messages)
        floor = TRUNCATION_RATIO * estimated
    if reported < floor and estimated - reported >= TRUNCATION_MIN_GAP:
        raise PromptTruncated(
            f"the server read only {reported:,} of about {estimated:,} prompt tokens: {consequence.format(window=reported)}",
            limit_tokens=reported,
        )


def _anchored_floor(messages: Sequence[Message], state: ContextState) -> float:
    """The fewest prompt tokens a server that read all of ``messages`` can report.

    Anchored (an earlier call's exact count, for a conversation this one extends): that count
    plus most of the estimate of what was added; a server that reports less lost something it
    had already read. Otherwise a share of the whole estimate.
    """
    anchor = state.anchor
    if anchor is not None and anchor[1] <= len(messages):
        return anchor[0] + TRUNCATION_GROWTH_SHARE * state.estimator.count(messages[anchor[1] :])
    return TRUNCATION_RATIO * state.estimate(messages)
