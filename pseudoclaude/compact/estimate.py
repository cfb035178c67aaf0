"""Token estimates for a conversation, before the provider reports usage.

The seed's estimate is UTF-8 bytes / 3.5 over role, text, tool calls and tool
results: deliberately rough, with margins downstream to absorb the error. Two
refinements, both behind the ``Estimator`` protocol so the runtime can say
which one is active (``name``):

* ``BytesEstimator`` starts at 3.5 bytes per token and calibrates the ratio
  from reported usage: the tokens the provider counted between two usage
  anchors, against the bytes of the messages added in between. Each sample is
  clamped to ``[MIN_BYTES_PER_TOKEN, MAX_BYTES_PER_TOKEN]`` and blended in with
  weight ``CALIBRATION_WEIGHT``, so one odd sample cannot swing it far.
* ``TiktokenEstimator`` counts with the real tokenizer of OpenAI models (see
  ``tokenizer.py`` for how it loads offline), caching per message object.

What a calibrating estimator has learned is a ``Calibration``: the session
records it after every accepted sample and a resume restores it, so the
first request after ``--resume`` counts (and decides compaction) exactly as
the original session would have.

Images are not text: both estimators count each image with the rule its
provider publishes (``llm.image_tokens``: Anthropic ``w*h/750``, OpenAI's
tiles), the larger rule when the model's provider is unknown, and none of an
image's bytes enter ``message_bytes``. Calibration learns the bytes-per-token
ratio of *text*, so the caller subtracts the image tokens from a usage sample
before ``observe`` (``ContextState.record_usage``): a screenshot must not make
the estimator believe prose is denser than it is.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Sequence

from pseudoclaude.compact.budget import ESTIMATE_CHARS_PER_TOKEN
from pseudoclaude.llm import Image, Message, image_tokens, provider_entry, provider_for_model, supports_vision

if TYPE_CHECKING:
    from tiktoken import Encoding

MIN_BYTES_PER_TOKEN = 1.5
MAX_BYTES_PER_TOKEN = 6.0
CALIBRATION_WEIGHT = 0.3
MIN_CALIBRATION_BYTES = 2_000
TIKTOKEN_MESSAGE_OVERHEAD = 4
TIKTOKEN_CALL_OVERHEAD = 8
TIKTOKEN_EXACT_LIMIT_BYTES = 65_536
NOTE_TOKENS = 40
"""What the note costs that an adapter sends instead of an image (bytes missing, or a model without vision)."""
NO_VISION_RULE = "no-vision"


def utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def message_bytes(message: Message) -> int:
    """UTF-8 bytes of everything in ``message`` that reaches the model."""
    total = len(message.role) + utf8_len(message.text) + sum(utf8_len(t.text) for t in message.thinking)
    for call in message.tool_calls:
        total += len(call.id) + len(call.name) + utf8_len(call.arguments)
    result = message.tool_result
    if result is not None:
        total += len(result.call_id) + utf8_len(result.content)
    return total


def messages_bytes(messages: Sequence[Message]) -> int:
    return sum(message_bytes(m) for m in messages)


def image_rule(model: str) -> str:
    """Which rule counts ``model``'s images: its provider entry's ``image_rule``, ``NO_VISION_RULE`` when it sees none ("" unknown: the larger rule)."""
    if model and not supports_vision(model):
        return NO_VISION_RULE
    provider = provider_for_model(model) if model else None
    return provider_entry(provider).image_rule if provider else ""


def one_image_tokens(image: Image, provider: str = "") -> int:
    """Tokens of one image under ``provider``'s rule; a missing image, or one a model without vision gets, costs its short note."""
    if not image.available or provider == NO_VISION_RULE:
        return NOTE_TOKENS
    return image_tokens(image, provider)


def images_tokens(messages: Sequence[Message], provider: str = "") -> int:
    """Tokens of every image in ``messages`` (user attachments and tool results)."""
    return sum(one_image_tokens(image, provider) for m in messages for image in m.all_images())


def estimate_messages(messages: Sequence[Message], bytes_per_token: float = ESTIMATE_CHARS_PER_TOKEN, provider: str = "") -> int:
    """The seed's estimate: ceil(text bytes / 3.5), plus the images' published token costs; 0 for nothing."""
    total = messages_bytes(messages)
    return (math.ceil(total / bytes_per_token) if total else 0) + images_tokens(messages, provider)


