"""The ``pseudoclaude`` command.

Errors are caught here and in the command bodies (``commands.py``, besides
the runner): one line on stderr and an exit code from ``exitcodes``. Everything heavy is imported inside
the commands so ``--version`` and ``--help`` stay fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from pseudoclaude import __version__
from pseudoclaude.exitcodes import EXIT_INTERRUPTED, EXIT_USAGE

if TYPE_CHECKING:
    from pseudoclaude.config import Settings

OUTPUT_FORMATS = ("text", "json", "stream-json")

app = typer.Typer(
    add_completion=False,
    no_args_is_help=False,
    invoke_without_command=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="PseudoClaude: a terminal coding agent that keeps long sessions sharp.",
)
sessions_app = typer.Typer(help="List and inspect saved sessions.", no_args_is_help=True)
app.add_typer(sessions_app, name="sessions")
hooks_app = typer.Typer(help="Try the hooks configured in the settings files.", no_args_is_help=True)
app.add_typer(hooks_app, name="hooks")


def _version(value: bool) -> None:
    if value:
        print(f"pseudoclaude {__version__}")
        raise typer.Exit()


def fail(message: str, code: int) -> typer.Exit:
    """Print one error line and return the exit to raise."""
    sys.stderr.write(f"pseudoclaude: {message}\n")
    sys.stderr.flush()
    return typer.Exit(code)


@app.callback()
def main_command(
    ctx: typer.Context,
    print_prompt: Annotated[
        Optional[str],
        typer.Option("--print", "-p", help="Run one task headless and print the answer; with no value (or '-') the prompt is read from stdin."),
    ] = None,
    output_format: Annotated[str, typer.Option("--output-format", help=f"{' | '.join(OUTPUT_FORMATS)} (with -p).")] = "text",
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Model name (default from PSEUDOCLAUDE_MODEL or the provider's default).")] = None,
    provider: Annotated[Optional[str], typer.Option("--provider", help="anthropic | openai (inferred when omitted).")] = None,
    max_turns: Annotated[Optional[int], typer.Option("--max-turns", help="Stop a run after this many model turns (default: no limit).", min=1)] = None,
    max_budget_usd: Annotated[
        Optional[float], typer.Option("--max-budget-usd", help="Stop a run once its estimated cost reaches this many US dollars (default: no limit).", min=0.000001)
    ] = None,
    context_window: Annotated[Optional[int], typer.Option("--context-window", help="Override the model's context window (tokens).", min=1)] = None,
    continue_latest: Annotated[bool, typer.Option("--continue", "-c", help="Continue the latest session of this workspace.")] = False,
    resume: Annotated[Optional[str], typer.Option("--resume", "-r", help="Resume the session with this id.")] = None,
    sessions_dir: Annotated[Optional[Path], typer.Option("--sessions-dir", help="Where sessions are stored.")] = None,
    permission_mode: Annotated[Optional[str], typer.Option("--permission-mode", help="default | accept-edits | plan | bypass.")] = None,
    allowed_tools: Annotated[Optional[list[str]], typer.Option("--allowed-tools", help="Allow rules such as 'run_command(git status)' (repeatable).")] = None,
    effort: Annotated[Optional[str], typer.Option("--effort", help="How hard the model thinks: low | medium | high | max (models without reasoning ignore it).")] = None,
    max_thinking_tokens: Annotated[Optional[int], typer.Option("--max-thinking-tokens", help="An explicit thinking budget in tokens (at least 1024).", min=1)] = None,
    thinking: Annotated[Optional[str], typer.Option("--thinking", help="adaptive | disabled.")] = None,
    skip_permissions: Annotated[bool, typer.Option("--dangerously-skip-permissions", help="Bypass mode: no approvals (the hard deny list and the workspace sandbox still hold).")] = False,
    trust_workspace: Annotated[bool, typer.Option("--trust-workspace", help="Apply this folder's project settings and .env base URL (hooks, allow rules, modes) for this run without asking.")] = False,
    # --- MCP servers (issue 20) ---
    mcp_config: Annotated[
        Optional[list[str]], typer.Option("--mcp-config", metavar="FILE|JSON", help="MCP servers from a JSON file or string ({\"mcpServers\": {...}}); repeatable.")
    ] = None,
    strict_mcp_config: Annotated[bool, typer.Option("--strict-mcp-config", help="Use only the MCP servers of --mcp-config (not .mcp.json or the user settings).")] = False,
    # --- end MCP servers ---
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    workspace = _working_folder()
    if ctx.invoked_subcommand is not None:
        return
    from dataclasses import replace

    from pseudoclaude.config import ConfigError, Flags, load_settings

    if output_format not in OUTPUT_FORMATS:
        raise fail(f"unknown --output-format {output_format!r}: use text, json or stream-json", EXIT_USAGE)
    mode = "bypass" if skip_permissions else permission_mode
    flags = Flags(
        model=model,
        provider=provider,
        context_window=context_window,
        sessions_dir=sessions_dir,
        permission_mode=mode,
        allowed_tools=tuple(_split_rules(allowed_tools or [])),
        max_turns=max_turns,
        max_budget_usd=max_budget_usd,
        trust_workspace=trust_workspace,
        effort=effort,
        max_thinking_tokens=max_thinking_tokens,
        thinking=thinking,
        mcp_config=tuple(mcp_config or ()),
        strict_mcp_config=strict_mcp_config,
    )
    try:
        settings = load_settings(workspace, flags)
    except ConfigError as error:
        raise fail(str(error), EXIT_USAGE) from None
    _effort_notice(settings.model, settings.effort)
    if print_prompt is None:
        from pseudoclaude.tui import run_repl, settle_workspace_trust

        try:
            settings = settle_workspace_trust(settings, lambda trust_all: load_settings(Path.cwd(), replace(flags, trust_workspace=trust_all)))
        except ConfigError as error:
            raise fail(str(error), EXIT_USAGE) from None
        raise typer.Exit(run_repl(settings, resume_id=resume, continue_latest=continue_latest))
    _trust_notices(settings)
    prompt = print_prompt
    if prompt == "-":
        prompt = "" if sys.stdin.isatty() else sys.stdin.read()
    if not prompt.strip() and not (resume or continue_latest):
        raise fail("no prompt given: pass it after -p or pipe it on stdin", EXIT_USAGE)
    from pseudoclaude.commands import run_print

    raise typer.Exit(run_print(settings, prompt, output_format, resume_id=resume, continue_latest=continue_latest))


def _working_folder() -> Path:
    """The current folder, checked: a deleted or unreadable one is one line and exit 2, not a traceback."""
    try:
        workspace = Path.cwd()
    except OSError:
        where = os.environ.get("PWD") or "the current folder"
        raise fail(f"the working folder {where} no longer exists (deleted or moved): cd to an existing folder and run again", EXIT_USAGE) from None
    try:
        with os.scandir(workspace) as entries:
            next(entries, None)
    except OSError as error:
        reason = error.strerror or str(error)
        raise fail(f"the working folder {workspace} cannot be read ({reason}): cd to a folder you can read and run again", EXIT_USAGE) from None
    return workspace


def _trust_notices(settings: "Settings") -> None:
    """Headless runs never ask: what the untrusted project wanted is left out, in one line each on stderr."""
    ignored = settings.trust.ignored_notice()
    for line in (*settings.trust.notices, *([ignored] if ignored else [])):
        sys.stderr.write(f"pseudoclaude: {line}\n")
    sys.stderr.flush()


@app.command("trust")
def trust_command(
    forget: Annotated[bool, typer.Option("--forget", help="Forget every answer given for this folder.")] = False,
) -> None:
    """Show what this folder's project settings want, and ask again whether to trust them."""
    from pseudoclaude.commands import review_trust

    raise typer.Exit(review_trust(forget=forget))


