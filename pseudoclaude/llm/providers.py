"""The provider table: what the code knows about each model service, in one entry each.

Every other place reads this table: the settings loader (key and base-URL
variables, which provider a model name belongs to, the default model), the
agent builder (the adapter factory), the REPL (the SDK module warmed up in a
background thread), the model queries in ``models.py`` (windows, prices) and
the token estimator (the tokenizer family). Adding a provider is one adapter
module with the ``Provider`` shape plus one ``ProviderEntry`` in ``PROVIDERS``.
OpenAI-compatible servers (Ollama, vLLM, llama.cpp, LiteLLM) are the ``openai``
entry with a base URL.

Importing this module imports no SDK and no adapter: the factories do, when
called, so ``config.py`` reads the table on the start-up path for free.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Protocol, Sequence

from pseudoclaude.llm.gateway import Headers
from pseudoclaude.llm.provider import Provider

ReasoningStyle = Literal["", "budget", "adaptive", "adaptive_only", "effort", "effort_xhigh", "effort_max"]
"""How a model takes the effort setting (``ModelRow.reasoning``).

``""``: it does not (the setting is dropped with a one-line notice).
``budget``: Anthropic ``thinking: {type: enabled, budget_tokens}``.
``adaptive``: Anthropic ``thinking: {type: adaptive}`` with ``output_config.effort``
(an explicit ``max_thinking_tokens`` still sends a budget). ``adaptive_only``:
the same, and a budget is refused by the API, so it is never sent.
``effort``: OpenAI ``reasoning.effort`` through the Responses API (the reasoning
is carried between turns there), ``reasoning_effort`` and ``max_completion_tokens``
through Chat Completions (a server at a base URL); ``effort_xhigh``: the same,
and the model takes ``xhigh``, which ``max`` maps to; ``effort_max``: the model
takes ``max`` itself (GPT-5.6, GPT-6: ``none`` to ``max``), which is sent as it is.
"""


@dataclass(frozen=True)
class LongPrompt:
    """A long-prompt surcharge: a request whose prompt (cached tokens included) is over ``above_tokens`` pays
    ``input_factor`` times every input-side price (cache reads and writes too) and ``output_factor`` times the output
    price, for the whole request (OpenAI's GPT-5.6 and GPT-6 pages: 2x and 1.5x over 272K input tokens)."""

    above_tokens: int
    input_factor: float
    output_factor: float


_DATED = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})")


@dataclass(frozen=True)
class ModelRow:
    """A family of models, matched by name prefix (or the exact name when ``exact``).

    Rows are tried in order: the first that names the model (``ids``) wins, else the first match, so specific prefixes
    come before general ones. ``encoding`` names the tiktoken encoding; None
    means the token estimator uses its byte estimate. ``reasoning``: how the
    model takes the effort setting (see ``ReasoningStyle``);
    ``max_output_tokens``: the most it may write in one response, thinking
    included (0: unknown), which caps a thinking budget. ``vision``: the
    model accepts images (False: every image becomes a text note for it).
    ``ids``: the full model ids the row stands for (what ``/model`` lists when
    the provider's endpoint does not answer); an exact row is its own id, a
    catch-all row (``claude``, ``gpt-``) has none. ``input_per_mtok`` and
    ``output_per_mtok`` of 0.0: no published price was confirmed for the row, so
    its cost is unknown (``models.price_known``), never $0. ``cache_read_per_mtok``
    and ``cache_write_per_mtok``: the published cache-hit and (5-minute) cache-write
    prices where they differ from the provider's usual multiples
    (``models.CACHE_PRICES``); None: the provider's multiples apply.
    ``long_prompt``: a published surcharge on long requests (``LongPrompt``).
    Where each price came from: ``docs/models.md``. ``context_management``: the
    server-side strategies the model takes (Anthropic's ``context_management``
    edits: what a native context engine may send; the models endpoint's
    ``capabilities`` win over it where they answer).
    """

    prefix: str
    context_window: int
    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0
    encoding: str | None = None
    exact: bool = False
    reasoning: ReasoningStyle = ""
    max_output_tokens: int = 0
    vision: bool = True
    ids: tuple[str, ...] = ()
    cache_read_per_mtok: float | None = None
    cache_write_per_mtok: float | None = None
    long_prompt: LongPrompt | None = None
    context_management: tuple[str, ...] = ()

    def matches(self, name: str) -> bool:
        return name == self.prefix if self.exact else name.startswith(self.prefix)

    def full_ids(self) -> tuple[str, ...]:
        """The ids to offer for this row: ``ids``, else the exact name."""
        return self.ids or ((self.prefix,) if self.exact else ())

    def names(self, name: str) -> bool:
        """Whether ``name`` is one of the row's ids or a dated snapshot of one (``-2025-04-14``, ``-20251001``)."""
        return any(name == known or (name.startswith(known) and _DATED.fullmatch(name[len(known) :]) is not None) for known in self.full_ids())

    def prices(self, name: str) -> bool:
        """Whether the row's prices are ``name``'s: a model the row names, or any of a row that lists no ids. A variant
        the row does not name (a new SDK's ``gpt-6.2-sol-healthcare`` under ``gpt-6.2-sol``) gets the family's window
        but no guessed price."""
        return not self.full_ids() or self.names(name)