@dataclass(frozen=True)
class Calibration:
    """What a ``BytesEstimator`` learned from usage reports: its ratio and how many samples shaped it."""

    bytes_per_token: float
    samples: int

    @classmethod
    def parse(cls, bytes_per_token: object, samples: object) -> Calibration | None:
        """A calibration read back from a session line, None when the values are not a plausible one."""
        if not isinstance(bytes_per_token, (int, float)) or not isinstance(samples, int) or isinstance(samples, bool):
            return None
        if not MIN_BYTES_PER_TOKEN <= bytes_per_token <= MAX_BYTES_PER_TOKEN or samples < 1:
            return None
        return cls(float(bytes_per_token), samples)


class Estimator(Protocol):
    """Counts the tokens a list of messages costs; ``name`` is shown by ``/context``."""

    @property
    def name(self) -> str: ...

    def count(self, messages: Sequence[Message]) -> int: ...

    def observe(self, message_bytes: int, tokens: int) -> None:
        """Learn from ``tokens`` reported for messages totalling ``message_bytes``."""
        ...

    def calibration(self) -> Calibration | None:
        """What it has learned so far (None: nothing, or it does not learn)."""
        ...

    def restore(self, calibration: Calibration) -> None:
        """Take back what an earlier run of the session learned."""
        ...


class BytesEstimator:
    """bytes / ratio, the ratio calibrated from reported usage (bounded, smoothed)."""

    def __init__(self, bytes_per_token: float = ESTIMATE_CHARS_PER_TOKEN, provider: str = "") -> None:
        self.bytes_per_token = bytes_per_token
        self.samples = 0
        self.provider = provider

    @property
    def name(self) -> str:
        if self.samples == 0:
            return f"bytes/{ESTIMATE_CHARS_PER_TOKEN}"
        return f"bytes/{self.bytes_per_token:.2f} (calibrated from {self.samples} usage reports)"

    def count(self, messages: Sequence[Message]) -> int:
        return estimate_messages(messages, self.bytes_per_token, self.provider)

    def observe(self, message_bytes: int, tokens: int) -> None:
        if message_bytes < MIN_CALIBRATION_BYTES or tokens <= 0:
            return
        sample = min(MAX_BYTES_PER_TOKEN, max(MIN_BYTES_PER_TOKEN, message_bytes / tokens))
        self.bytes_per_token += CALIBRATION_WEIGHT * (sample - self.bytes_per_token)
        self.samples += 1

    def calibration(self) -> Calibration | None:
        return Calibration(self.bytes_per_token, self.samples) if self.samples else None

    def restore(self, calibration: Calibration) -> None:
        self.bytes_per_token = calibration.bytes_per_token
        self.samples = calibration.samples


class TiktokenEstimator:
    """Exact token counts of the message contents plus a small per-message overhead.

    Texts over ``TIKTOKEN_EXACT_LIMIT_BYTES`` (about to be offloaded anyway) are
    estimated at bytes / 3.5: encoding megabytes on every call would cost seconds.
    Counts are cached per message without keeping the message alive. Images
    count by ``provider``'s published rule (OpenAI's, the tokenizer's own family, by default).
    """

    def __init__(self, encoding: Encoding, provider: str = "openai") -> None:
        self.encoding = encoding
        self.provider = provider
        self._cache: weakref.WeakKeyDictionary[Message, int] = weakref.WeakKeyDictionary()

    @property
    def name(self) -> str:
        return f"tiktoken:{self.encoding.name}"

    def _tokens(self, text: str) -> int:
        if not text:
            return 0
        size = utf8_len(text)
        if size > TIKTOKEN_EXACT_LIMIT_BYTES:
            return math.ceil(size / ESTIMATE_CHARS_PER_TOKEN)
        return len(self.encoding.encode_ordinary(text))

    def count_message(self, message: Message) -> int:
        hit = self._cache.get(message)
        if hit is not None:
            return hit
        tokens = TIKTOKEN_MESSAGE_OVERHEAD + self._tokens(message.text) + sum(self._tokens(t.text) for t in message.thinking)
        for call in message.tool_calls:
            tokens += TIKTOKEN_CALL_OVERHEAD + self._tokens(call.name) + self._tokens(call.arguments)
        if message.tool_result is not None:
            tokens += self._tokens(message.tool_result.content)
        tokens += images_tokens([message], self.provider)
        self._cache[message] = tokens
        return tokens

    def count(self, messages: Sequence[Message]) -> int:
        return sum(self.count_message(m) for m in messages)

    def observe(self, message_bytes: int, tokens: int) -> None:
        return None

    def calibration(self) -> Calibration | None:
        return None

    def restore(self, calibration: Calibration) -> None:
        return None
