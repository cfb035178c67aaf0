"""The bodies of the CLI commands: headless runs, session inspection, ``hooks test``.

Each returns an exit code and prints errors as one line; ``cli.py`` stays a
thin typer layer so its import (and ``--help``) stays fast.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING

from pseudoclaude.config import Settings, pseudoclaude_home
from pseudoclaude.exitcodes import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_NOT_SAVED, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from pseudoclaude.agent import Expansion, HookReply


def _error(message: str) -> None:
    sys.stderr.write(f"pseudoclaude: {message}\n")
    sys.stderr.flush()


def run_print(settings: Settings, prompt: str, output_format: str, *, resume_id: str | None, continue_latest: bool) -> int:
    """``pseudoclaude -p``: one task, headless.

    ``/compact [focus]`` compacts a resumed session instead; an empty prompt on a
    resumed session finishes the turn its process left unfinished.
    """
    from pseudoclaude.agent import build_agent
    from pseudoclaude.config import ConfigError
    from pseudoclaude.session import SessionError
    from pseudoclaude.tui import cancel_on_termination, exit_code_for, print_events

    try:
        agent = build_agent(settings, resume_id=resume_id, continue_latest=continue_latest)
    except (ConfigError, SessionError) as error:
        _error(str(error))
        return EXIT_USAGE
    for warning in agent.replay_warnings:
        _error(f"warning: {warning}")

    stopped_by: list[int] = []

    async def go() -> int:
        cancel_on_termination(stopped_by)
        try:
            stripped = prompt.strip()
            if stripped == "/compact" or stripped.startswith("/compact "):
                events = agent.compact(stripped[len("/compact"):].strip() or None)
            elif (expansion := _custom_command(settings, stripped)) is not None:
                events = agent.run(expansion.prompt, model=expansion.model, allowed_tools=expansion.allowed_tools)
            else:
                events = agent.run(prompt if stripped else None)
            async with aclosing(events) as stream:
                result = await print_events(stream, output_format, agent.session_id, sys.stdout, sys.stderr)
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
        return asyncio.run(go())
    except KeyboardInterrupt:
        _error(f"interrupted; {_saved(agent.write_failure)}")
        return EXIT_INTERRUPTED
    except asyncio.CancelledError:
        name = signal.Signals(stopped_by[0]).name if stopped_by else "a signal"
        _error(f"stopped by {name}; {_saved(agent.write_failure)}")
        return exit_code_for(stopped_by)


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


def _sessions_dir(explicit: Path | None) -> Path:
    from pseudoclaude.config import resolve_sessions_dir

    return resolve_sessions_dir(Path.cwd(), explicit)


def show_session_list(sessions_dir: Path | None) -> int:
    from rich.console import Console

    from pseudoclaude.session import list_sessions
    from pseudoclaude.tui import render_session_list

    infos = list_sessions(_sessions_dir(sessions_dir), Path.cwd().resolve())
    render_session_list(Console(), infos)
    return EXIT_OK


def show_session(session_id: str, sessions_dir: Path | None) -> int:
    from rich.console import Console

    from pseudoclaude.session import (
        SessionError,
        load_replay,
        load_subruns,
        resolve_session_id,
        session_folder,
    )
    from pseudoclaude.tui import render_transcript

    folder, workspace = _sessions_dir(sessions_dir), Path.cwd().resolve()
    try:
        path = session_folder(folder, workspace, resolve_session_id(folder, workspace, session_id))
        replay = load_replay(path)
    except SessionError as error:
        _error(str(error))
        return EXIT_USAGE
    render_transcript(Console(), replay, subruns=load_subruns(path))
    return EXIT_OK


def test_hooks(event: str, tool: str) -> int:
    """``pseudoclaude hooks test EVENT``: run EVENT's hooks with a sample payload, print each answer."""
    import json

    from pseudoclaude.agent import HOOK_EVENTS, HookConfig, SessionHooks, sample_data, subject_of
    from pseudoclaude.config import ConfigError, trusted_settings_files

    if event not in HOOK_EVENTS:
        _error(f"unknown hook event {event!r}: choose one of {', '.join(HOOK_EVENTS)}")
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
    data = sample_data(event, tool)
    hooks = SessionHooks(config, workspace=workspace, session_id="hooks-test")
    subject = subject_of(event, data)
    if not config.commands(event, subject):
        print(f"No {event} hooks are configured" + (f" for {subject}." if subject else "."))
        return EXIT_OK
    print(f"{event} payload:\n{json.dumps(hooks.payload(event, data), indent=2, ensure_ascii=False)}")
    results = asyncio.run(hooks.run_each(event, data, subject))
    for number, (run, reply) in enumerate(results, start=1):
        status = "timed out" if run.timed_out else (run.error or f"exit {run.exit_code}")
        print(f"\n[{number}] {run.command}\n    {status} after {run.duration_s:.2f}s")
        for name, text in (("stdout", run.stdout), ("stderr", run.stderr)):
            if text.strip():
                print(f"    {name}: " + text.rstrip("\n").replace("\n", "\n            "))
        print(f"    => {describe_reply(event, reply)}")
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
        verb = {"PreToolUse": "deny the call", "UserPromptSubmit": "drop the prompt", "Stop": "continue the agent",
                "PostToolUse": "send the reason to the model"}.get(event, "block (ignored for this event)")
        parts.append(f"{verb}: {reply.reason}")
    elif reply.permission:
        parts.append(f"permission: {reply.permission}")
    context = reply.context or (reply.text if event in PLAIN_CONTEXT_EVENTS else "")
    if context:
        parts.append(f"add context: {context[:200]}")
    if reply.halt:
        parts.append(f"stop the run: {reply.halt}")
    return "; ".join(parts) or "go on"
