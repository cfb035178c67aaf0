"""Assembling a ready-to-run agent from settings: provider, tools, session, compaction, permissions,
instruction files, memory and hooks.

The CLI and the REPL both start here, so a fresh session and a resumed one are
built the same way. Configuration is checked first (``check_configuration``):
a malformed rule raises ``ConfigError`` naming the file and the entry before
any session folder exists, so a bad settings file never leaves an empty
session behind. Resuming restores the conversation, the Layer 1 ledger and
the usage anchor from the session file, so the next request is the one the
original process would have sent; the files read, the effort and the permission
mode come back too (``agent/session_facts.py``). Instruction files are read here, once, into
the stable system prompt (unchanged files: the same bytes after a resume). The
memory snapshot is taken when a session starts and recorded in it; a resumed
session keeps its own snapshot, so facts saved meanwhile reach new sessions
without changing a resumed one's cached prompt.

The sandbox (``pseudoclaude.sandbox``) is detected here and given to every
command through ``ToolContext.sandbox``, whatever the permission mode: its
masks are the path patterns of the deny rules on reading tools, its read-only
names the instruction files the loader reads. With none available the Agent
carries a one-line notice for the front ends.
"""

from __future__ import annotations

import dataclasses

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from pseudoclaude.agent.checkpoints import CheckpointStore, checkpointed
from pseudoclaude.agent.context import CompactionEngine
from pseudoclaude.agent.cost import Spent
from pseudoclaude.agent.facade import Agent
from pseudoclaude.agent.history import SessionHistory
from pseudoclaude.agent.hooks.config import HookConfig
from pseudoclaude.agent.hooks.gate import HookAwareApprover
from pseudoclaude.agent.hooks.prompt import ProviderAsker
from pseudoclaude.agent.hooks import SessionHooks
from pseudoclaude.agent.instructions import INSTRUCTION_FILENAMES, LOCAL_FILENAME, load_instructions
from pseudoclaude.agent.memory import MemoryStore
from pseudoclaude.agent.native import context_engine
from pseudoclaude.agent.prompt import environment_suffix, stable_system_prompt
from pseudoclaude.agent.read_denials import DeniedReads
from pseudoclaude.agent.recording import AgentSession, SessionStore
from pseudoclaude.agent.runconfig import RunConfig
from pseudoclaude.agent.runner import Runner
from pseudoclaude.agent.session_facts import replayed_stamps, stamp_recorder, with_recorded_choices
from pseudoclaude.agent.workspace_source import WorkspaceSource
from pseudoclaude.compact import Calibration, ContextState, PinnedTool, WorkingSet
from pseudoclaude.config import ConfigError, Settings
from pseudoclaude.llm import FactsLookup, Usage, begin_facts_lookup, build_provider, context_window, learn_facts, window_source
from pseudoclaude.sandbox import CommandSandbox, SandboxStatus, detect_sandbox
from pseudoclaude.session import Replay
from pseudoclaude.agent.subagents import SubagentHost, Subagents, load_agents, subrun_usage
from pseudoclaude.redaction import Redactor
from pseudoclaude.tools import (
    BackgroundJobs,
    ChildEnvironment,
    CommandOutputTool,
    KillCommandTool,
    TaskTool,
    Tool,
    ToolContext,
    ToolRegistry,
    background_recap,
    default_tools,
    spec_of,
)
from pseudoclaude.tools.permissions import Approver, PermissionMode, PermissionPolicy, RuleSyntaxError, Rules, local_rule_sink

if TYPE_CHECKING:
    from pseudoclaude.mcp_client import Elicitor, McpServers


@dataclass(frozen=True)
class CheckedConfiguration:
    """What the settings files configure, parsed and validated before a session is opened."""

    rules: Rules
    hooks: HookConfig


def check_configuration(settings: Settings, tools: ToolRegistry) -> CheckedConfiguration:
    """Parse the permission rules and hooks of every settings file; ``ConfigError`` names the file at fault."""
    for path, layer in zip(settings.settings_paths, settings.settings_layers):
        try:
            Rules.from_settings(layer)
        except RuleSyntaxError as error:
            raise ConfigError(f"{path}: {error}") from None
    hooks = HookConfig.from_settings(*settings.settings_layers, claude_names=tools.claude_names())
    return CheckedConfiguration(Rules.from_settings(*settings.settings_layers), hooks)


