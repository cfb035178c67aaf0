"""The sub-commands (``doctor``, ``acp``, ``trust``, ``sessions``, ``hooks``) and the process edge they share with the main command.

``cli.py`` keeps the main command, whose options are Claude Code's; these are
registered on its app by ``add_subcommands``. Each imports what it runs inside
its body, so ``pseudoclaude --help`` loads none of it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from pseudoclaude.exitcodes import EXIT_USAGE
from pseudoclaude.interrupts import leave

sessions_app = typer.Typer(help="List, inspect and export saved sessions.", no_args_is_help=True)
hooks_app = typer.Typer(help="Try the hooks configured in the settings files.", no_args_is_help=True)


def add_subcommands(app: typer.Typer) -> None:
    """Register every sub-command on ``app``, in the order ``--help`` lists them."""
    app.add_typer(sessions_app, name="sessions")
    app.add_typer(hooks_app, name="hooks")
    app.command("doctor")(doctor_command)
    app.command("acp")(acp_command)
    app.command("trust")(trust_command)


def fail(message: str, code: int) -> typer.Exit:
    """Print one error line and return the exit to raise."""
    sys.stderr.write(f"pseudoclaude: {message}\n")
    sys.stderr.flush()
    return typer.Exit(code)


def working_folder() -> Path:
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


def doctor_command(
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Check this model instead of the configured one.")] = None,
    provider: Annotated[Optional[str], typer.Option("--provider", help="A provider of the table (an unknown name lists them).")] = None,
    context_window: Annotated[Optional[int], typer.Option("--context-window", min=1, help="The window you would set.")] = None,
    sandbox: Annotated[Optional[str], typer.Option("--sandbox", help="The sandbox mode you would run with: workspace-write | read-only | off.")] = None,
) -> None:
    """Check the configured provider end to end without spending tokens: one line per check, exit 1 when one fails."""
    from pseudoclaude.config import Flags
    from pseudoclaude.doctor import doctor_exit_code, run_doctor
    from pseudoclaude.textsafe import for_terminal

    checks = run_doctor(working_folder(), Flags(model=model, provider=provider, context_window=context_window, sandbox=sandbox))
    for check in checks:
        print(for_terminal(check.line()))
    raise typer.Exit(doctor_exit_code(checks))


def acp_command(
    model: Annotated[Optional[str], typer.Option("--model", "-m", help="Model name for every session.")] = None,
    provider: Annotated[
        Optional[str],
        typer.Option("--provider", help="A provider of the table (an unknown name lists them; inferred from the model and the keys when omitted)."),
    ] = None,
    permission_mode: Annotated[
        Optional[str], typer.Option("--permission-mode", help="The mode new sessions start in: default | accept-edits | plan | bypass.")
    ] = None,
    sessions_dir: Annotated[Optional[Path], typer.Option("--sessions-dir", help="Where sessions are stored.")] = None,
    trust_workspace: Annotated[
        bool, typer.Option("--trust-workspace", help="Apply the project settings of the folders the editor opens without asking.")
    ] = False,
    allow_bypass: Annotated[
        bool, typer.Option("--allow-dangerously-skip-permissions", help="Offer bypass among the editor's modes (it is never the starting mode unless asked).")
    ] = False,
    sandbox: Annotated[Optional[str], typer.Option("--sandbox", metavar="MODE", help="workspace-write (default where available) | read-only | off.")] = None,
) -> None:
    """Speak the Agent Client Protocol on stdin/stdout (Zed, JetBrains, Neovim, Emacs): docs/editors.md."""
    try:
        from pseudoclaude.acp import AcpOptions, serve_acp
    except ImportError as error:
        raise fail(f"acp needs the agent-client-protocol package ({error}): pip install agent-client-protocol", EXIT_USAGE) from None
    if permission_mode is not None:
        from pseudoclaude.config import PermissionMode

        try:
            PermissionMode.parse(permission_mode)
        except ValueError as error:
            raise fail(str(error), EXIT_USAGE) from None
    leave(serve_acp(AcpOptions(model, provider, permission_mode, sessions_dir, trust_workspace, allow_bypass, sandbox)))


def trust_command(
    forget: Annotated[bool, typer.Option("--forget", help="Forget every answer given for this folder.")] = False,
) -> None:
    """Show what this folder's project settings want, and ask again whether to trust them."""
    from pseudoclaude.commands import review_trust

    raise typer.Exit(review_trust(forget=forget))


@sessions_app.command("list")
def sessions_list(
    sessions_dir: Annotated[Optional[Path], typer.Option("--sessions-dir", help="Where sessions are stored.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON array, every field whole (for scripts).")] = False,
    every_workspace: Annotated[bool, typer.Option("--all", help="The sessions of every workspace, with the workspace of each.")] = False,
) -> None:
    """The sessions of this workspace, newest first."""
    from pseudoclaude.commands import show_session_list

    raise typer.Exit(show_session_list(sessions_dir, as_json=as_json, every_workspace=every_workspace))


@sessions_app.command("show")
def sessions_show(
    session_id: Annotated[str, typer.Argument(help="The session id (see 'sessions list').")],
    sessions_dir: Annotated[Optional[Path], typer.Option("--sessions-dir", help="Where sessions are stored.")] = None,
) -> None:
    """The transcript of one session."""
    from pseudoclaude.commands import show_session

    raise typer.Exit(show_session(session_id, sessions_dir))


@sessions_app.command("export")
def sessions_export(
    session_id: Annotated[str, typer.Argument(help="The session id (see 'sessions list').")],
    export_format: Annotated[str, typer.Option("--format", help="md (for people) or json (for programs).")] = "md",
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    sessions_dir: Annotated[Optional[Path], typer.Option("--sessions-dir", help="Where sessions are stored.")] = None,
) -> None:
    """The conversation of one session as Markdown or JSON: messages, tool calls and results, compactions."""
    from pseudoclaude.commands import export_session_file

    raise typer.Exit(export_session_file(session_id, sessions_dir, export_format=export_format, output=output))


@hooks_app.command("test")
def hooks_test(
    event: Annotated[str, typer.Argument(help="SessionStart, SessionEnd, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, PostCompact or Stop.")],
    tool: Annotated[
        str, typer.Option("--tool", help="The tool name in the sample payload of PreToolUse / PostToolUse (ours or Claude Code's).")
    ] = "run_command",
    raw_input: Annotated[
        Optional[str], typer.Option("--input", help='The payload body as JSON, e.g. \'{"tool_name": "Write", "tool_input": {"file_path": ".env"}}\'.')
    ] = None,
) -> None:
    """Run the configured hooks of EVENT with a sample payload and show what each returned."""
    from pseudoclaude.commands import test_hooks

    raise typer.Exit(test_hooks(event, tool, raw_input))
