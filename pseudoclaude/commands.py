"""The bodies of the CLI commands: headless runs, session inspection, ``hooks test``.

Each returns an exit code and prints errors as one line; ``cli.py`` stays a
thin typer layer so its import (and ``--help``) stays fast.
"""

from __future__ import annotations

import sys
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, AsyncIterator, Sequence

from pseudoclaude.config import Settings, pseudoclaude_home
from pseudoclaude.exitcodes import EXIT_FAILED, EXIT_NOT_SAVED, EXIT_OK, EXIT_USAGE
from pseudoclaude.interrupts import Interrupted, run_until_signalled
from pseudoclaude.textsafe import for_terminal

if TYPE_CHECKING:
    from pseudoclaude.agent import Agent, Event, HookReply
    from pseudoclaude.session import SessionInfo
    from pseudoclaude.headless import ClaudeStream, ControlChannel, HeadlessOptions, Write
    from pseudoclaude.agent import Expansion


def _error(message: str) -> None:
    sys.stderr.write(f"pseudoclaude: {for_terminal(message)}\n")
    sys.stderr.flush()


def run_print(
    settings: Settings, prompt: str, output_format: str, *, resume_id: str | None, continue_latest: bool, options: HeadlessOptions | None = None
) -> int:
    """``pseudoclaude -p``: one task, headless (or, with ``--input-format stream-json``, the prompts read from stdin).

    ``/compact [focus]`` compacts a resumed session instead; an empty prompt on a
    resumed session finishes the turn its process left unfinished. ``json`` and
    ``stream-json`` speak Claude Code's protocol (``headless/stream.py``);
    ``events`` prints our own event stream.
    """
    from pseudoclaude.agent import build_agent
    from pseudoclaude.config import ConfigError
    from pseudoclaude.llm import sdk_ready, start_warm_up
    from pseudoclaude.session import SessionError
    from pseudoclaude.headless import ControlChannel, HeadlessOptions, StdioApprover, error_result, json_line_writer, print_events

    start_warm_up(settings.provider)  # the SDK's imports beside the agent's building: its fsyncs, git, sandbox probe (issue 30)
    options = options or HeadlessOptions()
    claude_format = output_format in ("json", "stream-json")
    write = json_line_writer(sys.stdout)
    channel = ControlChannel(write) if options.input_format == "stream-json" else None
    approver = StdioApprover(channel) if channel is not None and options.permission_prompt_tool == "stdio" else None
    try:
        agent = build_agent(
            settings,
            resume_id=resume_id,
            continue_latest=continue_latest,
            approver=approver,
            prompt=options.prompt,
            fork=options.fork,
            session_id=options.session_id,
        )
    except (ConfigError, SessionError) as error:
        _error(str(error))
        if claude_format:
            write(error_result(str(error), resume_id or ""))
        return EXIT_USAGE
    for warning in agent.facts.replay_warnings:
        _error(f"warning: {warning}")
    for warning in _sdk_options(agent, options):
        _error(f"warning: {warning}")

    async def go() -> int:
        if agent.mcp.servers():
            await sdk_ready()  # the MCP SDK is pydantic-based: never import it beside the warm-up thread (llm/warmup.py)
        try:
            if channel is not None:
                return await _serve_stream(agent, channel, options, settings)
            stripped = prompt.strip()
            if stripped == "/compact" or stripped.startswith("/compact "):
                events = agent.compact(stripped[len("/compact") :].strip() or None)
            elif (expansion := _custom_command(settings, stripped)) is not None:
                events = agent.run(expansion.prompt, images=options.images, model=expansion.model, allowed_tools=expansion.allowed_tools)
            else:
                events = agent.run(prompt if stripped else None, images=options.images)
            async with aclosing(events) as stream:
                if claude_format:
                    code = await _print_claude(agent, stream, output_format, options, settings)
                    return _unsaved(agent.write_failure) if agent.write_failure is not None else code
                result = await print_events(
                    stream, "stream-json" if output_format == "events" else output_format, agent.facts.session_id, sys.stdout, sys.stderr
                )
        finally:
            await agent.aclose()
        if not result.ok:
            reason = result.stop.message if result.stop and result.stop.message else "the run did not finish"
            if output_format == "text":
                _error(reason)
        if agent.write_failure is not None:
            if result.session_error is None:
                _error(f"error: the session could not be saved: {agent.write_failure}")
            return EXIT_NOT_SAVED
        return EXIT_OK if result.ok else EXIT_FAILED

    try:
        return run_until_signalled(go)
    except Interrupted as stop:
        _error(f"{stop.describe()}; {_saved(agent.write_failure)}")
        return stop.exit_code