@dataclass(frozen=True)
class PromptChoice:
    """Claude Code's ``--system-prompt`` (replaces ours when not empty) and ``--append-system-prompt``."""

    replace: str | None = None
    append: str | None = None

    def apply(self, ours: str) -> str:
        base = self.replace if self.replace else ours
        return f"{base}\n\n{self.append}" if self.append else base


class JsonlStore:
    """The default ``SessionStore``: one folder a session under ``settings.sessions_dir``, its ``session.jsonl``
    append-only (``pseudoclaude.session``); the ``sessions`` commands, ``/resume``, ``/rewind`` and ``/export`` read it."""

    def create(self, settings: Settings, *, session_id: str | None = None, redactor: Redactor | None = None) -> AgentSession:
        from pseudoclaude.session import create_session

        return create_session(
            settings.sessions_dir, settings.workspace, model=settings.model, provider=settings.provider, session_id=session_id, redactor=redactor
        )

    def open(
        self, settings: Settings, session_id: str | None, *, fork: bool = False, new_id: str | None = None, redactor: Redactor | None = None
    ) -> tuple[AgentSession, Replay]:
        from pseudoclaude.session import SessionNotFound, fork_session, latest_session_id, open_session, resolve_session_id

        if session_id is None:
            session_id = latest_session_id(settings.sessions_dir, settings.workspace)
            if session_id is None:
                raise SessionNotFound(f"no earlier session in {settings.workspace} to continue")
        session_id = resolve_session_id(settings.sessions_dir, settings.workspace, session_id)
        if fork:
            session_id = fork_session(settings.sessions_dir, settings.workspace, session_id, new_id)
        return open_session(settings.sessions_dir, settings.workspace, session_id, redactor=redactor)


JSONL_STORE: SessionStore = JsonlStore()


def build_agent(
    settings: Settings,
    *,
    resume_id: str | None = None,
    continue_latest: bool = False,
    approver: Approver | None = None,
    prompt: PromptChoice = PromptChoice(),
    fork: bool = False,
    session_id: str | None = None,
    elicitor: Elicitor | None = None,
    store: SessionStore = JSONL_STORE,
) -> Agent:
    """A new session, or the resumed one named by ``resume_id`` / the latest of this workspace (``fork``: a copy of it).

    ``elicitor`` answers the MCP servers' questions (the REPL's asks the user; None declines them); ``store`` keeps
    the session (``recording.SessionStore``; the JSONL store by default)."""
    facts = facts_lookup(settings)  # first: the models endpoint answers while the rest is built (llm/model_facts.py)
    subagents = Subagents(*load_agents(settings.workspace, settings.home), workspace=settings.workspace)  # issue 20
    tools = ToolRegistry([*default_tools(fetch_local_addresses=settings.web_fetch_local), CommandOutputTool(), KillCommandTool(), TaskTool(subagents)])
    checked = check_configuration(settings, tools)
    child_env = child_environment(settings)
    sandbox = session_sandbox(settings, tools, checked.rules)
    session, replay = _open_session(settings, resume_id, continue_latest, fork, session_id, child_env.redactor, store)
    settings, replay = with_recorded_choices(*_with_recorded_model(settings, replay))
    if facts is not None and facts.model != settings.model:
        facts = facts_lookup(settings)  # the resumed session's own model
    if replay is None and settings.effort is not None:
        session.append_effort(settings.effort)  # the effort chosen is a session fact: a resume goes on with it
    try:
        return _assemble(settings, tools, checked, session, replay, approver, prompt, subagents, child_env, sandbox, elicitor, facts)
    except BaseException:
        session.close()
        raise


def child_environment(settings: Settings) -> ChildEnvironment:
    """The environment of the model's commands (``shellEnvironment`` applied; the ``env`` setting below the process's
    own variables) and the redactor of this run's secrets."""
    shell = settings.shell_environment
    return ChildEnvironment.of(
        {**settings.session_env, **os.environ},
        include=shell.include,
        exclude=shell.exclude,
        api_key=settings.api_key,
        secrets=(settings.auth_token,),
        headers=settings.extra_headers,
    )


