"""``pseudoclaude doctor``: check the configured provider end to end, spending no tokens.

One line per check, in the order a setup fails: the settings resolve to a
provider, its key is there (or an auth token, or none is needed), the endpoint answers, it
knows the model, the window (and where it came from), whether the model takes
tools (when the server says), and the tokenizer the estimates use. A check
that cannot pass makes the exit code 1; the checks that depend on it are
skipped. Nothing here sends a prompt: the endpoint is asked for its model
list and, for a server at a base URL, for the window it runs (``llm.probe``);
Anthropic's models endpoint for the model's facts (window, output limit,
reasoning: ``llm.model_facts``), each shown with where it came from, the
endpoint or the table (which alone has the prices).
The last line names the sandbox the model's commands run in (kind, mode,
network), probed as a session would: none is a warning, not a failure, since
commands then still run, each asking first. Then where the deciding settings
came from: the provenance ``load_settings`` recorded (which variable, which
settings file, ours or Claude Code's), and what an untrusted folder left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Mapping, Sequence

from pseudoclaude.config import ConfigError, Flags, Settings, load_settings
from pseudoclaude.sandbox import SandboxConfig
from pseudoclaude.llm import (
    PROVIDERS,
    ModelFacts,
    ProviderEntry,
    WindowProbe,
    begin_facts_lookup,
    context_window,
    encoding_for,
    fetch_models,
    model_info,
    probe_window,
    provider_entry,
    table_info,
)

Verdict = Literal["ok", "fail", "warn", "skip"]

_MARKS = {"ok": "ok  ", "fail": "FAIL", "warn": "warn", "skip": "skip"}


@dataclass(frozen=True)
class Check:
    """One line of the report."""

    name: str
    verdict: Verdict
    detail: str

    def line(self) -> str:
        return f"{_MARKS[self.verdict]}  {self.name:<10} {self.detail}"


def run_doctor(
    workspace: Path, flags: Flags = Flags(), environ: Mapping[str, str] | None = None, providers: Sequence[ProviderEntry] = PROVIDERS
) -> list[Check]:
    """Every check, in order (see the module docstring); the endpoint and what to send it come from the provider's entry."""
    try:
        settings = load_settings(workspace, flags, environ, providers)
    except ConfigError as error:
        return [Check("provider", "fail", str(error)), *(Check(name, "skip", "needs a provider") for name in _LATER), _sandbox(_flagged(flags), workspace)]
    where = f" at {settings.base_url}" if settings.base_url else ""
    checks = [Check("provider", "ok", f"{settings.provider}, model {settings.model}{where}"), _key(settings, providers)]
    entry = provider_entry(settings.provider, providers)
    query = entry.models_query(settings.base_url, settings.api_key, settings.auth_token, settings.extra_headers)
    endpoint = query.url if query is not None else ""
    models: list[str] | None = None
    try:
        if query is None:
            raise ValueError(f"no base URL ({entry.base_url_variable}) and the provider table names no default endpoint")
        models = fetch_models(endpoint, api_key=query.bearer, headers=query.headers, timeout=5.0)
        checks.append(Check("endpoint", "ok", f"{endpoint} answers ({len(models)} models)"))
    except (OSError, ValueError) as error:
        checks.append(Check("endpoint", "fail", f"{endpoint}/models does not answer: {_reason(error)}"))
    checks.append(_model(settings, models))
    probe = probe_window(settings.base_url, settings.model, api_key=settings.api_key, refresh=True) if settings.base_url and entry.probes_window else None
    facts = _facts(settings, providers)
    checks.append(_window(settings, probe, facts, providers))
    checks.append(_facts_check(settings, facts, providers))
    checks.append(_tools(settings, probe))
    checks.append(_tokenizer(settings, providers))
    checks.append(_sandbox(settings.sandbox, settings.workspace))
    checks.append(_settings(settings))
    return checks


_LATER = ("key", "endpoint", "model", "window", "facts", "tools", "tokenizer")

_SHOWN = (
    ("model", "model"),
    ("api_key", "key"),
    ("auth_token", "auth token"),
    ("extra_headers", "headers"),
    ("base_url", "base URL"),
    ("permission_mode", "mode"),
    ("hooks", "hooks"),
    ("permission_rules", "rules"),
    ("env", "env"),
)


def _settings(settings: Settings) -> Check:
    """Where the settings that decide this setup came from (``Settings.origins``, as resolved), and any trust notice."""
    parts = [
        f"{label} from {origin.source}" for name, label in _SHOWN if (origin := settings.origins.get(name)) and origin.source not in ("not set", "default")
    ]
    notice = settings.trust.ignored_notice()
    detail = "; ".join(parts) or "all defaults"
    return Check("settings", "warn" if notice else "ok", detail + (f"; {notice}" if notice else ""))


def _key(settings: Settings, providers: Sequence[ProviderEntry]) -> Check:
    entry = provider_entry(settings.provider, providers)
    if settings.auth_token:
        return Check("key", "ok", f"auth: Bearer token ({entry.token_variable})")
    if settings.api_key:
        return Check("key", "ok", f"{entry.key_variable} is set")
    return Check("key", "ok", f"none needed for a server at a base URL ({entry.key_variable} is not set)")


def _reason(error: Exception) -> str:
    reason = getattr(error, "reason", None) or getattr(error, "code", None) or error
    return str(reason)[:200]


