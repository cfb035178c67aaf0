"""Assembling a ready-to-run agent from settings: provider, tools, session, compaction, permissions,
instruction files, memory and hooks.

The CLI and the REPL both start here, so a fresh session and a resumed one are
built the same way. Resuming restores the conversation, the Layer 1 ledger and
the usage anchor from the session file, so the next request is the one the
original process would have sent. Instruction files are read here, once, into
the stable system prompt (unchanged files: the same bytes after a resume). The
memory snapshot is taken when a session starts and recorded in it; a resumed
session keeps its own snapshot, so facts saved meanwhile reach new sessions
without changing a resumed one's cached prompt.
"""

from __future__ import annotations

from typing import Any

from pseudoclaude.agent.contextstep import ContextStep
from pseudoclaude.agent.facade import Agent
from pseudoclaude.agent.hookconfig import HookConfig
from pseudoclaude.agent.hookgate import HookAwareApprover
from pseudoclaude.agent.hooks import SessionHooks
from pseudoclaude.agent.instructions import load_instructions
from pseudoclaude.agent.memory import MemoryStore
from pseudoclaude.agent.prompt import environment_suffix, stable_system_prompt
from pseudoclaude.agent.runner import RunConfig, Runner
from pseudoclaude.config import Settings
from pseudoclaude.llm.messages import Usage
from pseudoclaude.llm.models import context_window
from pseudoclaude.llm.provider import Provider


def build_provider(settings: Settings) -> Provider:
    """The provider adapter for ``settings`` (SDKs are imported here, lazily)."""
    if settings.provider == "anthropic":
        from pseudoclaude.llm.anthropic import AnthropicProvider

        return AnthropicProvider(model=settings.model, api_key=settings.api_key or "", base_url=settings.base_url)
    from pseudoclaude.llm.openai import OpenAIProvider

    return OpenAIProvider(model=settings.model, api_key=settings.api_key, base_url=settings.base_url)


def build_agent(settings: Settings, *, resume_id: str | None = None, continue_latest: bool = False, approver: Any = None) -> Agent:
    """A new session, or the resumed one named by ``resume_id`` / the latest of this workspace."""
    from pseudoclaude.compact import Runtime
    from pseudoclaude.session import (
        SessionNotFound,
        create_session,
        latest_session_id,
        open_session,
        resolve_session_id,
    )
    from pseudoclaude.tools import ToolContext, default_tools
    from pseudoclaude.tools.permissions import (
        PermissionMode,
        PermissionPolicy,
        Rules,
        local_rule_sink,
    )

    if continue_latest and resume_id is None:
        resume_id = latest_session_id(settings.sessions_dir, settings.workspace)
        if resume_id is None:
            raise SessionNotFound(f"no earlier session in {settings.workspace} to continue")
    conversation: tuple[Any, ...] = ()
    replacements: dict[str, str] = {}
    anchor = None
    warnings: tuple[str, ...] = ()
    usage_so_far = Usage()
    window = context_window(settings.model, settings.context_window)
    last_call_at: float | None = None
    recorded_memory: str | None = None
    if resume_id is not None:
        resume_id = resolve_session_id(settings.sessions_dir, settings.workspace, resume_id)
        session, replay = open_session(settings.sessions_dir, settings.workspace, resume_id)
        conversation = replay.conversation
        replacements = replay.previews()
        anchor = replay.anchor
        warnings = tuple(replay.warnings)
        usage_so_far = replay.usage_total
        last_call_at = replay.last_call_at
        recorded_memory = replay.memory_snapshot
        if replay.learned_window is not None:
            window = min(window, replay.learned_window)
    else:
        session = create_session(settings.sessions_dir, settings.workspace, model=settings.model, provider=settings.provider)

    provider = build_provider(settings)
    tools = default_tools()
    hook_config = HookConfig.from_settings(*settings.settings_layers)
    policy = PermissionPolicy(
        mode=PermissionMode(settings.permission_mode),
        workspace=settings.workspace,
        rules=Rules.from_settings(*settings.settings_layers),
        approver=HookAwareApprover(approver) if approver is not None and hook_config else approver,
        allowed_tools=settings.allowed_tools,
        rule_sink=local_rule_sink(settings.workspace),
    )
    instructions = load_instructions(settings.workspace, settings.home)
    memory = MemoryStore(settings.home, settings.workspace)
    remembered = recorded_memory if recorded_memory is not None else memory.snapshot()
    if recorded_memory is None:
        session.append_memory(remembered)
    system = stable_system_prompt(
        settings.workspace,
        "\n\n".join(part for part in (instructions.text, remembered) if part),
    )
    hooks = SessionHooks(
        hook_config,
        workspace=settings.workspace,
        session_id=session.id,
        transcript_path=session.jsonl_path,
        source="resume" if resume_id is not None else "startup",
        notices=(*hook_config.problems, *(f"instructions: {problem}" for problem in instructions.problems)),
        permission_mode=lambda: str(policy.mode.value),
        approver=approver,
    )
    runtime = Runtime(
        model=settings.model,
        context_window=window,
        spill_dir=session.spill_dir,
        recorder=session,
        replacements=replacements,
        anchor=anchor,
        last_call_at=last_call_at,
        overhead_tokens=_overhead_tokens(system, tools),
    )
    runner = Runner(
        provider=provider,
        tools=tools,
        tool_context=ToolContext(workspace=settings.workspace, spill_dir=session.spill_dir, memory=memory),
        config=RunConfig(
            model=settings.model,
            system=system,
            system_suffix=environment_suffix(settings.workspace),
            max_turns=settings.max_turns,
        ),
        session=session,
        context_step=ContextStep(runtime, memory=remembered),
        permissions=policy,
        conversation=conversation,
        hooks=hooks,
    )
    runner.usage_total = usage_so_far
    return Agent(
        runner=runner,
        session=session,
        policy=policy,
        replay_warnings=warnings,
        instructions=instructions,
        memory=memory,
    )


def _overhead_tokens(system: str, tools: Any) -> int:
    import json

    from pseudoclaude.tools.base import spec_of

    size = len(system.encode("utf-8")) + sum(
        len(json.dumps({"name": s.name, "description": s.description, "input_schema": s.input_schema}).encode("utf-8"))
        for s in map(spec_of, tools)
    )
    return int(size / 3.5) + 1
