"""The ``pseudoclaude`` command.

Errors are caught here and in the command bodies (``commands.py``, besides
the runner): one line on stderr and an exit code from ``exitcodes``. Everything heavy is imported inside
the commands so ``--version`` and ``--help`` stay fast.
"""

from __future__ import annotations

import atexit
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from pseudoclaude import __version__
from pseudoclaude.exitcodes import EXIT_USAGE
from pseudoclaude.interrupts import leave
from pseudoclaude.subcommands import working_folder, add_subcommands, fail

if TYPE_CHECKING:
    from pseudoclaude.config import Flags, Settings
    from pseudoclaude.agent import PromptChoice
    from pseudoclaude.llm import Image

OUTPUT_FORMATS = ("text", "json", "stream-json", "events")

app = typer.Typer(
    add_completion=True,  # --install-completion / --show-completion: typer's, free at start-up (typer.main imports its completion anyway)
    no_args_is_help=False,
    invoke_without_command=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="PseudoClaude: a terminal coding agent that keeps long sessions sharp.",
)
add_subcommands(app)


def _model_ids(incomplete: str) -> list[str]:
    """``--model``'s shell completion: the table's ids ``/model`` offers, by prefix (imported only when the shell asks)."""
    from pseudoclaude.llm import table_model_ids

    return [model for model in table_model_ids() if model.startswith(incomplete)]


def _version(value: bool) -> None:
    if value:
        print(f"pseudoclaude {__version__}")
        raise typer.Exit()