def _model(settings: Settings, models: list[str] | None) -> Check:
    if models is None:
        return Check("model", "skip", "the endpoint did not answer")
    name = settings.model
    if any(listed == name or listed.startswith(name + "-") or listed.split("/")[-1] == name for listed in models):
        return Check("model", "ok", f"{name} is listed")
    shown = ", ".join(models[:8]) + (", ..." if len(models) > 8 else "") if models else "none"
    verdict: Verdict = "fail" if settings.base_url else "warn"
    return Check("model", verdict, f"{name} is not among the models the endpoint lists ({shown}): pick one with --model")


def _facts(settings: Settings, providers: Sequence[ProviderEntry]) -> ModelFacts | None:
    """What the provider's models endpoint says of the model, asked afresh (and recorded for the next run)."""
    lookup = begin_facts_lookup(
        settings.provider,
        settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key,
        auth_token=settings.auth_token,
        headers=settings.extra_headers,
        refresh=True,
        timeout=5.0,
        providers=providers,
    )
    return lookup.result(wait=5.5) if lookup is not None else None


def _facts_check(settings: Settings, facts: ModelFacts | None, providers: Sequence[ProviderEntry]) -> Check:
    """Each fact the session uses, and where it comes from: the models endpoint or the table."""
    row = table_info(settings.model, providers)
    where = "the models endpoint" if facts is not None else ("the model table" if row is not None else "neither the models endpoint nor the model table")
    parts: list[str] = []
    output = facts.max_output_tokens if facts is not None and facts.max_output_tokens else (row.max_output_tokens if row else 0)
    said = facts is not None and bool(facts.max_output_tokens)
    parts.append(f"output {output:,} ({'endpoint' if said else 'table'})" if output else "output limit unknown")
    style = facts.reasoning if facts is not None and facts.reasoning is not None else (row.reasoning if row else "")
    said = facts is not None and facts.reasoning is not None
    parts.append(f"reasoning {style or 'none'}" + (" (endpoint)" if said else " (table)" if row else ""))
    if facts is not None and facts.context_management:
        parts.append(f"context management {', '.join(facts.context_management)} (endpoint)")
    price = f"${row.input_per_mtok:g}/${row.output_per_mtok:g} per Mtok (table)" if row and (row.input_per_mtok or row.output_per_mtok) else "price unknown"
    parts.append(price)
    return Check("facts", "ok", f"from {where}: " + ", ".join(parts))


def _window(settings: Settings, probe: WindowProbe | None, facts: ModelFacts | None, providers: Sequence[ProviderEntry]) -> Check:
    table = context_window(settings.model, providers=providers)
    known = "model table" if model_info(settings.model, providers) else "default for an unknown model"
    if probe is None and facts is not None and facts.context_window and not settings.context_window:
        row = table_info(settings.model, providers)
        said = f"the table says {row.context_window:,}" if row else "the table does not know it"
        return Check("window", "ok", f"{facts.context_window:,} tokens (models endpoint; {said})")
    if probe is None:
        if settings.context_window:
            return Check("window", "ok", f"{settings.context_window:,} tokens (your setting)")
        verdict: Verdict = "warn" if settings.base_url else "ok"
        said = "; the server does not say what it runs: set --context-window" if settings.base_url else ""
        return Check("window", verdict, f"{table:,} tokens ({known}){said}")
    if settings.context_window and settings.context_window < probe.tokens:
        return Check("window", "ok", f"{settings.context_window:,} tokens (your setting; the server runs {probe.tokens:,}, {probe.source})")
    if probe.notice:
        return Check("window", "warn", f"{probe.tokens:,} tokens ({probe.source}): {probe.notice}")
    return Check("window", "ok", f"{probe.tokens:,} tokens ({probe.source})")


def _tools(settings: Settings, probe: WindowProbe | None) -> Check:
    if not settings.base_url:
        return Check("tools", "ok", f"{settings.provider} models take tools in the structured field")
    if probe is not None and probe.tools is True:
        return Check("tools", "ok", f"{probe.server} says {settings.model} takes tools")
    if probe is not None and probe.tools is False:
        return Check("tools", "fail", f"{probe.server} says {settings.model} does not take tools: pick a model that does")
    return Check("tools", "warn", "not checked (the server does not say; asking would spend tokens); tool calls written as text are recovered")


def _tokenizer(settings: Settings, providers: Sequence[ProviderEntry]) -> Check:
    encoding = encoding_for(settings.model, providers)
    if encoding:
        return Check("tokenizer", "ok", f"tiktoken {encoding} for estimates")
    return Check("tokenizer", "ok", f"byte estimate for {settings.model} (no tokenizer known), calibrated by the server's token counts")


def _flagged(flags: Flags) -> SandboxConfig:
    """The sandbox ``--sandbox`` asks for when no settings could be read (an unknown mode: the default's)."""
    from dataclasses import replace

    from pseudoclaude.sandbox import SANDBOX_MODES

    mode = next((known for known in SANDBOX_MODES if known == flags.sandbox), None)
    return replace(SandboxConfig(), mode=mode) if mode is not None else SandboxConfig()


def _sandbox(config: SandboxConfig, workspace: Path) -> Check:
    from pseudoclaude.sandbox import detect_sandbox

    sandbox, status = detect_sandbox(config, workspace)
    if sandbox is None:
        verdict: Verdict = "ok" if config.mode == "off" else "warn"
        return Check("sandbox", verdict, f"none: {status.detail}" + ("" if config.mode == "off" else "; every command that is not read-only asks"))
    network = {"off": "network off", "all": "network on", "allowed": f"network only to {', '.join(config.allowed_domains) or 'no domain'}"}[status.network]
    return Check("sandbox", "ok", f"{status.kind} · {status.mode} · {network}")


def doctor_exit_code(checks: list[Check]) -> int:
    return 1 if any(check.verdict == "fail" for check in checks) else 0
