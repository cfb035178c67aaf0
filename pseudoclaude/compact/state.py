"""Per-session context state: the replacement ledger, the usage anchor, the breaker.

Invariants:

* **A Layer 1 decision is made once per call id.** ``keep`` or ``replace``
  (with its preview) never changes afterwards, so the conversation prefix the
  model saw stays byte-identical and the provider's prompt cache keeps hitting.
  A spill that failed leaves no decision, so it is retried next time. Restored
  ``replacements`` (call id -> preview, from the session) make a resumed session
  send exactly the previews it sent before the restart.
* **Images dropped from a result stay dropped.** A decision may also say that
  the result's images became text notes (``mark_images_dropped``, the image
  tier in ``shrink.py``); wherever a replaced result is applied
  (``replaced``) its images go with it, and a resume gets the same call ids
  back (``images_dropped``), so it sends the same notes and no image.
* **The usage anchor** is the provider's own count of the last request
  (prompt tokens, number of messages sent). Estimates add only the messages
  after it. Layer 1 replaces only results appended after the anchor, so the
  anchor stays valid; Layer 2 rewrites the prefix and resets it.
* **The breaker** counts consecutive failed automatic summaries; at
  ``AUTO_FAILURE_LIMIT`` automatic Layer 2 stops until a success (``/compact``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from dataclasses import replace as replaced_copy
from typing import Callable, Collection, Mapping, Sequence

from pseudoclaude.compact.budget import AUTO_FAILURE_LIMIT, Budget
from pseudoclaude.compact.estimate import (
    BytesEstimator,
    Calibration,
    Estimator,
    TiktokenEstimator,
    image_rule,
    images_tokens,
    messages_bytes,
)
from pseudoclaude.compact.imagecount import ImageUsage, image_usage
from pseudoclaude.compact.pinned import WorkingSet, pinned_text
from pseudoclaude.compact.pinnedview import PinnedParts, pinned_parts
from pseudoclaude.compact.seam import CompactSession, LedgerDecision
from pseudoclaude.llm import Message


@dataclass(frozen=True)
class ContextStatus:
    """What ``/context`` shows; ``estimated_tokens`` already counts ``images.tokens`` (or the provider counted them)."""

    estimated_tokens: int
    context_window: int
    auto_threshold: int
    estimator: str
    anchored: bool
    replaced_results: int
    failures: int
    tripped: bool
    pinned_tokens: int = 0
    window_source: str = ""
    images: ImageUsage = ImageUsage()
    pinned: PinnedParts = PinnedParts()
    """The pinned block's parts (``pinnedview.py``): user messages, rules, files, last failure, what was reduced."""
    engine: str = ""
    """Which context engine runs (``agent/native.py``: the pipeline, or the provider's own), as the user reads it."""


@dataclass
class ScanMark:
    """How far Layer 1 has decided a conversation (see ``offload.py``)."""

    length: int
    last: Message
    replaced: list[tuple[int, Message]]