class AdapterFactory(Protocol):
    """Builds a provider's adapter; imports its SDK lazily (at the first request at the latest).

    ``api``: which of the service's APIs to speak (OpenAI: ``auto``, ``responses``
    or ``chat``); an adapter with one API ignores it. ``auth_token``: a gateway's
    bearer token (the entry's ``token_variable``); ``headers``: added to every request.
    """

    def __call__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None,
        api: str = "auto",
        auth_token: str | None = None,
        headers: Headers = (),
    ) -> Provider: ...


ListingStyle = Literal["bearer", "anthropic"]
"""How a provider's ``GET /models`` is asked (``ProviderEntry.models_query``).

``bearer``: the key as ``Authorization: Bearer`` (OpenAI and the servers speaking its API);
``anthropic``: the Messages API's way (``x-api-key`` or a gateway's Bearer token, the
``anthropic-version`` header), and a base URL without ``/v1`` gets it.
"""

ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True)
class ModelsQuery:
    """Where a provider lists its models and what to send: ``llm.fetch_models(url, api_key=bearer, headers=headers)``."""

    url: str
    bearer: str | None
    headers: Mapping[str, str]


@dataclass(frozen=True)
class ProviderEntry:
    """One model service: its settings, its adapter and its models, every fact the other layers ask of it.

    ``keyless_server`` describes the servers that need no key at a base URL
    (empty: the key is always required); it also appears in the message shown
    when no provider is configured. ``token_variable``: a bearer token that
    stands in for the key (a gateway's, sent instead of it); ``headers_variable``:
    extra request headers, ``Name: value`` lines (``gateway.parse_custom_headers``).
    ``key_variable`` and ``sdk_module`` (imported ahead by the warm-up) may be empty:
    the provider reads no key, or has no SDK worth importing early. Empty: the provider reads none.

    What the other layers read instead of matching the name: ``display_name`` (help texts,
    ``/context``), ``default_endpoint`` (the API root without a base URL: ``doctor`` and
    ``/model`` list the models there), ``listing`` (how that list is asked), ``image_rule``
    (which of ``llm.images``' published rules counts its images; empty: the larger one),
    ``probes_window`` (a server at a base URL may be a local one whose window ``llm.probe`` asks).
    """

    name: str
    base_url_variable: str
    default_model: str
    adapter: AdapterFactory
    models: tuple[ModelRow, ...]
    key_variable: str = ""
    sdk_module: str = ""
    display_name: str = ""
    default_endpoint: str = ""
    listing: ListingStyle = "bearer"
    image_rule: str = ""
    probes_window: bool = False
    keyless_server: str = ""
    token_variable: str = ""
    headers_variable: str = ""

    @property
    def title(self) -> str:
        """The name people know the service by (``display_name``, else ``name``)."""
        return self.display_name or self.name

    @property
    def credential_variables(self) -> tuple[str, ...]:
        """The variables whose values authenticate to this provider or a gateway in front of it (never a child's)."""
        return tuple(name for name in (self.key_variable, self.token_variable, self.headers_variable) if name)

    def model_row(self, model: str) -> ModelRow | None:
        """The row for ``model`` (lower-cased, any ``namespace/`` prefix dropped), or None: the row that names it (an id or
        a dated snapshot of one: ``claude-fable-5-20260101`` is not ``claude-fable-5-2``'s), else the first whose prefix
        it starts with."""
        name = model.lower().split("/")[-1]
        rows = [row for row in self.models if row.matches(name)]
        return next((row for row in rows if row.names(name)), rows[0] if rows else None)

    def configured_in(self, environ: Mapping[str, str]) -> bool:
        """Whether ``environ`` holds enough to use this provider without being told to."""
        if (self.key_variable and environ.get(self.key_variable)) or (self.token_variable and environ.get(self.token_variable)):
            return True
        return bool(self.keyless_server and environ.get(self.base_url_variable))

    def models_query(self, base_url: str | None, api_key: str | None, auth_token: str | None = None, headers: Headers = ()) -> ModelsQuery | None:
        """How to list this provider's models at ``base_url`` (else ``default_endpoint``); None when it has neither."""
        url = (base_url or self.default_endpoint).rstrip("/")
        if not url:
            return None
        if self.listing == "bearer":
            return ModelsQuery(url, api_key, dict(headers))
        if base_url and not url.endswith("/v1"):
            url += "/v1"
        sent = {"authorization": f"Bearer {auth_token}"} if auth_token else {"x-api-key": api_key or ""}
        return ModelsQuery(url, None, {**sent, "anthropic-version": ANTHROPIC_VERSION, **dict(headers)})