def _unsaved(write_failure: str) -> int:
    """Claude Code's result carries ``session_error``; stderr says it too, and the exit code is 3."""
    _error(f"error: the session could not be saved: {write_failure}")
    return EXIT_NOT_SAVED


def _custom_command(settings: Settings, line: str) -> Expansion | None:
    """``-p "/review src/app.py"``: a custom command's prompt (issue 20); notices go to stderr."""
    from pseudoclaude.agent import load_custom_commands, workspace_trusted

    if not line.startswith("/"):
        return None
    commands = load_custom_commands(settings.workspace, settings.home)
    expansion = commands.expand(line, trusted=workspace_trusted(settings.trust), provider=settings.provider)
    for notice in expansion.notices if expansion is not None else ():
        _error(f"warning: {notice}")
    return expansion


def _saved(write_failure: str | None) -> str:
    if write_failure is None:
        return "the session was saved and can be resumed with --continue"
    return f"the session was saved only up to a write failure ({write_failure})"


def _sdk_options(agent: Agent, options: HeadlessOptions) -> list[str]:
    """``--agents`` and ``--json-schema``: agent types for the ``task`` tool, the structured output tool; the warnings."""
    from pseudoclaude.agent import sdk_agents
    from pseudoclaude.tools import StructuredOutputTool

    problems: tuple[str, ...] = ()
    if options.agents:
        definitions, problems = sdk_agents(options.agents)
        agent.extensions.add_agents(definitions)
    if options.json_schema is not None:
        agent.extensions.add_tools([StructuredOutputTool(options.json_schema)])
    return list(problems)


def _claude_stream(agent: Agent, write: Write | None, options: HeadlessOptions, settings: Settings) -> ClaudeStream:
    from pseudoclaude.headless import ClaudeStream, SlashCommand, slash_commands

    def commands() -> tuple[SlashCommand, ...]:
        prompts = [SlashCommand(name.lstrip("/"), description) for name, description in agent.mcp.prompt_commands()]
        return slash_commands(settings.workspace, settings.home, prompts)

    return ClaudeStream(
        agent,
        write,
        partial=options.include_partial,
        commands=commands,
        agents=lambda: [t.name for t in agent.extensions.agent_types()],
        structured=options.json_schema is not None,
    )


async def _print_claude(agent: Agent, events: AsyncIterator[Event], output_format: str, options: HeadlessOptions, settings: Settings) -> int:
    """One prompt in Claude Code's ``json`` / ``stream-json``: the exit code of its result."""
    from pseudoclaude.headless import json_line_writer, print_claude

    claude = _claude_stream(agent, json_line_writer(sys.stdout) if output_format == "stream-json" else None, options, settings)
    result = await print_claude(events, claude, sys.stdout, sys.stderr, again=lambda text: agent.run(text), start=agent.mcp.start)
    return EXIT_OK if not result["is_error"] else EXIT_FAILED


async def _serve_stream(agent: Agent, channel: ControlChannel, options: HeadlessOptions, settings: Settings) -> int:
    """``--input-format stream-json``: serve the SDK until its input ends (custom commands expand as with ``-p``)."""
    from pseudoclaude.headless import StreamDriver

    claude = _claude_stream(agent, channel.write, options, settings)
    driver = StreamDriver(agent, claude, channel, sys.stderr, expand=lambda line: _custom_command(settings, line))
    driver.replay_user_messages, driver.allow_bypass = options.replay_user_messages, options.allow_bypass
    ok = await driver.serve()
    return EXIT_OK if ok else EXIT_FAILED


def _sessions_dir(explicit: Path | None) -> Path:
    from pseudoclaude.config import resolve_sessions_dir

    return resolve_sessions_dir(Path.cwd(), explicit)