class ContextState:
    """Context-governance state for one session; ``manage_context`` reads and updates it.

    ``session`` is where spills and decisions are recorded (None: nothing is
    persisted and large results stay inline, with one warning).
    ``overhead`` is what every request carries besides the conversation (the
    system prompt and the tool list): their texts, counted lazily with this
    state's own estimator (so ``/context`` and the threshold agree), or a
    token count.
    """

    def __init__(
        self,
        *,
        model: str,
        context_window: int | None,
        session: CompactSession | None = None,
        replacements: Mapping[str, str] = {},
        anchor: tuple[int, int] | None = None,
        overhead: Sequence[str] | int = 0,
        estimator: Estimator | None = None,
        last_call_at: float | None = None,
        clock: Callable[[], float] = time.time,
        clearable_tools: frozenset[str] = frozenset(),
        working_set: WorkingSet | None = None,
        calibration: Calibration | None = None,
        images_dropped: Collection[str] = (),
    ) -> None:
        self.model = model
        self.budget = Budget.for_window(context_window)
        self.window_source = "model table"
        """Where the window came from, as ``/context`` and the status line say it (set by whoever chose it)."""
        self.session = session
        self._overhead = overhead
        self._overhead_tokens: int | None = overhead if isinstance(overhead, int) else None
        self.failures = 0
        self.anchor: tuple[int, int] | None = anchor if anchor and anchor[0] > 0 and anchor[1] >= 0 else None
        self._decisions: dict[str, LedgerDecision] = {call_id: "replace" for call_id in replacements}
        self._previews: dict[str, str] = dict(replacements)
        self._images_dropped: set[str] = {call_id for call_id in images_dropped if call_id in self._previews}
        self._estimator = estimator
        self._calibration = calibration  # restored into the estimator when it is created (a resume)
        self._sent: Sequence[Message] | None = None
        self.scan_mark: ScanMark | None = None
        self.warned_no_session = False
        self.last_call_at = last_call_at
        self.clock = clock
        self.clearable_tools = clearable_tools  # tools whose old results may be cleared after a cold cache (see clear.py)
        self.working_set = working_set if working_set is not None else WorkingSet()  # what the pinned block is built from (pinned.py)

    @property
    def context_window(self) -> int:
        return self.budget.context_window

    @property
    def auto_threshold(self) -> int:
        return self.budget.auto_threshold

    def learn_window(self, tokens: int | None, source: str = "the provider's error") -> bool:
        """The provider stated a smaller window than we assumed: budget against it from now on.

        Only ever shrinks; decisions already made are kept (prefix stability).
        """
        if tokens is None or not 0 < tokens < self.budget.context_window:
            return False
        self.budget = Budget.for_window(tokens)
        self.window_source = source
        if self.session is not None:
            try:
                self.session.append_window(tokens)
            except OSError:
                pass  # the session records its own write failures; the budget still changed
        return True

    @property
    def tripped(self) -> bool:
        return self.failures >= AUTO_FAILURE_LIMIT

    @property
    def estimator(self) -> Estimator:
        if self._estimator is None:
            from pseudoclaude.compact.tokenizer import load_offline_encoding

            encoding = load_offline_encoding(self.model)
            rule = image_rule(self.model)
            self._estimator = TiktokenEstimator(encoding, rule or "openai") if encoding is not None else BytesEstimator(provider=rule)
        if self._calibration is not None:
            self._estimator.restore(self._calibration)
            self._calibration = None
        return self._estimator

    @property
    def overhead_tokens(self) -> int:
        """Tokens of the system prompt and tools (see the class docstring)."""
        if self._overhead_tokens is None:
            texts = self._overhead if not isinstance(self._overhead, int) else ()
            self._overhead_tokens = sum(self.count_text(text) for text in texts)
        return self._overhead_tokens

    def count_text(self, text: str) -> int:
        """Estimated tokens of ``text`` sent as one message."""
        return self.estimator.count([Message.user(text)])

    @property
    def estimator_name(self) -> str:
        return self.estimator.name

    def decision(self, call_id: str) -> tuple[LedgerDecision, str] | None:
        """The ledger entry for ``call_id``: ("keep", "") or ("replace", preview), or None."""
        kind = self._decisions.get(call_id)
        if kind is None:
            return None
        return kind, self._previews.get(call_id, "")

    def mark_keep(self, call_id: str) -> None:
        self._decisions.setdefault(call_id, "keep")

    def mark_cleared(self, call_id: str, text: str) -> None:
        """Replace a result whatever was decided before: only when the prompt cache is cold (``clear.py``)
        or in a shrink batch (``shrink.py``), both of which reset the anchor."""
        self._decisions[call_id] = "replace"
        self._previews[call_id] = text

    def mark_replace(self, call_id: str, preview: str) -> None:
        if call_id in self._decisions:
            raise ValueError(f"tool result {call_id!r} was already decided")
        self._decisions[call_id] = "replace"
        self._previews[call_id] = preview

    def mark_images_dropped(self, call_id: str, preview: str) -> None:
        """Replace a result by ``preview`` (its text and the notes of its images) and drop its images, for good."""
        self.mark_cleared(call_id, preview)
        self._images_dropped.add(call_id)

    def drops_images(self, call_id: str) -> bool:
        return call_id in self._images_dropped

    @property
    def image_rule(self) -> str:
        """The rule this state's estimator counts images by (``estimate.image_rule``; a tokenizer's own family when unknown)."""
        estimator = self.estimator
        if isinstance(estimator, (BytesEstimator, TiktokenEstimator)):
            return estimator.provider
        return image_rule(self.model)

    @property
    def images_dropped(self) -> frozenset[str]:
        """Call ids whose images were replaced by notes (what a session persists beside ``replacements``)."""
        return frozenset(self._images_dropped)

    def replaced(self, message: Message, call_id: str, preview: str) -> Message:
        """``message`` (a tool result) as the ledger says to send it: ``preview``, without its images when they were dropped."""
        result = message.tool_result
        if result is None:
            raise ValueError("not a tool message")
        images = () if call_id in self._images_dropped else result.images
        if result.content == preview and result.images == images:
            return message
        return replaced_copy(message, tool_result=replaced_copy(result, content=preview, images=images))

    @property
    def replacements(self) -> dict[str, str]:
        """call id -> preview of every replaced result (what a session persists)."""
        return dict(self._previews)

    @property
    def last_sent(self) -> Sequence[Message] | None:
        """The conversation last returned to be sent (what the provider's prompt cache holds), None after a rewrite."""
        return self._sent

    def note_sent(self, conversation: Sequence[Message]) -> None:
        """Remember the conversation ``manage_context`` returned: usage reports calibrate against it."""
        self._sent = conversation

    def record_usage(self, prompt_tokens: int, message_count: int) -> None:
        """Anchor estimates to the provider's count of the request just made."""
        self.last_call_at = self.clock()
        if prompt_tokens <= 0 or message_count < 0:
            return
        previous, sent = self.anchor, self._sent
        if previous is not None and sent is not None and previous[1] < message_count <= len(sent):
            added = sent[previous[1] : message_count]
            learned = self.estimator.calibration()
            text_tokens = prompt_tokens - previous[0] - images_tokens(added, image_rule(self.model))
            self.estimator.observe(messages_bytes(added), text_tokens)
            self._record_calibration(learned)
        self.anchor = (prompt_tokens, message_count)

    def _record_calibration(self, before: Calibration | None) -> None:
        """Persist what the estimator learned, when it learned something (a resume restores it)."""
        learned = self.estimator.calibration()
        if learned is None or learned == before or self.session is None:
            return
        try:
            self.session.append_calibration(learned.bytes_per_token, learned.samples)
        except OSError:
            pass  # the session records its own write failures; the estimate still holds in memory

    def reset_anchor(self) -> None:
        """Forget the anchor: the conversation's prefix was rewritten (Layer 2)."""
        self.anchor = None
        self._sent = None
        self.scan_mark = None

    def estimate(self, conversation: Sequence[Message]) -> int:
        """Anchor tokens + estimate of the messages after it; without one, overhead + estimate of all."""
        anchor = self.anchor
        if anchor is not None and anchor[1] <= len(conversation):
            return anchor[0] + self.estimator.count(conversation[anchor[1] :])
        return self.overhead_tokens + self.estimator.count(conversation)

    def status(self, conversation: Sequence[Message]) -> ContextStatus:
        pinned = pinned_text(conversation)
        return ContextStatus(
            estimated_tokens=self.estimate(conversation),
            context_window=self.context_window,
            auto_threshold=self.auto_threshold,
            estimator=self.estimator_name,
            anchored=self.anchor is not None,
            replaced_results=len(self._previews),
            failures=self.failures,
            tripped=self.tripped,
            pinned_tokens=self.count_text(pinned) if pinned else 0,
            window_source=self.window_source,
            images=image_usage(conversation, self),
            pinned=pinned_parts(pinned, self.count_text, len(self.working_set.files)),
        )