@dataclass(frozen=True)
class NamedAdapter:
    """An ``AdapterFactory`` named by its module (``module.build``), imported when first called.

    The table sits below the adapters: they read it (their names, variables and the model
    rows through ``models``), so it must not import them, not even inside a function. A
    test's own table may hold any callable instead.
    """

    module: str

    def __call__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None,
        api: str = "auto",
        auth_token: str | None = None,
        headers: Headers = (),
    ) -> Provider:
        build: AdapterFactory = importlib.import_module(self.module).build
        return build(model=model, api_key=api_key, base_url=base_url, api=api, auth_token=auth_token, headers=headers)


_O200K = "o200k_base"
_EDITING = ("clear_tool_uses_20250919", "clear_thinking_20251015")
"""Anthropic's context editing (docs: build-with-claude/context-editing, beta ``context-management-2025-06-27``)."""
_COMPACTING = (*_EDITING, "compact_20260112")
"""Context editing and server-side compaction (docs: build-with-claude/compaction: Opus 4.6, 4.7, Sonnet 4.6)."""
_CL100K = "cl100k_base"
_1M, _1050K, _128K = 1_000_000, 1_050_000, 128_000
_OPENAI_LONG = LongPrompt(272_000, 2.0, 1.5)

ANTHROPIC = ProviderEntry(
    name="anthropic",
    key_variable="ANTHROPIC_API_KEY",
    base_url_variable="ANTHROPIC_BASE_URL",
    default_model="claude-sonnet-5-5",
    adapter=NamedAdapter("pseudoclaude.llm.anthropic"),
    sdk_module="anthropic",
    display_name="Anthropic",
    default_endpoint="https://api.anthropic.com/v1",
    listing="anthropic",
    image_rule="anthropic",
    token_variable="ANTHROPIC_AUTH_TOKEN",
    headers_variable="ANTHROPIC_CUSTOM_HEADERS",
    models=(
        ModelRow("claude-fable-5-2", _1M, 8.0, 40.0, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-fable-5-2",)),
        ModelRow("claude-mythos-5-2", _1M, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-mythos-5-2",)),
        ModelRow("claude-fable-5-1", _1M, 10.0, 50.0, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-fable-5-1",), cache_read_per_mtok=0.25),
        ModelRow(
            "claude-mythos-5-1", _1M, 10.0, 50.0, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-mythos-5-1",), cache_read_per_mtok=0.25
        ),
        ModelRow("claude-fable-5", _1M, 10.0, 50.0, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-fable-5",)),
        ModelRow("claude-mythos-5", _1M, 10.0, 50.0, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-mythos-5",)),
        ModelRow("claude-opus-5-5", _1M, 4.0, 20.0, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-opus-5-5",), cache_read_per_mtok=0.2),
        ModelRow("claude-opus-5", _1M, 5.0, 25.0, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-opus-5",)),
        ModelRow("claude-sonnet-5-5", _1M, 2.0, 10.0, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-sonnet-5-5",)),
        ModelRow("claude-sonnet-5", _1M, 2.0, 10.0, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-sonnet-5",)),
        ModelRow("claude-haiku-5-5", _1M, 0.1, 0.5, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-haiku-5-5",)),
        ModelRow("claude-opus-4-8", 200_000, 5.0, 25.0, reasoning="adaptive_only", max_output_tokens=_128K, ids=("claude-opus-4-8",)),
        ModelRow(
            "claude-opus-4-7",
            200_000,
            5.0,
            25.0,
            reasoning="adaptive_only",
            max_output_tokens=128_000,
            ids=("claude-opus-4-7",),
            context_management=_COMPACTING,
        ),
        ModelRow(
            "claude-opus-4-6", 200_000, 5.0, 25.0, reasoning="adaptive", max_output_tokens=128_000, ids=("claude-opus-4-6",), context_management=_COMPACTING
        ),
        ModelRow(
            "claude-sonnet-4-6", 200_000, 3.0, 15.0, reasoning="adaptive", max_output_tokens=64_000, ids=("claude-sonnet-4-6",), context_management=_COMPACTING
        ),
        ModelRow("claude-opus-4-5", 200_000, 5.0, 25.0, reasoning="budget", max_output_tokens=64_000, ids=("claude-opus-4-5",), context_management=_EDITING),
        ModelRow("claude-opus-4", 200_000, 15.0, 75.0, reasoning="budget", max_output_tokens=32_000, ids=("claude-opus-4-1", "claude-opus-4-0")),
        ModelRow("claude-sonnet-4", 200_000, 3.0, 15.0, reasoning="budget", max_output_tokens=64_000, ids=("claude-sonnet-4-5", "claude-sonnet-4-0")),
        ModelRow("claude-haiku-4", 200_000, 1.0, 5.0, reasoning="budget", max_output_tokens=64_000, ids=("claude-haiku-4-5",)),
        ModelRow("claude-3-7-sonnet", 200_000, 3.0, 15.0, reasoning="budget", max_output_tokens=64_000, ids=("claude-3-7-sonnet-latest",)),
        ModelRow("claude-3-5-sonnet", 200_000, 3.0, 15.0, ids=("claude-3-5-sonnet-latest",)),
        ModelRow("claude-3-5-haiku", 200_000, 0.8, 4.0, ids=("claude-3-5-haiku-latest",)),
        ModelRow("claude", 200_000),
    ),
)

OPENAI = ProviderEntry(
    name="openai",
    key_variable="OPENAI_API_KEY",
    base_url_variable="OPENAI_BASE_URL",
    default_model="gpt-6.2-sol",
    adapter=NamedAdapter("pseudoclaude.llm.openai"),
    sdk_module="openai",
    display_name="OpenAI",
    default_endpoint="https://api.openai.com/v1",
    image_rule="openai",
    probes_window=True,
    keyless_server="an OpenAI-compatible server such as Ollama",
    models=(
        ModelRow("gpt-6.2-astra", _1050K, encoding=_O200K, reasoning="effort_max", max_output_tokens=_128K, ids=("gpt-6.2-astra",)),
        ModelRow(
            "gpt-6.2-sol",
            _1050K,
            2.0,
            10.0,
            _O200K,
            reasoning="effort_max",
            max_output_tokens=_128K,
            ids=("gpt-6.2-sol",),
            cache_read_per_mtok=0.1,
            cache_write_per_mtok=2.5,
            long_prompt=_OPENAI_LONG,
        ),
        ModelRow("gpt-6.1-sol", _1050K, encoding=_O200K, reasoning="effort_max", max_output_tokens=_128K, ids=("gpt-6.1-sol",)),
        ModelRow("gpt-6.1-terra", _1050K, encoding=_O200K, reasoning="effort_max", max_output_tokens=_128K, ids=("gpt-6.1-terra",)),
        ModelRow("gpt-6-astra", _1050K, encoding=_O200K, reasoning="effort_max", max_output_tokens=_128K, ids=("gpt-6-astra",)),
        ModelRow("gpt-6-sol", _1050K, 2.0, 10.0, _O200K, reasoning="effort_max", max_output_tokens=_128K, ids=("gpt-6-sol",), cache_write_per_mtok=2.5),
        ModelRow("gpt-6-luna", _1050K, encoding=_O200K, reasoning="effort_max", max_output_tokens=_128K, ids=("gpt-6-luna",)),
        ModelRow("gpt-6", _1050K, encoding=_O200K, reasoning="effort_max", max_output_tokens=_128K),
        ModelRow(
            "gpt-5.6-luna",
            _1050K,
            0.2,
            1.2,
            _O200K,
            reasoning="effort_max",
            max_output_tokens=_128K,
            ids=("gpt-5.6-luna",),
            cache_write_per_mtok=0.25,
            long_prompt=_OPENAI_LONG,
        ),
        ModelRow("gpt-5.6", _1050K, encoding=_O200K, reasoning="effort_max", max_output_tokens=_128K, ids=("gpt-5.6-sol", "gpt-5.6-terra")),
        ModelRow("gpt-5.5", 400_000, encoding=_O200K, reasoning="effort_xhigh", max_output_tokens=_128K, ids=("gpt-5.5", "gpt-5.5-pro")),
        ModelRow("gpt-5.4", 400_000, encoding=_O200K, reasoning="effort_xhigh", max_output_tokens=_128K, ids=("gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano")),
        ModelRow("gpt-5.2-pro", 400_000, encoding=_O200K, reasoning="effort_xhigh", max_output_tokens=_128K, ids=("gpt-5.2-pro",)),
        ModelRow("gpt-5-pro", 400_000, encoding=_O200K, reasoning="effort", max_output_tokens=_128K, ids=("gpt-5-pro",)),
        ModelRow("gpt-4.1", 1_047_576, 2.0, 8.0, _O200K, ids=("gpt-4.1",)),
        ModelRow("gpt-4o-mini", 128_000, 0.15, 0.6, _O200K, ids=("gpt-4o-mini",)),
        ModelRow("gpt-4o", 128_000, 2.5, 10.0, _O200K, ids=("gpt-4o",)),
        ModelRow("gpt-4-", 128_000, encoding=_CL100K, ids=("gpt-4-turbo",)),
        ModelRow("gpt-4", 128_000, encoding=_CL100K, exact=True, vision=False),
        ModelRow("gpt-3.5", 128_000, encoding=_CL100K, vision=False, ids=("gpt-3.5-turbo",)),
        ModelRow("gpt-5-chat", 128_000, 1.25, 10.0, _O200K, ids=("gpt-5-chat-latest",)),
        ModelRow("gpt-5-mini", 400_000, 0.25, 2.0, _O200K, reasoning="effort", max_output_tokens=128_000, ids=("gpt-5-mini",)),
        ModelRow("gpt-5-nano", 400_000, 0.05, 0.4, _O200K, reasoning="effort", max_output_tokens=128_000, ids=("gpt-5-nano",)),
        ModelRow("gpt-5.1-codex-max", 400_000, 1.25, 10.0, _O200K, reasoning="effort_xhigh", max_output_tokens=128_000, ids=("gpt-5.1-codex-max",)),
        ModelRow("gpt-5.1", 400_000, 1.25, 10.0, _O200K, reasoning="effort", max_output_tokens=128_000, ids=("gpt-5.1", "gpt-5.1-codex")),
        ModelRow("gpt-5.", 400_000, 1.75, 14.0, _O200K, reasoning="effort_xhigh", max_output_tokens=128_000, ids=("gpt-5.2",)),
        ModelRow("gpt-5", 400_000, 1.25, 10.0, _O200K, reasoning="effort", max_output_tokens=128_000, ids=("gpt-5", "gpt-5-codex")),
        ModelRow("codex-mini", 200_000, 1.5, 6.0, _O200K, reasoning="effort", max_output_tokens=100_000, ids=("codex-mini-latest",)),
        ModelRow("o4-mini", 200_000, 1.1, 4.4, _O200K, reasoning="effort", max_output_tokens=100_000, ids=("o4-mini",)),
        ModelRow("o4", 128_000, encoding=_O200K),
        ModelRow("o3-pro", 200_000, 20.0, 80.0, _O200K, reasoning="effort", max_output_tokens=100_000, ids=("o3-pro",)),
        ModelRow("o3-mini", 200_000, 1.1, 4.4, _O200K, reasoning="effort", max_output_tokens=100_000, vision=False, ids=("o3-mini",)),
        ModelRow("o3", 200_000, 2.0, 8.0, _O200K, reasoning="effort", max_output_tokens=100_000, ids=("o3",)),
        ModelRow("o1-mini", 128_000, 1.1, 4.4, _O200K, vision=False, ids=("o1-mini",)),
        ModelRow("o1-pro", 200_000, 150.0, 600.0, _O200K, reasoning="effort", max_output_tokens=100_000, ids=("o1-pro",)),
        ModelRow("o1", 200_000, 15.0, 60.0, _O200K, reasoning="effort", max_output_tokens=100_000, ids=("o1",)),
        ModelRow("chatgpt", 128_000, encoding=_O200K, ids=("chatgpt-4o-latest",)),
        ModelRow("gpt-", 128_000, encoding=_O200K),
    ),
)

PROVIDERS: tuple[ProviderEntry, ...] = (ANTHROPIC, OPENAI)


class UnknownProvider(ValueError):
    """A provider name that no table entry has."""


def table_model_ids(providers: Sequence[ProviderEntry] = PROVIDERS) -> tuple[str, ...]:
    """Every full model id the table's rows give (``ModelRow.full_ids``), provider by provider in table order.

    What ``/model`` lists where no endpoint answers, and what Tab completes in
    the REPL and in the shell (``pseudoclaude --model <Tab>``, where no
    network is asked: a keystroke must not wait on a service).
    """
    return tuple(dict.fromkeys(model for entry in providers for row in entry.models for model in row.full_ids()))


def provider_entry(name: str, providers: Sequence[ProviderEntry] = PROVIDERS) -> ProviderEntry:
    """The entry called ``name``; ``UnknownProvider`` when there is none."""
    for entry in providers:
        if entry.name == name:
            return entry
    raise UnknownProvider(f"unknown provider {name!r}: choose one of {', '.join(e.name for e in providers)}")


def build_provider(
    name: str,
    *,
    model: str,
    api_key: str | None,
    base_url: str | None,
    api: str = "auto",
    auth_token: str | None = None,
    headers: Headers = (),
    providers: Sequence[ProviderEntry] = PROVIDERS,
) -> Provider:
    """The adapter of provider ``name`` for ``model`` (its SDK is imported lazily); ``api``, the token and the
    headers are passed only when given (a test's own table may hold adapters that take none of them)."""
    adapter = provider_entry(name, providers).adapter
    extra: dict[str, Any] = {}
    if api != "auto":
        extra["api"] = api
    if auth_token:
        extra["auth_token"] = auth_token
    if headers:
        extra["headers"] = headers
    return adapter(model=model, api_key=api_key, base_url=base_url, **extra)