@dataclass(frozen=True)
class SessionSandbox:
    """The sandbox of a session's commands (None: unconfined), what status views say of it, and the start-up notice."""

    sandbox: CommandSandbox | None
    status: SandboxStatus
    notice: str | None = None


def session_sandbox(settings: Settings, tools: ToolRegistry, rules: Rules) -> SessionSandbox:
    """Detect the sandbox ``settings.sandbox`` asks for, with the deny rules' masks and the protected names."""
    config = dataclasses.replace(
        settings.sandbox,
        masked_patterns=tuple(dict.fromkeys(r.pattern for r in rules.read_denials(tools) if r.pattern is not None)),
        protected_names=(*INSTRUCTION_FILENAMES, LOCAL_FILENAME),
        protected_paths=(settings.home,),
    )
    sandbox, status = detect_sandbox(config, settings.workspace)
    notice = None
    if sandbox is None and config.mode != "off":
        notice = f"no sandbox: {status.detail}; commands run unconfined and every command that is not read-only still asks"
    return SessionSandbox(sandbox, status, notice)


def _with_recorded_model(settings: Settings, replay: Replay | None) -> tuple[Settings, Replay | None]:
    """A resumed session goes on with the model (and provider) its last ``/model`` switch recorded.

    An explicit ``--model`` / ``--provider`` on the resuming command line wins.
    A switch to another provider is kept when that provider's key is
    configured; otherwise the resume warns and goes on with the default.
    """
    from pseudoclaude.config import ConfigError, Flags, load_settings
    from pseudoclaude.llm import provider_for_model

    if replay is None or not replay.model or settings.model_from_flag:
        return settings, replay
    provider = replay.model_provider or provider_for_model(replay.model) or settings.provider
    if provider == settings.provider:
        return dataclasses.replace(settings, model=replay.model), replay
    try:
        other = load_settings(settings.workspace, Flags(model=replay.model, provider=provider))
    except ConfigError as error:
        warning = f"this session had switched to {replay.model} ({provider}), but {error}; going on with {settings.model} ({settings.provider})"
        return settings, dataclasses.replace(replay, warnings=(*replay.warnings, warning))
    switched = dataclasses.replace(
        settings,
        provider=other.provider,
        model=replay.model,
        api_key=other.api_key,
        base_url=other.base_url,
        openai_api=other.openai_api,
        auth_token=other.auth_token,
        extra_headers=other.extra_headers,
    )
    return switched, replay


def _open_session(
    settings: Settings,
    resume_id: str | None,
    continue_latest: bool,
    fork: bool = False,
    new_id: str | None = None,
    redactor: Redactor | None = None,
    store: SessionStore = JSONL_STORE,
) -> tuple[AgentSession, Replay | None]:
    """A new session of ``store``, or the one to resume (``resume_id``; the latest with ``continue_latest``)."""
    if resume_id is None and not continue_latest:
        return store.create(settings, session_id=new_id, redactor=redactor), None
    return store.open(settings, resume_id, fork=fork, new_id=new_id, redactor=redactor)