def show_session_list(sessions_dir: Path | None, *, as_json: bool = False, every_workspace: bool = False) -> int:
    """``sessions list``: this workspace's sessions (``every_workspace``: all of them), as a table or JSON."""
    from pseudoclaude.session import list_all_sessions, list_sessions

    folder = _sessions_dir(sessions_dir)
    infos = list_all_sessions(folder) if every_workspace else list_sessions(folder, Path.cwd().resolve())
    if as_json:
        sys.stdout.write(_sessions_json(infos) + "\n")
        return EXIT_OK
    from pseudoclaude.tui import render_session_list, safe_console

    render_session_list(safe_console(), infos, workspaces=every_workspace)
    return EXIT_OK


def _sessions_json(sessions: Sequence[SessionInfo]) -> str:
    """``sessions list --json``: one array of objects, every field whole (ids, ISO times, the workspace)."""
    import json

    return json.dumps(
        [
            {
                "id": info.id,
                "title": info.title,
                "created": info.created.isoformat(),
                "updated": info.updated.isoformat(),
                "turns": info.turns,
                "size_bytes": info.size_bytes,
                "model": info.model,
                "cwd": info.cwd,
                "folder": str(info.folder) if info.folder is not None else None,
            }
            for info in sessions
        ],
        indent=2,
    )


def show_session(session_id: str, sessions_dir: Path | None) -> int:
    from pseudoclaude.session import (
        SessionError,
        load_replay,
        load_subruns,
        resolve_session_id,
        session_folder,
    )
    from pseudoclaude.tui import render_transcript, safe_console

    folder, workspace = _sessions_dir(sessions_dir), Path.cwd().resolve()
    try:
        path = session_folder(folder, workspace, resolve_session_id(folder, workspace, session_id))
        replay = load_replay(path)
    except SessionError as error:
        _error(str(error))
        return EXIT_USAGE
    render_transcript(safe_console(), replay, subruns=load_subruns(path))
    return EXIT_OK


def export_session_file(session_id: str, sessions_dir: Path | None, *, export_format: str = "md", output: Path | None = None) -> int:
    """``sessions export``: the session as Markdown or JSON (``session/export.py``), to ``output`` or stdout."""
    from pseudoclaude.session import EXPORT_FORMATS, SessionError, export_session, load_replay, resolve_session_id, session_folder, write_export

    chosen = next((f for f in EXPORT_FORMATS if f == export_format), None)
    if chosen is None:
        _error(f"unknown export format {export_format!r}: choose one of {', '.join(EXPORT_FORMATS)}")
        return EXIT_USAGE
    folder, workspace = _sessions_dir(sessions_dir), Path.cwd().resolve()
    try:
        replay = load_replay(session_folder(folder, workspace, resolve_session_id(folder, workspace, session_id)))
    except SessionError as error:
        _error(str(error))
        return EXIT_USAGE
    text = export_session(replay, chosen)
    if output is None:  # on a terminal, a tool's escape sequences are spelled out, never obeyed (textsafe.py)
        sys.stdout.write(for_terminal(text) if sys.stdout.isatty() else text)
        return EXIT_OK
    try:
        written = write_export(text, output)
    except OSError as error:
        _error(f"cannot write {output}: {error.strerror or error}")
        return EXIT_FAILED
    print(f"Exported session {replay.meta.id} to {written}")
    return EXIT_OK


