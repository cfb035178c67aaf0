"""The fake Responses endpoint's server-side compaction: what the model sees of a request, and when it compacts.

The service's rules (the compaction guide, developers.openai.com/api/docs/guides/compaction, and the SDK's
``ResponseCompactionItem`` / ``ResponseCreateParams.context_management``):

- ``context_management: [{type: "compaction", compact_threshold}]`` asks the server to compact once the
  *rendered* prompt reaches the threshold. The response then carries an opaque ``compaction`` item
  (``encrypted_content``) first, and its reply is sampled from the compacted context.
- The compaction item carries the prior state into the next window: the latest one in ``input`` stands for
  everything before it, so the items before it are not rendered (the guide: they may be dropped), and the item
  itself renders as the state it carries, at that state's size, not the size of its ciphertext.
- Its content is opaque and verified: only content this server issued is accepted (``responses_checks``).

Here the state is a summary text kept on the server under the encrypted content it issued; ``render`` stands the
latest compaction item in as an assistant ``compaction`` block of that summary (the shape the benchmark reads as
Anthropic's), and ``apply`` decides a compaction. Sizes are the fakes' ``approx_tokens``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from tests.fakes.script import approx_tokens

Summarize = Callable[[Mapping[str, Any]], str]


def default_summary(body: Mapping[str, Any]) -> str:
    """The fake's summary of a rendered request: the count of items and the first user text (a stand-in for the model's)."""
    items = [item for item in body.get("input") or () if isinstance(item, Mapping)]
    first = next((item for item in items if item.get("role") == "user"), {})
    content = first.get("content")
    text = content if isinstance(content, str) else " ".join(str(p.get("text", "")) for p in content or () if isinstance(p, Mapping))
    return f"Summary of {len(items)} items. The task began with: {json.dumps(text[:300])}"


def threshold_of(body: Mapping[str, Any]) -> int | None:
    """The ``compact_threshold`` the request asks for, None when it asks no compaction."""
    entries = body.get("context_management")
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, Mapping) and entry.get("type") == "compaction" and isinstance(entry.get("compact_threshold"), int):
            return int(entry["compact_threshold"])
    return None


@dataclass(frozen=True)
class Compacted:
    """What the server did with one request: the body the model saw, and the compaction made (None: none)."""

    seen: dict[str, Any]
    """The rendered request: from the latest compaction item on, that item as the state it carries."""
    tokens: int
    """The rendered prompt's size (what the window holds and the threshold is compared with)."""
    summarized: dict[str, Any] | None = None
    """The rendered request the compaction summarized."""
    item: dict[str, Any] | None = None
    """The compaction item handed out (``type``, ``id``, ``encrypted_content``)."""
    summary: str = ""


class Compactor:
    """The server's compaction state: the summary each issued encrypted content stands for."""

    def __init__(self, summarize: Summarize = default_summary) -> None:
        self.summarize = summarize
        self.summaries: dict[str, str] = {}

    def render(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``body`` as the model sees it: the latest compaction item (one this server issued) stands for all before it."""
        items = body.get("input")
        if not isinstance(items, list):
            return {k: v for k, v in body.items() if k != "context_management"}
        latest = max((i for i, item in enumerate(items) if isinstance(item, Mapping) and item.get("type") == "compaction"), default=None)
        if latest is not None:
            summary = self.summaries.get(str(items[latest].get("encrypted_content")), "")
            block = {"role": "assistant", "type": "compaction", "content": summary}
            items = [block, *items[latest + 1 :]]
        return {**{k: v for k, v in body.items() if k not in ("context_management", "input")}, "input": list(items)}

    def size(self, body: Mapping[str, Any]) -> int:
        """The rendered prompt's size: a compaction item counts as its summary's tokens."""
        seen = self.render(body)
        return _count(seen)

    def apply(self, body: Mapping[str, Any], serial: int, prompt_tokens: int | None = None) -> Compacted:
        """Render ``body`` and compact it when it asks and its prompt (``prompt_tokens`` when a script says so, else
        the rendered count) reaches the threshold; the compaction's summary is kept under a new encrypted content."""
        seen = self.render(body)
        tokens = _count(seen)
        threshold = threshold_of(body)
        size = prompt_tokens if prompt_tokens is not None else tokens
        if threshold is None or size < threshold:
            return Compacted(seen, tokens)
        summary = self.summarize(seen)
        secret = hashlib.sha256(f"compaction:{serial}:{summary}".encode()).hexdigest()
        encrypted = f"gAAAAAcmp{secret}"
        self.summaries[encrypted] = summary
        item = {"id": f"cmp_fake{serial}", "type": "compaction", "encrypted_content": encrypted, "created_by": "server"}
        compacted = {**seen, "input": [{"role": "assistant", "type": "compaction", "content": summary}]}
        return Compacted(compacted, _count(compacted), seen, item, summary)


def _count(seen: Mapping[str, Any]) -> int:
    """The fakes' count of a rendered body: its compaction block by its summary text, the rest by its JSON."""
    items = seen.get("input")
    if not isinstance(items, list) or not items or not isinstance(items[0], Mapping) or items[0].get("type") != "compaction":
        return approx_tokens(seen)
    return approx_tokens({**seen, "input": items[1:]}) + approx_tokens(str(items[0].get("content", "")))