def _effort_notice(model: str, effort: str | None) -> None:
    """One line on stderr when the model does not take the effort setting (it is dropped, never a 400)."""
    from pseudoclaude.llm import effort_notice

    notice = effort_notice(model, effort)
    if notice:
        sys.stderr.write(f"pseudoclaude: {notice}\n")


def _split_rules(values: list[str]) -> list[str]:
    """``--allowed-tools "read_file,run_command(git status)"``: split on commas outside parentheses."""
    rules: list[str] = []
    for value in values:
        depth, current = 0, ""
        for char in value:
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == "," and depth == 0:
                rules.append(current.strip())
                current = ""
            else:
                current += char
        rules.append(current.strip())
    return [rule for rule in rules if rule]


@sessions_app.command("list")
def sessions_list(
    sessions_dir: Annotated[Optional[Path], typer.Option("--sessions-dir", help="Where sessions are stored.")] = None,
) -> None:
    """The sessions of this workspace, newest first."""
    from pseudoclaude.commands import show_session_list

    raise typer.Exit(show_session_list(sessions_dir))


@sessions_app.command("show")
def sessions_show(
    session_id: Annotated[str, typer.Argument(help="The session id (see 'sessions list').")],
    sessions_dir: Annotated[Optional[Path], typer.Option("--sessions-dir", help="Where sessions are stored.")] = None,
) -> None:
    """The transcript of one session."""
    from pseudoclaude.commands import show_session

    raise typer.Exit(show_session(session_id, sessions_dir))


@hooks_app.command("test")
def hooks_test(
    event: Annotated[str, typer.Argument(help="SessionStart, SessionEnd, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, PostCompact or Stop.")],
    tool: Annotated[str, typer.Option("--tool", help="The tool name in the sample payload of PreToolUse / PostToolUse.")] = "run_command",
) -> None:
    """Run the configured hooks of EVENT with a sample payload and show what each returned."""
    from pseudoclaude.commands import test_hooks

    raise typer.Exit(test_hooks(event, tool))


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


def main() -> None:
    try:
        app(args=_optional_prompt_value(sys.argv[1:]), prog_name="pseudoclaude")
    except KeyboardInterrupt:
        sys.stderr.write("pseudoclaude: interrupted\n")
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