def _assemble(
    settings: Settings,
    tools: ToolRegistry,
    checked: CheckedConfiguration,
    session: AgentSession,
    replay: Replay | None,
    approver: Approver | None,
    prompt: PromptChoice = PromptChoice(),
    subagents: Subagents | None = None,
    child_env: ChildEnvironment | None = None,
    sandbox: SessionSandbox | None = None,
    elicitor: Elicitor | None = None,
    facts: FactsLookup | None = None,
) -> Agent:
    """Wire provider, tools, permissions, prompt, hooks and context governance around an open session."""
    provider = build_provider(
        settings.provider,
        model=settings.model,
        api_key=settings.api_key,
        base_url=settings.base_url,
        api=settings.openai_api,
        auth_token=settings.auth_token,
        headers=settings.extra_headers,
    )
    child_env = child_env if child_env is not None else child_environment(settings)
    hook_config = checked.hooks
    policy = PermissionPolicy(
        mode=PermissionMode(settings.permission_mode),
        workspace=settings.workspace,
        rules=checked.rules,
        approver=HookAwareApprover(approver) if approver is not None and hook_config else approver,
        allowed_tools=settings.allowed_tools,
        rule_sink=local_rule_sink(settings.workspace, settings.home),
        tools=tools,
        config_dir=settings.home,
        sandbox=settings.sandbox if sandbox is not None and sandbox.sandbox is not None else None,
    )
    instructions = load_instructions(settings.workspace, settings.home)
    memory = MemoryStore(settings.home, settings.workspace)
    remembered = replay.memory_snapshot if replay is not None and replay.memory_snapshot is not None else None
    if remembered is None:
        remembered = memory.snapshot()
        session.append_memory(remembered)
    standing = "\n\n".join(part for part in (instructions.text, remembered) if part)
    system = prompt.apply(stable_system_prompt(settings.workspace, standing))
    hooks = SessionHooks(
        hook_config,
        workspace=settings.workspace,
        session_id=session.id,
        transcript_path=session.jsonl_path,
        source="resume" if replay is not None else "startup",
        notices=(
            *hook_config.problems,
            *(f"instructions: {problem}" for problem in instructions.problems),
            *(subagents.problems if subagents is not None else ()),
        ),
        permission_mode=lambda: policy.mode.claude_name,
        approver=approver,
        redactor=child_env.redactor,
    )
    config = RunConfig(
        model=settings.model,
        system=system,
        system_suffix=environment_suffix(settings.workspace),
        max_turns=settings.max_turns,
        max_budget_usd=settings.max_budget_usd,
        **reasoning_of(settings),
    )
    pinned = pinned_tools(tools)
    source = WorkspaceSource(settings.workspace, settings.home, instructions, planning=lambda: policy.mode is PermissionMode.PLAN)
    working_set = WorkingSet.replayed(replay.transcript, replay.conversation, pinned, source) if replay is not None else WorkingSet(pinned, source)
    state = _context_state(
        settings, session, replay, overhead=(system, tools_text(tools)), clearable=tools.clearable_names(), working_set=working_set, facts=facts
    )
    engine, loop_provider = context_engine(
        settings.context_engine,
        CompactionEngine(state, provider, memory=standing, retry=config.retry),
        provider,
        exclude_tools=[tool.name for tool in tools if tool.name not in tools.clearable_names()],
        memory=standing,
    )
    runner = Runner(
        provider=loop_provider,
        tools=checkpointed(tools, session) if isinstance(session, CheckpointStore) else tools,
        tool_context=ToolContext(
            workspace=settings.workspace,
            spill_dir=session.spill_dir,
            memory=memory,
            history=SessionHistory(session.jsonl_path, session.spill_dir),
            file_stamps=replayed_stamps(replay),
            stamp_sink=stamp_recorder(session),
            background=BackgroundJobs(session.spill_dir, session.jsonl_path.parent / "background.json"),
            child_env=child_env,
            sandbox=sandbox.sandbox if sandbox is not None else None,
            read_guard=DeniedReads.of(policy),
        ),
        config=config,
        session=session,
        context=engine,
        permissions=policy,
        conversation=replay.conversation if replay is not None else (),
        hooks=hooks,
        usage_total=replay.usage_total + subrun_usage(session.jsonl_path.parent) if replay is not None else Usage(),
        spent=Spent(replay.cost_usd, replay.unpriced_calls) if replay is not None else Spent(),
    )
    host = SubagentHost(provider, policy, tools, runner, session.jsonl_path.parent, settings.provider)
    hooks.asker = ProviderAsker(provider, lambda: runner.config.model, host.add_usage)  # prompt hooks ask the session's model
    if subagents is not None:
        subagents.bind(host)
    warnings = (*replay.warnings, *background_recap(session.jsonl_path.parent)) if replay is not None else ()
    return Agent(
        runner=runner,
        session=session,
        policy=policy,
        replay_warnings=warnings,
        instructions=instructions,
        memory=memory,
        mcp=mcp_servers(settings, elicitor),
        sandbox=sandbox.status if sandbox is not None else None,
        sandbox_notice=sandbox.notice if sandbox is not None else None,
    )