@app.callback()
def main_command(
    ctx: typer.Context,
    print_prompt: Annotated[
        Optional[str],
        typer.Option("--print", "-p", help="Run one task headless and print the answer; with no value (or '-') the prompt is read from stdin."),
    ] = None,
    output_format: Annotated[str, typer.Option("--output-format", help=f"{' | '.join(OUTPUT_FORMATS)} (with -p).")] = "text",
    model: Annotated[
        Optional[str],
        typer.Option("--model", "-m", help="Model name (default from PSEUDOCLAUDE_MODEL or the provider's default).", autocompletion=_model_ids),
    ] = None,
    provider: Annotated[
        Optional[str],
        typer.Option("--provider", help="A provider of the table (an unknown name lists them; inferred from the model and the keys when omitted)."),
    ] = None,
    max_turns: Annotated[Optional[int], typer.Option("--max-turns", help="Stop a run after this many model turns (default: no limit).", min=1)] = None,
    max_budget_usd: Annotated[
        Optional[float],
        typer.Option("--max-budget-usd", help="Stop a run once its estimated cost reaches this many US dollars (default: no limit).", min=0.000001),
    ] = None,
    context_window: Annotated[Optional[int], typer.Option("--context-window", help="Override the model's context window (tokens).", min=1)] = None,
    context_engine: Annotated[
        Optional[str], typer.Option("--context-engine", help="pipeline | native (the provider's own compaction where the model takes it) | auto.")
    ] = None,
    continue_latest: Annotated[bool, typer.Option("--continue", "-c", help="Continue the latest session of this workspace.")] = False,
    resume: Annotated[Optional[str], typer.Option("--resume", "-r", help="Resume the session with this id.")] = None,
    sessions_dir: Annotated[Optional[Path], typer.Option("--sessions-dir", help="Where sessions are stored.")] = None,
    permission_mode: Annotated[Optional[str], typer.Option("--permission-mode", help="default | accept-edits | plan | bypass.")] = None,
    allowed_tools: Annotated[
        Optional[list[str]],
        typer.Option(
            "--allowed-tools",
            "--allowedTools",
            help="Allow rules such as 'Bash(git status)' or 'run_command(git status)', comma- or space-separated (repeatable).",
        ),
    ] = None,
    effort: Annotated[
        Optional[str], typer.Option("--effort", help="How hard the model thinks: low | medium | high | max (models without reasoning ignore it).")
    ] = None,
    max_thinking_tokens: Annotated[
        Optional[int], typer.Option("--max-thinking-tokens", help="An explicit thinking budget in tokens (at least 1024).", min=1)
    ] = None,
    thinking: Annotated[Optional[str], typer.Option("--thinking", help="adaptive | disabled.")] = None,
    skip_permissions: Annotated[
        bool, typer.Option("--dangerously-skip-permissions", help="Bypass mode: no approvals (the hard deny list and the workspace sandbox still hold).")
    ] = False,
    allow_bypass: Annotated[
        bool,
        typer.Option("--allow-dangerously-skip-permissions", help="Let set_permission_mode switch to bypass later (stream-json); changes nothing by itself."),
    ] = False,
    replay_user_messages: Annotated[
        bool, typer.Option("--replay-user-messages", help="stream-json: echo each user message read from stdin when its run starts.")
    ] = False,
    sandbox: Annotated[
        Optional[str],
        typer.Option("--sandbox", metavar="MODE", help="The OS sandbox of the model's commands: workspace-write (default where available) | read-only | off."),
    ] = None,
    trust_workspace: Annotated[
        bool,
        typer.Option(
            "--trust-workspace", help="Apply this folder's project settings and .env base URL (hooks, allow rules, modes) for this run without asking."
        ),
    ] = False,
    # --- MCP servers (issue 20) ---
    mcp_config: Annotated[
        Optional[list[str]],
        typer.Option("--mcp-config", metavar="FILE|JSON", help='MCP servers from a JSON file or string ({"mcpServers": {...}}); repeatable.'),
    ] = None,
    strict_mcp_config: Annotated[
        bool, typer.Option("--strict-mcp-config", help="Use only the MCP servers of --mcp-config (not .mcp.json or the user settings).")
    ] = False,
    # --- end MCP servers ---
    image: Annotated[
        Optional[list[str]],
        typer.Option("--image", "-i", metavar="FILE", help="With -p: attach this image (PNG, JPEG, GIF, WebP) to the prompt; repeatable, or comma-separated."),
    ] = None,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
    # --- Claude Code's headless flags, with its meanings (headless/flags.py, docs/headless.md) ---
    disallowed_tools: Annotated[
        Optional[list[str]], typer.Option("--disallowed-tools", "--disallowedTools", help="Deny rules, e.g. 'Bash(rm:*) Write' (repeatable).")
    ] = None,
    tools: Annotated[Optional[str], typer.Option("--tools", help="Only these tools ('' none, 'default' all), e.g. 'Read,Grep'.")] = None,
    input_format: Annotated[
        str, typer.Option("--input-format", help="text | stream-json (prompts and control requests as JSON lines on stdin; needs --output-format stream-json).")
    ] = "text",
    include_partial: Annotated[bool, typer.Option("--include-partial-messages", help="stream-json: also print partial text as stream_event lines.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="Accepted for Claude Code compatibility (stream-json always prints every message).")] = False,
    system_prompt: Annotated[Optional[str], typer.Option("--system-prompt", help="Replace the system prompt (empty: keep ours).")] = None,
    system_prompt_file: Annotated[Optional[Path], typer.Option("--system-prompt-file", help="Replace the system prompt with this file's text.")] = None,
    append_system_prompt: Annotated[Optional[str], typer.Option("--append-system-prompt", help="Text appended to the system prompt.")] = None,
    permission_prompt_tool: Annotated[
        Optional[str], typer.Option("--permission-prompt-tool", help="'stdio': ask the Agent SDK's can_use_tool callback (with --input-format stream-json).")
    ] = None,
    settings_value: Annotated[Optional[str], typer.Option("--settings", help="Extra settings: JSON text or a JSON file (strongest layer).")] = None,
    setting_sources: Annotated[Optional[str], typer.Option("--setting-sources", hidden=True)] = None,
    add_dir: Annotated[Optional[list[str]], typer.Option("--add-dir", hidden=True)] = None,
    session_id: Annotated[Optional[str], typer.Option("--session-id", help="A UUID to name the new session (or the fork) instead of a time-based id.")] = None,
    fork_session: Annotated[
        bool, typer.Option("--fork-session", help="With --resume/--continue: go on in a copy of that session, leaving it as it was.")
    ] = False,
    include_hook_events: Annotated[bool, typer.Option("--include-hook-events", hidden=True)] = False,
    fallback_model: Annotated[Optional[str], typer.Option("--fallback-model", hidden=True)] = None,
    agents: Annotated[
        Optional[str],
        typer.Option("--agents", metavar="JSON", help='Sub-agent types for the task tool: {"name": {"description", "prompt", "tools", "model"}}.'),
    ] = None,
    json_schema: Annotated[
        Optional[str],
        typer.Option(
            "--json-schema", metavar="JSON", help="With -p: the run must end with structured output matching this JSON schema (the result's structured_output)."
        ),
    ] = None,
    # --- Agent SDK options we refuse, each with its reason (headless/flags.REFUSED) ---
    task_budget: Annotated[Optional[str], typer.Option("--task-budget", hidden=True)] = None,
    betas: Annotated[Optional[str], typer.Option("--betas", hidden=True)] = None,
    resume_session_at: Annotated[Optional[str], typer.Option("--resume-session-at", hidden=True)] = None,
    resume_drops_turn: Annotated[Optional[str], typer.Option("--resume-drops-turn", hidden=True)] = None,
    session_mirror: Annotated[bool, typer.Option("--session-mirror", hidden=True)] = False,
    plugin_dir: Annotated[Optional[list[str]], typer.Option("--plugin-dir", hidden=True)] = None,
    thinking_display: Annotated[Optional[str], typer.Option("--thinking-display", hidden=True)] = None,
    agent_name: Annotated[Optional[str], typer.Option("--agent", hidden=True)] = None,
    assistant: Annotated[bool, typer.Option("--assistant", hidden=True)] = False,
    proactive: Annotated[bool, typer.Option("--proactive", hidden=True)] = False,
    # --- accepted: diagnostics, and a run that leaves no session behind ---
    debug: Annotated[bool, typer.Option("--debug", hidden=True)] = False,
    debug_file: Annotated[Optional[Path], typer.Option("--debug-file", hidden=True)] = None,
    debug_to_stderr: Annotated[bool, typer.Option("--debug-to-stderr", hidden=True)] = False,
    no_session_persistence: Annotated[
        bool, typer.Option("--no-session-persistence", help="Keep this run's session in a temporary folder, removed when the run ends (it cannot be resumed).")
    ] = False,
) -> None:
    workspace = working_folder()
    if ctx.invoked_subcommand is not None:
        return
    from dataclasses import replace

    from pseudoclaude.config import ConfigError, Flags, NoProviderConfigured, load_settings

    if output_format not in OUTPUT_FORMATS:
        raise fail(f"unknown --output-format {output_format!r}: use text, json, stream-json or events", EXIT_USAGE)
    from pseudoclaude.headless import ClaudeFlags, split_tool_rules, with_claude_flags

    from pseudoclaude.headless import agents_value, refused_flag

    resuming = bool(resume or continue_latest)
    problem = _unsupported(input_format, output_format, permission_prompt_tool, session_id, fork_session, resuming) or refused_flag(
        {
            "--task-budget": task_budget,
            "--betas": betas,
            "--resume-session-at": resume_session_at,
            "--resume-drops-turn": resume_drops_turn,
            "--session-mirror": session_mirror,
            "--plugin-dir": plugin_dir,
            "--thinking-display": thinking_display,
            "--agent": agent_name,
            "--assistant": assistant,
            "--proactive": proactive,
        }
    )
    if problem:
        _error_result(output_format, problem)
        raise fail(problem, EXIT_USAGE)
    if fallback_model:
        sys.stderr.write(f"pseudoclaude: warning: --fallback-model {fallback_model!r} is not used: a failing model call is retried, then reported\n")
    if debug or debug_file or debug_to_stderr:
        sys.stderr.write("pseudoclaude: note: --debug writes no separate log here; --output-format events prints every event of the run\n")
    if no_session_persistence:
        sessions_dir = _throwaway_sessions_dir()
    mode = "bypass" if skip_permissions else permission_mode
    flags = Flags(
        model=model,
        provider=provider,
        context_window=context_window,
        context_engine=context_engine,
        sessions_dir=sessions_dir,
        permission_mode=mode,
        allowed_tools=tuple(split_tool_rules(allowed_tools or [])),
        max_turns=max_turns,
        max_budget_usd=max_budget_usd,
        trust_workspace=trust_workspace,
        effort=effort,
        max_thinking_tokens=max_thinking_tokens,
        thinking=thinking,
        mcp_config=tuple(mcp_config or ()),
        strict_mcp_config=strict_mcp_config,
        sandbox=sandbox,
        setting_sources=setting_sources,
    )
    claude = ClaudeFlags(tuple(disallowed_tools or ()), tools, settings_value, tuple(mcp_config or ()), setting_sources, tuple(add_dir or ()))
    try:
        try:
            loaded = load_settings(workspace, flags)
        except NoProviderConfigured as missing:
            flags = _local_server(str(missing), flags, headless=print_prompt is not None or not sys.stdin.isatty())
            loaded = load_settings(workspace, flags)
        settings, warnings = with_claude_flags(loaded, claude)
        prompt_choice = _prompt_choice(system_prompt, system_prompt_file, append_system_prompt)
        agent_types = agents_value(agents)
        schema = _json_schema(json_schema)
    except ConfigError as error:
        _error_result(output_format, str(error))
        raise fail(str(error), EXIT_USAGE) from None
    _effort_notice(settings.model, settings.effort, settings.base_url, settings.openai_api)
    for warning in warnings:
        sys.stderr.write(f"pseudoclaude: warning: {warning}\n")
    if print_prompt is None and input_format == "stream-json":
        print_prompt = ""
    if replay_user_messages and input_format != "stream-json":
        raise fail("--replay-user-messages needs --input-format stream-json and --output-format stream-json", EXIT_USAGE)
    if print_prompt is None and (fork_session or session_id):
        raise fail("--fork-session and --session-id work with -p (headless); in the REPL, resume the session itself", EXIT_USAGE)
    if schema is not None and output_format not in ("json", "stream-json"):
        raise fail("--json-schema needs --output-format json or stream-json: the result object carries structured_output", EXIT_USAGE)
    if print_prompt is None and (agent_types or schema is not None):
        raise fail("--agents and --json-schema work with -p (headless); in the REPL, put agents in .claude/agents/", EXIT_USAGE)
    if print_prompt is None and image:
        raise fail("--image works with -p; in the REPL, type @file or paste the image's path into the message", EXIT_USAGE)
    if print_prompt is None:
        from pseudoclaude.tui import run_repl, settle_workspace_trust

        try:
            settings = settle_workspace_trust(
                settings, lambda trust_all: with_claude_flags(load_settings(Path.cwd(), replace(flags, trust_workspace=trust_all)), claude)[0]
            )
        except ConfigError as error:
            raise fail(str(error), EXIT_USAGE) from None
        leave(run_repl(settings, resume_id=resume, continue_latest=continue_latest, prompt=prompt_choice))
    _trust_notices(settings)
    prompt = print_prompt
    if prompt == "-" and input_format != "stream-json":
        prompt = "" if sys.stdin.isatty() else sys.stdin.read()
    if input_format != "stream-json" and not prompt.strip() and not (resume or continue_latest):
        _error_result(output_format, "no prompt given")
        raise fail("no prompt given: pass it after -p or pipe it on stdin", EXIT_USAGE)
    from pseudoclaude.commands import run_print
    from pseudoclaude.headless import HeadlessOptions

    options = HeadlessOptions(
        input_format,
        include_partial,
        permission_prompt_tool,
        prompt_choice,
        fork_session,
        session_id.lower() if session_id else None,
        _images(image or [], input_format, prompt, output_format, settings.model),
        schema,
        agent_types,
    )
    options = replace(options, replay_user_messages=replay_user_messages, allow_bypass=allow_bypass)
    leave(run_print(settings, prompt, output_format, resume_id=resume, continue_latest=continue_latest, options=options))


def _images(values: list[str], input_format: str, prompt: str, output_format: str, model: str) -> "tuple[Image, ...]":
    """``-i`` files, checked and fitted before any request: one that cannot be sent is one line and exit 2."""
    from pseudoclaude.imaging import ImageError
    from pseudoclaude.tui import load_image_options, vision_notice

    if not values:
        return ()
    if input_format == "stream-json":
        raise fail("--image does not apply to --input-format stream-json: send image blocks in the user messages", EXIT_USAGE)
    if not prompt.strip() or prompt.strip().startswith("/compact"):
        raise fail("--image needs a prompt to attach the images to (not /compact, not an empty resume)", EXIT_USAGE)
    paths = [part for value in values for part in ([value] if os.path.exists(value) else value.split(",")) if part]
    try:
        images = load_image_options(paths)
    except ImageError as error:
        _error_result(output_format, f"--image {error}")
        raise fail(f"--image {error}", EXIT_USAGE) from None
    if notice := vision_notice(model):
        sys.stderr.write(f"pseudoclaude: warning: {notice}\n")
    return images


def _local_server(message: str, flags: "Flags", *, headless: bool) -> "Flags":
    """Nothing configured: the flags that use a local server the user accepts (``ConfigError`` otherwise)."""
    from dataclasses import replace

    from pseudoclaude.first_run import choose_local_server

    def ask(question: str) -> str:
        sys.stderr.write(question)
        sys.stderr.flush()
        return sys.stdin.readline()

    choice = choose_local_server(message, None if headless else ask)
    os.environ["OPENAI_BASE_URL"] = choice.base_url
    return replace(flags, provider="openai", model=flags.model or choice.model)


def _trust_notices(settings: "Settings") -> None:
    """Headless runs never ask: what the untrusted project wanted is left out, in one line each on stderr."""
    ignored = settings.trust.ignored_notice()
    for line in (*settings.trust.notices, *([ignored] if ignored else [])):
        sys.stderr.write(f"pseudoclaude: {line}\n")
    sys.stderr.flush()


def _effort_notice(model: str, effort: str | None, base_url: str | None = None, api: str = "auto") -> None:
    """One line on stderr when the route does not carry the effort as set (dropped or lowered, never a 400)."""
    from pseudoclaude.llm import effort_notice, unknown_model_notice

    unknown = unknown_model_notice(model)
    if unknown:
        sys.stderr.write(f"pseudoclaude: warning: {unknown}\n")
    notice = effort_notice(model, effort, base_url=base_url, api=api)
    if notice:
        sys.stderr.write(f"pseudoclaude: {notice}\n")


# --- Claude Code compatibility helpers (headless/flags.py holds the mapping) ---


def _unsupported(input_format: str, output_format: str, prompt_tool: str | None, session_id: str | None, fork: bool, resuming: bool) -> str | None:
    """Why this combination of Claude Code flags cannot run, or None."""
    if input_format not in ("text", "stream-json"):
        return f"unknown --input-format {input_format!r}: use text or stream-json"
    if input_format == "stream-json" and output_format != "stream-json":
        return "--input-format stream-json needs --output-format stream-json"
    if prompt_tool is not None and (prompt_tool != "stdio" or input_format != "stream-json"):
        return "--permission-prompt-tool: only 'stdio' with --input-format stream-json is supported (MCP permission tools are not)"
    if fork and not resuming:
        return "--fork-session needs --resume ID or --continue: it copies that session"
    if session_id is not None and resuming and not fork:
        return "--session-id names a new session: with --resume or --continue it needs --fork-session"
    if session_id is not None and not re.fullmatch(r"[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}", session_id):
        return f"--session-id must be a UUID, not {session_id!r}"
    return None


def _prompt_choice(system_prompt: str | None, system_prompt_file: Path | None, append: str | None) -> PromptChoice:
    from pseudoclaude.agent import PromptChoice
    from pseudoclaude.config import ConfigError

    if system_prompt_file is not None:
        try:
            system_prompt = system_prompt_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"--system-prompt-file: cannot read {system_prompt_file}: {error}") from None
    return PromptChoice(system_prompt or None, append or None)


def _json_schema(value: str | None) -> "dict[str, object] | None":
    """``--json-schema``, checked as a JSON schema (``ConfigError`` when it is not one)."""
    from pseudoclaude.config import ConfigError
    from pseudoclaude.tools import SchemaProblem, checked_schema

    if value is None:
        return None
    try:
        return checked_schema(value)
    except SchemaProblem as problem:
        raise ConfigError(str(problem)) from None


def _error_result(output_format: str, message: str) -> None:
    """A configuration error as Claude Code's result object, for a reader that waits for one."""
    if output_format in ("json", "stream-json"):
        from pseudoclaude.headless import error_result, json_line_writer

        json_line_writer(sys.stdout)(error_result(message))
        sys.stdout.flush()


_PROMPT_OPTIONS = ("-p", "--print")


def _optional_prompt_value(argv: list[str]) -> list[str]:
    """``-p`` with no value (last, or followed by another option) means: read the prompt from stdin."""
    out: list[str] = []
    for index, arg in enumerate(argv):
        out.append(arg)
        if arg in _PROMPT_OPTIONS:
            following = argv[index + 1] if index + 1 < len(argv) else None
            if following is None or (following.startswith("-") and following != "-"):
                out.append("-")
    return out


def _empty_flag_values(argv: list[str]) -> list[str]:
    """The Agent SDK passes its ``extraArgs`` as ``--name ""``: the empty value of a switch is dropped, not read as a command."""
    return [arg for index, arg in enumerate(argv) if not (arg == "" and index > 0 and argv[index - 1] in _SWITCHES_WITH_EMPTY_VALUE)]


_SWITCHES_WITH_EMPTY_VALUE = ("--replay-user-messages", "--allow-dangerously-skip-permissions")


def _throwaway_sessions_dir() -> Path:
    """``--no-session-persistence``: the session is still written as it goes (the run needs its spill files), but in
    a temporary folder that ``leave``'s exit handlers remove, so nothing of the run stays behind to resume."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="pseudoclaude-session-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def main() -> None:
    """The typer app on this process's arguments; ``__main__`` owns the signals (``interrupts``)."""
    app(args=_optional_prompt_value(_empty_flag_values(sys.argv[1:])), prog_name="pseudoclaude")


if __name__ == "__main__":
    main()