def test_hooks(event: str, tool: str, raw_input: str | None = None) -> int:
    """``pseudoclaude hooks test EVENT``: run EVENT's hooks with a sample payload, print each answer.

    ``raw_input`` (``--input JSON``) is a payload body to send instead of the
    sample: a Claude Code ``tool_name``/``tool_input`` is accepted as is.
    """
    import json

    from pseudoclaude.agent import HOOK_EVENTS, NEVER_FIRED, HookConfig, SessionHooks, sample_data, subject_of
    from pseudoclaude.config import ConfigError, trusted_settings_files

    if event not in HOOK_EVENTS:
        why = f"{event} hooks never fire in PseudoClaude ({NEVER_FIRED[event]})" if event in NEVER_FIRED else f"unknown hook event {event!r}"
        _error(f"{why}: choose one of {', '.join(HOOK_EVENTS)}")
        return EXIT_USAGE
    workspace = Path.cwd().resolve()
    try:
        files, trust = trusted_settings_files(workspace, pseudoclaude_home())
    except ConfigError as error:
        _error(str(error))
        return EXIT_USAGE
    if trust.ignored_notice():
        _error(f"{trust.ignored_notice()}")
    config = HookConfig.from_settings(*files.layers)
    for problem in config.problems:
        _error(f"warning: {problem}")
    try:
        given = json.loads(raw_input) if raw_input is not None else {}
    except json.JSONDecodeError as error:
        _error(f"--input is not valid JSON: {error}")
        return EXIT_USAGE
    if not isinstance(given, dict):
        _error("--input must be a JSON object (the event's payload fields)")
        return EXIT_USAGE
    tool_input = given.pop("tool_input", None)
    if tool_input is not None and not isinstance(tool_input, dict):
        _error("--input: tool_input must be a JSON object")
        return EXIT_USAGE
    data = {**sample_data(event, str(given.pop("tool_name", tool)), tool_input), **given}
    hooks = SessionHooks(config, workspace=workspace, session_id="hooks-test")
    subject = subject_of(event, data)
    if not config.commands(event, subject):
        print(f"No {event} hooks are configured" + (f" for {subject}." if subject else "."))
        return EXIT_OK
    print(f"{event} payload:\n{json.dumps(hooks.payload(event, data), indent=2, ensure_ascii=False)}")
    results = run_until_signalled(lambda: hooks.run_each(event, data, subject))
    for number, (run, reply) in enumerate(results, start=1):
        status = "timed out" if run.timed_out else (run.error or f"exit {run.exit_code}")
        print(f"\n[{number}] {run.command}\n    {status} after {run.duration_s:.2f}s")
        for name, text in (("stdout", run.stdout), ("stderr", run.stderr)):
            if text.strip():
                print(f"    {name}: " + for_terminal(text.rstrip("\n")).replace("\n", "\n            "))
        print(f"    => {for_terminal(describe_reply(event, reply))}")
    return EXIT_FAILED if any(reply.warning for _, reply in results) else EXIT_OK


def review_trust(*, forget: bool) -> int:
    """``pseudoclaude trust``: show what this folder's project settings want and ask again."""
    from pseudoclaude.config import ConfigError, Flags, load_settings
    from pseudoclaude.trust import TrustStore
    from pseudoclaude.tui import settle_workspace_trust

    workspace = Path.cwd().resolve()
    store = TrustStore(pseudoclaude_home())
    if forget:
        store.forget(workspace)
        print(f"Forgot every trust answer for {workspace}.")
        return EXIT_OK
    try:
        settings = load_settings(workspace)
        if not settings.trust.entries:
            print("Nothing in this folder's project settings needs trust.")
            return EXIT_OK
        if not settings.trust.ignored:
            print(f"Trusted: {len(settings.trust.entries)} project settings of this folder apply.")
            return EXIT_OK
        settle_workspace_trust(settings, lambda trust_all: load_settings(workspace, Flags(trust_workspace=trust_all)), always_ask=True)
    except ConfigError as error:
        _error(str(error))
        return EXIT_USAGE
    return EXIT_OK


def describe_reply(event: str, reply: HookReply) -> str:
    """What the agent would do with one hook's reply, in a few words."""
    from pseudoclaude.agent import PLAIN_CONTEXT_EVENTS

    parts: list[str] = [f"warning: {reply.warning}"] if reply.warning else []
    if reply.blocked:
        verb = {
            "PreToolUse": "deny the call",
            "UserPromptSubmit": "drop the prompt",
            "Stop": "continue the agent",
            "PostToolUse": "send the reason to the model",
            "PostToolUseFailure": "send the reason to the model",
            "PermissionRequest": "deny the call for the user",
            "SubagentStop": "continue the sub-agent",
        }.get(event, "block (ignored for this event)")
        parts.append(f"{verb}: {reply.reason}")
    elif reply.permission:
        parts.append(f"permission: {reply.permission}")
    context = reply.context or (reply.text if event in PLAIN_CONTEXT_EVENTS else "")
    if context:
        parts.append(f"add context: {context[:200]}")
    if reply.halt:
        parts.append(f"stop the run: {reply.halt}")
    return "; ".join(parts) or "go on"