def mcp_servers(settings: Settings, elicitor: Elicitor | None = None) -> McpServers | None:
    """The session's MCP servers (None when none is declared: the SDK is then never imported)."""
    if not settings.mcp_servers:
        return None
    import os

    from pseudoclaude.mcp_client import McpServers, server_specs, timeouts

    startup, call = timeouts(os.environ)
    return McpServers(
        server_specs(settings.mcp_servers, os.environ),
        settings.workspace,
        startup_timeout_s=startup,
        call_timeout_s=call,
        elicitor=elicitor,
    )


def _context_state(
    settings: Settings,
    session: AgentSession,
    replay: Replay | None,
    *,
    overhead: Sequence[str],
    clearable: frozenset[str],
    working_set: WorkingSet,
    facts: FactsLookup | None = None,
) -> ContextState:
    """The session's context state; a resumed one gets back its decisions, anchor, learned window, estimator calibration and clock.

    The window is the models endpoint's when its answer is in by then (``FactsLookup.result``: at most 0.5 s after
    the lookup began), else the table's; the facts are applied to the whole process (``model_facts.learn_facts``)."""
    learn_facts(settings.provider, settings.model, facts.result() if facts is not None else None)
    window = context_window(settings.model, settings.context_window)
    source = window_source(settings.model, settings.context_window)
    if replay is not None and replay.learned_window is not None and replay.learned_window < window:
        window, source = replay.learned_window, "learned earlier in this session"
    state = ContextState(
        model=settings.model,
        context_window=window,
        session=session,
        replacements=replay.previews() if replay is not None else {},
        images_dropped=replay.images_dropped() if replay is not None else (),
        anchor=replay.anchor if replay is not None else None,
        last_call_at=replay.last_call_at if replay is not None else None,
        overhead=overhead,
        clearable_tools=clearable,
        working_set=working_set,
        calibration=Calibration.parse(*replay.calibration) if replay is not None and replay.calibration is not None else None,
    )
    state.window_source = source
    return state


def facts_lookup(settings: Settings) -> FactsLookup | None:
    """Start asking the provider's models endpoint for ``settings.model``'s facts (None: it has none to give)."""
    return begin_facts_lookup(
        settings.provider,
        settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key,
        auth_token=settings.auth_token,
        headers=settings.extra_headers,
    )


def reasoning_of(settings: Settings) -> dict[str, Any]:
    """The run's reasoning settings (``load_settings`` checked their values)."""
    return {"effort": settings.effort, "max_thinking_tokens": settings.max_thinking_tokens, "thinking": settings.thinking}


def tools_text(tools: Iterable[Tool]) -> str:
    """The tool list as the context estimate counts it (the same text ``/context`` shows a figure for)."""
    return json.dumps([{"name": s.name, "description": s.description, "input_schema": s.input_schema} for s in map(spec_of, tools)])


def pinned_tools(tools: Iterable[Tool]) -> dict[str, PinnedTool]:
    """The tools whose calls the pinned block reads, from their declared traits: file reads and edits (by their
    path argument), searches (a path with a default and a pattern as key argument) and listings (a path with a default), commands (by their command line), the todo list (its ``items``) and a presented plan (``exits_plan``)."""
    roles: dict[str, PinnedTool] = {}
    for tool in tools:
        traits = tool.traits
        if traits.exits_plan and traits.key_argument is not None:
            roles[tool.name] = PinnedTool("plan", traits.key_argument)
        elif traits.kind == "execute" and traits.key_argument is not None:
            roles[tool.name] = PinnedTool("execute", traits.key_argument)
        elif "TodoWrite" in traits.claude_names:
            roles[tool.name] = PinnedTool("todo", "items")
        elif traits.kind in ("read", "edit") and traits.path_arguments and traits.default_path is None:
            roles[tool.name] = PinnedTool("edit" if traits.kind == "edit" else "read", traits.path_arguments[0])
        elif traits.kind == "read" and traits.path_arguments and traits.default_path is not None:
            searched = traits.key_argument if traits.key_argument not in (None, *traits.path_arguments) else None
            path, default = traits.path_arguments[0], traits.default_path
            roles[tool.name] = PinnedTool("search", path, searched, default) if searched is not None else PinnedTool("list", path, default=default)
    return roles
