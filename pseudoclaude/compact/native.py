"""Context governance by the provider itself: what to ask of it, and how its compaction joins the conversation.

The native engine (``agent/native.py``) keeps our Layer 1 in front (no
provider spills and previews a long output) and hands the rest to the
provider: ``server_context`` says what each request asks for (a
``ServerContext``: compact at our automatic threshold with our nine-section
instructions, clear old tool results from half the window when the clear pays
for the cache it breaks, keep thinking), and ``adopt_compaction`` turns a
response that carries a compaction into the conversation later requests send.

Invariants:

* **One compaction, first.** The API takes a compaction block only as the
  first block of the conversation, and only one with content: once a
  response carries one, every message before it is dropped from what is sent
  (the session keeps them: the compaction is recorded as an entry whose
  messages replace the conversation, as a summary's do, so a resume sends the
  same bytes).
* **The pinned block follows every compaction.** Right after the compacting
  turn (after its tool results, when it called tools) comes one user message:
  the pinned block built from the session's ``WorkingSet`` (every user
  message, the files touched, todos, the last failure), then the reminder.
  The provider's summary alone would not keep the user's words verbatim.
  It is inserted once and never moves, so the prefix after it stays cached.
* **A clear pays for its break.** ``clear_at_least`` is the least a clear
  must remove to pay for the rewrite it causes, in both of its costs: the
  first clear (``batchprice.py``'s arithmetic: the cache reads it saves until
  the compaction threshold against the rewritten suffix, margin included),
  and every later request: the server clears afresh on each request (the
  client keeps the whole history), so each new result that ages past
  ``keep`` is cleared in turn and the prompt is rewritten from it on. That
  steady break, the newest ``keep`` tool rounds written instead of read, must
  cost less than the request reads less: ``S * r > tail * (w - r)``. Measured
  on the session-cost benchmark (explore, 200k, ``bench/README.md``): clearing
  at half the window with only the first rule cost $4.86 against the
  pipeline's $2.86 (39% cached, 24 breaks); with both, the server clears only
  where it pays.
"""

from __future__ import annotations

from typing import Sequence

from pseudoclaude.compact.batchprice import BatchPrice, growth_per_round
from pseudoclaude.compact.budget import SHRINK_MIN_ROUNDS
from pseudoclaude.compact.manage import SUMMARY_REMINDER, pinned_block
from pseudoclaude.compact.state import ContextState
from pseudoclaude.compact.summarize import MEMORY_CONTEXT_NOTE, SUMMARY_SECTIONS
from pseudoclaude.llm import Message, ServerContext, cache_prices

CLEAR_KEEP_TOOL_USES = 3
"""Tool uses the server never clears: the newest ones, which the model is still working from."""
CLEAR_ROUNDING = 1_000
"""``clear_at_least`` is rounded up to this, so the request's parameters change rarely."""

NATIVE_INSTRUCTIONS = (
    "Summarize the conversation so far so that the work can continue without losing context: the user's explicit "
    "requests and your previous actions, the technical details, code patterns and decisions. Write plain text with "
    "exactly these nine sections:\n\n" + SUMMARY_SECTIONS + "\nThe pinned block that follows this summary is written by "
    "the client from the session itself: it repeats every user message verbatim (or by its instruction sentences, "
    "with a pointer to the whole text), the files read and edited, the todo list and the last failing command. "
    "Do not spend the summary on copying them word for word; keep what they do not say: why, what was decided, "
    "what was tried, what is half done."
)


def native_instructions(memory: str | None = None) -> str:
    """The ``instructions`` of the server's compaction: our nine sections, the pinned block's rules, the memory for context."""
    if memory and memory.strip():
        return f"{NATIVE_INSTRUCTIONS}\n\n{MEMORY_CONTEXT_NOTE}\n<memory>\n{memory.strip()}\n</memory>"
    return NATIVE_INSTRUCTIONS


def server_context(conversation: Sequence[Message], state: ContextState, *, instructions: str, exclude: Sequence[str], thinking: bool) -> ServerContext:
    """What the next request asks the provider to manage (see the module docstring)."""
    budget = state.budget
    clear_trigger = budget.shrink_threshold
    return ServerContext(
        compact_trigger=state.auto_threshold,
        compact_instructions=instructions,
        clear_trigger=clear_trigger,
        clear_keep=CLEAR_KEEP_TOOL_USES,
        clear_at_least=clear_at_least(conversation, state, clear_trigger),
        clear_exclude=tuple(sorted(exclude)),
        clear_thinking=thinking,
    )


def clear_at_least(conversation: Sequence[Message], state: ContextState, trigger: int) -> int:
    """The fewest tokens a clear at ``trigger`` must remove to pay for its cache break (rounded up).

    The server clears the oldest results first, so the prefix that stays cached
    is the system prompt and tools; the growth a round is the conversation's
    own. The smallest removal ``S`` whose saving (cache reads avoided until the
    compaction threshold) beats the counted break, by bisection: the saving
    grows with ``S`` and the break shrinks.
    """
    growth = growth_per_round(conversation, state)
    prices = cache_prices(state.model)
    prefix = state.overhead_tokens
    threshold = state.auto_threshold

    def pays(removed: int) -> bool:
        price = BatchPrice(trigger, prefix, removed, growth, threshold, prices, summary_cost=0.0, after_summary=0)
        return price.clears_enough and price.saving > price.counted_break

    low, high = max(1, int(SHRINK_MIN_ROUNDS * growth)), max(1, trigger - prefix)
    if not pays(high):
        return _rounded(high)
    while low < high:
        middle = (low + high) // 2
        if pays(middle):
            high = middle
        else:
            low = middle + 1
    steady = _kept_tail(conversation, state) * (prices.write - prices.read) / prices.read
    return _rounded(max(low, int(steady)))


def _kept_tail(conversation: Sequence[Message], state: ContextState) -> int:
    """Tokens from the newest result a clear would take (the one past ``keep``) to the end: what each clear rewrites."""
    results = [index for index, message in enumerate(conversation) if message.role == "tool"]
    if len(results) <= CLEAR_KEEP_TOOL_USES:
        return state.estimator.count(conversation[results[0] :]) if results else 0
    return state.estimator.count(conversation[results[-CLEAR_KEEP_TOOL_USES - 1] :])


def _rounded(tokens: int) -> int:
    return -(-tokens // CLEAR_ROUNDING) * CLEAR_ROUNDING


def compaction_index(conversation: Sequence[Message]) -> int | None:
    """The index of the newest message carrying a compaction with a summary, or None."""
    for index in range(len(conversation) - 1, -1, -1):
        compaction = conversation[index].compaction
        if compaction is not None and compaction.opaque:
            return index
    return None


def adopt_compaction(conversation: Sequence[Message], state: ContextState) -> list[Message] | None:
    """The conversation from the newest compaction on, the pinned block after its turn; None when there is none to adopt.

    A compaction already at the front was adopted earlier (its pinned message follows it): nothing to do.
    """
    index = compaction_index(conversation)
    if index is None or index == 0:
        return None
    kept = list(conversation[index:])
    after = 1
    while after < len(kept) and kept[after].role == "tool":
        after += 1
    pinned = pinned_block(state, kept[after:])
    note = f"{pinned}\n\n{SUMMARY_REMINDER}" if pinned else SUMMARY_REMINDER
    return [*kept[:after], Message.user(note), *kept[after:]]
